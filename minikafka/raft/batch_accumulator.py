"""`BatchAccumulator`: the leader gathers appends for ``append.linger.ms`` into one batch.

Theory of operation
-------------------
The active controller calls ``append(records, epoch)`` many times a second.
Writing (and flushing) one batch per call would be slow, so the leader holds
the records for up to ``controller.quorum.append.linger.ms`` (25 ms) and then
writes everything gathered as one batch.  Offsets are handed out at append
time -- the caller learns immediately which offset its last record will get
-- so the accumulator tracks the next offset itself.  The records of one
``append`` call always land in the same batch (they are applied atomically).

If leadership is lost before the linger ends, the pending records are
dropped: they were never written, and the caller learns of the lost
leadership through ``handle_leader_change``.

Mirrors ``org.apache.kafka.raft.internals.BatchAccumulator``.  Simplified:
batches are never split by size (Kafka's limit is 8 MiB per batch).
"""

from __future__ import annotations

from typing import Any, Sequence


class BatchAccumulator:
    def __init__(self, epoch: int, base_offset: int, linger_ms: int):
        self.epoch = epoch                         # the leader epoch the batches will carry
        self.linger_ms = linger_ms
        self.next_offset = base_offset             # offset the next appended record will get
        self._pending: list[Any] = []              # records waiting for the linger to end
        self._drain_deadline: int | None = None    # when the pending records must be written

    def append(self, records: Sequence[Any], now: int) -> int:
        """Queue ``records``; returns the offset of the last one."""
        if records:
            if not self._pending:
                self._drain_deadline = now + self.linger_ms
            self._pending.extend(records)
            self.next_offset += len(records)
        return self.next_offset - 1

    @property
    def drain_deadline(self) -> int | None:
        return self._drain_deadline

    def needs_drain(self, now: int) -> bool:
        return self._drain_deadline is not None and now >= self._drain_deadline

    def drain(self) -> list[Any]:
        """Take the pending records (one batch's worth)."""
        records, self._pending, self._drain_deadline = self._pending, [], None
        return records
