import pytest

from minikafka.common.errors import Errors
from tests.server.apis.dataplane_harness import (DeleteRecords, ListOffsets, OffsetForLeaderEpoch, batch,
                                                      fetch, follower_of, leader_of, now, produce, send,
                                                      start_cluster)
from minikafka.record.memory_records import SimpleRecord, build_batch


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=51, broker_config={"offsets.topic.num.partitions": 1})
    c.create_topic("clicks", partitions=1, replication_factor=3)
    c.create_topic("compacted", partitions=1, replication_factor=1, config={"cleanup.policy": "compact"})
    leader = leader_of(c, "clicks", 0)
    base = now(c)
    c.stamps = [base - 3000, base - 1000, base - 2000]   # offset 1 holds the largest timestamp
    for stamp in c.stamps:
        produce(c, leader, "clicks", 0, build_batch([SimpleRecord(value=b"v", timestamp=stamp)]))
    yield c
    c.stop()


def list_offsets(cluster, broker_id, partitions, version=9, replica_id=-1, isolation_level=0, topic="clicks"):
    entries = [ListOffsets.ListOffsetsTopic.ListOffsetsPartition(partition_index=p, timestamp=ts,
                                                                 current_leader_epoch=epoch)
               for p, ts, epoch in partitions]
    request = ListOffsets[version](replica_id=replica_id, isolation_level=isolation_level, timeout_ms=1000,
                                   topics=[ListOffsets.ListOffsetsTopic(name=topic, partitions=entries)])
    return [(p.error_code, p.timestamp, p.offset, p.leader_epoch)
            for p in send(cluster, broker_id, request).topics[0].partitions]


def test_special_and_real_timestamps(cluster):
    leader = leader_of(cluster, "clicks", 0)
    first, largest, last = cluster.stamps
    assert list_offsets(cluster, leader, [(0, -2, -1)]) == [(0, -1, 0, 0)]
    assert list_offsets(cluster, leader, [(0, -1, -1)]) == [(0, -1, 3, 0)]
    assert list_offsets(cluster, leader, [(0, -3, -1)]) == [(0, largest, 1, 0)]
    assert list_offsets(cluster, leader, [(0, last, -1)]) == [(0, largest, 1, 0)]   # first ts >= target
    assert list_offsets(cluster, leader, [(0, largest + 1, -1)]) == [(0, -1, -1, -1)]
    assert list_offsets(cluster, leader, [(0, -1, -1)], version=3) == [(0, -1, 3, -1)]  # no epoch before v4


def test_version_gates_duplicates_and_unknown_partitions(cluster):
    leader = leader_of(cluster, "clicks", 0)
    unsupported = Errors.UNSUPPORTED_VERSION.code
    assert list_offsets(cluster, leader, [(0, -3, -1)], version=6)[0][0] == unsupported
    assert list_offsets(cluster, leader, [(0, -7, -1)])[0][0] == unsupported
    assert [r[0] for r in list_offsets(cluster, leader, [(0, -1, -1), (0, -2, -1)])] == [
        Errors.INVALID_REQUEST.code] * 2
    assert list_offsets(cluster, leader, [(4, -1, -1)])[0][:3] == (Errors.UNKNOWN_TOPIC_OR_PARTITION.code, -1, -1)
    assert list_offsets(cluster, leader, [(0, -1, 9)])[0][0] == Errors.UNKNOWN_LEADER_EPOCH.code


def test_tiered_timestamps_find_nothing_without_tiered_storage(cluster):
    # -5 latest tiered (v9+, KIP-1005) and -6 earliest pending upload (v11+, KIP-1023): as a real
    # Kafka 4.3.1 broker without remote storage answers them.
    leader = leader_of(cluster, "clicks", 0)
    unsupported = Errors.UNSUPPORTED_VERSION.code
    assert list_offsets(cluster, leader, [(0, -5, -1)], version=11) == [(0, -1, -1, -1)]
    assert list_offsets(cluster, leader, [(0, -6, -1)], version=11) == [(0, -1, -1, -1)]
    assert list_offsets(cluster, leader, [(0, -6, -1)], version=10) == [(unsupported, -1, -1, -1)]
    assert list_offsets(cluster, leader, [(0, -7, -1)], version=11)[0][0] == unsupported


