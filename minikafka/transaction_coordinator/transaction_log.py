"""``__transaction_state``: the records of the transaction coordinator, byte for byte.

Theory of operation
-------------------
The coordinator keeps nothing on disk of its own: each change of a
transactional id's metadata is one record in its ``__transaction_state``
partition (a compacted topic), and a coordinator that takes the partition
over rebuilds its cache by replaying them (`TransactionStateManager`).
The partition of an id is ``Utils.abs(id.hashCode()) % 50`` (Java's
``String.hashCode``; 50 is ``transaction.state.log.num.partitions``).

The key is the record type (int16 0, ``TransactionLogKey``) followed by the
transactional id as a classic string (int16 length).  The value starts with
its version as an int16:

* version 0 (a cluster at ``transaction.version`` 0): producer id (int64),
  producer epoch (int16), transaction timeout (int32), state id (int8),
  partitions (nullable array: topic, int32 partition ids), last update and
  start timestamps (int64);
* version 1 (``transaction.version`` 1 and up; a new 4.3.1 cluster is at 2):
  the same fields, flexible (varint lengths; a tagged-field block after each
  partition entry and at the end).  Tags, written only when they differ from
  their default: 0 previous producer id (-1), 1 next producer id (-1),
  2 the client's transaction version (0), 3 next producer epoch (-1, never
  set by 4.3.1).

The value's version follows the cluster's finalized ``transaction.version``,
not the client's.  An ``Empty`` state writes its partitions as null; any other
state writes them grouped by topic, in the order Kafka's ``HashSet`` and
``groupingBy`` ``HashMap`` iterate them (``computeIfAbsent`` puts a new topic at
the head of its bucket, so topics sharing a bucket come out newest first).  A ``None`` value is a tombstone: the
id expired.  Reading skips keys of another record type (``UnknownKeyVersion``)
and values of an unknown version (``UnknownValueVersion``), as 4.3.1 does.

Mirrors ``org.apache.kafka.coordinator.transaction.TransactionLog`` (``keyToBytes``,
``valueToBytes``, ``read``, ``readTxnRecordKey``) and the message specs
``TransactionLogKey.json`` / ``TransactionLogValue.json`` of
kafka-transaction-coordinator-4.3.1.jar; checked byte for byte against them by
tests/jvm/test_transaction_log_jvm.py.  Simplified: the partition order of a
transaction with more than 12 partitions (or 12 topics) assumes the set was
last copied, not grown (Kafka's order then depends on its history); the
bytes decode to the same set either way.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Iterable

from minikafka.common.java_hashing import capacity_after, hashmap_order, spread, string_hash_code, to_int32, utils_abs
from minikafka.common.topic_partition import TopicPartition
from minikafka.coordinator.byte_buffer_accessor import Reader, Writer
from minikafka.transaction_coordinator.transaction_metadata import NO_PRODUCER_EPOCH, TransactionMetadata
from minikafka.transaction_coordinator.transaction_state import IllegalStateException, TransactionState
from minikafka.transaction_coordinator.transaction_version import TransactionVersion
from minikafka.transaction_coordinator.txn_transit_metadata import TxnTransitMetadata

TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
TRANSACTION_LOG_RECORD_TYPE = 0     # CoordinatorRecordType.TRANSACTION_LOG: the key's int16 prefix
HIGHEST_VALUE_VERSION = 1

TAG_PREVIOUS_PRODUCER_ID = 0
TAG_NEXT_PRODUCER_ID = 1
TAG_CLIENT_TRANSACTION_VERSION = 2
TAG_NEXT_PRODUCER_EPOCH = 3


def partition_for(transactional_id: str, partition_count: int) -> int:
    """The ``__transaction_state`` partition that holds ``transactional_id`` (and so its coordinator)."""
    return utils_abs(string_hash_code(transactional_id)) % partition_count


def value_version(transaction_version_level: TransactionVersion) -> int:
    """``TransactionVersion.transactionLogValueVersion``: 1 from transaction.version 1 on, else 0."""
    return 1 if transaction_version_level >= TransactionVersion.TV_1 else 0


# ---------------------------------------------------------------------------- writing
def key_to_bytes(transactional_id: str) -> bytes:
    return Writer().int16(TRANSACTION_LOG_RECORD_TYPE).string(transactional_id).bytes()


def _topic_partition_hash(tp: TopicPartition) -> int:
    """``TopicPartition.hashCode``: ``31 * (31 + partition) + topic.hashCode()``."""
    return to_int32(31 * (31 + tp.partition) + string_hash_code(tp.topic))


def _copied_set_capacity(size: int) -> int:
    """The table size of ``new HashSet<>(collection)`` of ``size`` elements."""
    wanted = max(int(size / 0.75) + 1, 16)
    table = 1
    while table < wanted:
        table *= 2
    return table


def partitions_in_kafka_order(partitions: Iterable[TopicPartition]) -> list[tuple[str, list[int]]]:
    """(topic, partition ids) in the order 4.3.1's ``valueToBytes`` writes them."""
    members = sorted(set(partitions))
    in_set_order = hashmap_order(members, _topic_partition_hash, _copied_set_capacity(len(members)))
    by_topic: dict[str, list[int]] = {}
    for tp in in_set_order:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    # ``groupingBy`` fills its HashMap with ``computeIfAbsent``, which puts a new key at the *head* of its
    # bucket: topics sharing a bucket come out in reverse order of first appearance.
    topics = list(by_topic)
    table = capacity_after(len(topics))
    return [(topic, by_topic[topic]) for topic in sorted(
        topics, key=lambda t: (spread(string_hash_code(t)) & (table - 1), -topics.index(t)))]


