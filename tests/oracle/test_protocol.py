"""Differential scenarios: the wire protocol as a client sees it.

ApiVersions, Metadata, DescribeCluster, DescribeTopicPartitions, features,
Produce errors, ListOffsets, DeleteRecords and InitProducerId, each sent as
one raw request at a fixed version to a real combined node and to the
sandbox's, plus Kafka's own tools that read the same answers
(``kafka-broker-api-versions``, ``kafka-features``, ``kafka-get-offsets``,
``kafka-delete-records``, ``kafka-log-dirs``, console producer and consumer).
"""

from __future__ import annotations

import json
import time

import pytest

from tests.client_batches import client_batch

pytestmark = pytest.mark.slow

PRODUCE, LIST_OFFSETS, METADATA, API_VERSIONS, INIT_PRODUCER_ID = 0, 2, 3, 18, 22
DELETE_RECORDS, DESCRIBE_CLUSTER, DESCRIBE_TOPIC_PARTITIONS = 21, 60, 75
# Record timestamps the scenarios write: midnight UTC today.  Both sides check retention every 5 minutes
# (log.retention.check.interval.ms) and delete records older than 7 days (log.retention.ms), the active
# segment included: an older fixed date let a check that fell mid-scenario empty a partition on both sides.
T0 = int(time.time()) // 86_400 * 86_400_000
EPOCH_MASK = [(r'== finalized_features_epoch\n(\d+)', "the offset of the last record in the broker's metadata "
               "image; real Kafka's grows with its NoOpRecords")]


def create(side, name: str, partitions: int = 1, *configs: str) -> None:
    args = [arg for config in configs for arg in ("--config", config)]
    result = side.tool("kafka-topics", "--create", "--topic", name, "--partitions", str(partitions), *args)
    assert result.returncode == 0, result.text()


def produce(side, topic: str, partition: int, batch: bytes, acks: int = -1, version: int = 9) -> dict:
    with side.raw() as connection:
        response = connection.request(PRODUCE, version, transactional_id=None, acks=acks, timeout_ms=10_000,
                                      topic_data=[{"name": topic, "partition_data": [
                                          {"index": partition, "records": batch}]}])
    return response["responses"]


RETRIABLE = {3, 6}     # UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER: the leader has not heard yet


def produce_written(side, topic: str, partition: int, batch: bytes, **options) -> dict:
    """``produce``, retried as a client would while the leader has not yet learnt of a topic just
    created (the create tool returns once the controller has it); fails unless the batch is written."""
    def attempt():
        responses = produce(side, topic, partition, batch, **options)
        code = responses[0]["partition_responses"][0]["error_code"]
        return None if code in RETRIABLE else (responses, code)
    responses, code = side.wait_until(attempt, timeout_s=30, what=f"a produce to {topic}-{partition}")
    assert code == 0, f"{side.name}: producing to {topic}-{partition} failed with error code {code}"
    return responses


def list_offsets(side, topic: str, partition: int, timestamp: int, version: int = 9) -> dict:
    with side.raw() as connection:
        response = connection.request(LIST_OFFSETS, version, replica_id=-1, isolation_level=0, timeout_ms=10_000,
                                      topics=[{"name": topic, "partitions": [
                                          {"partition_index": partition, "current_leader_epoch": -1,
                                           "timestamp": timestamp}]}])
    return response["topics"][0]["partitions"][0]


def test_api_versions(single):
    def scenario(side):
        with side.raw() as connection:
            return connection.request(API_VERSIONS, 4, client_software_name="oracle",
                                      client_software_version="1")
    single.play("protocol: ApiVersions v4 (ranges, supported and finalized features)", scenario,
                masks=EPOCH_MASK, area="protocol")


def test_broker_api_versions_tool(single):
    def scenario(side):
        return side.tool("kafka-broker-api-versions")
    single.play("protocol: kafka-broker-api-versions", scenario, area="protocol")


def test_features_tool(single):
    def scenario(side):
        return side.tool("kafka-features", "describe")
    single.play("protocol: kafka-features describe", scenario,
                masks=[(r"Epoch: (\d+)", "the metadata offset of the features the broker saw")], area="protocol")


def test_metadata(single):
    def scenario(side):
        create(side, "meta", 2)
        with side.raw() as connection:
            return {"topic": connection.request(METADATA, 12, topics=[{"name": "meta"}],
                                                allow_auto_topic_creation=False,
                                                include_topic_authorized_operations=True),
                    "unknown": connection.request(METADATA, 12, topics=[{"name": "not-there"}, {"name": "bad/name"}],
                                                  allow_auto_topic_creation=False,
                                                  include_topic_authorized_operations=False)}
    single.play("protocol: Metadata v12 (brokers, controller, a topic, unknown and invalid names)", scenario,
                area="protocol")


def test_describe_cluster(single):
    def scenario(side):
        with side.raw() as connection:
            return connection.request(DESCRIBE_CLUSTER, 2, include_cluster_authorized_operations=False,
                                      endpoint_type=1, include_fenced_brokers=True)
    single.play("protocol: DescribeCluster v2", scenario, area="protocol")