def test_followers_answer_only_the_debugging_replica_id(cluster):
    follower = follower_of(cluster, "clicks", 0)
    assert list_offsets(cluster, follower, [(0, -1, -1)])[0][0] == Errors.NOT_LEADER_OR_FOLLOWER.code
    assert cluster.wait_until(
        lambda: cluster.processes.node(follower).broker.replica_manager.partitions[("clicks", 0)].log.log_end_offset == 3,
        2000)
    assert list_offsets(cluster, follower, [(0, -1, -1)], replica_id=-2) == [(0, -1, 3, 0)]  # replica: LEO


def test_a_new_leader_behind_its_epoch_start_has_no_offsets_to_promise(cluster):
    leader = leader_of(cluster, "clicks", 0)
    partition = cluster.processes.node(leader).broker.replica_manager.partitions[("clicks", 0)]
    saved = partition.leader_epoch_start_offset
    partition.leader_epoch_start_offset = partition.log.high_watermark + 1   # as right after an election
    try:
        assert list_offsets(cluster, leader, [(0, -1, -1)], version=5)[0][0] == Errors.OFFSET_NOT_AVAILABLE.code
        assert list_offsets(cluster, leader, [(0, -1, -1)], version=4)[0][0] == Errors.LEADER_NOT_AVAILABLE.code
        assert list_offsets(cluster, leader, [(0, -2, -1)], version=5)[0][0] == 0       # earliest is safe
        assert list_offsets(cluster, leader, [(0, -1, -1)], replica_id=-2)[0][0] == 0    # replicas may ask
    finally:
        partition.leader_epoch_start_offset = saved


def offset_for_epoch(cluster, broker_id, epoch, current=-1, partition=0, topic="clicks"):
    request = OffsetForLeaderEpoch[4](replica_id=-1, topics=[OffsetForLeaderEpoch.OffsetForLeaderTopic(
        topic=topic, partitions=[OffsetForLeaderEpoch.OffsetForLeaderTopic.OffsetForLeaderPartition(
            partition=partition, current_leader_epoch=current, leader_epoch=epoch)])])
    [p] = send(cluster, broker_id, request).topics[0].partitions
    return p.error_code, p.leader_epoch, p.end_offset


def test_offset_for_leader_epoch(cluster):
    leader = leader_of(cluster, "clicks", 0)
    assert offset_for_epoch(cluster, leader, 0) == (0, 0, 3)
    assert offset_for_epoch(cluster, leader, 4, current=0) == (0, -1, -1)   # newer than any epoch known
    assert offset_for_epoch(cluster, leader, 0, current=2)[0] == Errors.UNKNOWN_LEADER_EPOCH.code
    assert offset_for_epoch(cluster, follower_of(cluster, "clicks", 0), 0)[0] == Errors.NOT_LEADER_OR_FOLLOWER.code
    assert offset_for_epoch(cluster, leader, 0, partition=5) == (Errors.UNKNOWN_TOPIC_OR_PARTITION.code, -1, -1)


def delete_records(cluster, broker_id, entries, timeout_ms=2000):
    topics = {}
    for topic, partition, offset in entries:
        topics.setdefault(topic, []).append(DeleteRecords.DeleteRecordsTopic.DeleteRecordsPartition(
            partition_index=partition, offset=offset))
    request = DeleteRecords[2](timeout_ms=timeout_ms, topics=[
        DeleteRecords.DeleteRecordsTopic(name=t, partitions=p) for t, p in topics.items()])
    return [(t.name, p.partition_index, p.error_code, p.low_watermark)
            for t in send(cluster, broker_id, request).topics for p in t.partitions]


def test_delete_records_errors(cluster):
    leader = leader_of(cluster, "clicks", 0)
    assert delete_records(cluster, leader, [("clicks", 0, 99), ("clicks", 3, 0)]) == [
        ("clicks", 0, Errors.OFFSET_OUT_OF_RANGE.code, -1), ("clicks", 3, Errors.UNKNOWN_TOPIC_OR_PARTITION.code, -1)]
    follower = follower_of(cluster, "clicks", 0)
    assert delete_records(cluster, follower, [("clicks", 0, 1)])[0][2] == Errors.NOT_LEADER_OR_FOLLOWER.code
    compacted = leader_of(cluster, "compacted", 0)
    assert delete_records(cluster, compacted, [("compacted", 0, 0)])[0][2] == Errors.POLICY_VIOLATION.code
    cluster.processes.node(1).broker.groups.find_group_coordinator("g")
    assert cluster.wait_until(lambda: "__consumer_offsets" in cluster.topics(include_internal=True), 5000)
    cluster.run_for(300)
    internal = leader_of(cluster, "__consumer_offsets", 0)
    assert delete_records(cluster, internal, [("__consumer_offsets", 0, 0)])[0][2] == \
        Errors.INVALID_TOPIC_EXCEPTION.code


def test_delete_records_waits_for_the_low_watermark_then_reads_start_there():
    c = start_cluster(seed=52)
    try:
        c.create_topic("trim", partitions=1, replication_factor=3)
        leader = leader_of(c, "trim", 0)
        produce(c, leader, "trim", 0, batch(c, [b"a", b"b", b"c", b"d"]))
        assert delete_records(c, leader, [("trim", 0, 2)]) == [("trim", 0, 0, 2)]
        assert list_offsets(c, leader, [(0, -2, -1)], topic="trim")[0][2] == 2
        assert fetch(c, leader, "trim", 0, 0).responses[0].partitions[0].error_code == \
            Errors.OFFSET_OUT_OF_RANGE.code
        paused = follower_of(c, "trim", 0)
        c.pause(paused)                                  # its log start offset stays at 2
        start = now(c)
        [(_, _, error, low)] = delete_records(c, leader, [("trim", 0, -1)], timeout_ms=300)   # -1: the HW
        assert (error, low) == (Errors.REQUEST_TIMED_OUT.code, 2) and now(c) - start >= 300
        c.resume(paused)
        assert delete_records(c, leader, [("trim", 0, -1)]) == [("trim", 0, 0, 4)]
    finally:
        c.stop()


@pytest.mark.parametrize("version", range(1, 11))
def test_every_list_offsets_version(cluster, version):
    leader = leader_of(cluster, "clicks", 0)
    error, timestamp, offset, epoch = list_offsets(cluster, leader, [(0, -1, -1)], version=version)[0]
    assert (error, timestamp, offset) == (0, -1, 3) and epoch == (0 if version >= 4 else -1)


@pytest.mark.parametrize("version", range(2, 5))
def test_every_offset_for_leader_epoch_version(cluster, version):
    request = OffsetForLeaderEpoch[version](replica_id=-1, topics=[OffsetForLeaderEpoch.OffsetForLeaderTopic(
        topic="clicks", partitions=[OffsetForLeaderEpoch.OffsetForLeaderTopic.OffsetForLeaderPartition(
            partition=0, current_leader_epoch=0, leader_epoch=0)])])
    [p] = send(cluster, leader_of(cluster, "clicks", 0), request).topics[0].partitions
    assert (p.error_code, p.leader_epoch, p.end_offset) == (0, 0, 3)


@pytest.mark.parametrize("version", range(0, 3))
def test_every_delete_records_version_answers(cluster, version):
    request = DeleteRecords[version](timeout_ms=1000, topics=[DeleteRecords.DeleteRecordsTopic(
        name="clicks", partitions=[DeleteRecords.DeleteRecordsTopic.DeleteRecordsPartition(
            partition_index=0, offset=0)])])
    [p] = send(cluster, leader_of(cluster, "clicks", 0), request).topics[0].partitions
    assert p.error_code == 0 and p.low_watermark >= 0
