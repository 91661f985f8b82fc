"""The log that KRaft replicates: `ReplicatedLog` (the contract), `Batch`, and an in-memory log.

Theory of operation
-------------------
The metadata log ``__cluster_metadata-0`` is a sequence of *batches*.  A
batch is written whole by one leader, in one epoch, and gets consecutive
offsets; followers copy batches unchanged, so every replica has the same
batch boundaries for the same epoch.  Three positions matter:

* ``start_offset`` -- the first offset kept (always 0 here: no snapshots);
* ``end_offset``   -- the next offset to be written (the log end offset, LEO);
* ``high_watermark`` -- everything below it is committed: stored on a majority
  of the voters and never to be truncated.

``last_fetched_epoch`` is the epoch of the last batch.  Together with
``end_offset`` it is how a replica describes its log in Vote and Fetch
requests.  ``end_offset_for_epoch(e)`` answers "what is the largest epoch
<= e that I have, and where does it end?"; the leader uses it to find the
point where a follower's log diverges from its own (Kafka's log
reconciliation), and the follower truncates there.

Every epoch starts with a control batch holding a `LeaderChangeMessage`
(control record type LEADER_CHANGE): the leader must commit something of its
own epoch before it may advance the high watermark (see `LeaderState`).

`ReplicatedLog` is the small protocol `KafkaRaftClient` needs; mirrors
``org.apache.kafka.raft.ReplicatedLog``.  `MemoryReplicatedLog` implements it
in memory (like Kafka's test ``MockLog``) and models durability: only
flushed batches survive `reopen` (a process restart).  A file-backed
``KafkaMetadataLog`` on RecordBatch v2 segments is meant to implement the
same protocol.
Simplified: no snapshots, no byte sizes; records are opaque Python objects.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence, runtime_checkable

from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition

METADATA_TOPIC_PARTITION = TopicPartition("__cluster_metadata", 0)
LEADER_CHANGE_CURRENT_VERSION = 0   # ControlRecordUtils.LEADER_CHANGE_CURRENT_VERSION


@dataclass(frozen=True, slots=True, order=True)
class OffsetAndEpoch:
    """A log position; ordered by epoch first, then offset (Kafka's ``OffsetAndEpoch.compareTo``).

    ``a >= b`` is the Raft "log at least as up-to-date" test used to grant votes.
    """

    epoch: int
    offset: int


@dataclass(frozen=True, slots=True)
class LeaderChangeMessage:
    """The control record every leader writes first in its epoch (LeaderChangeMessage.json)."""

    leader_id: int
    voters: tuple[int, ...]            # the voter set of the epoch
    granting_voters: tuple[int, ...]   # who voted for this leader (including itself)
    version: int = LEADER_CHANGE_CURRENT_VERSION


@dataclass(frozen=True, slots=True)
class Batch:
    """A record batch of the metadata log: ``records`` get offsets ``base_offset..last_offset``."""

    base_offset: int
    epoch: int                  # the leader epoch that wrote it (partitionLeaderEpoch)
    append_time_ms: int
    records: tuple[Any, ...]
    is_control: bool = False    # True for the LeaderChangeMessage batch

    @property
    def last_offset(self) -> int:
        return self.base_offset + len(self.records) - 1

    @property
    def next_offset(self) -> int:
        return self.base_offset + len(self.records)


@runtime_checkable
class ReplicatedLog(Protocol):
    """What `KafkaRaftClient` needs from the metadata log.

    Invariants an implementation keeps: offsets are dense and batches
    contiguous; ``high_watermark <= end_offset``; the high watermark never
    decreases; nothing below it is ever truncated.
    """

    topic_partition: TopicPartition

    @property
    def start_offset(self) -> int: ...
    @property
    def end_offset(self) -> int: ...
    @property
    def last_fetched_epoch(self) -> int:
        """Epoch of the last batch (0 when the log is empty)."""
    @property
    def high_watermark(self) -> int: ...

    def append_as_leader(self, records: Sequence[Any], epoch: int, now: int,
                         is_control: bool = False) -> tuple[int, int]:
        """Append one batch at ``end_offset``; returns (base_offset, last_offset)."""
    def append_as_follower(self, batches: Sequence[Batch]) -> None:
        """Append batches copied from the leader; the first must start at ``end_offset``."""
    def read(self, start_offset: int, max_batches: int = 64) -> list[Batch]:
        """Batches from the one containing ``start_offset`` onward (at most ``max_batches``)."""
    def truncate_to(self, offset: int) -> None:
        """Remove every batch at or after ``offset`` (a batch boundary >= high watermark)."""
    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        """The largest epoch <= ``epoch`` in the log (0 if none) and the offset where it ends."""
    def update_high_watermark(self, offset: int) -> None: ...
    def flush(self) -> None:
        """Make everything appended so far durable."""


class UnexpectedBaseOffsetException(KafkaException):
    """An append would leave a gap or overlap (``org.apache.kafka.raft.errors``)."""

    @property
    def java_class(self) -> str:
        return "org.apache.kafka.raft.errors.UnexpectedBaseOffsetException"


@dataclass
class _EpochStart:
    epoch: int
    start_offset: int


@dataclass
class MemoryReplicatedLog:
    """`ReplicatedLog` in memory; `reopen` keeps only what was flushed, as a restart does."""

    topic_partition: TopicPartition = METADATA_TOPIC_PARTITION
    _batches: list[Batch] = field(default_factory=list)        # in offset order
    _bases: list[int] = field(default_factory=list)            # base offsets, for bisect
    _epochs: list[_EpochStart] = field(default_factory=list)   # like leader-epoch-checkpoint
    _high_watermark: int = 0                                    # committed below this offset
    _flushed_end: int = 0                                       # durable below this offset

    # ----------------------------------------------------------------- positions
    @property
    def start_offset(self) -> int:
        return 0

    @property
    def end_offset(self) -> int:
        return self._batches[-1].next_offset if self._batches else 0

    @property
    def last_fetched_epoch(self) -> int:
        return self._batches[-1].epoch if self._batches else 0

    @property
    def high_watermark(self) -> int:
        return self._high_watermark

    @property
    def flushed_end_offset(self) -> int:
        return self._flushed_end

    @property
    def batches(self) -> tuple[Batch, ...]:
        """All batches, for inspection by lessons and tests."""
        return tuple(self._batches)

    # ----------------------------------------------------------------- writes
    def append_as_leader(self, records: Sequence[Any], epoch: int, now: int,
                         is_control: bool = False) -> tuple[int, int]:
        if not records:
            raise ValueError("Attempt to append an empty batch to the metadata log")
        if epoch < self.last_fetched_epoch:
            raise ValueError(f"Cannot append a batch of epoch {epoch} after epoch "
                             f"{self.last_fetched_epoch}")
        batch = Batch(self.end_offset, epoch, now, tuple(records), is_control)
        self._add(batch)
        return batch.base_offset, batch.last_offset

    def append_as_follower(self, batches: Sequence[Batch]) -> None:
        for batch in batches:
            if batch.base_offset != self.end_offset:
                raise UnexpectedBaseOffsetException(
                    f"Unexpected base offset {batch.base_offset}; the log end offset is "
                    f"{self.end_offset}")
            if batch.epoch < self.last_fetched_epoch:
                raise ValueError(f"Cannot append a batch of epoch {batch.epoch} after epoch "
                                 f"{self.last_fetched_epoch}")
            self._add(batch)

    def _add(self, batch: Batch) -> None:
        if not batch.records:
            raise ValueError("Attempt to append an empty batch to the metadata log")
        if not self._epochs or self._epochs[-1].epoch != batch.epoch:
            self._epochs.append(_EpochStart(batch.epoch, batch.base_offset))
        self._batches.append(batch)
        self._bases.append(batch.base_offset)

    def truncate_to(self, offset: int) -> None:
        if offset < self._high_watermark:
            raise KafkaException(f"Attempt to truncate to offset {offset}, which is below the "
                                 f"current high watermark {self._high_watermark}")
        index = bisect.bisect_left(self._bases, offset)
        if index > 0 and self._batches[index - 1].last_offset >= offset:
            index -= 1          # an offset inside a batch removes that whole batch
        del self._batches[index:]
        del self._bases[index:]
        end = self.end_offset
        while self._epochs and self._epochs[-1].start_offset >= end:
            self._epochs.pop()
        self._flushed_end = min(self._flushed_end, end)

    def update_high_watermark(self, offset: int) -> None:
        if offset > self.end_offset:
            raise ValueError(f"High watermark {offset} is beyond the log end offset "
                             f"{self.end_offset}")
        if offset < self._high_watermark:
            raise ValueError(f"Non-monotonic update of high watermark from {self._high_watermark} "
                             f"to {offset}")
        self._high_watermark = offset

    def flush(self) -> None:
        self._flushed_end = self.end_offset

    # ----------------------------------------------------------------- reads
    def read(self, start_offset: int, max_batches: int = 64) -> list[Batch]:
        index = bisect.bisect_right(self._bases, start_offset) - 1
        if index < 0:
            index = 0
        elif self._batches[index].last_offset < start_offset:
            index += 1
        return self._batches[index:index + max_batches]

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        found = 0
        for entry in self._epochs:
            if entry.epoch > epoch:
                return OffsetAndEpoch(found, entry.start_offset)
            found = entry.epoch
        return OffsetAndEpoch(self.last_fetched_epoch, self.end_offset)

    # ----------------------------------------------------------------- restarts
    def reopen(self) -> "MemoryReplicatedLog":
        """The log a restarted process finds: flushed batches only, high watermark unknown (0)."""
        durable = [b for b in self._batches if b.next_offset <= self._flushed_end]
        log = type(self)(self.topic_partition)
        log.append_as_follower(durable)
        log.flush()
        return log
