"""Metadata record bytes: golden values worked out from Kafka's specs, round trips, bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from minikafka.common.errors import UnsupportedVersionException
from minikafka.common.uuid import Uuid
from minikafka.metadata.records import (RECORD_TYPES, BrokerEndpoint, BrokerFeature,
                                        BrokerRegistrationChangeRecord, ConfigRecord, FeatureLevelRecord,
                                        NoOpRecord, PartitionChangeRecord, PartitionRecord,
                                        RegisterBrokerRecord, TopicRecord)
from minikafka.metadata.schema import (BOOL, INT_RANGES, STRING, UUID, ArrayOf, implicit_default)
from minikafka.metadata.serde import (MetadataParseException, deserialize, deserialize_with_version,
                                      serialize)

FOO_ID = Uuid.from_bytes(bytes.fromhex("fee698cfbc1346bd8e81d73594fb65f0"))
TOPIC_ID = Uuid.from_string("xOxBrcYuSRWgtFuZIBiXIA")
DIRS = [Uuid.from_string(s) for s in ("SaZDxfHKu3NMZ7OnFP7YnA", "uHY7hO6-42Q7O4k0zLMmtg",
                                      "p2UpbSD99eygD2ZToiSMzg")]


def u32(n: int) -> str:
    return n.to_bytes(4, "big", signed=True).hex()


# ----------------------------------------------------------------------------- golden bytes
def test_feature_level_record_bytes():
    # frame 1, type 12, version 0 | compact "metadata.version" | int16 27 | no tagged fields
    expected = bytes.fromhex("010c00") + bytes([17]) + b"metadata.version" + bytes.fromhex("001b00")
    assert serialize(FeatureLevelRecord("metadata.version", 27)) == expected
    assert len(expected) == 23


def test_topic_record_bytes():
    expected = bytes.fromhex("010200") + b"\x04foo" + FOO_ID.to_bytes() + b"\x00"
    assert serialize(TopicRecord("foo", FOO_ID)) == expected


def test_partition_change_writes_only_the_changed_tagged_field():
    # leader is tag 1 (int32, 4 bytes); nothing else is written
    expected = bytes.fromhex("010502" + u32(0)) + FOO_ID.to_bytes() + bytes.fromhex("01" "01" "04" + u32(2))
    assert serialize(PartitionChangeRecord(0, FOO_ID, leader=2)) == expected


def test_tagged_fields_go_out_in_tag_order():
    # Directories (tag 8) precede the ELR fields (tags 6, 7) in the spec, but not on the wire.
    record = PartitionChangeRecord(1, FOO_ID, isr=[1], directories=[DIRS[0]], eligible_leader_replicas=[2],
                                   last_known_elr=[])
    expected = (bytes.fromhex("010502" + u32(1)) + FOO_ID.to_bytes() + bytes([4])
                + bytes.fromhex("00" "05" "02" + u32(1))
                + bytes.fromhex("06" "05" "02" + u32(2))
                + bytes.fromhex("07" "01" "01")
                + bytes.fromhex("08" "11" "02") + DIRS[0].to_bytes())
    assert serialize(record) == expected


def test_unfence_bytes():
    expected = bytes.fromhex("011100" + u32(1) + "0000000000000007" + "01" "00" "01" "ff")
    assert serialize(BrokerRegistrationChangeRecord(1, 7, fenced=-1)) == expected


def test_config_delete_writes_a_null_string():
    expected = bytes.fromhex("010400" "02") + b"\x07orders" + b"\x0dretention.ms" + b"\x00" + b"\x00"
    assert serialize(ConfigRecord(2, "orders", "retention.ms", None)) == expected


def test_no_op_record_is_header_and_empty_tag_section():
    assert serialize(NoOpRecord()) == bytes.fromhex("01140000")


def test_partition_record_v2_bytes():
    record = PartitionRecord(0, FOO_ID, (1, 2, 3), (1, 2), (), (), 1, 0, 0, 0, tuple(DIRS))
    expected = (bytes.fromhex("010302" + u32(0)) + FOO_ID.to_bytes()
                + bytes.fromhex("04" + u32(1) + u32(2) + u32(3) + "03" + u32(1) + u32(2) + "01" "01")
                + bytes.fromhex(u32(1) + u32(0) + u32(0) + "04")
                + b"".join(d.to_bytes() for d in DIRS) + b"\x00")
    assert serialize(record) == expected


# Value sizes kafka-dump-log.sh printed for these records on a real 3.7 cluster.
def test_value_sizes_match_a_real_cluster():
    host = "my-cluster-broker-3.my-cluster-kafka-brokers.myproject.svc"
    broker = RegisterBrokerRecord(
        broker_id=3, incarnation_id=Uuid.from_string("5TICkSDlQOGOHY-sn-TtDw"), broker_epoch=53,
        end_points=[BrokerEndpoint("REPLICATION-9091", host, 9091, 1),
                    BrokerEndpoint("PLAIN-9092", host, 9092, 0),
                    BrokerEndpoint("TLS-9093", host, 9093, 1)],
        features=[BrokerFeature("metadata.version", 1, 19)], log_dirs=[DIRS[1]])
    partition = PartitionRecord(0, TOPIC_ID, (5, 3, 4), (5, 3, 4), (), (), 5, 0, 0, 0, tuple(DIRS))
    assert len(serialize(broker)) == 308
    assert len(serialize(TopicRecord("my-topic", TOPIC_ID))) == 29
    assert len(serialize(ConfigRecord(2, "my-topic", "retention.ms", "100000"))) == 34
    assert len(serialize(partition, 1)) == 113


# ----------------------------------------------------------------------------- round trips
def _value_strategy(spec, field_type, version, element=False):
    if isinstance(field_type, ArrayOf):
        inner_type = field_type.element
        inner = (_struct_strategy(inner_type, version) if isinstance(inner_type, type)
                 else _value_strategy(spec, inner_type, version, element=True))
        values = st.lists(inner, max_size=4).map(tuple)
    elif field_type in INT_RANGES:
        low, high = INT_RANGES[field_type]
        values = st.integers(low, high)
    elif field_type == BOOL:
        values = st.booleans()
    elif field_type == STRING:
        values = st.text(max_size=20)
    else:
        assert field_type == UUID
        values = st.binary(min_size=16, max_size=16).map(Uuid.from_bytes)
    return st.one_of(st.none(), values) if spec.nullable and not element else values


def _struct_strategy(cls, version):
    fields = {}
    for spec in cls.SCHEMA:
        if spec.present_in(version):
            fields[spec.attr] = _value_strategy(spec, spec.type, version)
        else:
            fields[spec.attr] = st.just(implicit_default(spec))
    return st.builds(cls, **fields)


@st.composite
def records_and_versions(draw):
    cls = draw(st.sampled_from(sorted(RECORD_TYPES.values(), key=lambda c: c.API_KEY)))
    version = draw(st.integers(0, cls.HIGHEST_SUPPORTED_VERSION))
    return draw(_struct_strategy(cls, version)), version


@settings(max_examples=300, deadline=None)
@given(records_and_versions())
def test_every_record_round_trips(pair):
    record, version = pair
    data = serialize(record, version)
    again = deserialize_with_version(data)
    assert again.message == record and again.version == version
    assert serialize(again) == data


def test_deserialize_returns_the_record():
    assert deserialize(serialize(TopicRecord("orders", FOO_ID))) == TopicRecord("orders", FOO_ID)


def test_unknown_tags_from_newer_versions_are_skipped():
    data = serialize(TopicRecord("foo", FOO_ID))
    with_tag = data[:-1] + bytes.fromhex("01" "09" "02" "abcd")
    assert deserialize(with_tag) == TopicRecord("foo", FOO_ID)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("data,message", [
    (bytes.fromhex("000200"), "Could not deserialize metadata record with frame version 0. Note that "
                              "upgrades from the preview release of KRaft in 2.8 to newer versions are "
                              "not supported."),
    (bytes.fromhex("020200"), "Could not deserialize metadata record due to unknown frame version 2"
                              "(only frame version 1 is supported)"),
    (bytes.fromhex("016300"), "Unknown metadata id 99"),
    (bytes.fromhex("010200"), "Failed to deserialize record with type 2"),
    (bytes.fromhex("01"), "Error while reading type"),
    (bytes.fromhex("01140000ff"), "Found 1 byte(s) of garbage after 20"),
    (bytes.fromhex("010205"), "Failed to deserialize record with type 2"),
    (bytes.fromhex("010e00"), "Record type CLIENT_QUOTA_RECORD (14) is not modelled by the sandbox"),
    (bytes.fromhex("01ffff03"), "Value for type was too large."),
])
def test_bad_bytes_raise_kafkas_parse_error(data, message):
    with pytest.raises(MetadataParseException) as info:
        deserialize(data)
    assert str(info.value) == message


def test_a_tag_the_version_lacks_is_refused():
    data = serialize(PartitionChangeRecord(0, FOO_ID))           # v2, empty tag section
    v0 = data[:2] + b"\x00" + data[3:-1] + bytes.fromhex("01" "08" "01" "01")
    with pytest.raises(MetadataParseException) as info:
        deserialize(v0)
    assert str(info.value.__cause__) == "Tag 8 is not valid for version 0"


def test_null_in_a_non_nullable_field_is_refused():
    data = bytes.fromhex("010200") + b"\x00" + FOO_ID.to_bytes() + b"\x00"
    with pytest.raises(MetadataParseException) as info:
        deserialize(data)
    assert str(info.value.__cause__) == "non-nullable field name was serialized as null"


def test_writing_refuses_out_of_range_and_missing_values():
    with pytest.raises(ValueError, match="Field partitionId is int32; 2147483648 does not fit"):
        serialize(PartitionRecord(partition_id=2**31, topic_id=FOO_ID))
    with pytest.raises(ValueError, match="'name' field is too long to be serialized"):
        serialize(TopicRecord("x" * 40000, FOO_ID))
    with pytest.raises(ValueError, match="non-nullable field name was given None"):
        serialize(TopicRecord(None, FOO_ID))
    with pytest.raises(UnsupportedVersionException, match="Can't write version 3 of TopicRecord"):
        serialize(TopicRecord("t", FOO_ID), 3)
    with pytest.raises(UnsupportedVersionException, match="non-default eligibleLeaderReplicas at version 1"):
        serialize(PartitionRecord(0, FOO_ID, eligible_leader_replicas=(1,)), 1)
