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

_INT_MIN = -(2**31)
DEFAULT_CAPACITY = 16                 # java.util.HashMap's initial table size
LOAD_FACTOR_NUM, LOAD_FACTOR_DEN = 3, 4  # the default load factor 0.75, as a fraction


def _to_signed32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


def string_hash_code(text: str) -> int:
    """Java's ``String.hashCode`` (signed 32-bit) of ``text``."""
    h = 0
    encoded = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(encoded), 2):
        h = (31 * h + ((encoded[i] << 8) | encoded[i + 1])) & 0xFFFFFFFF
    return _to_signed32(h)


def utils_abs(value: int) -> int:
    """Kafka's ``Utils.abs``: like ``Math.abs`` but ``Integer.MIN_VALUE`` gives 0."""
    return 0 if value == _INT_MIN else abs(value)


def capacity_after(size: int, capacity: int = DEFAULT_CAPACITY) -> int:
    """The HashMap table size once it has held ``size`` entries (it never shrinks)."""
    while size * LOAD_FACTOR_DEN > capacity * LOAD_FACTOR_NUM:
        capacity *= 2
    return capacity


def bucket_index(key: str, capacity: int) -> int:
    h = string_hash_code(key) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (capacity - 1)


def hash_map_order(keys: Iterable[str], capacity: int | None = None) -> list[str]:
    """``keys`` (given in insertion order) in the order a HashMap iterates them.

    ``capacity`` is the map's table size; by default the size a fresh map
    reaches by inserting exactly these keys.
    """
    ordered = list(keys)
    table = capacity if capacity is not None else capacity_after(len(ordered))
    # sorted() is stable, so keys sharing a bucket keep their insertion order.
    return sorted(ordered, key=lambda k: bucket_index(k, table))
