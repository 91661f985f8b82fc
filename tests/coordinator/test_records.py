"""Golden bytes of the __consumer_offsets records, checked two independent ways:
hand-written hex for small records, and kafka-python's own protocol types for the
larger schemas (GroupMetadataValue v0-v4)."""

import io
from dataclasses import replace

import pytest
from kafka.protocol.old.types import (
    Array, Bytes, CompactArray, CompactBytes, CompactString, Int16, Int32, Int64, Schema, String,
    TaggedFields,
)

from minikafka.coordinator import records as r

OFFSET_KEY_HEX = (
    "0001"              # record type 1: OffsetCommitKey as Kafka 4.x writes it
    "0004" "64656d6f"   # group "demo"
    "0006" "6f7264657273"  # topic "orders"
    "00000002"          # partition 2
)
OFFSET_VALUE_V3_HEX = (
    "0003"              # value version 3
    "000000000000002a"  # offset 42
    "00000005"          # leader epoch 5
    "0002" "6d64"       # metadata "md"
    "0000019b76daa800"  # commit timestamp 1767225600000
)


def test_offset_commit_key_golden_bytes():
    assert r.encode_key(r.OffsetCommitKey("demo", "orders", 2)).hex() == OFFSET_KEY_HEX


def test_offset_commit_value_v3_golden_bytes():
    value = r.OffsetCommitValue(42, 5, "md", 1767225600000)
    assert r.encode_value(value).hex() == OFFSET_VALUE_V3_HEX


def test_offset_commit_value_with_expiry_is_written_as_version_1():
    value = r.OffsetCommitValue(42, 5, "md", 1767225600000, expire_timestamp=1767225660000)
    encoded = r.encode_value(value)
    assert encoded.hex() == ("0001" "000000000000002a" "0002" "6d64" "0000019b76daa800"
                             "0000019b76db9260")
    # version 1 has no leader epoch: it reads back as -1
    assert r.decode_record(r.encode_key(r.OffsetCommitKey("g", "t", 0)), encoded).value == \
        r.OffsetCommitValue(42, -1, "md", 1767225600000, 1767225660000)


def test_group_metadata_key_golden_bytes():
    assert r.encode_key(r.GroupMetadataKey("demo")).hex() == "0002" "0004" "64656d6f"


def test_decode_round_trip_offset_record():
    key, value = r.offset_commit_record("demo", "orders", 2, r.OffsetCommitValue(42, 5, "md", 7))
    record = r.decode_record(key, value)
    assert record == r.CoordinatorRecord(r.OffsetCommitKey("demo", "orders", 2),
                                         r.OffsetCommitValue(42, 5, "md", 7))


def test_legacy_key_version_0_is_read_as_an_offset_commit():
    key = bytes.fromhex("0000" + OFFSET_KEY_HEX[4:])
    assert r.decode_record(key, None) == r.CoordinatorRecord(r.OffsetCommitKey("demo", "orders", 2), None)


def test_tombstones_decode_with_a_none_value():
    key, value = r.group_metadata_record("demo", None)
    assert value is None
    assert r.decode_record(key, None) == r.CoordinatorRecord(r.GroupMetadataKey("demo"), None)


MEMBER = r.MemberMetadata("c-1-abc", "inst-1", "c-1", "/127.0.0.1", 30000, 10000, b"\x00\x01sub", b"asg")
GROUP_VALUE = r.GroupMetadataValue("consumer", 3, "range", "c-1-abc", 1767225600000, (MEMBER,))


def _kafka_python_group_schema(version: int) -> Schema:
    """GroupMetadataValue.json, spelled with kafka-python's protocol types."""
    flexible = version >= 4
    string = CompactString("utf-8") if flexible else String("utf-8")
    blob = CompactBytes if flexible else Bytes
    array = CompactArray if flexible else Array
    member = [("member_id", string)]
    if version >= 3:
        member.append(("group_instance_id", string))
    member += [("client_id", string), ("client_host", string)]
    if version >= 1:
        member.append(("rebalance_timeout", Int32))
    member += [("session_timeout", Int32), ("subscription", blob), ("assignment", blob)]
    if flexible:
        member.append(("tags", TaggedFields))
    fields = [("version", Int16), ("protocol_type", string), ("generation", Int32),
              ("protocol", string), ("leader", string)]
    if version >= 2:
        fields.append(("current_state_timestamp", Int64))
    fields.append(("members", array(Schema(*member))))
    if flexible:
        fields.append(("tags", TaggedFields))
    return Schema(*fields)


