import pytest

from minikafka.common.errors import Errors
from minikafka.server.apis.produce import UNVERIFIED_TXN_MESSAGE
from minikafka.drivers.inprocess import ConnectionClosed, InProcessConnection
from minikafka.record import record_batch as rb
from minikafka.record.compression_type import CompressionType
from minikafka.record.memory_records import SimpleRecord, build_batch
from tests.server.apis.dataplane_harness import (InitProducerId, Produce, batch, cluster_topic_id,
                                                      follower_of, leader_of, now, only_partition, produce,
                                                      send, start_cluster)


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=31, broker_config={"offsets.topic.num.partitions": 1})
    c.create_topic("orders", partitions=2, replication_factor=3)
    c.create_topic("tiny", partitions=1, replication_factor=1, config={"max.message.bytes": 200})
    c.create_topic("appended", partitions=1, replication_factor=1,
                   config={"message.timestamp.type": "LogAppendTime"})
    yield c
    c.stop()


def log_end(cluster, topic, partition=0):
    broker = cluster.processes.node(leader_of(cluster, topic, partition)).broker
    return broker.replica_manager.partitions[(topic, partition)].log.log_end_offset


def test_acks_all_answers_with_the_base_offset_once_replicated(cluster):
    leader = leader_of(cluster, "orders", 0)
    first = only_partition(produce(cluster, leader, "orders", 0, batch(cluster, [b"a", b"b"])))
    second = only_partition(produce(cluster, leader, "orders", 0, batch(cluster, [b"c"])))
    assert (first.error_code, first.base_offset, first.log_append_time_ms, first.log_start_offset) == (0, 0, -1, 0)
    assert (second.error_code, second.base_offset) == (0, 2)
    assert first.record_errors == [] and first.error_message is None
    partition = cluster.processes.node(leader).broker.replica_manager.partitions[("orders", 0)]
    assert partition.log.high_watermark == 3             # acks=all came back after the HW passed


def test_log_append_time_topics_report_the_broker_clock(cluster):
    leader = leader_of(cluster, "appended", 0)
    before = now(cluster)
    result = only_partition(produce(cluster, leader, "appended", 0, batch(cluster, [b"x"]), acks=1))
    assert result.error_code == 0 and result.log_append_time_ms >= before


def test_acks_zero_sends_nothing_back_and_closes_on_failure(cluster):
    leader = leader_of(cluster, "orders", 1)
    before = log_end(cluster, "orders", 1)
    assert produce(cluster, leader, "orders", 1, batch(cluster, [b"fire"]), acks=0) is None
    assert log_end(cluster, "orders", 1) == before + 1
    with pytest.raises(ConnectionClosed):
        produce(cluster, leader, "no-such-topic", 0, batch(cluster, [b"x"]), acks=0)


def test_unknown_partition_and_not_leader(cluster):
    unknown = only_partition(produce(cluster, 1, "orders", 9, batch(cluster, [b"x"])))
    assert (unknown.error_code, unknown.base_offset, unknown.log_start_offset) == (
        Errors.UNKNOWN_TOPIC_OR_PARTITION.code, -1, -1)
    follower, leader = follower_of(cluster, "orders", 0), leader_of(cluster, "orders", 0)
    response = produce(cluster, follower, "orders", 0, batch(cluster, [b"x"]), version=10)
    result = only_partition(response)
    assert result.error_code == Errors.NOT_LEADER_OR_FOLLOWER.code and result.error_message is None
    assert result.current_leader.leader_id == leader and result.current_leader.leader_epoch == 0
    assert [(e.node_id, e.port) for e in response.node_endpoints] == [
        (leader, cluster.layout.broker_ports[leader])]


def test_batch_checks_before_the_log(cluster):
    leader = leader_of(cluster, "orders", 0)
    two = batch(cluster, [b"a"]) + batch(cluster, [b"b"])
    legacy = bytearray(batch(cluster, [b"a"]))
    legacy[rb.MAGIC_OFFSET] = 1
    zstd = batch(cluster, [b"z"], compression=CompressionType.ZSTD)
    cases = [(two, 9, Errors.INVALID_RECORD), (bytes(legacy), 9, Errors.INVALID_RECORD),
             (zstd, 6, Errors.UNSUPPORTED_COMPRESSION_TYPE)]
    for records, version, error in cases:
        result = only_partition(produce(cluster, leader, "orders", 0, records, version=version))
        assert (result.error_code, result.error_message, result.base_offset) == (error.code, None, -1)
    assert only_partition(produce(cluster, leader, "orders", 0, zstd, version=7)).error_code == 0


