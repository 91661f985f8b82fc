"""The two pieces of Java semantics Kafka's group coordinator leans on.

Theory of operation
-------------------
*Which broker coordinates a group* is decided by Java's ``String.hashCode``:
Kafka computes ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``
and the leader of that ``__consumer_offsets`` partition is the coordinator.
``hashCode`` walks the UTF-16 code units of the string (``h = 31*h + unit``)
in 32-bit two's complement arithmetic; ``Utils.abs`` maps ``Integer.MIN_VALUE``
to 0 instead of overflowing.

*Which entry comes first* in a ``java.util.HashMap`` decides a few visible
outcomes of the classic protocol: the member that becomes leader when the
leader leaves, the order of members in the leader's JoinGroup response, and
which protocol wins a tie in the protocol vote.  A HashMap iterates its
buckets in index order; a key's bucket is ``(h ^ (h >>> 16)) & (capacity-1)``
and entries sharing a bucket keep their insertion order.  The table starts at
16 buckets and doubles whenever the size passes three quarters of it; it
never shrinks.

Mirrors ``java.lang.String.hashCode``, ``org.apache.kafka.common.utils.Utils.abs``
and ``java.util.HashMap`` iteration.  Simplified: HashMap's conversion of a
crowded bucket into a tree (8+ colliding keys in a table of 64+) is ignored;
group ids and member ids never get there.
"""

from __future__ import annotations

from typing import Iterable

from minikafka.common.java_hashing import (DEFAULT_CAPACITY, capacity_after, hashmap_order, spread,
                                          string_hash_code, utils_abs)


def bucket_index(key: str, capacity: int) -> int:
    """The bucket of a String key in a HashMap table of ``capacity`` buckets."""
    return spread(string_hash_code(key)) & (capacity - 1)


def hash_map_order(keys: Iterable[str], capacity: int | None = None) -> list[str]:
    """``keys`` (given in insertion order) in the order a HashMap iterates them.

    ``capacity`` is the map's table size; by default the size a fresh map
    reaches by inserting exactly these keys.
    """
    return hashmap_order(keys, None, capacity if capacity is not None else DEFAULT_CAPACITY)


__all__ = ["DEFAULT_CAPACITY", "bucket_index", "capacity_after", "hash_map_order", "string_hash_code", "utils_abs"]