def _kafka_python_group_value(version: int) -> tuple:
    m = MEMBER
    member = [m.member_id]
    if version >= 3:
        member.append(m.group_instance_id)
    member += [m.client_id, m.client_host]
    if version >= 1:
        member.append(m.rebalance_timeout)
    member += [m.session_timeout, m.subscription, m.assignment]
    if version >= 4:
        member.append({})
    v = GROUP_VALUE
    item = [version, v.protocol_type, v.generation, v.protocol, v.leader]
    if version >= 2:
        item.append(v.current_state_timestamp)
    item.append([tuple(member)])
    if version >= 4:
        item.append({})
    return tuple(item)


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_group_metadata_value_matches_an_independent_encoder(version):
    expected = _kafka_python_group_schema(version).encode(_kafka_python_group_value(version))
    assert r.encode_value(GROUP_VALUE, version) == expected


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_group_metadata_value_decodes_every_version(version):
    encoded = _kafka_python_group_schema(version).encode(_kafka_python_group_value(version))
    decoded = r.decode_record(r.encode_key(r.GroupMetadataKey("demo")), encoded).value
    # Fields a version lacks come back with the spec's defaults.
    member = MEMBER
    if version < 3:
        member = replace(member, group_instance_id=None)
    if version < 1:
        member = replace(member, rebalance_timeout=-1)
    timestamp = GROUP_VALUE.current_state_timestamp if version >= 2 else -1
    assert decoded == r.GroupMetadataValue("consumer", 3, "range", "c-1-abc", timestamp, (member,))


def test_kafka_4_writes_group_metadata_version_3():
    assert r.encode_value(GROUP_VALUE)[:2] == b"\x00\x03"


def test_empty_group_value_has_null_protocol_and_leader():
    encoded = r.encode_value(r.GroupMetadataValue("", 0, None, None, 5))
    assert encoded.hex() == "0003" "0000" "00000000" "ffff" "ffff" "0000000000000005" "00000000"


def test_offset_commit_value_v4_flexible_decodes_and_skips_tagged_fields():
    body = (Int16.encode(4) + Int64.encode(9) + Int32.encode(1) + CompactString("utf-8").encode("m")
            + Int64.encode(100) + TaggedFields.encode({7: b"\x01\x02"}))
    record = r.decode_record(r.encode_key(r.OffsetCommitKey("g", "t", 0)), body)
    assert record.value == r.OffsetCommitValue(9, 1, "m", 100)


def test_unknown_record_types_are_reported_as_such():
    with pytest.raises(r.UnknownRecordTypeException):
        r.decode_record(bytes.fromhex("0003" "0001" "67"), b"\x00\x00")


@pytest.mark.parametrize("key,value,message", [
    (b"\x00", None, "Could not read version from key's buffer."),
    (bytes.fromhex("0001" "0004" "6465"), None,
     "Could not read record with version 1 from key's buffer due to: Error reading byte array "
     "of 4 byte(s): only 2 byte(s) available."),
    (bytes.fromhex("0002" "0001" "67"), bytes.fromhex("0009"),
     "Could not read record with version 9 from value's buffer due to: Unsupported version 9."),
    (bytes.fromhex("0002" "0001" "67"), bytes.fromhex("0003" "0008"),
     "Could not read record with version 3 from value's buffer due to: Error reading byte array "
     "of 8 byte(s): only 0 byte(s) available."),
])
def test_corrupt_records_raise_kafkas_deserialization_error(key, value, message):
    with pytest.raises(r.CoordinatorRecordException) as info:
        r.decode_record(key, value)
    assert str(info.value) == message
    assert info.value.java_class == "java.lang.RuntimeException"


def test_absurd_member_count_is_refused_without_allocating():
    value = (Int16.encode(3) + String("utf-8").encode("consumer") + Int32.encode(1)
             + String("utf-8").encode(None) + String("utf-8").encode(None) + Int64.encode(0)
             + Int32.encode(2**31 - 1))
    with pytest.raises(r.CoordinatorRecordException, match="Tried to allocate a collection"):
        r.decode_record(r.encode_key(r.GroupMetadataKey("g")), value)


def test_kafka_python_decoder_reads_what_we_write():
    encoded = r.encode_value(GROUP_VALUE)
    decoded = _kafka_python_group_schema(3).decode(io.BytesIO(encoded))
    assert decoded == _kafka_python_group_value(3)