def test_too_large_and_corrupt_batches_are_refused_without_a_log_start_offset(cluster):
    leader = leader_of(cluster, "tiny", 0)
    big = only_partition(produce(cluster, leader, "tiny", 0, batch(cluster, [b"x" * 500])))
    assert (big.error_code, big.log_start_offset, big.error_message) == (Errors.MESSAGE_TOO_LARGE.code, -1, None)
    corrupt = bytearray(batch(cluster, [b"y"]))
    corrupt[-1] ^= 0xFF
    bad = only_partition(produce(cluster, leader, "tiny", 0, bytes(corrupt)))
    assert (bad.error_code, bad.log_start_offset) == (Errors.CORRUPT_MESSAGE.code, -1)
    assert log_end(cluster, "tiny") == 0


def test_record_validation_errors_carry_record_errors_and_a_message(cluster):
    leader = leader_of(cluster, "orders", 1)
    stale = build_batch([SimpleRecord(value=b"old", timestamp=now(cluster) + 7_200_000)])
    result = only_partition(produce(cluster, leader, "orders", 1, stale))
    assert result.error_code == Errors.INVALID_TIMESTAMP.code
    assert result.error_message == "One or more records have been rejected due to invalid timestamp"
    assert [e.batch_index for e in result.record_errors] == [0]
    assert result.log_start_offset == 0                  # known to the leader, unlike size/CRC errors


def test_internal_topics_only_for_the_admin_client(cluster):
    cluster.processes.node(1).broker.groups.find_group_coordinator("g")      # creates __consumer_offsets
    assert cluster.wait_until(lambda: "__consumer_offsets" in cluster.topics(include_internal=True)
                              and cluster.leader("__consumer_offsets", 0) not in (None, -1), 5000)
    cluster.run_for(300)                                  # every broker has replayed it
    leader = leader_of(cluster, "__consumer_offsets", 0)
    result = only_partition(produce(cluster, leader, "__consumer_offsets", 0, batch(cluster, [b"x"])))
    assert (result.error_code, result.error_message) == (Errors.INVALID_TOPIC_EXCEPTION.code, None)
    request = Produce[9](transactional_id=None, acks=1, timeout_ms=1000, topic_data=[
        Produce.TopicProduceData(name="__consumer_offsets", partition_data=[
            Produce.TopicProduceData.PartitionProduceData(index=0, records=build_batch(
                [SimpleRecord(value=b"ok", key=b"k", timestamp=now(cluster))]))])])  # compacted: keyed
    admin = InProcessConnection(cluster, leader, client_id="__admin_client").send(request)
    assert only_partition(admin).error_code == 0


def test_invalid_acks(cluster):
    result = only_partition(produce(cluster, leader_of(cluster, "orders", 0), "orders", 0,
                                    batch(cluster, [b"x"]), acks=2))
    assert (result.error_code, result.base_offset) == (Errors.INVALID_REQUIRED_ACKS.code, -1)


def test_v13_names_topics_by_id(cluster):
    leader = leader_of(cluster, "orders", 0)
    known = Produce[13](transactional_id=None, acks=1, timeout_ms=1000, topic_data=[
        Produce.TopicProduceData(topic_id=cluster_topic_id(cluster, "orders"), partition_data=[
            Produce.TopicProduceData.PartitionProduceData(index=0, records=batch(cluster, [b"id"]))])])
    response = send(cluster, leader, known)
    assert response.responses[0].topic_id == cluster_topic_id(cluster, "orders")
    assert response.responses[0].partition_responses[0].error_code == 0
    known.topic_data[0].topic_id = cluster_topic_id(cluster, "orders").__class__(int=99)
    unknown = send(cluster, leader, known)
    assert unknown.responses[0].partition_responses[0].error_code == Errors.UNKNOWN_TOPIC_ID.code


def test_transactional_batches_without_a_coordinator(cluster):
    leader = leader_of(cluster, "orders", 0)
    txn = batch(cluster, [b"t"], producer_id=4000, producer_epoch=0, base_sequence=0, is_transactional=True)
    refused = only_partition(produce(cluster, leader, "orders", 0, txn))
    assert (refused.error_code, refused.error_message) == (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code, None)
    unverified = only_partition(produce(cluster, leader, "orders", 0, txn, transactional_id="tx-1"))
    assert (unverified.error_code, unverified.error_message) == (Errors.NOT_ENOUGH_REPLICAS.code,
                                                                UNVERIFIED_TXN_MESSAGE)
    with pytest.raises(ConnectionClosed):
        produce(cluster, leader, "orders", 0, txn, acks=0)


