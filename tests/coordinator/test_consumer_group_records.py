"""Golden bytes of the KIP-848 consumer-group records.

The hex strings were produced by Kafka 4.3.1's own generated message classes
(kafka-group-coordinator-4.3.1.jar, ``MessageUtil.toVersionPrefixedBytes``)
and annotated here with the field layout of the JSON specs
(group-coordinator/src/main/resources/common/message/ConsumerGroup*.json)."""

import pytest

from minikafka.common.uuid import Uuid
from minikafka.coordinator import consumer_group_records as cr
from minikafka.coordinator.records import CoordinatorRecordException, UnknownRecordTypeException

T = Uuid(1, 2)
T_HEX = "0000000000000001" "0000000000000002"

GOLDEN = [
    (cr.ConsumerGroupMetadataKey("demo"), "0003" "0004" "64656d6f"),
    (cr.ConsumerGroupPartitionMetadataKey("demo"), "0004" "0004" "64656d6f"),
    (cr.ConsumerGroupMemberMetadataKey("demo", "m1"), "0005" "0004" "64656d6f" "0002" "6d31"),
    (cr.ConsumerGroupTargetAssignmentMetadataKey("demo"), "0006" "0004" "64656d6f"),
    (cr.ConsumerGroupTargetAssignmentMemberKey("demo", "m1"), "0007" "0004" "64656d6f" "0002" "6d31"),
    (cr.ConsumerGroupCurrentMemberAssignmentKey("demo", "m1"), "0008" "0004" "64656d6f" "0002" "6d31"),
]

VALUES = [
    # ConsumerGroupMetadataValue: epoch, then tagged fields (metadata hash only when != 0)
    ("epoch", cr.ConsumerGroupMetadataValue(5), "0000" "00000005" "00"),
    ("epoch+hash", cr.ConsumerGroupMetadataValue(5, 0x0102030405060708),
     "0000" "00000005" "01" "00" "08" "0102030405060708"),
    # ConsumerGroupMemberMetadataValue: instance (null), rack, client id, host, names, regex (null),
    # rebalance timeout, assignor, tags
    ("member", cr.ConsumerGroupMemberMetadataValue(None, "r1", "c", "/h", ("orders",), None, 300000, "uniform"),
     "0000" "00" "03" "7231" "02" "63" "03" "2f68" "02" "07" "6f7264657273" "00" "000493e0"
     "08" "756e69666f726d" "00"),
    ("member+regex", cr.ConsumerGroupMemberMetadataValue("i", None, "c", "/h", (), "o.*", -1, None),
     "0000" "02" "69" "00" "02" "63" "03" "2f68" "01" "04" "6f2e2a" "ffffffff" "00" "00"),
    # ConsumerGroupTargetAssignmentMetadataValue: epoch, tags (timestamp only when != 0)
    ("target-epoch", cr.ConsumerGroupTargetAssignmentMetadataValue(5), "0000" "00000005" "00"),
    ("target-epoch+ts", cr.ConsumerGroupTargetAssignmentMetadataValue(5, 1767225600000),
     "0000" "00000005" "01" "00" "08" "0000019b76daa800"),
    # ConsumerGroupTargetAssignmentMemberValue: [topic id, [partitions], tags], tags
    ("target-member", cr.ConsumerGroupTargetAssignmentMemberValue(((T, (0, 2)),)),
     "0000" "02" + T_HEX + "03" "00000000" "00000002" "00" "00"),
    # ConsumerGroupCurrentMemberAssignmentValue: epoch, previous epoch, state (int8),
    # assigned [topic id, [partitions], tags{0: assignment epochs}], pending revocation (same), tags
    ("current", cr.ConsumerGroupCurrentMemberAssignmentValue(
        5, 4, 1, ((T, (0, 2), (3, 5)),), ((T, (1,), (3,)),)),
     "0000" "00000005" "00000004" "01"
     "02" + T_HEX + "03" "00000000" "00000002" "01" "00" "09" "03" "00000003" "00000005"
     "02" + T_HEX + "02" "00000001" "01" "00" "05" "02" "00000003"
     "00"),
    ("current-no-epochs", cr.ConsumerGroupCurrentMemberAssignmentValue(5, 4, 0, ((T, (7,), ()),), ()),
     "0000" "00000005" "00000004" "00" "02" + T_HEX + "02" "00000007" "00" "01" "00"),
    ("current-null-epochs", cr.ConsumerGroupCurrentMemberAssignmentValue(5, 4, 0, ((T, (7,), None),), ()),
     "0000" "00000005" "00000004" "00" "02" + T_HEX + "02" "00000007" "01" "00" "01" "00" "01" "00"),
]


