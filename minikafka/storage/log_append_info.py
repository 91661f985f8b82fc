"""LogAppendInfo: what an append did (or would have done) to a log.

Theory of operation
-------------------
Every append returns the offsets it assigned (``first_offset`` ..
``last_offset``), the largest timestamp it stored, the broker time used for
``LogAppendTime`` topics (-1 otherwise), and the log start offset -- the
fields a Produce response carries back to the client.  For a retried
idempotent batch the offsets are those of the *original* append and nothing
is written (``duplicate`` is True); the producer sees success either way.

Mirrors ``org.apache.kafka.storage.internals.log.LogAppendInfo``.
Simplified: record conversion statistics and ``LeaderHwChange`` are left to
the replica manager; ``duplicate`` is a sandbox addition so callers can see
a deduplicated retry.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.record.compression_type import CompressionType
from minikafka.record.record_batch import NO_TIMESTAMP

UNKNOWN_OFFSET = -1


@dataclass(frozen=True, slots=True)
class LogAppendInfo:
    first_offset: int                       # UNKNOWN_OFFSET when not known (nothing valid to append)
    last_offset: int
    last_leader_epoch: int | None           # partitionLeaderEpoch of the last batch, if any
    max_timestamp: int
    log_append_time: int = NO_TIMESTAMP     # broker time stamped on LogAppendTime topics, else -1
    log_start_offset: int = 0
    source_compression: CompressionType = CompressionType.NONE
    valid_bytes: int = 0                    # bytes of complete batches that were (or would be) written
    last_offset_of_first_batch: int = -1
    num_batches: int = 0
    duplicate: bool = False                 # True for a retried idempotent batch that was not written again

    @property
    def num_messages(self) -> int:
        if self.first_offset == UNKNOWN_OFFSET or self.last_offset < self.first_offset:
            return 0
        return self.last_offset - self.first_offset + 1

    @property
    def first_or_last_offset_of_first_batch(self) -> int:
        return self.first_offset if self.first_offset >= 0 else self.last_offset_of_first_batch
