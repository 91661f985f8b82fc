"""Partition's offset queries (ListOffsets, OffsetForLeaderEpoch, DeleteRecords) and consumer
fetches served by followers, plus the ReplicaManager paths around them, on a simulated cluster."""

import pytest

from minikafka import Cluster
from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.record.memory_records import SimpleRecord, build_batch
from minikafka.server.fetch import FetchPartitionRequest, FetchRequest

TP = TopicPartition("p", 0)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=81, simulated=True).start()
    c.create_topic("p", partitions=1, replication_factor=3)
    leader = c.leader("p", 0)
    box = []
    at = c.driver.now()
    records = build_batch([SimpleRecord(value=b"v", timestamp=at - i) for i in range(3)])
    c.driver.invoke(leader, lambda node: node.broker.replica_manager.append_records(-1, 5000, {TP: records},
                                                                                    box.append))
    assert c.wait_until(lambda: bool(box), 5000)
    c.run_for(1000)                                       # followers learn the HW on their next fetch
    yield c
    c.stop()


def part(cluster, broker_id):
    return cluster.processes.node(broker_id).broker.replica_manager.partitions[TP]


def followers(cluster):
    return [b for b in cluster.replicas("p", 0) if b != cluster.leader("p", 0)]


def test_fetch_offset_for_timestamp_bounds(cluster):
    leader = part(cluster, cluster.leader("p", 0))
    assert leader.fetch_offset_for_timestamp(-1, 0).offset == 3          # the HW for a client
    assert leader.fetch_offset_for_timestamp(-1, None).offset == 3       # the LEO for a replica
    assert leader.fetch_offset_for_timestamp(10**15, 0) is None
    follower = part(cluster, followers(cluster)[0])
    with pytest.raises(KafkaException) as failure:
        follower.fetch_offset_for_timestamp(-1, 0)
    assert failure.value.error is Errors.NOT_LEADER_OR_FOLLOWER
    assert follower.fetch_offset_for_timestamp(-2, None, fetch_only_from_leader=False).offset == 0


def test_last_offset_for_leader_epoch(cluster):
    leader = part(cluster, cluster.leader("p", 0))
    assert leader.last_offset_for_leader_epoch(-1, 0) == (Errors.NONE, 0, 3)
    assert leader.last_offset_for_leader_epoch(1, 0)[0] is Errors.UNKNOWN_LEADER_EPOCH
    assert part(cluster, followers(cluster)[0]).last_offset_for_leader_epoch(-1, 0)[0] is \
        Errors.NOT_LEADER_OR_FOLLOWER


def test_consumer_fetches_with_client_metadata_may_be_served_by_a_follower(cluster):
    follower = followers(cluster)[0]
    request = FetchPartitionRequest("p", 0, 0, 1 << 20)
    boxes = {}
    for client_metadata in (False, True):
        fetch = FetchRequest(-1, -1, 0, 1, 1 << 20, (request,), client_metadata=client_metadata)
        box = boxes[client_metadata] = []
        cluster.driver.invoke(follower, lambda node: node.broker.replica_manager.fetch_messages(fetch, box.append))
    assert boxes[False][0].partitions[0].error is Errors.NOT_LEADER_OR_FOLLOWER
    served = boxes[True][0].partitions[0]
    assert served.error is Errors.NONE and served.high_watermark == 3 and served.records


def test_delete_records_on_leader_and_the_low_watermark(cluster):
    leader_id = cluster.leader("p", 0)
    leader = part(cluster, leader_id)
    with pytest.raises(KafkaException) as failure:
        leader.delete_records_on_leader(4)
    assert failure.value.error is Errors.OFFSET_OUT_OF_RANGE
    with pytest.raises(KafkaException) as failure:
        part(cluster, followers(cluster)[0]).delete_records_on_leader(1)
    assert failure.value.error is Errors.NOT_LEADER_OR_FOLLOWER
    requested, low = cluster.driver.invoke(leader_id, lambda node: leader.delete_records_on_leader(1))
    assert (requested, low) == (1, 0)                     # followers still start at 0
    assert leader.log.log_start_offset == 1
    cluster.run_for(1500)                                 # their next fetches report the new start
    assert leader.low_watermark_if_leader() == 1
    box = []
    cluster.driver.invoke(leader_id, lambda node: node.broker.replica_manager.delete_records(
        1000, {TP: -1, TopicPartition("p", 7): 0}, box.append))
    assert cluster.wait_until(lambda: bool(box), 3000)
    assert (box[0][TP].error, box[0][TP].low_watermark) == (Errors.NONE, 3)
    assert box[0][TopicPartition("p", 7)].error is Errors.UNKNOWN_TOPIC_OR_PARTITION


def test_failed_appends_report_what_kafka_reports(cluster):
    leader_id = cluster.leader("p", 0)
    stale = build_batch([SimpleRecord(value=b"x", timestamp=cluster.driver.now() + 10**9)])
    box = []
    cluster.driver.invoke(leader_id, lambda node: node.broker.replica_manager.append_records(
        1, 1000, {TP: stale, TopicPartition("p", 9): stale}, box.append))
    bad, unknown = box[0][TP], box[0][TopicPartition("p", 9)]
    assert bad.error is Errors.INVALID_TIMESTAMP and bad.record_errors and bad.error_message
    assert bad.log_start_offset == part(cluster, leader_id).log.log_start_offset
    assert (unknown.error, unknown.log_start_offset, unknown.error_message) == (
        Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, None)
