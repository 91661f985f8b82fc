"""Eligible leader replicas (KIP-966) on a simulated cluster, one rule per scenario, invariants at every step.

Topic ``fo`` on replicas 1,2,3 with ``min.insync.replicas=2`` on a cluster
formatted with ``eligible.leader.replicas.version=1`` (as every new Kafka 4.1+
cluster is).  ``kafka-topics --describe`` lines are compared whole.
"""

import pytest

from minikafka import Cluster, TopicPartition
from minikafka.common.errors import Errors
from tests.server.test_replica_manager import batch
from tests.sim.invariants import InvariantChecker

TP = TopicPartition("fo", 0)
ELR = {"eligible.leader.replicas.version": 1}
NO_ELR = {"eligible.leader.replicas.version": 0}
LINE = "\tTopic: fo\tPartition: 0\tLeader: {}\tReplicas: 1,2,3\tIsr: {}\tElr: {}\tLastKnownElr: {}"


def make(features=ELR, seed=13):
    cluster = Cluster(brokers=3, controllers=1, seed=seed, simulated=True, features=features).start()
    cluster.create_topic("fo", replica_assignment={0: [1, 2, 3]}, config={"min.insync.replicas": 2})
    return cluster, InvariantChecker(cluster)


@pytest.fixture
def elr():
    cluster, check = make()
    yield cluster, check
    cluster.stop()


def line(cluster) -> str:
    return cluster.describe_topic("fo").splitlines()[1]


def wait(cluster, check, condition, ms=60_000):
    def checked():
        check()
        return condition()
    assert cluster.wait_until(checked, ms)


def partition(cluster):
    return cluster.snapshot().topic("fo").partitions[0]


def produce(cluster, broker, acks, *values):
    box = []
    cluster.driver.invoke(broker, lambda node: node.broker.replica_manager.append_records(
        acks, 5000, {TP: batch(*values)}, box.append))
    assert cluster.wait_until(lambda: bool(box), 5100)
    return box[0][TP]


def log_of(cluster, broker):
    return cluster.processes.node(broker).broker.replica_manager.partitions[TP].log


def test_the_isr_shrinking_below_min_isr_moves_replicas_into_the_elr_and_holds_the_high_watermark(elr):
    cluster, check = elr
    assert produce(cluster, 1, -1, b"a").error is Errors.NONE
    cluster.shutdown(3)
    assert line(cluster) == LINE.format(1, "1,2", "", "")
    cluster.shutdown(2)
    wait(cluster, check, lambda: partition(cluster).isr == (1,))
    assert line(cluster) == LINE.format(1, "1", "2", "")
    assert produce(cluster, 1, -1, b"b").error is Errors.NOT_ENOUGH_REPLICAS
    assert produce(cluster, 1, 1, b"c").error is Errors.NONE
    cluster.run_for(2000, check)
    log = log_of(cluster, 1)
    assert (log.log_end_offset, log.high_watermark) == (2, 1)     # "c" is written but not committed


def test_an_elr_member_leads_cleanly_after_the_last_isr_member_dies(elr):
    cluster, check = elr
    assert produce(cluster, 1, -1, b"a", b"b").error is Errors.NONE
    cluster.shutdown(3)
    cluster.shutdown(2)
    cluster.kill(1)
    wait(cluster, check, lambda: partition(cluster).leader is None)
    assert line(cluster) == LINE.format("none", "", "1,2", "1")
    seq = cluster.events.last_seq
    cluster.restart(2)                                           # it stopped cleanly: still eligible
    wait(cluster, check, lambda: partition(cluster).leader == 2)
    assert line(cluster) == LINE.format(2, "2", "1", "")
    assert [e.text for e in cluster.events.since(seq) if e.kind == "partition_changed"] == [
        "fo-0 leader none -> 2, epoch 1 -> 2, ISR [] -> [2], ELR [1,2] -> [1], LastKnownElr [1] -> []"]
    assert partition(cluster).leader_epoch == 2                  # offline (1), then 2 (2)
    assert log_of(cluster, 2).log_end_offset == 2                 # every committed record is there


def test_the_last_known_leader_returns_as_an_unclean_leader_once_the_elr_is_gone(elr):
    cluster, check = elr
    cluster.shutdown(3)
    cluster.kill(2)
    wait(cluster, check, lambda: partition(cluster).elr == (2,))
    cluster.kill(1)
    wait(cluster, check, lambda: partition(cluster).leader is None)
    assert line(cluster) == LINE.format("none", "", "1,2", "1")
    seq = cluster.events.last_seq
    cluster.restart(2)                                           # crashed: it leaves the ELR
    wait(cluster, check, lambda: partition(cluster).elr == (1,))
    assert [e.text for e in cluster.events.since(seq) if e.kind == "partition_changed"] == [
        "fo-0 ELR [1,2] -> [1] (leader none, epoch 1)"]
    assert line(cluster) == LINE.format("none", "", "1", "1")
    cluster.restart(1)                                           # crashed too, but the last leader
    wait(cluster, check, lambda: partition(cluster).leader == 1)
    assert any(e.kind == "partition_changed" and "unclean" in e.text for e in cluster.events.since(0))
    wait(cluster, check, lambda: partition(cluster).isr == (1, 2))
    assert line(cluster) == LINE.format(1, "1,2", "", "")


def test_changing_min_insync_replicas_clears_the_elr(elr):
    cluster, check = elr
    cluster.shutdown(3)
    cluster.shutdown(2)
    wait(cluster, check, lambda: partition(cluster).elr == (2,))
    seq = cluster.events.last_seq
    cluster.alter_topic_config("fo", set={"min.insync.replicas": 1})
    wait(cluster, check, lambda: partition(cluster).elr == ())
    assert "fo-0 ELR [2] -> [] (leader 1, epoch 0)" in [e.text for e in cluster.events.since(seq)]
    assert line(cluster) == LINE.format(1, "1", "", "")
    assert produce(cluster, 1, -1, b"d").error is Errors.NONE      # one in sync is enough now


def test_without_elr_the_last_isr_member_stays_in_the_isr():
    cluster, check = make(features=NO_ELR)
    try:
        cluster.shutdown(3)
        cluster.shutdown(2)
        wait(cluster, check, lambda: partition(cluster).isr == (1,))
        assert line(cluster) == LINE.format(1, "1", "", "")
        cluster.kill(1)
        wait(cluster, check, lambda: partition(cluster).leader is None)
        assert line(cluster) == LINE.format("none", "1", "", "")
    finally:
        cluster.stop()
