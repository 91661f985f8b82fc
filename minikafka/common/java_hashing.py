"""Java's hash codes and ``HashMap``/``HashSet`` iteration order, for output that must match Kafka's.

Kafka often prints the contents of a Java hash map or set: the voters in
``quorum-state``, the keys of ``meta.properties``, partitions and brokers in
tool output, the group coordinator's partition for a group id.  To print them
in the same order, the sandbox computes what Java does:

* ``String.hashCode`` is ``31*h + c`` over the UTF-16 code units, wrapped to a
  signed 32-bit int; an ``Integer`` hashes to itself;
* a ``HashMap`` spreads a hash as ``h ^ (h >>> 16)``, keeps ``2**k`` buckets
  (16 at first, doubling once more than 75% full) and iterates bucket by bucket,
  entries of one bucket in insertion order (resizing keeps that order);
* Kafka's ``Utils.abs`` is ``Math.abs`` except that ``Integer.MIN_VALUE`` gives 0.

Mirrors ``java.lang.String.hashCode``, ``java.util.HashMap`` and
``org.apache.kafka.common.utils.Utils.abs``.  Simplified: tree bins (a bucket
with 8+ colliding keys) are not modelled.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable, TypeVar

K = TypeVar("K", bound=Hashable)  # a HashMap's key

INT_MIN = -(2**31)
DEFAULT_CAPACITY = 16                  # new HashMap<>() / new HashSet<>()


def to_int32(value: int) -> int:
    """Wrap ``value`` to a signed 32-bit int, as Java's int arithmetic does."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def string_hash_code(text: str) -> int:
    """``String.hashCode()`` of ``text`` (signed 32-bit)."""
    encoded = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(encoded), 2):
        h = (31 * h + ((encoded[i] << 8) | encoded[i + 1])) & 0xFFFFFFFF
    return to_int32(h)


def utils_abs(value: int) -> int:
    """Kafka's ``Utils.abs``: ``Math.abs``, but ``Integer.MIN_VALUE`` gives 0."""
    return 0 if value == INT_MIN else abs(value)


def capacity_after(size: int, capacity: int = DEFAULT_CAPACITY) -> int:
    """The table size of a map that started at ``capacity`` once it holds ``size`` entries."""
    table = 1
    while table < capacity:
        table *= 2
    while size * 4 > table * 3:
        table *= 2
    return table


def spread(hash_code: int) -> int:
    """``h ^ (h >>> 16)`` on the unsigned 32 bits of ``hash_code``: how ``java.util.HashMap``
    (and Scala 2.13's ``mutable.HashMap``) mix a hash before taking its low bits as the bucket."""
    h = hash_code & 0xFFFFFFFF
    return h ^ (h >> 16)


def hashmap_order(keys: Iterable[K], key_hash: Callable[[K], int] | None = None,
                  initial_capacity: int = DEFAULT_CAPACITY) -> list[K]:
    """The order a ``HashMap`` filled with ``keys`` (in this order) iterates them.

    ``key_hash`` defaults to ``String.hashCode`` for strings and the value itself
    for ints.  Duplicate keys count once, at their first insertion.
    """
    ordered = list(dict.fromkeys(keys))
    hasher: Callable[[K], int] = key_hash or (lambda k: k if isinstance(k, int) else string_hash_code(str(k)))
    table = capacity_after(len(ordered), initial_capacity)
    position = {key: i for i, key in enumerate(ordered)}

    def bucket(key: K) -> int:
        return spread(hasher(key)) & (table - 1)
    return sorted(ordered, key=lambda k: (bucket(k), position[k]))


def scala_improve(hash_code: int) -> int:
    """The bit mixer Scala 2.13's immutable ``HashMap`` (a CHAMP trie) applies to ``##``."""
    h = to_int32(hash_code + ~to_int32(hash_code << 9))
    h = to_int32(h ^ ((h & 0xFFFFFFFF) >> 14))
    h = to_int32(h + to_int32(h << 4))
    return to_int32(h ^ ((h & 0xFFFFFFFF) >> 10))


def scala_immutable_hashmap_order(keys: Iterable[str]) -> list[str]:
    """The order a Scala 2.13 immutable ``HashMap`` of strings iterates its keys.

    Kafka's Scala request handlers group a response by topic with ``groupBy``,
    which builds such a map.  The trie branches on 5 bits of the improved hash
    at a time, low bits first; a node lists the keys alone in their branch
    (by branch number) before descending into shared branches.
    """
    ordered = list(dict.fromkeys(keys))
    return _champ(ordered, {k: scala_improve(string_hash_code(k)) & 0xFFFFFFFF for k in ordered}, 0)


def _champ(keys: list[Any], hashes: dict[Any, int], shift: int) -> list[Any]:
    if len(keys) <= 1 or shift >= 32:
        return keys                                     # a leaf, or a full collision (insertion order)
    branches: dict[int, list[Any]] = {}
    for key in keys:
        branches.setdefault((hashes[key] >> shift) & 31, []).append(key)
    alone = [branch[0] for _, branch in sorted(branches.items()) if len(branch) == 1]
    shared = [_champ(branch, hashes, shift + 5) for _, branch in sorted(branches.items()) if len(branch) > 1]
    return alone + [key for branch in shared for key in branch]