def init_producer_id(cluster, broker_id=1, version=4, **fields):
    """InitProducerId, retried as clients retry COORDINATOR_LOAD_IN_PROGRESS (no id block yet)."""
    values = {"transactional_id": None, "transaction_timeout_ms": 60000, "producer_id": -1,
              "producer_epoch": -1, **fields}
    for _ in range(20):
        response = send(cluster, broker_id, InitProducerId[version](**values))
        if response.error_code != Errors.COORDINATOR_LOAD_IN_PROGRESS.code:
            return response
        cluster.run_for(100)
    return response


def test_first_init_producer_id_waits_for_a_block_of_ids(cluster):
    values = {"transactional_id": None, "transaction_timeout_ms": 60000, "producer_id": -1,
              "producer_epoch": -1}
    first = send(cluster, 2, InitProducerId[4](**values))
    assert first.error_code == Errors.COORDINATOR_LOAD_IN_PROGRESS.code   # block requested
    assert init_producer_id(cluster, broker_id=2).error_code == 0


def test_idempotent_producer_duplicates_and_sequence_errors(cluster):
    response = init_producer_id(cluster)
    assert response.error_code == 0 and response.producer_id >= 0 and response.producer_epoch == 0
    pid, leader = response.producer_id, leader_of(cluster, "orders", 1)
    first = batch(cluster, [b"a", b"b"], producer_id=pid, producer_epoch=0, base_sequence=0)
    original = only_partition(produce(cluster, leader, "orders", 1, first))
    again = only_partition(produce(cluster, leader, "orders", 1, first))
    assert again.error_code == 0 and again.base_offset == original.base_offset
    gap = batch(cluster, [b"c"], producer_id=pid, producer_epoch=0, base_sequence=5)
    assert only_partition(produce(cluster, leader, "orders", 1, gap)).error_code == \
        Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code


def test_init_producer_id_rules(cluster):
    first = init_producer_id(cluster)
    bumped = init_producer_id(cluster, producer_id=first.producer_id, producer_epoch=0)
    assert bumped.error_code == 0 and bumped.producer_id != first.producer_id and bumped.producer_epoch == 0
    half = init_producer_id(cluster, producer_id=first.producer_id, producer_epoch=-1)
    assert (half.error_code, half.producer_id, half.producer_epoch) == (Errors.INVALID_REQUEST.code, -1, -1)
    assert init_producer_id(cluster, transactional_id="tx").error_code == Errors.NOT_COORDINATOR.code
    assert init_producer_id(cluster, transactional_id="").error_code == Errors.INVALID_REQUEST.code
    assert init_producer_id(cluster, transactional_id="tx", transaction_timeout_ms=0).error_code == \
        Errors.INVALID_TRANSACTION_TIMEOUT.code
    ids = {init_producer_id(cluster, broker_id=b).producer_id for b in cluster.broker_ids}
    assert len(ids) == 3                                   # every broker has its own block


def test_null_records_fail_the_whole_request(cluster):
    result = only_partition(produce(cluster, leader_of(cluster, "orders", 0), "orders", 0, None))
    assert result.error_code == Errors.UNKNOWN_SERVER_ERROR.code and result.base_offset == -1


def test_a_corrupt_header_fails_every_partition(cluster):
    garbage = bytearray(batch(cluster, [b"x"]))
    garbage[rb.MAGIC_OFFSET] = 9                                  # no magic Kafka knows
    leader = leader_of(cluster, "orders", 0)
    result = only_partition(produce(cluster, leader, "orders", 0, bytes(garbage)))
    assert result.error_code == Errors.CORRUPT_MESSAGE.code
    assert result.error_message == "Invalid magic found in record: 9"
    assert only_partition(produce(cluster, leader, "orders", 0, batch(cluster, [b"fine"]))).error_code == 0


@pytest.mark.parametrize("version", range(3, 14))
def test_every_advertised_produce_version_appends(cluster, version):
    leader = leader_of(cluster, "orders", 1)
    if version >= 13:
        request = Produce[version](transactional_id=None, acks=1, timeout_ms=1000, topic_data=[
            Produce.TopicProduceData(topic_id=cluster_topic_id(cluster, "orders"), partition_data=[
                Produce.TopicProduceData.PartitionProduceData(index=1, records=batch(cluster, [b"v"]))])])
        result = only_partition(send(cluster, leader, request))
    else:
        result = only_partition(produce(cluster, leader, "orders", 1, batch(cluster, [b"v"]), acks=1,
                                        version=version))
    assert result.error_code == 0 and result.base_offset >= 0


@pytest.mark.parametrize("version", range(0, 6))
def test_every_init_producer_id_version(cluster, version):
    response = init_producer_id(cluster, version=version)
    assert response.error_code == 0 and response.producer_id >= 0 and response.producer_epoch == 0
