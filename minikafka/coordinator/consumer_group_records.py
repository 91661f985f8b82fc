"""The ``__consumer_offsets`` records of KIP-848 consumer groups, byte for byte.

Theory of operation
-------------------
A consumer group (the group type of ``group.protocol=consumer``) is not one
record like a classic group: it is spread over several small records, so a
heartbeat that changes one member writes only that member's records.  Every
key starts with an int16 *record type* and holds the group id (and the member
id for per-member records); every value starts with int16 version 0 and is
"flexible" (compact lengths, tagged fields):

====  ==========================================  =========================================
type  key (group[, member])                       value
====  ==========================================  =========================================
3     ConsumerGroupMetadataKey                    group epoch; tag 0: metadata hash
4     ConsumerGroupPartitionMetadataKey           (legacy) subscribed topics' metadata
5     ConsumerGroupMemberMetadataKey              the member's subscription and client info
6     ConsumerGroupTargetAssignmentMetadataKey    target assignment epoch; tag 0: timestamp
7     ConsumerGroupTargetAssignmentMemberKey      the member's target partitions
8     ConsumerGroupCurrentMemberAssignmentKey     member epoch, state, owned/revoking partitions
====  ==========================================  =========================================

Kafka 4.3.1 no longer *writes* type 4 values: since KIP-1101 the group keeps
a hash of its subscribed topics' metadata in the type 3 record instead, and
writes a type 4 *tombstone* the next time the epoch of a group that still
has an old type 4 record is bumped.  It still reads type 4 values; this
module keeps their bytes undecoded (the group only needs to know the record
exists).

Tagged fields written only when they differ from their default: the metadata
hash (int64, tag 0, default 0), the assignment timestamp (int64, tag 0,
default 0) and, per topic of a current assignment, the epochs at which each
partition was assigned (nullable []int32, tag 0, default empty; KIP-1251's
per-partition assignment epochs, aligned with the partition list).
``ConsumerGroupMemberMetadataValue``'s tag 0 (the classic-protocol metadata of
a member that joined with JoinGroup) is kept as raw bytes; for consumer-protocol
members 4.3.1 writes it as an explicit null (`NULL_CLASSIC_MEMBER_METADATA`),
because the field's default is an empty struct, not null.  A member without
a regex is written with regex ``""`` (not null), as Kafka stores it.

A ``None`` value is a tombstone.

Mirrors the message specs ``ConsumerGroup*Key/Value.json`` under
group-coordinator/src/main/resources/common/message, ``CoordinatorRecordType``
(the record types) and ``GroupCoordinatorRecordHelpers`` (what is written).
Checked against the generated classes of kafka-group-coordinator 4.3.1.
Simplified: type 16 (``ConsumerGroupRegularExpression``, the asynchronously
resolved regexes) is not produced: this sandbox resolves a member's regex
synchronously on each heartbeat.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from minikafka.common.uuid import Uuid
from minikafka.coordinator.byte_buffer_accessor import Reader, Writer
from minikafka.coordinator.records import CoordinatorRecordException, UnknownRecordTypeException

CONSUMER_GROUP_METADATA = 3
CONSUMER_GROUP_PARTITION_METADATA = 4
CONSUMER_GROUP_MEMBER_METADATA = 5
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA = 6
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER = 7
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT = 8
VALUE_VERSION = 0
# Tag 0 of ConsumerGroupMemberMetadataValue as the coordinator writes it for a consumer-protocol
# member: the field's default is an empty struct, so an explicit null is written (a nullable
# struct's null is the single byte 0).
NULL_CLASSIC_MEMBER_METADATA = b"\x00"

# A topic's partitions in a record: (topic id, partitions) in the order written.
TopicPartitions = tuple[tuple[Uuid, tuple[int, ...]], ...]
# ... and with the epoch at which each partition was assigned (current assignment).
TopicPartitionEpochs = tuple[tuple[Uuid, tuple[int, ...], tuple[int, ...] | None], ...]


# ---------------------------------------------------------------------------- keys
@dataclass(frozen=True, slots=True)
class ConsumerGroupMetadataKey:
    group_id: str


@dataclass(frozen=True, slots=True)
class ConsumerGroupPartitionMetadataKey:
    group_id: str


@dataclass(frozen=True, slots=True)
class ConsumerGroupMemberMetadataKey:
    group_id: str
    member_id: str


@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMetadataKey:
    group_id: str


@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMemberKey:
    group_id: str
    member_id: str


@dataclass(frozen=True, slots=True)
class ConsumerGroupCurrentMemberAssignmentKey:
    group_id: str
    member_id: str


# ---------------------------------------------------------------------------- values
@dataclass(frozen=True, slots=True)
class ConsumerGroupMetadataValue:
    epoch: int
    metadata_hash: int = 0               # tag 0; hash of the subscribed topics' metadata (KIP-1101)


@dataclass(frozen=True, slots=True)
class ConsumerGroupPartitionMetadataValue:
    raw: bytes                           # kept undecoded: 4.3.1 only reads it to tombstone it later


@dataclass(frozen=True, slots=True)
class ConsumerGroupMemberMetadataValue:
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    subscribed_topic_names: tuple[str, ...]
    subscribed_topic_regex: str | None
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = None
    classic_member_metadata: bytes | None = None  # tag 0, raw payload; None: tag absent


@dataclass(frozen=True, slots=True)
class ClassicMemberMetadata:
    """Tag 0 of ConsumerGroupMemberMetadataValue: what a member that joined with JoinGroup sent."""

    session_timeout_ms: int
    supported_protocols: tuple[tuple[str, bytes], ...]   # (name, metadata), in the member's order


def encode_classic_member_metadata(metadata: ClassicMemberMetadata | None) -> bytes:
    """Tag 0's payload: the nullable struct's marker (0 null, 1 present), then the struct."""
    if metadata is None:
        return NULL_CLASSIC_MEMBER_METADATA
    w = Writer(flexible=True).unsigned_varint(1).int32(metadata.session_timeout_ms)
    w.array_length(len(metadata.supported_protocols))
    for name, protocol_metadata in metadata.supported_protocols:
        w.string(name).bytes_field(protocol_metadata).tagged_fields()
    return w.tagged_fields().bytes()


def decode_classic_member_metadata(payload: bytes | None) -> ClassicMemberMetadata | None:
    """Tag 0's payload back (None when absent or null)."""
    if not payload:
        return None
    r = Reader(payload, "value", flexible=True)
    if r.unsigned_varint() == 0:
        return None
    session_timeout_ms = r.int32()
    protocols = []
    for _ in range(r.array_length()):
        name = r.string()
        protocols.append((name, r.bytes_field()))
        r.tagged_fields()
    r.tagged_fields()
    return ClassicMemberMetadata(session_timeout_ms, tuple(protocols))


