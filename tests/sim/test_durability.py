"""No acknowledged acks=all write is lost with RF 3 and min.insync.replicas=2 under any single failure.

A producer appends continuously (every 20 ms of virtual time, round robin over
three partitions, to whichever broker the controller names as leader) while
seeded single faults hit brokers and controllers: crashes with restarts,
pauses, network isolation.  Every invariant is checked after every step.  At
the end, once the cluster has healed, every record that was acknowledged
must be in every replica's log at the offset it was acknowledged with, and
the replicas must agree byte for byte below the high watermark.
"""

import random

import pytest

from minikafka import Cluster
from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.drivers.cluster_runtime import NodeState
from minikafka.record.memory_records import SimpleRecord, build_batch, decode_records
from tests.sim.invariants import InvariantChecker
from tests.sim.test_fault_scenarios import _converged

PARTITIONS = [TopicPartition("orders", p) for p in range(3)]


class AcksAllProducer:
    """Appends one record per tick to the current leader; remembers what was acknowledged."""

    def __init__(self, cluster: Cluster, interval_ms: int = 20):
        self.cluster = cluster
        self.interval_ms = interval_ms
        self.sent = 0
        # every acknowledgement, in order: an offset acknowledged twice with different
        # values means the first acknowledged record was lost and its offset reused
        self.acked: dict[TopicPartition, list[tuple[int, bytes]]] = {tp: [] for tp in PARTITIONS}
        self.errors: dict[Errors, int] = {}
        self.running = True

    def start(self) -> None:
        self.cluster.driver._at(self.cluster.driver.now() + self.interval_ms, self.tick)

    def tick(self) -> None:
        if not self.running:
            return
        tp = PARTITIONS[self.sent % len(PARTITIONS)]
        value = f"record-{self.sent}".encode()
        self.sent += 1
        leader = self.cluster.processes.cluster_image().partition("orders", tp.partition).leader
        if leader >= 0 and self.cluster.processes.state(leader) is NodeState.RUNNING:
            batch = build_batch([SimpleRecord(value=value)])

            def acked(results, tp=tp, value=value):
                result = results[tp]
                if result.error is Errors.NONE:
                    self.acked[tp].append((result.base_offset, value))
                else:
                    self.errors[result.error] = self.errors.get(result.error, 0) + 1
            self.cluster.driver.invoke(leader, lambda node: node.broker.replica_manager.append_records(
                -1, 2000, {tp: batch}, acked))
        self.cluster.driver._at(self.cluster.driver.now() + self.interval_ms, self.tick)


def _fault(cluster: Cluster, rng: random.Random, check) -> None:
    node = rng.choice(cluster.broker_ids + cluster.controller_ids)
    kind = rng.choice(("kill", "pause", "isolate"))
    if kind == "kill":
        cluster.kill(node)
        cluster.run_for(rng.randrange(1000, 5000), check)
        cluster.restart(node)
    elif kind == "pause":
        cluster.pause(node)
        cluster.run_for(rng.randrange(1000, 5000), check)
        cluster.resume(node)
    else:
        cluster.isolate(node)
        cluster.run_for(rng.randrange(1000, 5000), check)
        cluster.heal()


def _replica_contents(cluster: Cluster, broker: int, tp: TopicPartition) -> dict[int, bytes]:
    log = cluster.processes.node(broker).broker.log_manager.get_log(tp)
    data = bytes(log.read(log.log_start_offset, 1 << 26).records)
    return {r.offset: r.value for r in decode_records(data)}


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed-{s}") for s in range(6)])
def test_acknowledged_writes_survive_single_failures(seed):
    rng = random.Random(seed)
    cluster = Cluster(brokers=3, controllers=3, seed=100 + seed, simulated=True).start()
    check = InvariantChecker(cluster)
    try:
        cluster.create_topic("orders", partitions=3, replication_factor=3,
                             config={"min.insync.replicas": "2"})
        producer = AcksAllProducer(cluster)
        producer.start()
        for _ in range(3):
            _fault(cluster, rng, check)
            cluster.run_for(rng.randrange(500, 2000), check)
        producer.running = False
        assert cluster.wait_until(lambda: _converged(cluster), 30_000)
        cluster.run_for(2000, check)
        acknowledged = sum(len(v) for v in producer.acked.values())
        assert acknowledged > 100, (producer.sent, producer.errors)
        for tp in PARTITIONS:
            registration = cluster.processes.cluster_image().partition("orders", tp.partition)
            contents = {b: _replica_contents(cluster, b, tp) for b in registration.replicas}
            for broker, records in contents.items():
                missing = [(o, v) for o, v in producer.acked[tp] if records.get(o) != v]
                assert not missing, f"{tp} on broker {broker} lost acknowledged records {missing[:5]}"
            reference = contents[registration.leader]
            for broker, records in contents.items():
                assert records == reference, f"{tp}: broker {broker} differs from the leader"
    finally:
        cluster.stop()
