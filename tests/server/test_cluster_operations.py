"""Operations on a running cluster: throttled reassignment, RF increase, partitions, decommission,
wipe, NOT_ENOUGH_REPLICAS_AFTER_APPEND, idempotent producer state across a leader change."""

import pytest

from minikafka import Cluster
from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from tests.server.test_replica_manager import (TP, batch, broker_partition, log_of, produce,
                                               wait_until_broker_leads)


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=31, simulated=True).start()
    yield c
    c.stop()


def test_replication_factor_grows_through_a_reassignment(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=1)
    produce(cluster, batch(b"a", b"b"))
    leader = cluster.leader("orders", 0)
    others = [b for b in cluster.broker_ids if b != leader]
    cluster.reassign_partitions({("orders", 0): [leader, *others]})
    assert cluster.wait_until(lambda: len(cluster.isr("orders", 0)) == 3, 10_000)
    for broker in cluster.broker_ids:
        assert log_of(cluster, broker).log_end_offset == 2


def test_throttled_reassignment_moves_data_at_the_throttle_rate(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=1)
    for _ in range(40):
        produce(cluster, batch(b"x" * 100_000))               # about 4 MB in the log
    leader = cluster.leader("orders", 0)
    target = next(b for b in cluster.broker_ids if b != leader)
    # A fetch brings up to replica.fetch.max.bytes (1 MiB) before the quota can bite, as in
    # Kafka; after that the follower skips the throttled partition while over 400 kB/s.
    cluster.reassign_partitions({("orders", 0): [leader, target]}, throttle_bytes_per_sec=400_000)
    snapshot = cluster.snapshot()
    assert snapshot.topic("orders").configs["follower.replication.throttled.replicas"] == f"0:{target}"
    cluster.run_for(3000)
    moving = cluster.snapshot().topic("orders").partitions[0]
    assert moving.adding_replicas == (target,)                 # progress is visible while it moves
    copied = next(s.log_end_offset for s in moving.replica_states if s.broker == target)
    assert copied is not None and 0 < copied < 40
    assert cluster.wait_until(lambda: target in cluster.isr("orders", 0), 30_000)
    cluster.clear_reassignment_throttles()
    assert "follower.replication.throttled.replicas" not in cluster.snapshot().topic("orders").configs


def test_partitions_can_be_added_but_not_removed(cluster):
    cluster.create_topic("orders", partitions=2, replication_factor=2)
    cluster.create_partitions("orders", 4)
    assert len(cluster.snapshot().topic("orders").partitions) == 4
    with pytest.raises(Exception, match=r"The topic orders currently has 4 partition\(s\); 3 would not "
                                        r"be an increase."):
        cluster.create_partitions("orders", 3)


def test_decommission_after_moving_replicas_away(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=2, replica_assignment=None)
    replicas = cluster.replicas("orders", 0)
    spare = next(b for b in cluster.broker_ids if b not in replicas)
    leaving = replicas[-1]
    cluster.reassign_partitions({("orders", 0): [replicas[0], spare]})
    assert cluster.wait_until(lambda: cluster.replicas("orders", 0) == [replicas[0], spare], 10_000)
    cluster.decommission_broker(leaving)
    assert leaving not in cluster.broker_ids
    image = cluster.processes.cluster_image()
    assert image.cluster.broker(leaving) is None          # UnregisterBrokerRecord replayed


def test_wipe_gives_an_empty_broker_that_refills_from_the_leaders(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=3)
    produce(cluster, batch(b"a", b"b", b"c"))
    victim = next(b for b in cluster.broker_ids if b != cluster.leader("orders", 0))
    cluster.wipe(victim)
    # the new incarnation may register only once the old one's session expired and it was
    # fenced (and so left the ISR); then it copies everything from the leader again
    assert cluster.wait_until(lambda: victim not in cluster.isr("orders", 0), 15_000)
    assert cluster.wait_until(lambda: victim in cluster.isr("orders", 0), 15_000)
    assert log_of(cluster, victim).log_end_offset == 3
    texts = [e.text for e in cluster.events if e.kind == "node_restarted"]
    assert any("newly formatted data directory" in t for t in texts)


def test_isr_shrinking_after_the_append_holds_the_high_watermark_and_the_produce_times_out(cluster):
    # Kafka 3.7+ (strict min ISR): under min.insync.replicas the high watermark stays below the
    # batch, so the waiting acks=all produce gets REQUEST_TIMED_OUT, not NOT_ENOUGH_REPLICAS_AFTER_APPEND.
    cluster.create_topic("orders", partitions=1, replication_factor=2,
                         config={"min.insync.replicas": "2"})
    leader = cluster.leader("orders", 0)
    follower = next(b for b in cluster.replicas("orders", 0) if b != leader)
    wait_until_broker_leads(cluster, leader)
    cluster.pause(follower)                   # the batch is written but never replicated
    lag = cluster.timing.ms("replica.lag.time.max.ms")
    result = produce(cluster, batch(b"late"), timeout_ms=lag * 3)
    assert result.error is Errors.REQUEST_TIMED_OUT
    assert cluster.isr("orders", 0) == [leader]                 # the ISR did shrink meanwhile
    assert log_of(cluster, leader).log_end_offset == 1        # the data is in the log
    assert log_of(cluster, leader).high_watermark == 0        # but it is not committed


def test_idempotent_producer_state_survives_a_leader_change(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=3)
    first = produce(cluster, batch(b"once", producer_id=42, sequence=0))
    cluster.run_for(500)                                      # followers have the batch
    old_leader = cluster.leader("orders", 0)
    cluster.kill_broker(old_leader)
    assert cluster.wait_until(lambda: cluster.leader("orders", 0) not in (None, old_leader), 10_000)
    new_leader = cluster.leader("orders", 0)
    wait_until_broker_leads(cluster, new_leader)
    retry = produce(cluster, batch(b"once", producer_id=42, sequence=0), broker=new_leader)
    assert retry.error is Errors.NONE and retry.base_offset == first.base_offset
    assert log_of(cluster, new_leader).log_end_offset == 1    # not written twice
    gap = produce(cluster, batch(b"gap", producer_id=42, sequence=3), broker=new_leader)
    assert gap.error is Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert broker_partition(cluster, new_leader).topic_partition == TopicPartition("orders", 0) == TP


def _virtual_ms_to_add_a_replica(throttle):
    """Simulated: copy about 2 MB to a new replica; virtual milliseconds until it is in sync."""
    cluster = Cluster(brokers=3, controllers=1, seed=31, simulated=True).start()
    try:
        cluster.create_topic("orders", partitions=1, replication_factor=1)
        for _ in range(20):
            produce(cluster, batch(b"x" * 100_000))
        leader = cluster.leader("orders", 0)
        target = next(b for b in cluster.broker_ids if b != leader)
        start = cluster.driver.now()
        cluster.reassign_partitions({("orders", 0): [leader, target]}, throttle_bytes_per_sec=throttle)
        assert cluster.wait_until(lambda: target in cluster.isr("orders", 0), 60_000)
        return cluster.driver.now() - start
    finally:
        cluster.stop()


def test_a_throttled_reassignment_takes_longer_than_an_unthrottled_one():
    unthrottled = _virtual_ms_to_add_a_replica(None)
    throttled = _virtual_ms_to_add_a_replica(500_000)
    assert unthrottled < 1000
    # 2 MB at 500 kB/s: about 4 s, minus the first 1 MiB fetch the quota cannot stop
    assert throttled > 2000 and throttled > 5 * unthrottled
