"""ReplicaManager and Partition on a simulated cluster: acks, min.insync.replicas, HW, ISR, truncation."""

import pytest

from minikafka import Cluster
from minikafka.common.errors import Errors, NotEnoughReplicasException
from minikafka.common.topic_partition import TopicPartition
from minikafka.record.memory_records import SimpleRecord, build_batch, decode_records
from minikafka.server.fetch import FetchPartitionRequest, FetchRequest

TP = TopicPartition("orders", 0)


def batch(*values, producer_id=-1, sequence=-1):
    return build_batch([SimpleRecord(value=v) for v in values], producer_id=producer_id,
                       producer_epoch=0 if producer_id >= 0 else -1, base_sequence=sequence)


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=21, simulated=True).start()
    c.create_topic("orders", partitions=1, replication_factor=3, config={"min.insync.replicas": "2"})
    yield c
    c.stop()


def produce(cluster, records, acks=-1, broker=None, timeout_ms=5000):
    """Append through the leader's ReplicaManager and run virtual time until it answers."""
    broker = broker if broker is not None else cluster.leader("orders", 0)
    box = []
    cluster.driver.invoke(broker, lambda node: node.broker.replica_manager.append_records(
        acks, timeout_ms, {TP: records}, box.append))
    cluster.wait_until(lambda: bool(box), timeout_ms + 100)
    return box[0][TP]


def broker_partition(cluster, broker):
    return cluster.processes.node(broker).broker.replica_manager.partitions.get(TP)


def wait_until_broker_leads(cluster, broker, timeout_ms=10_000):
    assert cluster.wait_until(lambda: broker_partition(cluster, broker) is not None
                              and broker_partition(cluster, broker).is_leader, timeout_ms)


def log_of(cluster, broker):
    return cluster.processes.node(broker).broker.log_manager.get_log(TP)


def test_acks_all_completes_when_every_isr_member_has_the_batch(cluster):
    result = produce(cluster, batch(b"a", b"b"))
    assert result.error is Errors.NONE and result.base_offset == 0
    leader = cluster.leader("orders", 0)
    assert log_of(cluster, leader).high_watermark == 2
    cluster.run_for(1000)
    for broker in cluster.broker_ids:
        assert log_of(cluster, broker).log_end_offset == 2


def test_acks_one_answers_before_replication(cluster):
    leader = cluster.leader("orders", 0)
    result = produce(cluster, batch(b"x"), acks=1)
    assert result.error is Errors.NONE
    assert log_of(cluster, leader).log_end_offset == 1


def test_invalid_acks_value(cluster):
    assert produce(cluster, batch(b"x"), acks=2).error is Errors.INVALID_REQUIRED_ACKS


def test_a_follower_is_not_the_leader(cluster):
    follower = next(b for b in cluster.broker_ids if b != cluster.leader("orders", 0))
    assert produce(cluster, batch(b"x"), broker=follower).error is Errors.NOT_LEADER_OR_FOLLOWER


def test_min_insync_replicas_refuses_acks_all_with_kafkas_message(cluster):
    leader = cluster.leader("orders", 0)
    followers = [b for b in cluster.broker_ids if b != leader]
    for broker in followers:
        cluster.kill_broker(broker)
    # wait until the leader itself knows (the controller's view arrives there a moment later)
    assert cluster.wait_until(lambda: broker_partition(cluster, leader).isr == (leader,), 10_000)
    result = produce(cluster, batch(b"x"))
    assert result.error is Errors.NOT_ENOUGH_REPLICAS        # the response carries the code only
    partition = broker_partition(cluster, leader)
    with pytest.raises(NotEnoughReplicasException) as info:  # the broker logs this message
        partition.append_records_to_leader(batch(b"x"), -1, cluster.driver.now())
    assert str(info.value) == (f"The size of the current ISR : 1 is insufficient to satisfy the min.isr "
                               f"requirement of 2 for partition orders-0, live replica(s) broker.id are : "
                               f"Set({leader})")                 # Kafka 4.3.1's text
    assert produce(cluster, batch(b"y"), acks=1).error is Errors.NONE   # acks=1 is not checked


