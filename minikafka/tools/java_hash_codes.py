"""Why Kafka's tools list things in the order they do: ``hashCode`` and ``HashMap`` sizing.

Theory of operation
-------------------
Several Kafka tools print the entries of a ``java.util.HashMap`` (or
``HashSet``) in the map's iteration order, without sorting them:
``kafka-consumer-groups.sh --describe`` lists a member's partitions as
``4, 2, 3, 0, 1``, ``kafka-broker-api-versions.sh`` lists brokers as
``13, 11, 14``, and ``kafka-topics.sh --describe`` without ``--topic``
lists topics in what looks like random order.  The order is not random: a
HashMap walks its buckets in index order, a key's bucket is
``(h ^ (h >>> 16)) & (capacity - 1)`` of its ``hashCode`` ``h``, and keys
sharing a bucket keep their insertion order
(`minikafka.common.java_hashing.hashmap_order` computes that).

What the tools need on top of it, and this module provides:

* the ``hashCode`` of the key classes involved: ``TopicPartition``
  (``31 * (31 + partition) + topic.hashCode()``) and ``Node`` (host, id,
  port, rack and the fenced flag folded in the same ``31 *`` way;
  ``Boolean.hashCode`` is 1231 for true and 1237 for false);
* the table size each ``HashMap`` constructor starts with, because the
  capacity decides the buckets: ``new HashMap<>()`` starts at 16,
  ``new HashMap<>(n)`` at the power of two >= n, and the copy constructor
  ``new HashMap<>(map)`` at the power of two >= ceil(size / 0.75).

Mirrors ``org.apache.kafka.common.TopicPartition.hashCode``,
``org.apache.kafka.common.Node.hashCode`` and the constructors of
``java.util.HashMap`` / ``HashSet``.  Simplified: the copy constructor's size
follows JDK 19+ (``Math.ceil``; the official ``apache/kafka`` images run
Java 21 from 4.1 to 4.3.1); crowded buckets never turn into trees (they
would need 8 colliding keys and 64 buckets).
"""

from __future__ import annotations

import math
from typing import Callable, Hashable, Iterable, TypeVar

from minikafka.common.java_hashing import hashmap_order
from minikafka.common.java_hashing import string_hash_code as string_hash
from minikafka.common.topic_partition import TopicPartition

K = TypeVar("K", bound=Hashable)  # a HashMap's key

DEFAULT_CAPACITY = 16          # new HashMap<>() / new HashSet<>()


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def boolean_hash(value: bool) -> int:
    """``Boolean.hashCode``."""
    return 1231 if value else 1237


def topic_partition_hash(tp: TopicPartition) -> int:
    """``TopicPartition.hashCode``."""
    return _int32(31 * (31 + tp.partition) + string_hash(tp.topic))


def node_hash(host: str | None, node_id: int, port: int, rack: str | None, is_fenced: bool = False) -> int:
    """``Node.hashCode`` (Kafka 4.x folds ``isFenced`` in as well)."""
    result = 31 + (0 if host is None else string_hash(host))
    result = _int32(31 * result + node_id)
    result = _int32(31 * result + port)
    result = _int32(31 * result + (0 if rack is None else string_hash(rack)))
    return _int32(31 * result + boolean_hash(is_fenced))


def copy_capacity(size: int) -> int:
    """Table size requested by ``new HashMap<>(map)`` for a map of ``size`` entries."""
    return max(1, math.ceil(size / 0.75))


def hash_set_capacity(size: int) -> int:
    """Table size requested by ``new HashSet<>(collection)``."""
    return max(int(size / 0.75) + 1, DEFAULT_CAPACITY)


def topic_partition_order(partitions: Iterable[TopicPartition],
                          initial_capacity: int = DEFAULT_CAPACITY) -> list[TopicPartition]:
    """Iteration order of a HashMap keyed by ``partitions`` (inserted in the given order)."""
    return hashmap_order(partitions, topic_partition_hash, initial_capacity)


def int_order(values: Iterable[int], initial_capacity: int = DEFAULT_CAPACITY) -> list[int]:
    """Iteration order of a ``HashSet<Integer>`` filled in the given order."""
    return hashmap_order(values, None, initial_capacity)


def string_order(values: Iterable[str], initial_capacity: int = DEFAULT_CAPACITY) -> list[str]:
    """Iteration order of a ``HashSet<String>`` filled in the given order."""
    return hashmap_order(values, None, initial_capacity)


def keyed_order(items: Iterable[K], key_hash: Callable[[K], int], initial_capacity: int = DEFAULT_CAPACITY) -> list[K]:
    """Iteration order of a HashMap whose keys are ``items`` hashed with ``key_hash``."""
    return hashmap_order(items, key_hash, initial_capacity)


__all__ = ["boolean_hash", "topic_partition_hash", "node_hash", "copy_capacity", "hash_set_capacity",
           "topic_partition_order", "int_order", "string_order", "keyed_order"]
