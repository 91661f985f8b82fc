"""The drivers route messages, run timers and inject faults the same way."""

import random

import pytest

from minikafka.drivers.live import LiveDriver
from minikafka.drivers.cluster_runtime import ConnectionRefused
from minikafka.drivers.simulated import SimulatedDriver
from minikafka.runtime.events import EventLog
from minikafka.runtime.node import Node, RequestTimedOut


class Ping(Node):
    """Sends a ping to its peer every 100 ms and counts the answers."""

    def __init__(self, node_id, peer):
        super().__init__(node_id, random.Random(node_id))
        self.peer = peer
        self.answers = []
        self.failures = []
        self.pings_seen = 0

    def on_start(self):
        self.schedule(("ping",), self.now + 100, self.ping)

    def ping(self):
        self.send_request(self.peer, "ping", self.on_answer, timeout_ms=50)
        self.schedule(("ping",), self.now + 100, self.ping)

    def on_answer(self, body):
        (self.failures if isinstance(body, RequestTimedOut) else self.answers).append(self.now)

    def on_request(self, envelope):
        self.pings_seen += 1
        self.reply(envelope, "pong")


def sim_pair():
    events = EventLog()
    nodes = {}

    def factory(node_id, incarnation, now):
        nodes[node_id] = Ping(node_id, 2 if node_id == 1 else 1)
        return nodes[node_id]
    driver = SimulatedDriver(factory, events, base_latency_ms=5)
    driver.add_node(1, ("broker",))
    driver.add_node(2, ("broker",))
    driver.start(1)
    driver.start(2)
    return driver, nodes, events


def test_messages_take_the_network_latency():
    driver, nodes, _ = sim_pair()
    driver.run_for(150)
    first = nodes[1].answers[0]
    assert first == driver.handles[1].node.answers[0]
    # ping sent at start+100, pong back after two 5 ms hops
    assert first - 1767225600000 == 110


def test_isolation_times_out_and_heal_recovers():
    driver, nodes, _ = sim_pair()
    driver.run_for(250)
    answered = len(nodes[1].answers)
    driver.network.isolate([{1}])
    driver.run_for(500)
    assert len(nodes[1].answers) == answered
    assert len(nodes[1].failures) >= 4
    driver.network.heal()
    driver.run_for(300)
    assert len(nodes[1].answers) > answered


def test_dead_peer_refuses_fast():
    driver, nodes, events = sim_pair()
    driver.kill(2)
    driver.run_for(110)
    failed_at = nodes[1].failures[0] - 1767225600000
    assert failed_at == 105          # one hop to learn the connection was refused, not 50 ms
    assert [e.kind for e in events][-1] == "node_killed"


def test_paused_node_answers_late_after_resume():
    driver, nodes, _ = sim_pair()
    driver.pause(2)
    driver.run_for(400)
    assert nodes[2].pings_seen == 0
    driver.resume(2)
    assert nodes[2].pings_seen >= 3  # the queued pings are processed on resume


def test_restart_drops_messages_for_the_old_incarnation():
    driver, nodes, _ = sim_pair()
    driver.run_for(102)               # a ping to 2 is in flight
    old = nodes[2]
    driver.kill(2)
    driver.start(2)
    driver.run_for(5)
    assert old.pings_seen == 0 and nodes[2].pings_seen == 0


def test_same_seed_same_history():
    def history():
        driver, nodes, events = sim_pair()
        driver.network.extra_latency[2] = 7
        driver.run_for(1000)
        return nodes[1].answers, driver.steps
    assert history() == history()


def test_sim_client_request_and_refusal():
    driver, nodes, _ = sim_pair()
    assert driver.request("admin", 2, "ping", timeout_ms=100) == "pong"
    driver.kill(2)
    assert isinstance(driver.request("admin", 2, "ping", timeout_ms=100), ConnectionRefused)


@pytest.mark.live
def test_live_driver_runs_the_same_node_code():
    events = EventLog()
    nodes = {}

    def factory(node_id, incarnation, now):
        nodes[node_id] = Ping(node_id, 2 if node_id == 1 else 1)
        return nodes[node_id]
    driver = LiveDriver(factory, events)
    try:
        driver.submit(lambda: (driver.add_node(1, ("broker",)), driver.add_node(2, ("broker",)),
                               driver.start(1), driver.start(2)))
        assert driver.run_until(lambda: len(nodes[1].answers) >= 3, timeout_ms=5000)
        assert driver.request("admin", 2, "ping", timeout_ms=1000) == "pong"
        driver.submit(lambda: driver.kill(2))
        assert isinstance(driver.request("admin", 2, "ping", timeout_ms=1000), ConnectionRefused)
    finally:
        driver.close()
