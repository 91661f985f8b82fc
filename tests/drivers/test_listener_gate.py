"""A restarted broker binds its port at once but serves clients only once unfenced (Kafka's gate)."""

import pytest

from minikafka import Cluster
from minikafka.server.broker_lifecycle_manager import BrokerState


@pytest.mark.live
def test_restarted_broker_serves_clients_only_after_its_first_unfencing():
    cluster = Cluster(brokers=2, controllers=1, seed=3).start()
    try:
        assert all(listener.serving for listener in cluster.listeners.values())
        cluster.kill_broker(2)
        seq = cluster.events.last_seq
        cluster.restart_broker(2)

        def gate():
            node = cluster.processes.node(2)
            return cluster.listeners[2].serving, node.broker.lifecycle.state
        serving, state = cluster.driver.submit(gate)
        assert not serving and state is not BrokerState.RUNNING
        assert cluster.wait_until(lambda: cluster.listeners[2].serving, 10_000)
        started = [e for e in cluster.events.since(seq) if e.kind == "broker_started"]
        assert [e.node for e in started] == [2]
        assert cluster.driver.submit(gate)[1] is BrokerState.RUNNING
    finally:
        cluster.stop()
