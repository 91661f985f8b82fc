"""`KafkaMetadataLog`: the KRaft log kept on disk as ``__cluster_metadata-0``.

Theory of operation
-------------------
The metadata log is an ordinary Kafka partition log: RecordBatch v2 batches
in ``00000000000000000000.log`` with its ``.index`` and ``.timeindex``, a
``leader-epoch-checkpoint`` and ``partition.metadata`` (topic id
``AAAAAAAAAAAAAAAAAAAAAQ``, the reserved metadata topic id).  Each metadata
record is one record of a batch; its value is the record serialized as Kafka
serializes it (``ApiMessageAndVersion``: frame version, api key, version,
body), its key is null.  The first batch of every leader epoch is a control
batch holding a LEADER_CHANGE control record.  So ``kafka-dump-log.sh
--cluster-metadata-decoder`` would read these files.

In memory the log also keeps the decoded `Batch` objects, so the raft client
and the metadata replay never decode bytes on the hot path; every append
and truncation is applied to both.  Opening a directory decodes what the
files hold, after the storage layer's crash recovery has cut any torn tail.
The files live in the node's `LogDirectory` (``open``'s ``directory``): on
disk, or in memory for a simulated cluster.

Mirrors ``kafka.raft.KafkaMetadataLog``.  Simplified: no snapshots, so the
log is never truncated from the front and restarts replay it from offset 0.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, cast

from minikafka.common.uuid import Uuid
from minikafka.metadata import serde
from minikafka.raft.replicated_log import Batch, LeaderChangeMessage, MemoryReplicatedLog
from minikafka.record.byte_utils import read_unsigned_varint, write_unsigned_varint
from minikafka.record.memory_records import (ControlRecordType, SimpleRecord, build_batch,
                                             build_control_batch, decode_batches)
from minikafka.storage.clean_shutdown_file_handler import CleanShutdownFileHandler
from minikafka.storage.fetch_data_info import FetchIsolation
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory
from minikafka.storage.unified_log import UnifiedLog

METADATA_LOG_DIR_NAME = "__cluster_metadata-0"
# metadata.log.segment.bytes defaults to 1 GiB; retention is handled by snapshots in Kafka,
# which the sandbox does not take, so nothing is ever deleted.
METADATA_LOG_CONFIG = LogConfig(retention_ms=-1, retention_bytes=-1, max_message_bytes=8 * 1024 * 1024)


def encode_leader_change(message: LeaderChangeMessage) -> bytes:
    """LEADER_CHANGE control record value: int16 version, then LeaderChangeMessage v0 (flexible)."""
    out = bytearray(struct.pack(">hi", message.version, message.leader_id))
    for ids in (message.voters, message.granting_voters):
        write_unsigned_varint(len(ids) + 1, out)
        for voter_id in ids:
            out += struct.pack(">i", voter_id)
            write_unsigned_varint(0, out)                       # Voter {VoterId}, no tagged fields
    write_unsigned_varint(0, out)
    return bytes(out)


def decode_leader_change(data: bytes) -> LeaderChangeMessage:
    version, leader_id = struct.unpack_from(">hi", data, 0)
    pos = 6
    lists = []
    for _ in range(2):
        count, pos = read_unsigned_varint(data, pos)
        ids = []
        for _ in range(max(count - 1, 0)):
            ids.append(struct.unpack_from(">i", data, pos)[0])
            pos += 4
            _, pos = read_unsigned_varint(data, pos)                   # tagged fields of the Voter struct
        lists.append(tuple(ids))
    return LeaderChangeMessage(leader_id, lists[0], lists[1], version)


def encode_batch(batch: Batch) -> bytes:
    if batch.is_control:
        (message,) = batch.records
        return build_control_batch(ControlRecordType.LEADER_CHANGE, encode_leader_change(message),
                                   timestamp=batch.append_time_ms, base_offset=batch.base_offset,
                                   partition_leader_epoch=batch.epoch)
    records = [SimpleRecord(value=serde.serialize(record), timestamp=batch.append_time_ms)
               for record in batch.records]
    return build_batch(records, base_offset=batch.base_offset, partition_leader_epoch=batch.epoch)


def decode_log(data: bytes) -> list[Batch]:
    batches = []
    for header, records in decode_batches(data):
        if header.is_control_batch:
            decoded: tuple[Any, ...] = tuple(decode_leader_change(cast(bytes, r.value)) for r in records)
        else:
            decoded = tuple(serde.deserialize(cast(bytes, r.value)) for r in records)  # never null here
        batches.append(Batch(header.base_offset, header.partition_leader_epoch,
                             header.max_timestamp, decoded, header.is_control_batch))
    return batches


@dataclass
class KafkaMetadataLog(MemoryReplicatedLog):
    """`ReplicatedLog` backed by a `UnifiedLog` directory (see the module docstring)."""

    _log: UnifiedLog | None = None                       # the files on disk
    _clock: Callable[[], int] = field(default=lambda: 0)  # the hosting node's clock

    @classmethod
    def open(cls, metadata_log_dir: str, clock: Callable[[], int],
             emit: Callable[..., None] | None = None,
             directory: LogDirectory = FILE_SYSTEM) -> "KafkaMetadataLog":
        """Load ``__cluster_metadata-0`` under ``metadata_log_dir`` from ``directory`` (the node's files)."""
        dir_path = os.path.join(metadata_log_dir, METADATA_LOG_DIR_NAME)
        clean = CleanShutdownFileHandler(metadata_log_dir, directory).exists()
        log = UnifiedLog.load(dir_path, METADATA_LOG_CONFIG, clock(), had_clean_shutdown=clean,
                              topic_id=Uuid.METADATA_TOPIC_ID, emit=emit, directory=directory)
        instance = cls(_log=None, _clock=clock)
        batches: list[Batch] = []
        offset = log.log_start_offset
        while offset < log.log_end_offset:
            data = bytes(log.read(offset, 1 << 24, FetchIsolation.LOG_END, True).records)
            if not data:
                break
            chunk = decode_log(data)
            batches.extend(b for b in chunk if b.base_offset >= offset)
            offset = chunk[-1].next_offset
        MemoryReplicatedLog.append_as_follower(instance, batches)
        instance.flush()
        instance._log = log
        return instance

    def _add(self, batch: Batch) -> None:
        super()._add(batch)
        if self._log is not None:
            self._log.append_as_follower(encode_batch(batch), self._clock())

    def truncate_to(self, offset: int) -> None:
        super().truncate_to(offset)
        if self._log is not None and self._log.log_end_offset > self.end_offset:
            self._log.truncate_to(self.end_offset, self._clock())

    def flush(self) -> None:
        super().flush()
        if self._log is not None:
            self._log.flush()

    def close(self) -> None:
        if self._log is not None:
            self._log.flush()
            self._log.close()

    def crash(self) -> None:
        if self._log is not None:
            self._log.close_handlers()

    @property
    def size_in_bytes(self) -> int:
        return self._log.size_in_bytes if self._log is not None else 0

    def append_all(self, batches: Sequence[Batch]) -> None:
        self.append_as_follower(batches)
