"""LeaderEpochFileCache: which leader epoch wrote which range of offsets.

Theory of operation
-------------------
Every batch a leader appends is stamped with its leader epoch.  The cache
keeps one entry per epoch: the first offset written in it.  With leaders
0, 1 and 3 it might read ``[(0, 0), (1, 120), (3, 455)]``, meaning epoch 0
wrote offsets 0..119, epoch 1 wrote 120..454, and epoch 3 from 455 on.  The
entries live in ``leader-epoch-checkpoint``::

    0
    3
    0 0
    1 120
    3 455

The cache answers the question replication depends on (KIP-101, KIP-279):
"where does epoch E end?" -- ``end_offset_for(E)`` returns the largest epoch
<= E the log knows and the start offset of the next epoch (or the log end
offset for the latest epoch).  A follower asks its leader that question for
its own latest epoch and truncates its log to the answer, which removes
exactly the records a deposed leader wrote that the new leader never had.

Entries must stay monotonic in both epoch and start offset: assigning an
entry removes any later-or-equal entries that conflict with it (a new leader
overwriting a stale tail).  Truncating the log truncates the cache too, from
the end (follower truncation, recovery) or from the start (retention,
DeleteRecords -- the first entry is then moved up to the new log start).

Mirrors ``org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache``.
Simplified: Kafka writes the checkpoint after truncations asynchronously;
the sandbox writes it at once (the file ends up the same).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.topic_partition import TopicPartition
from minikafka.storage.checkpoint_file import LeaderEpochCheckpointFile

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


@dataclass(frozen=True, slots=True)
class EpochEntry:
    epoch: int
    start_offset: int

    def __str__(self) -> str:
        return f"EpochEntry(epoch={self.epoch}, startOffset={self.start_offset})"


class LeaderEpochFileCache:
    """The epoch -> start offset map of one partition replica, kept in step with its checkpoint file."""

    def __init__(self, topic_partition: TopicPartition, checkpoint: LeaderEpochCheckpointFile):
        self.topic_partition = topic_partition
        self.checkpoint = checkpoint
        self._epochs: list[EpochEntry] = []          # sorted by epoch (and therefore by start offset)
        for epoch, start_offset in checkpoint.read():
            self._assign(EpochEntry(epoch, start_offset))

    # ------------------------------------------------------------------ updates
    def assign(self, epoch: int, start_offset: int) -> None:
        """Record that ``epoch`` starts at ``start_offset`` (no-op if already known); writes the file."""
        if self._assign(EpochEntry(epoch, start_offset)):
            self._write()

    def assign_all(self, entries: list[EpochEntry]) -> None:
        changed = [self._assign(entry) for entry in entries]
        if entries and any(changed):
            self._write()

    def _update_needed(self, entry: EpochEntry) -> bool:
        latest = self.latest_entry()
        return latest is None or entry.epoch != latest.epoch or entry.start_offset < latest.start_offset

    def _assign(self, entry: EpochEntry) -> bool:
        if entry.epoch < 0 or entry.start_offset < 0:
            raise ValueError(f"Received invalid partition leader epoch entry {entry}")
        if not self._update_needed(entry):
            return False
        # Remove every entry that would break monotonicity of epochs or start offsets.
        while self._epochs and (self._epochs[-1].epoch >= entry.epoch
                                or self._epochs[-1].start_offset >= entry.start_offset):
            self._epochs.pop()
        self._epochs.append(entry)
        return True

    def truncate_from_end(self, end_offset: int) -> None:
        """Remove the entries whose start offset is >= ``end_offset`` (the log was cut there)."""
        latest = self.latest_entry()
        if end_offset >= 0 and latest is not None and latest.start_offset >= end_offset:
            while self._epochs and self._epochs[-1].start_offset >= end_offset:
                self._epochs.pop()
            self.checkpoint.write_if_dir_exists(self._pairs())

    def truncate_from_start(self, start_offset: int) -> None:
        """Drop entries before ``start_offset``, keeping the epoch in force there, moved up to it."""
        removed = [entry for entry in self._epochs if entry.start_offset <= start_offset]
        if not removed:
            return
        self._epochs = [EpochEntry(removed[-1].epoch, start_offset)] + self._epochs[len(removed):]
        self.checkpoint.write_if_dir_exists(self._pairs())

    def clear_and_flush(self) -> None:
        self._epochs = []
        self._write()

    def clear(self) -> None:
        self._epochs = []

    def _pairs(self) -> list[tuple[int, int]]:
        return [(entry.epoch, entry.start_offset) for entry in self._epochs]

    def _write(self) -> None:
        self.checkpoint.write(self._pairs())

    # ------------------------------------------------------------------ queries
    def non_empty(self) -> bool:
        return bool(self._epochs)

    def epoch_entries(self) -> list[EpochEntry]:
        return list(self._epochs)

    def latest_entry(self) -> EpochEntry | None:
        return self._epochs[-1] if self._epochs else None

    def latest_epoch(self) -> int | None:
        return self._epochs[-1].epoch if self._epochs else None

    def earliest_entry(self) -> EpochEntry | None:
        return self._epochs[0] if self._epochs else None

    def epoch_entry(self, epoch: int) -> EpochEntry | None:
        return next((entry for entry in self._epochs if entry.epoch == epoch), None)

    def previous_epoch(self, epoch: int | None = None) -> int | None:
        """The epoch before ``epoch`` (default: before the latest one)."""
        if epoch is None:
            return self._epochs[-2].epoch if len(self._epochs) >= 2 else None
        lower = [entry.epoch for entry in self._epochs if entry.epoch < epoch]
        return lower[-1] if lower else None

    def next_epoch(self, epoch: int) -> int | None:
        return next((entry.epoch for entry in self._epochs if entry.epoch > epoch), None)

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        """(epoch, end offset) for OffsetForLeaderEpoch; ``(-1, -1)`` when the answer is undefined."""
        if requested_epoch == UNDEFINED_EPOCH:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        latest = self.latest_epoch()
        if latest is not None and latest == requested_epoch:
            # The current epoch ends where the log ends (it is still being written).
            return requested_epoch, log_end_offset
        higher = next((entry for entry in self._epochs if entry.epoch > requested_epoch), None)
        if higher is None:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        floor = [entry for entry in self._epochs if entry.epoch <= requested_epoch]
        if not floor:
            # Older than anything kept: answer with the first known epoch's start.
            return requested_epoch, higher.start_offset
        return floor[-1].epoch, higher.start_offset

    def epoch_for_offset(self, offset: int) -> int | None:
        """The epoch that wrote ``offset`` (by start offsets), or None before the first entry."""
        previous = None
        for entry in self._epochs:
            if entry.start_offset == offset:
                return entry.epoch
            if entry.start_offset > offset:
                return previous
            previous = entry.epoch
        return previous

    def __str__(self) -> str:
        return f"LeaderEpochFileCache({self.topic_partition}, {[str(e) for e in self._epochs]})"