def test_acks_all_times_out_when_a_follower_cannot_fetch(cluster):
    leader = cluster.leader("orders", 0)
    for broker in cluster.broker_ids:
        if broker != leader:
            cluster.pause(broker)
    result = produce(cluster, batch(b"x"), timeout_ms=500)
    assert result.error is Errors.REQUEST_TIMED_OUT
    assert log_of(cluster, leader).log_end_offset == 1          # written, not committed
    assert log_of(cluster, leader).high_watermark == 0


def test_isr_shrinks_after_replica_lag_time_when_a_follower_is_cut_off(cluster):
    leader = cluster.leader("orders", 0)
    laggard = next(b for b in cluster.broker_ids if b != leader)
    produce(cluster, batch(b"a"))
    others = [n for n in cluster.broker_ids + cluster.controller_ids if n not in (laggard, leader)]
    cluster.isolate([laggard, *cluster.controller_ids], [leader, *[o for o in others
                                                                    if o not in cluster.controller_ids]])
    cluster.heal()                      # only a short glitch: nothing is lost on the wire for long
    cluster.pause(laggard)
    cluster.run_for(500)
    produce(cluster, batch(b"b"), acks=1)
    lag_ms = cluster.timing.ms("replica.lag.time.max.ms")
    assert cluster.wait_until(lambda: laggard not in cluster.isr("orders", 0), lag_ms * 3)
    cluster.resume(laggard)
    assert cluster.wait_until(lambda: laggard in cluster.isr("orders", 0), 10_000)


def test_follower_fetch_moves_the_leader_high_watermark(cluster):
    leader = cluster.leader("orders", 0)
    produce(cluster, batch(b"a", b"b", b"c"), acks=1)
    assert cluster.wait_until(lambda: log_of(cluster, leader).high_watermark == 3, 5000)
    for broker in cluster.broker_ids:
        assert cluster.wait_until(lambda: log_of(cluster, broker).high_watermark == 3, 5000)


def test_consumer_fetch_reads_only_below_the_high_watermark(cluster):
    leader = cluster.leader("orders", 0)
    produce(cluster, batch(b"a"))
    for broker in cluster.broker_ids:
        if broker != leader:
            cluster.pause(broker)
    produce(cluster, batch(b"b"), acks=1)
    box = []
    request = FetchRequest(-1, -1, 0, 1, 1 << 20, (FetchPartitionRequest("orders", 0, 0, 1 << 20),))
    cluster.driver.invoke(leader, lambda node: node.broker.replica_manager.fetch_messages(
        request, box.append))
    (data,) = box[0].partitions
    assert data.high_watermark == 1
    assert [r.value for r in decode_records(data.records)] == [b"a"]


def test_a_deposed_leader_truncates_its_uncommitted_tail_to_match_the_new_leader(cluster):
    leader = cluster.leader("orders", 0)
    produce(cluster, batch(b"committed"))
    cluster.isolate(leader)                                  # its followers can no longer fetch
    produce(cluster, batch(b"uncommitted"), acks=1, timeout_ms=100)   # only the old leader has it
    followers = [b for b in cluster.broker_ids if b != leader]
    assert cluster.wait_until(lambda: cluster.leader("orders", 0) in followers, 10_000)
    new_leader = cluster.leader("orders", 0)
    wait_until_broker_leads(cluster, new_leader)
    assert produce(cluster, batch(b"after"), broker=new_leader).error is Errors.NONE
    seq = cluster.events.last_seq
    cluster.heal()
    assert cluster.wait_until(lambda: leader in cluster.isr("orders", 0), 15_000)
    values = [r.value for r in decode_records(log_of(cluster, leader).read(0, 1 << 20).records)]
    assert values == [b"committed", b"after"]
    truncated = [e for e in cluster.events.since(seq) if e.kind == "log_truncated" and e.node == leader]
    assert truncated, "the old leader must report truncating its divergent tail"


def test_idempotent_retry_is_not_written_twice(cluster):
    first = produce(cluster, batch(b"once", producer_id=7, sequence=0))
    again = produce(cluster, batch(b"once", producer_id=7, sequence=0))
    assert first.error is Errors.NONE and again.error is Errors.NONE
    assert again.base_offset == first.base_offset
    assert log_of(cluster, cluster.leader("orders", 0)).log_end_offset == 1
    gap = produce(cluster, batch(b"gap", producer_id=7, sequence=5))
    assert gap.error is Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