@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMetadataValue:
    assignment_epoch: int
    assignment_timestamp: int = 0        # tag 0; ms when the assignment was computed


@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMemberValue:
    topic_partitions: TopicPartitions = ()


@dataclass(frozen=True, slots=True)
class ConsumerGroupCurrentMemberAssignmentValue:
    member_epoch: int
    previous_member_epoch: int
    state: int                           # MemberState.value
    assigned_partitions: TopicPartitionEpochs = ()
    partitions_pending_revocation: TopicPartitionEpochs = field(default=())


ConsumerGroupRecordKey = (ConsumerGroupMetadataKey | ConsumerGroupPartitionMetadataKey
                          | ConsumerGroupMemberMetadataKey | ConsumerGroupTargetAssignmentMetadataKey
                          | ConsumerGroupTargetAssignmentMemberKey | ConsumerGroupCurrentMemberAssignmentKey)
ConsumerGroupRecordValue = (ConsumerGroupMetadataValue | ConsumerGroupPartitionMetadataValue
                            | ConsumerGroupMemberMetadataValue | ConsumerGroupTargetAssignmentMetadataValue
                            | ConsumerGroupTargetAssignmentMemberValue
                            | ConsumerGroupCurrentMemberAssignmentValue)


@dataclass(frozen=True, slots=True)
class ConsumerGroupRecord:
    """One consumer-group record; ``value`` None is a tombstone."""

    key: ConsumerGroupRecordKey
    value: ConsumerGroupRecordValue | None


