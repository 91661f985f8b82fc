"""Unclean leader election: only when enabled, and then the loss is real and visible."""

from minikafka import Cluster
from minikafka.common.errors import Errors
from minikafka.record.memory_records import decode_records
from tests.server.test_replica_manager import TP, batch, broker_partition, log_of, produce


NO_ELR = {"eligible.leader.replicas.version": 0}


def setup_lost_follower(features=None):
    """RF 2; the follower falls out of the ISR; the leader gets more records, then dies."""
    cluster = Cluster(brokers=2, controllers=1, seed=8, simulated=True, features=features).start()
    cluster.create_topic("orders", partitions=1, replication_factor=2)
    leader = cluster.leader("orders", 0)
    follower = next(b for b in cluster.broker_ids if b != leader)
    assert produce(cluster, batch(b"both")).error is Errors.NONE
    cluster.pause(follower)
    assert cluster.wait_until(lambda: cluster.isr("orders", 0) == [leader], 30_000)
    assert cluster.wait_until(lambda: broker_partition(cluster, leader).isr == (leader,), 5000)
    assert produce(cluster, batch(b"only-on-leader")).error is Errors.NONE   # acks=all, ISR=[leader]
    cluster.kill_broker(leader)
    cluster.resume(follower)
    return cluster, leader, follower


def test_without_unclean_election_the_partition_stays_offline():
    # ELR on (the default): the dead leader leaves the ISR (min ISR 1) for the ELR and is the last
    # known leader; the stale follower is in neither, so nothing is elected.
    cluster, leader, follower = setup_lost_follower()
    try:
        cluster.run_for(5000)
        assert cluster.leader("orders", 0) is None
        assert cluster.isr("orders", 0) == []
        registration = cluster.snapshot().topic("orders").partitions[0]
        assert (list(registration.elr), list(registration.last_known_elr)) == ([leader], [leader])
        results = cluster.elect_leaders("preferred", [("orders", 0)])
        assert results[("orders", 0)] is not None          # no eligible leader
    finally:
        cluster.stop()


def test_without_elr_or_unclean_election_the_dead_leader_stays_the_isr():
    cluster, leader, follower = setup_lost_follower(NO_ELR)
    try:
        cluster.run_for(5000)
        assert cluster.leader("orders", 0) is None
        assert cluster.isr("orders", 0) == [leader]
        results = cluster.elect_leaders("preferred", [("orders", 0)])
        assert results[("orders", 0)] is not None          # no eligible leader
    finally:
        cluster.stop()


def test_unclean_election_elects_the_stale_follower_and_loses_acknowledged_records():
    cluster, leader, follower = setup_lost_follower()
    try:
        cluster.run_for(3000)
        seq = cluster.events.last_seq
        cluster.alter_topic_config("orders", set={"unclean.leader.election.enable": "true"})
        cluster.elect_leaders("unclean", [("orders", 0)])
        assert cluster.wait_until(lambda: cluster.leader("orders", 0) == follower, 10_000)
        texts = [e.text for e in cluster.events.since(seq) if e.kind == "partition_changed"]
        assert any("unclean leader election" in t and "may be lost" in t for t in texts), texts
        cluster.restart_broker(leader)
        assert cluster.wait_until(lambda: leader in cluster.isr("orders", 0), 15_000)
        survivors = [r.value for r in decode_records(log_of(cluster, leader).read(0, 1 << 20).records)]
        assert survivors == [b"both"]                      # the acknowledged record is gone
    finally:
        cluster.stop()
