"""The sandbox's consumer-group heartbeat against Kafka 4.3.1's own, on one recorded history.

``data/kafka_4_3_1_consumer_group_history.json`` holds what Kafka 4.3.1's GroupMetadataManager
wrote and answered for a scripted history (two members join, one revokes for the other, a static
member joins, leaves for a while and comes back as a new process, a member leaves, stale epochs
are fenced).  The sandbox must write the same records and give the same answers, except for two
things it does differently on purpose: the value of the metadata hash (a different hash function;
only whether it is set is compared) and the order of partitions inside assignment records (Kafka
writes its hash maps' order; they are compared as sets).
"""

import json
import pathlib

import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_heartbeat import (
    ConsumerGroupHeartbeat, ConsumerGroupHeartbeatRequest,
)
from minikafka.coordinator.consumer_group_records import decode_record, encode_record
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage

HISTORY = json.loads((pathlib.Path(__file__).parent / "data" / "kafka_4_3_1_consumer_group_history.json").read_text())
IMAGE = TopicsImage.of(TopicMetadata(Uuid(0, 1), "orders", 12), TopicMetadata(Uuid(0, 2), "payments", 4))
START = 1767225600000


def parse(line: str) -> ConsumerGroupHeartbeatRequest:
    member, epoch, instance, timeout, topics, owned, assignor = line.split(" ")
    partitions = None
    if owned != "-":
        partitions = () if owned == "none" else tuple(
            (Uuid(0, int(t)), tuple(int(p) for p in ps.split(",")))
            for t, ps in (tp.split(":") for tp in owned.split(";")))
    return ConsumerGroupHeartbeatRequest(
        "demo", member, int(epoch), None if instance == "-" else instance, None, int(timeout),
        None if topics == "-" else tuple(topics.split(",")), None, None if assignor == "-" else assignor,
        partitions)


def normalized(key_hex: str, value_hex: str | None):
    """A record as compared: hash only set/unset; assignment partitions as sets."""
    if value_hex is None:
        return key_hex, None
    record = decode_record(bytes.fromhex(key_hex), bytes.fromhex(value_hex))
    value = record.value
    if key_hex.startswith("0003"):
        return key_hex, (value.epoch, value.metadata_hash != 0)
    if key_hex.startswith("0007"):
        return key_hex, {t: set(ps) for t, ps in value.topic_partitions}
    if key_hex.startswith("0008"):
        def as_sets(topics):
            return {t: set(zip(ps, epochs or (None,) * len(ps))) for t, ps, epochs in topics}
        return key_hex, (value.member_epoch, value.previous_member_epoch, value.state,
                         as_sets(value.assigned_partitions), as_sets(value.partitions_pending_revocation))
    return key_hex, value_hex


def test_history_matches_kafka_4_3_1():
    coordinator = ConsumerGroupHeartbeat(GroupCoordinatorConfig(), lambda: IMAGE, lambda: "unused")
    now = START
    for step in HISTORY["steps"]:
        if "sleep_ms" in step:
            now += step["sleep_ms"]
            continue
        result = coordinator.consumer_group_heartbeat(parse(step["request"]), now,
                                                      client_id="cli", client_host="/10.0.0.1")
        written = [normalized(k.hex(), None if v is None else v.hex()) for k, v in map(encode_record, result.records)]
        assert written == [normalized(k, v) for k, v in step["records"]], step["request"]
        answer, expected = result.response, step["answer"]
        if "error" in expected:
            assert (answer.error.name, answer.error_message) == (expected["error"], expected["message"])
            continue
        assert answer.error is Errors.NONE
        assignment = None if answer.assignment is None else sorted(
            [t.least, sorted(ps)] for t, ps in answer.assignment)
        got = {"member_id": answer.member_id, "member_epoch": answer.member_epoch,
               "heartbeat_interval_ms": answer.heartbeat_interval_ms, "assignment": assignment}
        want = dict(expected, assignment=None if expected["assignment"] is None else sorted(expected["assignment"]))
        assert got == want, step["request"]


@pytest.mark.parametrize("index", [0, 1])
def test_member_and_epoch_records_are_byte_identical(index):
    """The member metadata records (explicit null classic tag, regex "") are Kafka's bytes exactly."""
    step = HISTORY["steps"][index]
    coordinator = ConsumerGroupHeartbeat(GroupCoordinatorConfig(), lambda: IMAGE, lambda: "unused")
    if index == 1:
        coordinator.consumer_group_heartbeat(parse(HISTORY["steps"][0]["request"]), START,
                                             client_id="cli", client_host="/10.0.0.1")
    result = coordinator.consumer_group_heartbeat(parse(step["request"]), START, client_id="cli",
                                                  client_host="/10.0.0.1")
    k, v = encode_record(result.records[0])
    assert [k.hex(), v.hex()] == step["records"][0]
    epoch_key, epoch_value = encode_record(result.records[1])
    assert epoch_value.hex()[:14] == step["records"][1][1][:14]       # version, epoch, one tag