# The record type of each key class, and whether its key carries a member id.
RECORD_TYPES: dict[type, tuple[int, bool]] = {
    ConsumerGroupMetadataKey: (CONSUMER_GROUP_METADATA, False),
    ConsumerGroupPartitionMetadataKey: (CONSUMER_GROUP_PARTITION_METADATA, False),
    ConsumerGroupMemberMetadataKey: (CONSUMER_GROUP_MEMBER_METADATA, True),
    ConsumerGroupTargetAssignmentMetadataKey: (CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, False),
    ConsumerGroupTargetAssignmentMemberKey: (CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, True),
    ConsumerGroupCurrentMemberAssignmentKey: (CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, True),
}
_KEY_CLASSES = {record_type: cls for cls, (record_type, _) in RECORD_TYPES.items()}


# ---------------------------------------------------------------------------- encoding
def encode_key(key: ConsumerGroupRecordKey) -> bytes:
    record_type, has_member = RECORD_TYPES[type(key)]
    w = Writer().int16(record_type).string(key.group_id)
    if has_member:
        w.string(key.member_id)  # type: ignore[union-attr]
    return w.bytes()


def _int64(v: int) -> bytes:
    return struct.pack(">q", v)


def _write_int32_array(w: Writer, values: tuple[int, ...]) -> None:
    w.array_length(len(values))
    for v in values:
        w.int32(v)


def encode_value(value: ConsumerGroupRecordValue | None) -> bytes | None:
    """Serialize ``value`` behind its version prefix; None (a tombstone) stays None."""
    if value is None:
        return None
    if isinstance(value, ConsumerGroupPartitionMetadataValue):
        return Writer().int16(VALUE_VERSION).raw(value.raw).bytes()
    w = Writer(flexible=True).int16(VALUE_VERSION)
    if isinstance(value, ConsumerGroupMetadataValue):
        w.int32(value.epoch)
        w.tagged_fields({0: _int64(value.metadata_hash)} if value.metadata_hash != 0 else None)
    elif isinstance(value, ConsumerGroupMemberMetadataValue):
        w.nullable_string(value.instance_id).nullable_string(value.rack_id)
        w.string(value.client_id).string(value.client_host)
        w.array_length(len(value.subscribed_topic_names))
        for name in value.subscribed_topic_names:
            w.string(name)
        w.nullable_string(value.subscribed_topic_regex).int32(value.rebalance_timeout_ms)
        w.nullable_string(value.server_assignor)
        classic = value.classic_member_metadata
        w.tagged_fields({0: classic} if classic is not None else None)
    elif isinstance(value, ConsumerGroupTargetAssignmentMetadataValue):
        w.int32(value.assignment_epoch)
        ts = value.assignment_timestamp
        w.tagged_fields({0: _int64(ts)} if ts != 0 else None)
    elif isinstance(value, ConsumerGroupTargetAssignmentMemberValue):
        w.array_length(len(value.topic_partitions))
        for topic_id, partitions in value.topic_partitions:
            w.uuid(topic_id.to_bytes())
            _write_int32_array(w, partitions)
            w.tagged_fields()
        w.tagged_fields()
    else:
        w.int32(value.member_epoch).int32(value.previous_member_epoch).int8(value.state)
        _write_topic_partition_epochs(w, value.assigned_partitions)
        _write_topic_partition_epochs(w, value.partitions_pending_revocation)
        w.tagged_fields()
    return w.bytes()


def _write_topic_partition_epochs(w: Writer, topics: TopicPartitionEpochs) -> None:
    w.array_length(len(topics))
    for topic_id, partitions, epochs in topics:
        w.uuid(topic_id.to_bytes())
        _write_int32_array(w, partitions)
        tags: dict[int, bytes] = {}
        if epochs is None:
            tags[0] = b"\x00"                   # compact null array
        elif epochs:
            inner = Writer(flexible=True)
            _write_int32_array(inner, epochs)
            tags[0] = inner.bytes()
        w.tagged_fields(tags)


# ---------------------------------------------------------------------------- decoding
def decode_key(data: bytes) -> ConsumerGroupRecordKey:
    r = Reader(data, "key")
    if r.remaining() < 2:
        raise CoordinatorRecordException("Could not read version from key's buffer.")
    record_type = r.int16()
    cls = _KEY_CLASSES.get(record_type)
    if cls is None:
        raise UnknownRecordTypeException(record_type)
    try:
        if RECORD_TYPES[cls][1]:
            return cls(r.string(), r.string())
        return cls(r.string())
    except ValueError as exc:
        raise CoordinatorRecordException(
            f"Could not read record with version {record_type} from key's buffer due to: {exc}.") from exc


