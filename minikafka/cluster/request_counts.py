"""`RequestCounts`: which requests each broker answered, by API, client id and partition.

Theory of operation
-------------------
Kafka's clients talk to the broker that leads a partition; the brokers'
side of that conversation is visible in their request metrics
(``kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce``)
and, with DEBUG request logging, request by request with the client's
``client.id``, the partitions named and each partition's error.
``cluster.request_counts()`` collects the same facts from every running
broker as plain data:

* ``requests``: one `RequestCount` per (broker, API, client id): how many
  requests of that API that client sent to that broker and got answered;
* ``partitions``: for the APIs that name partitions (Produce, Fetch,
  ListOffsets, OffsetForLeaderEpoch, DeleteRecords), one
  `PartitionRequestCount` per (broker, API, client id, partition, error):
  how many of those requests named that partition and what the broker
  answered for it (``NONE``, ``NOT_LEADER_OR_FOLLOWER``...; None when no
  answer is sent, as for ``acks=0``).

Counts are cumulative from each broker's start, like Kafka's meters.  To
count a known workload, take counts before and after it and subtract:
``after.since(before)`` (or ``cluster.request_counts(since=before)``).  A
broker restarted in between starts from zero again; its counts are then
the ones since its restart.  A broker that is down has no counts (they died
with its process).

Followers' fetches are left out unless asked for (``followers=True``):
they appear as API ``Fetch`` with client id ``broker-<id>-fetcher-0``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from minikafka.common.topic_partition import TopicPartition

KEYS = ("broker", "api", "client_id", "partition", "error")


@dataclass(frozen=True, slots=True)
class RequestCount:
    broker: int
    api: str                       # Kafka's API name: "Produce", "Fetch", "Metadata"...
    client_id: str                 # the client.id the client sent ("" if none)
    count: int


@dataclass(frozen=True, slots=True)
class PartitionRequestCount:
    broker: int
    api: str
    client_id: str
    partition: TopicPartition      # prints as "orders-0"
    error: str | None              # Kafka's error name in the answer; None: no answer sent
    count: int


def _matches(row: Any, filters: dict[str, Any]) -> bool:
    for key, wanted in filters.items():
        if wanted is None:
            continue
        if key == "topic":
            if row.partition.topic != wanted:
                return False
        elif key == "partition":
            if row.partition.partition != wanted:
                return False
        elif getattr(row, key) != wanted:
            return False
    return True


@dataclass(frozen=True)
class RequestCounts:
    requests: tuple[RequestCount, ...]
    partitions: tuple[PartitionRequestCount, ...]
    incarnations: dict[int, int] = field(default_factory=dict)   # broker -> process start number

    # ------------------------------------------------------------------ arithmetic
    def since(self, earlier: "RequestCounts") -> "RequestCounts":
        """The requests answered after ``earlier`` was taken."""
        def subtract(rows: Iterable[Any], before: Iterable[Any]) -> tuple:
            old = {_key(r): r.count for r in before
                   if earlier.incarnations.get(r.broker) == self.incarnations.get(r.broker)}
            kept = [(r, r.count - old.get(_key(r), 0)) for r in rows]
            return tuple(_with_count(r, n) for r, n in kept if n > 0)
        return RequestCounts(subtract(self.requests, earlier.requests),
                             subtract(self.partitions, earlier.partitions), dict(self.incarnations))

    __sub__ = since

    # ------------------------------------------------------------------ questions
    def total(self, *, broker: int | None = None, api: str | None = None,
              client_id: str | None = None, topic: str | None = None,
              partition: int | None = None, error: str | None = None) -> int:
        """How many requests match; with ``topic``/``partition``/``error``, counted per partition."""
        return sum(r.count for r in self._rows(broker, api, client_id, topic, partition, error))

    def by(self, *keys: str, broker: int | None = None, api: str | None = None,
           client_id: str | None = None, topic: str | None = None, partition: int | None = None,
           error: str | None = None) -> dict:
        """Totals grouped by ``keys`` (any of broker, api, client_id, partition, error).

        ``counts.by("broker", api="Produce")`` -> ``{1: 4, 2: 3}``; with several keys the
        dict is keyed by tuples; partitions appear as ``"orders-0"``.
        """
        for key in keys:
            if key not in KEYS:
                raise ValueError(f"Cannot group by {key!r}; choose from {', '.join(KEYS)}")
        per_partition = bool({"partition", "error"} & set(keys))
        rows = self._rows(broker, api, client_id, topic, partition, error, per_partition)
        totals: dict = defaultdict(int)
        for row in rows:
            values = tuple(getattr(row, k) for k in keys)
            totals[values[0] if len(keys) == 1 else values] += row.count
        ordered = sorted(totals.items(), key=lambda item: _sort_key(item[0]))
        return {_printable(k): n for k, n in ordered}

    def _rows(self, broker, api, client_id, topic, partition, error, per_partition=False):
        filters = {"broker": broker, "api": api, "client_id": client_id}
        if per_partition or topic is not None or partition is not None or error is not None:
            filters.update(topic=topic, partition=partition, error=error)
            return [r for r in self.partitions if _matches(r, filters)]
        return [r for r in self.requests if _matches(r, filters)]

    # ------------------------------------------------------------------ text
    def table(self, *, broker: int | None = None, api: str | None = None,
              client_id: str | None = None, topic: str | None = None) -> str:
        """One line per broker, API, client, partition and error, sorted; stable for a lesson."""
        lines = [("BROKER", "API", "CLIENT-ID", "PARTITION", "ERROR", "REQUESTS")]
        partition_apis = {(r.broker, r.api, r.client_id) for r in self.partitions}
        rows: list[tuple] = []
        for r in self.requests:
            if (r.broker, r.api, r.client_id) not in partition_apis and topic is None \
                    and _matches(r, {"broker": broker, "api": api, "client_id": client_id}):
                rows.append((r.broker, r.api, r.client_id, "-", "-", r.count))
        for r in self.partitions:
            if _matches(r, {"broker": broker, "api": api, "client_id": client_id, "topic": topic}):
                rows.append((r.broker, r.api, r.client_id, r.partition,
                             "-" if r.error is None else r.error, r.count))
        lines += [tuple(map(str, row)) for row in sorted(rows, key=_sort_key)]
        widths = [max(len(line[i]) for line in lines) for i in range(6)]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
                         for line in lines)

    def __str__(self) -> str:
        return self.table()


def _key(row: Any) -> tuple:
    if isinstance(row, RequestCount):
        return (row.broker, row.api, row.client_id)
    return (row.broker, row.api, row.client_id, row.partition, row.error)


def _with_count(row: Any, count: int) -> Any:
    if isinstance(row, RequestCount):
        return RequestCount(row.broker, row.api, row.client_id, count)
    return PartitionRequestCount(row.broker, row.api, row.client_id, row.partition, row.error, count)


def _sort_key(value: Any) -> tuple:
    """Sort mixed values the way a reader expects: numbers by value, partitions by topic, index."""
    values = value if isinstance(value, tuple) and not isinstance(value, TopicPartition) else (value,)
    key = []
    for v in values:
        if isinstance(v, TopicPartition):
            key.append((1, 0, v.topic, v.partition))
        elif isinstance(v, int):
            key.append((0, v, "", 0))
        else:
            key.append((1 if v is not None else 2, 0, "" if v is None else str(v), -1))
    return tuple(key)


def _printable(key: Any) -> Any:
    """Group keys as a lesson prints them: partitions as ``"orders-0"``."""
    if isinstance(key, TopicPartition):
        return str(key)
    if isinstance(key, tuple):
        return tuple(str(v) if isinstance(v, TopicPartition) else v for v in key)
    return key