def value_to_bytes(transit: TxnTransitMetadata, transaction_version_level: TransactionVersion) -> bytes:
    """The ``TransactionLogValue`` of ``transit`` at the version the cluster's level selects."""
    if transit.txn_state == TransactionState.EMPTY and transit.topic_partitions:
        raise IllegalStateException(f"Transaction is not expected to have any partitions since its state is "
                                    f"{transit.txn_state}: {transit}")
    version = value_version(transaction_version_level)
    flexible = version >= 1
    w = Writer(flexible=flexible).int16(version)
    w.int64(transit.producer_id).int16(transit.producer_epoch).int32(transit.txn_timeout_ms)
    w.int8(transit.txn_state.id)
    if transit.txn_state == TransactionState.EMPTY:
        if flexible:
            w.unsigned_varint(0)  # a null compact array
        else:
            w.int32(-1)           # a null classic array
    else:
        groups = partitions_in_kafka_order(transit.topic_partitions)
        w.array_length(len(groups))
        for topic, ids in groups:
            w.string(topic).array_length(len(ids))
            for partition in ids:
                w.int32(partition)
            w.tagged_fields()
    w.int64(transit.txn_last_update_timestamp).int64(transit.txn_start_timestamp)
    if flexible:
        tags: dict[int, bytes] = {}
        if transit.prev_producer_id != -1:
            tags[TAG_PREVIOUS_PRODUCER_ID] = struct.pack(">q", transit.prev_producer_id)
        if transit.next_producer_id != -1:
            tags[TAG_NEXT_PRODUCER_ID] = struct.pack(">q", transit.next_producer_id)
        if transit.client_transaction_version.feature_level != 0:
            tags[TAG_CLIENT_TRANSACTION_VERSION] = struct.pack(">h", transit.client_transaction_version.feature_level)
        w.tagged_fields(tags)
    return w.bytes()


# ---------------------------------------------------------------------------- reading
@dataclass(frozen=True, slots=True)
class TxnRecord:
    """A value: the metadata it describes (fresh, with no pending state)."""

    transactional_id: str
    metadata: TransactionMetadata


@dataclass(frozen=True, slots=True)
class TxnTombstone:
    transactional_id: str


@dataclass(frozen=True, slots=True)
class UnknownKeyVersion:
    version: int


@dataclass(frozen=True, slots=True)
class UnknownValueVersion:
    version: int


ReadResult = TxnRecord | TxnTombstone | UnknownKeyVersion | UnknownValueVersion


def read_txn_record_key(key: bytes) -> str:
    """The transactional id of a key; any other record type is an error here."""
    reader = Reader(key, "key")
    version = reader.int16()
    if version != TRANSACTION_LOG_RECORD_TYPE:
        raise IllegalStateException(f"Unknown version {version} from the transaction log message key")
    return reader.string()


def read(key: bytes, value: bytes | None) -> ReadResult:
    """Decode one ``__transaction_state`` record, as 4.3.1's loader does."""
    reader = Reader(key, "key")
    key_version = reader.int16()
    if key_version != TRANSACTION_LOG_RECORD_TYPE:
        return UnknownKeyVersion(key_version)
    transactional_id = reader.string()
    if value is None:
        return TxnTombstone(transactional_id)
    version = struct.unpack_from(">h", value)[0]
    if not 0 <= version <= HIGHEST_VALUE_VERSION:
        return UnknownValueVersion(version)
    r = Reader(value[2:], "value", flexible=version >= 1)
    producer_id, producer_epoch, timeout = r.int64(), r.int16(), r.int32()
    state = TransactionState.from_id(r.int8())
    partitions: set[TopicPartition] = set()
    count = r.unsigned_varint() - 1 if version >= 1 else r.int32()   # -1: null (an Empty record)
    for _ in range(max(count, 0)):
        topic = r.string()
        for _ in range(r.array_length()):
            partitions.add(TopicPartition(topic, r.int32()))
        if version >= 1:
            r.tagged_fields()
    last_update, start = r.int64(), r.int64()
    prev_pid, next_pid, client_tv = -1, -1, 0
    if version >= 1:
        tags = r.tagged_fields()
        if TAG_PREVIOUS_PRODUCER_ID in tags:
            prev_pid = struct.unpack(">q", tags[TAG_PREVIOUS_PRODUCER_ID])[0]
        if TAG_NEXT_PRODUCER_ID in tags:
            next_pid = struct.unpack(">q", tags[TAG_NEXT_PRODUCER_ID])[0]
        if TAG_CLIENT_TRANSACTION_VERSION in tags:
            client_tv = struct.unpack(">h", tags[TAG_CLIENT_TRANSACTION_VERSION])[0]
    if state == TransactionState.EMPTY:
        partitions = set()   # Kafka ignores the partitions of an Empty record
    metadata = TransactionMetadata(
        transactional_id, producer_id, prev_pid, next_pid, producer_epoch, NO_PRODUCER_EPOCH, timeout, state,
        partitions, start, last_update, TransactionVersion.from_feature_level(client_tv))
    return TxnRecord(transactional_id, metadata)


__all__ = ["HIGHEST_VALUE_VERSION", "ReadResult", "TRANSACTION_LOG_RECORD_TYPE", "TRANSACTION_STATE_TOPIC_NAME",
           "TxnRecord", "TxnTombstone", "UnknownKeyVersion", "UnknownValueVersion", "key_to_bytes",
           "partition_for", "partitions_in_kafka_order", "read", "read_txn_record_key", "value_to_bytes",
           "value_version"]