def _read_int32_array(r: Reader) -> tuple[int, ...]:
    return tuple(r.int32() for _ in range(r.array_length()))


def _read_topic_partition_epochs(r: Reader) -> TopicPartitionEpochs:
    topics = []
    for _ in range(r.array_length()):
        topic_id = Uuid.from_bytes(r.uuid())
        partitions = _read_int32_array(r)
        tags = r.tagged_fields()
        epochs: tuple[int, ...] | None = ()
        if 0 in tags:
            inner = Reader(tags[0], "value", flexible=True)
            n = inner.unsigned_varint() - 1
            epochs = None if n < 0 else tuple(inner.int32() for _ in range(n))
        topics.append((topic_id, partitions, epochs))
    return tuple(topics)


def decode_value(key: ConsumerGroupRecordKey, data: bytes | None) -> ConsumerGroupRecordValue | None:
    if data is None:
        return None
    r = Reader(data, "value", flexible=True)
    if r.remaining() < 2:
        raise CoordinatorRecordException("Could not read version from value's buffer.")
    version = r.int16()
    try:
        if version != VALUE_VERSION:
            raise ValueError(f"Unsupported version {version}")
        return _decode_value_body(key, r, data)
    except ValueError as exc:
        raise CoordinatorRecordException(
            f"Could not read record with version {version} from value's buffer due to: {exc}.") from exc


def _decode_value_body(key: ConsumerGroupRecordKey, r: Reader, data: bytes) -> ConsumerGroupRecordValue:
    if isinstance(key, ConsumerGroupPartitionMetadataKey):
        return ConsumerGroupPartitionMetadataValue(bytes(data[2:]))
    if isinstance(key, ConsumerGroupMetadataKey):
        epoch = r.int32()
        tags = r.tagged_fields()
        return ConsumerGroupMetadataValue(epoch, struct.unpack(">q", tags[0])[0] if 0 in tags else 0)
    if isinstance(key, ConsumerGroupMemberMetadataKey):
        instance_id, rack_id = r.nullable_string(), r.nullable_string()
        client_id, client_host = r.string(), r.string()
        names = tuple(r.string() for _ in range(r.array_length()))
        regex = r.nullable_string()
        rebalance_timeout = r.int32()
        assignor = r.nullable_string()
        tags = r.tagged_fields()
        return ConsumerGroupMemberMetadataValue(instance_id, rack_id, client_id, client_host, names, regex,
                                                rebalance_timeout, assignor, tags.get(0))
    if isinstance(key, ConsumerGroupTargetAssignmentMetadataKey):
        epoch = r.int32()
        tags = r.tagged_fields()
        return ConsumerGroupTargetAssignmentMetadataValue(
            epoch, struct.unpack(">q", tags[0])[0] if 0 in tags else 0)
    if isinstance(key, ConsumerGroupTargetAssignmentMemberKey):
        topics = []
        for _ in range(r.array_length()):
            topic_id = Uuid.from_bytes(r.uuid())
            partitions = _read_int32_array(r)
            r.tagged_fields()
            topics.append((topic_id, partitions))
        r.tagged_fields()
        return ConsumerGroupTargetAssignmentMemberValue(tuple(topics))
    member_epoch, previous_epoch, state = r.int32(), r.int32(), r.int8()
    assigned = _read_topic_partition_epochs(r)
    pending = _read_topic_partition_epochs(r)
    r.tagged_fields()
    return ConsumerGroupCurrentMemberAssignmentValue(member_epoch, previous_epoch, state, assigned, pending)


def decode_record(key: bytes, value: bytes | None) -> ConsumerGroupRecord:
    """Decode one consumer-group record (UnknownRecordTypeException for other record types)."""
    decoded_key = decode_key(key)
    return ConsumerGroupRecord(decoded_key, decode_value(decoded_key, value))


def encode_record(record: ConsumerGroupRecord) -> tuple[bytes, bytes | None]:
    return encode_key(record.key), encode_value(record.value)
