"""The ``__consumer_offsets`` records of the classic group protocol, byte for byte.

Theory of operation
-------------------
The group coordinator keeps no state of its own on disk: every committed
offset and every group generation is a key/value record in the group's
``__consumer_offsets`` partition, and a coordinator that takes over a
partition rebuilds its state by replaying them.  Both key and value start
with a big-endian int16 *version*.  For keys the version is the record type:

* 0 and 1: ``OffsetCommitKey`` (group, topic, partition); Kafka 4.x writes 1;
* 2: ``GroupMetadataKey`` (group);
* 3 and up: records of the KIP-848 consumer, share and streams groups, which
  this sandbox does not use and skips when loading (as Kafka skips types it
  does not know).

A value's version selects its schema.  Kafka 4.x writes ``OffsetCommitValue``
version 3 (offset, leader_epoch, metadata, commit_timestamp), or version 1
(offset, metadata, commit_timestamp, expire_timestamp) when the commit asked
for a retention time (OffsetCommit v2-v4), and ``GroupMetadataValue`` version 3
(protocol_type, generation, protocol, leader, current_state_timestamp, then
per member: member_id, group_instance_id, client_id, client_host,
rebalance_timeout, session_timeout, subscription, assignment).  Version 4 of
both values is the "flexible" encoding (compact lengths and tagged fields);
Kafka does not write it yet but can read it, and so can this module.

A ``None`` value is a tombstone: the offset, or the whole group, is deleted.

Mirrors the message specs ``OffsetCommitKey/Value.json`` and
``GroupMetadataKey/Value.json`` under group-coordinator/src/main/resources/
common/message, ``GroupCoordinatorRecordHelpers`` (which versions are written)
and ``CoordinatorRecordSerde`` (the version prefixes and error texts).
Simplified: tagged fields are skipped on read and never written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minikafka.common.errors import Errors, KafkaException
from minikafka.coordinator.byte_buffer_accessor import Reader, Writer

OFFSET_COMMIT_RECORD_TYPE = 1        # key version Kafka 4.x writes for offsets
LEGACY_OFFSET_COMMIT_RECORD_TYPE = 0  # read only
GROUP_METADATA_RECORD_TYPE = 2
OFFSET_COMMIT_VALUE_VERSION = 3      # GroupCoordinatorRecordHelpers.offsetCommitValueVersion(false)
OFFSET_COMMIT_VALUE_WITH_EXPIRY = 1  # ... (true): the only schema with expireTimestamp
GROUP_METADATA_VALUE_VERSION = 3     # GROUP_METADATA_VALUE_VERSION
FLEXIBLE_VALUE_VERSION = 4
HIGHEST_VALUE_VERSION = 4


class CoordinatorRecordException(KafkaException):
    """A ``__consumer_offsets`` record that cannot be read (Kafka throws a RuntimeException)."""

    error = Errors.UNKNOWN_SERVER_ERROR

    @property
    def java_class(self) -> str:
        return "java.lang.RuntimeException"


class UnknownRecordTypeException(CoordinatorRecordException):
    """A key whose record type this coordinator does not handle; the loader skips it."""

    def __init__(self, record_type: int):
        super().__init__(f"Unknown record type {record_type}")
        self.record_type = record_type


@dataclass(frozen=True, slots=True)
class OffsetCommitKey:
    group: str
    topic: str
    partition: int


@dataclass(frozen=True, slots=True)
class OffsetCommitValue:
    offset: int
    leader_epoch: int = -1               # -1: the consumer did not say (versions 3+)
    metadata: str = ""
    commit_timestamp: int = -1           # ms; when the coordinator accepted the commit
    expire_timestamp: int = -1           # ms; only in version 1 (OffsetCommit retention_time_ms)


@dataclass(frozen=True, slots=True)
class GroupMetadataKey:
    group: str


@dataclass(frozen=True, slots=True)
class MemberMetadata:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout: int
    session_timeout: int
    subscription: bytes
    assignment: bytes


@dataclass(frozen=True, slots=True)
class GroupMetadataValue:
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp: int = -1    # ms; when the group entered its current state (v2+)
    members: tuple[MemberMetadata, ...] = field(default=())


RecordKey = OffsetCommitKey | GroupMetadataKey
RecordValue = OffsetCommitValue | GroupMetadataValue


@dataclass(frozen=True, slots=True)
class CoordinatorRecord:
    """One decoded record; ``value`` None is a tombstone."""

    key: RecordKey
    value: RecordValue | None


# ---------------------------------------------------------------------------- keys
def encode_key(key: RecordKey) -> bytes:
    w = Writer()
    if isinstance(key, OffsetCommitKey):
        w.int16(OFFSET_COMMIT_RECORD_TYPE).string(key.group).string(key.topic).int32(key.partition)
    else:
        w.int16(GROUP_METADATA_RECORD_TYPE).string(key.group)
    return w.bytes()


def _decode_key(data: bytes) -> RecordKey:
    r = Reader(data, "key")
    record_type = _read_version(r)
    try:
        if record_type in (LEGACY_OFFSET_COMMIT_RECORD_TYPE, OFFSET_COMMIT_RECORD_TYPE):
            key: RecordKey = OffsetCommitKey(r.string(), r.string(), r.int32())
        elif record_type == GROUP_METADATA_RECORD_TYPE:
            key = GroupMetadataKey(r.string())
        else:
            raise UnknownRecordTypeException(record_type)
    except ValueError as exc:
        raise _unreadable(record_type, "key", exc) from exc
    return key


# ---------------------------------------------------------------------------- values
def offset_commit_value_version(value: OffsetCommitValue) -> int:
    """The version Kafka 4.x writes for this value (1 only when an expiry is set)."""
    return OFFSET_COMMIT_VALUE_WITH_EXPIRY if value.expire_timestamp != -1 else OFFSET_COMMIT_VALUE_VERSION


def encode_value(value: RecordValue | None, version: int | None = None) -> bytes | None:
    """Serialize ``value`` with its version prefix; None (a tombstone) stays None."""
    if value is None:
        return None
    if isinstance(value, OffsetCommitValue):
        version = offset_commit_value_version(value) if version is None else version
        return _encode_offset_value(value, version)
    version = GROUP_METADATA_VALUE_VERSION if version is None else version
    return _encode_group_value(value, version)


def _encode_offset_value(value: OffsetCommitValue, version: int) -> bytes:
    _check_version(version)
    w = Writer(flexible=version >= FLEXIBLE_VALUE_VERSION)
    w.int16(version).int64(value.offset)
    if version >= 3:
        w.int32(value.leader_epoch)
    w.string(value.metadata).int64(value.commit_timestamp)
    if version == 1:
        w.int64(value.expire_timestamp)
    return w.tagged_fields().bytes()


def _encode_group_value(value: GroupMetadataValue, version: int) -> bytes:
    _check_version(version)
    w = Writer(flexible=version >= FLEXIBLE_VALUE_VERSION)
    w.int16(version).string(value.protocol_type).int32(value.generation)
    w.nullable_string(value.protocol).nullable_string(value.leader)
    if version >= 2:
        w.int64(value.current_state_timestamp)
    w.array_length(len(value.members))
    for m in value.members:
        w.string(m.member_id)
        if version >= 3:
            w.nullable_string(m.group_instance_id)
        w.string(m.client_id).string(m.client_host)
        if version >= 1:
            w.int32(m.rebalance_timeout)
        w.int32(m.session_timeout).bytes_field(m.subscription).bytes_field(m.assignment)
        w.tagged_fields()
    return w.tagged_fields().bytes()


def _decode_offset_value(r: Reader, version: int) -> OffsetCommitValue:
    offset = r.int64()
    leader_epoch = r.int32() if version >= 3 else -1
    metadata = r.string()
    commit_timestamp = r.int64()
    expire_timestamp = r.int64() if version == 1 else -1
    r.tagged_fields()
    return OffsetCommitValue(offset, leader_epoch, metadata, commit_timestamp, expire_timestamp)


def _decode_group_value(r: Reader, version: int) -> GroupMetadataValue:
    protocol_type = r.string()
    generation = r.int32()
    protocol, leader = r.nullable_string(), r.nullable_string()
    timestamp = r.int64() if version >= 2 else -1
    members = []
    for _ in range(r.array_length()):
        member_id = r.string()
        instance_id = r.nullable_string() if version >= 3 else None
        client_id, client_host = r.string(), r.string()
        rebalance_timeout = r.int32() if version >= 1 else -1
        session_timeout = r.int32()
        subscription, assignment = r.bytes_field(), r.bytes_field()
        r.tagged_fields()
        members.append(MemberMetadata(member_id, instance_id, client_id, client_host,
                                      rebalance_timeout, session_timeout, subscription, assignment))
    r.tagged_fields()
    return GroupMetadataValue(protocol_type, generation, protocol, leader, timestamp, tuple(members))


def decode_record(key: bytes, value: bytes | None) -> CoordinatorRecord:
    """Decode one ``__consumer_offsets`` record.

    Raises `UnknownRecordTypeException` for record types of other group kinds
    (callers skip those) and `CoordinatorRecordException` for bytes that do not
    parse.
    """
    decoded_key = _decode_key(key)
    if value is None:
        return CoordinatorRecord(decoded_key, None)
    r = Reader(value, "value")
    version = _read_version(r)
    if not 0 <= version <= HIGHEST_VALUE_VERSION:
        raise _unreadable(version, "value", ValueError(f"Unsupported version {version}"))
    r.flexible = version >= FLEXIBLE_VALUE_VERSION
    try:
        if isinstance(decoded_key, OffsetCommitKey):
            decoded: RecordValue = _decode_offset_value(r, version)
        else:
            decoded = _decode_group_value(r, version)
    except ValueError as exc:
        raise _unreadable(version, "value", exc) from exc
    return CoordinatorRecord(decoded_key, decoded)


def _read_version(r: Reader) -> int:
    if r.remaining() < 2:
        raise CoordinatorRecordException(f"Could not read version from {r.part}'s buffer.")
    return r.int16()


def _check_version(version: int) -> None:
    if not 0 <= version <= HIGHEST_VALUE_VERSION:
        raise ValueError(f"Unsupported version {version}")


def _unreadable(version: int, part: str, exc: Exception) -> CoordinatorRecordException:
    # CoordinatorRecordSerde's wording.
    return CoordinatorRecordException(
        f"Could not read record with version {version} from {part}'s buffer due to: {exc}.")


# ---------------------------------------------------------------------------- helpers
def offset_commit_record(group: str, topic: str, partition: int,
                         value: OffsetCommitValue | None) -> tuple[bytes, bytes | None]:
    """The key/value bytes of an offset commit (or its tombstone when value is None)."""
    return encode_key(OffsetCommitKey(group, topic, partition)), encode_value(value)


def group_metadata_record(group: str, value: GroupMetadataValue | None) -> tuple[bytes, bytes | None]:
    """The key/value bytes of a group's metadata (or its tombstone when value is None)."""
    return encode_key(GroupMetadataKey(group)), encode_value(value)