def test_describe_topic_partitions(single):
    def scenario(side):
        create(side, "dtp", 3)
        with side.raw() as connection:
            first = connection.request(DESCRIBE_TOPIC_PARTITIONS, 0, topics=[{"name": "dtp"}, {"name": "nope"}],
                                       response_partition_limit=2, cursor=None)
            rest = connection.request(DESCRIBE_TOPIC_PARTITIONS, 0, topics=[{"name": "dtp"}],
                                      response_partition_limit=2, cursor=first["next_cursor"])
        return {"first page": first, "second page": rest}
    single.play("protocol: DescribeTopicPartitions with a partition limit and a cursor", scenario, area="protocol")


def test_produce_and_list_offsets(single):
    def scenario(side):
        create(side, "offsets", 1)
        produced = [produce_written(side, "offsets", 0, client_batch(3, timestamp=T0 + 1000 * i)) for i in range(3)]
        wanted = {"earliest": -2, "latest": -1, "max timestamp": -3, "earliest local": -4,
                  "by time, first batch": T0, "by time, between": T0 + 1500, "by time, after all": T0 + 9000}
        return {"produce": produced,
                **{name: list_offsets(side, "offsets", 0, ts, version=10) for name, ts in wanted.items()},
                "unknown partition": list_offsets(side, "offsets", 5, -1)}
    single.play("protocol: Produce, then ListOffsets earliest, latest, max timestamp, by time", scenario,
                area="protocol")


def test_produce_errors(single):
    def scenario(side):
        create(side, "small", 1, "max.message.bytes=200")
        create(side, "strict", 1, "min.insync.replicas=2")
        return {"too large": produce(side, "small", 0, client_batch(5, value_size=100)),
                "not enough replicas": produce(side, "strict", 0, client_batch(1)),
                "acks=1 is fine": produce(side, "strict", 0, client_batch(1), acks=1),
                "unknown partition": produce(side, "strict", 3, client_batch(1)),
                "unknown topic": produce(side, "no-such-topic", 0, client_batch(1))}
    single.play("protocol: Produce errors (record too large, NOT_ENOUGH_REPLICAS, unknown partition/topic)",
                scenario, area="protocol")


def test_delete_records(single):
    def scenario(side):
        create(side, "trim", 1)
        produce_written(side, "trim", 0, client_batch(10, timestamp=T0))
        with side.raw() as connection:
            raw = connection.request(DELETE_RECORDS, 2, timeout_ms=10_000, topics=[
                {"name": "trim", "partitions": [{"partition_index": 0, "offset": 4}]},
                {"name": "nope", "partitions": [{"partition_index": 0, "offset": 1}]}])
            beyond = connection.request(DELETE_RECORDS, 2, timeout_ms=10_000, topics=[
                {"name": "trim", "partitions": [{"partition_index": 0, "offset": 50}]}])
        plan = side.data_root / "delete-records.json"
        plan.write_text(json.dumps({"partitions": [{"topic": "trim", "partition": 0, "offset": 6}], "version": 1}))
        tool = side.tool("kafka-delete-records", "--offset-json-file", str(plan))
        return {"raw": raw, "beyond the end": beyond, "tool": tool,
                "earliest after": list_offsets(side, "trim", 0, -2)}
    single.play("protocol: DeleteRecords (raw and kafka-delete-records)", scenario, area="protocol")


def test_init_producer_id(single):
    def scenario(side):
        with side.raw() as connection:
            first = connection.request(INIT_PRODUCER_ID, 5, transactional_id=None, transaction_timeout_ms=60_000,
                                       producer_id=-1, producer_epoch=-1)
            second = connection.request(INIT_PRODUCER_ID, 5, transactional_id=None, transaction_timeout_ms=60_000,
                                        producer_id=-1, producer_epoch=-1)
        return {"first": first, "second": second}
    single.play("protocol: InitProducerId for idempotent producers", scenario, area="protocol")


def test_console_producer_and_consumer(single):
    def scenario(side):
        create(side, "console", 2)
        produced = side.tool("kafka-console-producer", "--topic", "console", "--property", "parse.key=true",
                             "--property", "key.separator=:", input="alice:3 apples\nbob:2 pears\ncarol:1 fig\n")
        consumed = side.tool("kafka-console-consumer", "--topic", "console", "--from-beginning", "--max-messages",
                             "3", "--property", "print.key=true", "--property", "print.partition=true",
                             "--property", "print.offset=true", "--timeout-ms", "20000")
        return {"producer": produced, "consumer": sorted_lines(consumed.text()),
                "get-offsets": side.tool("kafka-get-offsets", "--topic", "console")}
    single.play("protocol: console producer and consumer, kafka-get-offsets", scenario, area="protocol")


def sorted_lines(text: str) -> str:
    """Lines of two partitions arrive interleaved in any order; what arrived is compared, not when."""
    return "\n".join(sorted(text.splitlines()))


def test_log_dirs_tool(single):
    def scenario(side):
        create(side, "sized", 1)
        produce_written(side, "sized", 0, client_batch(4, value_size=50, timestamp=T0))
        result = side.tool("kafka-log-dirs", "--describe", "--topic-list", "sized")
        return result
    single.play("protocol: kafka-log-dirs --describe", scenario, area="protocol")
