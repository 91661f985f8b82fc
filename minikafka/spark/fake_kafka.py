"""A test double for a Kafka cluster that Spark's worker processes can all see.

Theory of operation
-------------------
The Spark data source runs its planning calls and its tasks in Python worker
processes, never in the process that runs the test.  An in-memory fake would
therefore be invisible to them; this one keeps its state in a directory
that every process opens by path (the hidden ``_fakeKafkaDir`` option):

* ``topics.json`` holds each topic's partition count and each partition's
  log start offset;
* ``<topic>/<partition>.jsonl`` holds the partition's records, one JSON line
  per record, so a record's offset is its line number.

Writers take an exclusive ``flock`` on ``.lock``, readers a shared one, so
parallel Spark writer tasks append safely.  The fake behaves like a
single-broker cluster with no replication: ``latest`` is the number of
records (the high watermark), ``earliest`` the log start offset, which
`delete_records` moves forward as Kafka's ``deleteRecords`` does; reading
below it raises `OffsetOutOfRangeException`.  Records get CreateTime
timestamps from a counter that starts at the simulated driver's epoch
(1767225600000), so tests see the same values every run.

This is a test fixture, not a model of a Kafka concept; the sandbox's real
brokers live in ``minikafka.server``.  Simplified: no transactions, no
compaction, keyless records go round-robin (Kafka 4's producer uses sticky
batches), and there is no internal topic.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kafka.partitioner.default import murmur2

from minikafka.common.errors import (
    InvalidPartitionsException,
    OffsetOutOfRangeException,
    TopicExistsException,
    UnknownTopicOrPartitionException,
)
from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.offsets_client import KafkaRecord

FAKE_CLOCK_START_MS = 1767225600000  # 2026-01-01T00:00:00Z, as the simulated driver


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(bytes(data)).decode("ascii")


def _decode(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


class FakeKafka:
    """A directory-backed stand-in for a cluster; implements `OffsetsClient`."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)  # the directory every process shares
        self.root.mkdir(parents=True, exist_ok=True)

    # -- locking and the topic table -------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, exclusive: bool) -> Iterator[dict[str, Any]]:
        with open(self.root / ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            table_path = self.root / "topics.json"
            table = json.loads(table_path.read_text()) if table_path.exists() else {"topics": {}, "clock": 0}
            yield table
            if exclusive:
                table_path.write_text(json.dumps(table, sort_keys=True))

    def _log_path(self, tp: TopicPartition) -> Path:
        return self.root / tp.topic / f"{tp.partition}.jsonl"

    def _count(self, tp: TopicPartition) -> int:
        path = self._log_path(tp)
        return sum(1 for _ in path.open()) if path.exists() else 0

    @staticmethod
    def _topic(table: dict[str, Any], topic: str) -> dict[str, Any]:
        if topic not in table["topics"]:
            raise UnknownTopicOrPartitionException()
        return table["topics"][topic]

    # -- administration (what a test does to the "cluster") --------------------------

    def create_topic(self, topic: str, partitions: int = 1) -> None:
        with self._locked(exclusive=True) as table:
            if topic in table["topics"]:
                raise TopicExistsException(f"Topic '{topic}' already exists.")
            table["topics"][topic] = {"partitions": partitions, "log_start": [0] * partitions}
            (self.root / topic).mkdir(exist_ok=True)

    def add_partitions(self, topic: str, total: int) -> None:
        with self._locked(exclusive=True) as table:
            entry = self._topic(table, topic)
            if total <= entry["partitions"]:
                raise InvalidPartitionsException(
                    f"Topic currently has {entry['partitions']} partitions, which is higher than the "
                    f"requested {total}."
                )
            entry["log_start"] += [0] * (total - entry["partitions"])
            entry["partitions"] = total

    def delete_topic(self, topic: str) -> None:
        with self._locked(exclusive=True) as table:
            self._topic(table, topic)
            del table["topics"][topic]
            shutil.rmtree(self.root / topic, ignore_errors=True)

    def delete_records(self, tp: TopicPartition, before_offset: int) -> None:
        """Move the log start offset forward, as ``Admin.deleteRecords`` does."""
        with self._locked(exclusive=True) as table:
            starts = self._topic(table, tp.topic)["log_start"]
            starts[tp.partition] = max(starts[tp.partition], min(before_offset, self._count(tp)))

    def produce(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        headers: Iterable[tuple[str, bytes | None]] = (),
        timestamp: int | None = None,
    ) -> TopicPartition:
        """Append one record; returns the partition it went to."""
        with self._locked(exclusive=True) as table:
            count = self._topic(table, topic)["partitions"]
            if partition is None:
                partition = (murmur2(key) & 0x7FFFFFFF) % count if key is not None else table["clock"] % count
            elif not 0 <= partition < count:
                raise UnknownTopicOrPartitionException()
            if timestamp is None:
                timestamp = FAKE_CLOCK_START_MS + table["clock"]
            table["clock"] += 1
            line = {"ts": timestamp, "k": _encode(key), "v": _encode(value),
                    "h": [[name, _encode(data)] for name, data in headers]}
            with self._log_path(TopicPartition(topic, partition)).open("a") as log:
                log.write(json.dumps(line) + "\n")
            return TopicPartition(topic, partition)

    def producer(self) -> "FakeProducer":
        return FakeProducer(self)

    def records(self, tp: TopicPartition) -> list[KafkaRecord]:
        """The partition's records from its log start offset on (for test assertions)."""
        return list(self.read_range(tp, self.earliest([tp])[tp], self.latest([tp])[tp]))

    # -- OffsetsClient ----------------------------------------------------------------

    def topics(self) -> set[str]:
        with self._locked(exclusive=False) as table:
            return set(table["topics"])

    def partitions(self, topic: str) -> set[int]:
        with self._locked(exclusive=False) as table:
            return set(range(self._topic(table, topic)["partitions"]))

    def earliest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        with self._locked(exclusive=False) as table:
            return {tp: self._topic(table, tp.topic)["log_start"][tp.partition] for tp in partitions}

    def latest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        with self._locked(exclusive=False) as table:
            for tp in partitions:
                self._topic(table, tp.topic)
            return {tp: self._count(tp) for tp in partitions}

    def read_range(self, tp: TopicPartition, start: int, end: int) -> Iterator[KafkaRecord]:
        with self._locked(exclusive=False) as table:
            log_start = self._topic(table, tp.topic)["log_start"][tp.partition]
            lines = self._log_path(tp).read_text().splitlines() if self._log_path(tp).exists() else []
        if not log_start <= start <= len(lines):
            raise OffsetOutOfRangeException(
                f"Offsets out of range with no configured reset policy for partitions: {{{tp}={start}}}"
            )
        for offset in range(start, min(end, len(lines))):
            line = json.loads(lines[offset])
            headers = tuple((name, _decode(data)) for name, data in line["h"])
            yield KafkaRecord(tp.topic, tp.partition, offset, line["ts"], 0, _decode(line["k"]),
                              _decode(line["v"]), headers)

    def close(self) -> None:
        pass


class FakeProducer:
    """`RecordProducer` that appends to a `FakeKafka`; sends are synchronous."""

    def __init__(self, cluster: FakeKafka):
        self._cluster = cluster  # where records go
        self._first_error: BaseException | None = None  # first failed send, raised at the end

    def send(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        headers: tuple[tuple[str, bytes | None], ...] = (),
    ) -> None:
        try:
            self._cluster.produce(topic, value, key=key, partition=partition, headers=headers)
        except Exception as error:  # a real producer reports failures through the send's future
            if self._first_error is None:
                self._first_error = error

    def raise_first_error(self) -> None:
        if self._first_error is not None:
            raise self._first_error

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass
