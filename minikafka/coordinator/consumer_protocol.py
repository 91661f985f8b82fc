"""``ConsumerProtocol``: the bytes a classic consumer puts inside JoinGroup and SyncGroup.

Theory of operation
-------------------
In the classic protocol the coordinator never reads a consumer's metadata:
the subscription a member sends in JoinGroup and the assignment the leader
sends back in SyncGroup are opaque bytes in the ``consumer`` embedded
protocol.  Converting a group between the classic and the consumer protocol
is the one time the coordinator must read and write them itself: a classic
member's subscription becomes a consumer-group member's subscribed topics,
and a consumer-group member's partitions are handed to a classic member as a
``ConsumerProtocolAssignment``.

Both are non-flexible structs behind an int16 version:

* subscription -- topics []string, user data nullable bytes; v1+: owned
  partitions [topic, partitions []int32]; v2+: generation id int32; v3+:
  rack id nullable string;
* assignment -- assigned partitions [topic, partitions []int32], user data
  nullable bytes (the same in every version).

Reading accepts a newer version than it knows, as Kafka does (the known
prefix is read, the rest ignored).  A malformed buffer raises ValueError
(Kafka's SchemaException).

Mirrors ``org.apache.kafka.clients.consumer.internals.ConsumerProtocol``
(deserializeVersion, deserializeConsumerProtocolSubscription,
deserializeConsumerProtocolAssignment, serializeAssignment).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.coordinator.byte_buffer_accessor import Reader, Writer

PROTOCOL_TYPE = "consumer"
HIGHEST_VERSION = 3


@dataclass(frozen=True, slots=True)
class ConsumerProtocolSubscription:
    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned_partitions: tuple[tuple[str, tuple[int, ...]], ...] | None = None   # None before v1
    generation_id: int = -1
    rack_id: str | None = None


@dataclass(frozen=True, slots=True)
class ConsumerProtocolAssignment:
    assigned_partitions: tuple[tuple[str, tuple[int, ...]], ...]
    user_data: bytes | None = None


def deserialize_version(data: bytes) -> int:
    """The version a subscription or assignment was written with (0 for an empty buffer)."""
    if len(data) < 2:
        return 0
    return Reader(data, "consumer protocol").int16()


def _topic_partitions(reader: Reader) -> tuple[tuple[str, tuple[int, ...]], ...]:
    out = []
    for _ in range(reader.array_length()):
        topic = reader.string()
        out.append((topic, tuple(reader.int32() for _ in range(reader.array_length()))))
    return tuple(out)


def deserialize_subscription(data: bytes) -> ConsumerProtocolSubscription:
    reader = Reader(data, "subscription")
    version = reader.int16()
    if version < 0:
        raise ValueError(f"Unsupported subscription version: {version}")
    topics = tuple(reader.string() for _ in range(reader.array_length()))
    user_data = reader.nullable_bytes_field()
    owned = _topic_partitions(reader) if version >= 1 else None
    generation = reader.int32() if version >= 2 else -1
    rack = reader.nullable_string() if version >= 3 else None
    return ConsumerProtocolSubscription(topics, user_data, owned, generation, rack)


def deserialize_assignment(data: bytes) -> ConsumerProtocolAssignment:
    reader = Reader(data, "assignment")
    version = reader.int16()
    if version < 0:
        raise ValueError(f"Unsupported assignment version: {version}")
    partitions = _topic_partitions(reader)
    return ConsumerProtocolAssignment(partitions, reader.nullable_bytes_field())


def serialize_assignment(assignment: ConsumerProtocolAssignment, version: int) -> bytes:
    """The assignment at ``version`` (capped at the highest one known), as a classic consumer reads it."""
    w = Writer().int16(max(0, min(version, HIGHEST_VERSION)))
    w.array_length(len(assignment.assigned_partitions))
    for topic, partitions in assignment.assigned_partitions:
        w.string(topic).array_length(len(partitions))
        for p in partitions:
            w.int32(p)
    if assignment.user_data is None:
        w.int32(-1)
    else:
        w.bytes_field(assignment.user_data)
    return w.bytes()