@pytest.mark.parametrize("key,hex_", GOLDEN, ids=[type(k).__name__ for k, _ in GOLDEN])
def test_key_golden_bytes_and_round_trip(key, hex_):
    assert cr.encode_key(key).hex() == hex_
    assert cr.decode_key(bytes.fromhex(hex_)) == key


KEY_FOR = {
    cr.ConsumerGroupMetadataValue: cr.ConsumerGroupMetadataKey("demo"),
    cr.ConsumerGroupMemberMetadataValue: cr.ConsumerGroupMemberMetadataKey("demo", "m1"),
    cr.ConsumerGroupTargetAssignmentMetadataValue: cr.ConsumerGroupTargetAssignmentMetadataKey("demo"),
    cr.ConsumerGroupTargetAssignmentMemberValue: cr.ConsumerGroupTargetAssignmentMemberKey("demo", "m1"),
    cr.ConsumerGroupCurrentMemberAssignmentValue: cr.ConsumerGroupCurrentMemberAssignmentKey("demo", "m1"),
}


@pytest.mark.parametrize("name,value,hex_", VALUES, ids=[n for n, _, _ in VALUES])
def test_value_golden_bytes_and_round_trip(name, value, hex_):
    assert cr.encode_value(value).hex() == hex_
    key = KEY_FOR[type(value)]
    assert cr.decode_record(cr.encode_key(key), bytes.fromhex(hex_)) == cr.ConsumerGroupRecord(key, value)


def test_tombstones_stay_none():
    key = cr.ConsumerGroupMemberMetadataKey("demo", "m1")
    k, v = cr.encode_record(cr.ConsumerGroupRecord(key, None))
    assert v is None
    assert cr.decode_record(k, None) == cr.ConsumerGroupRecord(key, None)


def test_legacy_partition_metadata_value_is_kept_undecoded():
    key = cr.ConsumerGroupPartitionMetadataKey("demo")
    raw = bytes.fromhex("0000" "01" "00")          # version 0, empty topics array, no tags
    record = cr.decode_record(cr.encode_key(key), raw)
    assert record.value == cr.ConsumerGroupPartitionMetadataValue(bytes.fromhex("0100"))
    assert cr.encode_value(record.value) == raw


def test_other_record_types_are_unknown_to_this_module():
    with pytest.raises(UnknownRecordTypeException) as info:
        cr.decode_key(bytes.fromhex("0001" "0004" "64656d6f"))
    assert info.value.record_type == 1


def test_truncated_value_is_a_coordinator_record_exception():
    key = cr.ConsumerGroupMetadataKey("demo")
    with pytest.raises(CoordinatorRecordException, match="Could not read record with version 0 from value's"):
        cr.decode_record(cr.encode_key(key), bytes.fromhex("0000" "0000"))
    with pytest.raises(CoordinatorRecordException, match="Unsupported version 1"):
        cr.decode_record(cr.encode_key(key), bytes.fromhex("0001" "00000005" "00"))


def test_unknown_member_state_byte_reads_back():
    value = cr.ConsumerGroupCurrentMemberAssignmentValue(5, 4, 127)
    key = cr.ConsumerGroupCurrentMemberAssignmentKey("demo", "m1")
    assert cr.decode_record(cr.encode_key(key), cr.encode_value(value)).value.state == 127
