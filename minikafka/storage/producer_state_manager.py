"""ProducerStateManager: every producer's state in one partition, and its snapshots.

Theory of operation
-------------------
The manager maps producer id -> `ProducerStateEntry` and knows up to which
offset that map reflects the log (``map_end_offset``).  Appends update it
through `ProducerAppendInfo` (checked for the leader, unchecked for
followers); a truncated log rebuilds it.

Rebuilding from the whole log would be slow, so Kafka writes *snapshots*:
``<offset>.snapshot`` files in the partition directory holding the map as it
was just before ``offset``.  One is taken whenever a segment rolls (named
after the new segment's base offset) and at clean shutdown (named after the
log end offset).  Loading reads the newest usable snapshot and replays only
the batches after it.  A snapshot is a small binary file::

    int16  version (1)
    uint32 crc32c of everything after this field
    int32  number of producers, then per producer:
        int64 producerId, int16 epoch, int32 lastSequence, int64 lastOffset,
        int32 offsetDelta, int64 timestamp, int32 coordinatorEpoch,
        int64 currentTxnFirstOffset (-1 if none)

Only the *last* batch of each producer survives a snapshot, so after a
restart the broker recognises a retry of the last batch but not of the four
before it -- exactly Kafka's behaviour.

Producers idle longer than ``producer.id.expiration.ms`` (one day) are
forgotten by `remove_expired_producers`.

Snapshots are written and flushed (Kafka forces them) in the `LogDirectory`
the manager receives.

Mirrors ``org.apache.kafka.storage.internals.log.ProducerStateManager`` and
``SnapshotFile``.  Simplified: no transaction index or last-stable-offset
tracking beyond remembering open transactions; entries in a snapshot are
ordered by producer id (Kafka writes a HashMap's order).
"""

from __future__ import annotations

import os
import struct

from crc32c import crc32c

from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.record import record_batch as rb
from minikafka.record.memory_records import ControlRecordType, batch_records, parse_end_txn_marker
from minikafka.storage import log_file_utils as names
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory
from minikafka.storage.producer_append_info import AppendOrigin, CompletedTxn, ProducerAppendInfo
from minikafka.storage.producer_state_entry import BatchMetadata, ProducerStateEntry

PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000     # producer.id.expiration.ms
SNAPSHOT_VERSION = 1
_SNAPSHOT_HEAD = struct.Struct(">hIi")
_SNAPSHOT_ENTRY = struct.Struct(">qhiqiqiq")


class CorruptSnapshotException(KafkaException):
    @property
    def java_class(self) -> str:
        return "org.apache.kafka.storage.internals.log.CorruptSnapshotException"


def write_snapshot(path: str, entries: dict[int, ProducerStateEntry], directory: LogDirectory) -> None:
    """Write and flush a snapshot (Kafka forces the file before it counts)."""
    body = bytearray(struct.pack(">i", len(entries)))
    for producer_id in sorted(entries):
        entry = entries[producer_id]
        txn = -1 if entry.current_txn_first_offset is None else entry.current_txn_first_offset
        body += _SNAPSHOT_ENTRY.pack(producer_id, entry.producer_epoch, entry.last_seq, entry.last_data_offset,
                                     entry.last_offset_delta, entry.last_timestamp, entry.coordinator_epoch, txn)
    directory.write_bytes(path, struct.pack(">hI", SNAPSHOT_VERSION, crc32c(bytes(body))) + bytes(body))
    directory.flush(path)


def read_snapshot(path: str, directory: LogDirectory = FILE_SYSTEM) -> list[ProducerStateEntry]:
    raw = directory.read_bytes(path)
    try:
        version = struct.unpack_from(">h", raw, 0)[0]
    except struct.error as exc:
        raise CorruptSnapshotException(f"Snapshot failed schema validation: {exc}") from None
    if version != SNAPSHOT_VERSION:
        raise CorruptSnapshotException(f"Snapshot contained an unknown file version {version}")
    try:
        _, crc, count = _SNAPSHOT_HEAD.unpack_from(raw, 0)
        fields = [_SNAPSHOT_ENTRY.unpack_from(raw, _SNAPSHOT_HEAD.size + i * _SNAPSHOT_ENTRY.size)
                  for i in range(count)]
    except struct.error as exc:
        raise CorruptSnapshotException(f"Snapshot failed schema validation: {exc}") from None
    computed = crc32c(raw[6:])
    if crc != computed:
        raise CorruptSnapshotException(f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. "
                                       f"Computed crc: {computed}")
    entries = []
    for producer_id, epoch, last_seq, last_offset, offset_delta, timestamp, coordinator_epoch, txn in fields:
        entry = ProducerStateEntry(producer_id, epoch, coordinator_epoch, timestamp, txn if txn >= 0 else None)
        if last_offset >= 0:
            entry.batch_metadata.append(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        entries.append(entry)
    return entries


class ProducerStateManager:
    """Producer id -> state for one partition replica, with ``.snapshot`` files."""

    def __init__(self, topic_partition: TopicPartition, dir_path: str,
                 producer_id_expiration_ms: int = PRODUCER_ID_EXPIRATION_MS_DEFAULT, *,
                 directory: LogDirectory = FILE_SYSTEM):
        self.topic_partition = topic_partition
        self.dir_path = dir_path
        self.directory = directory                           # where the snapshots live (disk or memory)
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self.producers: dict[int, ProducerStateEntry] = {}   # producer id -> state
        self.ongoing_txns: dict[int, int] = {}               # first offset of an open transaction -> producer id
        self.snapshots: dict[int, str] = self._list_snapshots()   # snapshot offset -> file path
        self.last_map_offset = 0                             # the map reflects the log up to here (exclusive)
        self.last_snap_offset = 0                            # offset of the newest snapshot written or loaded

    def _list_snapshots(self) -> dict[int, str]:
        found = {}
        for name in self.directory.list_dir(self.dir_path):
            if name.endswith(names.PRODUCER_SNAPSHOT_FILE_SUFFIX):
                try:
                    found[names.offset_from_file_name(name)] = os.path.join(self.dir_path, name)
                except ValueError:
                    continue
        return dict(sorted(found.items()))

    # ------------------------------------------------------------------ appends
    def prepare_update(self, producer_id: int, origin: AppendOrigin) -> ProducerAppendInfo:
        current = self.producers.get(producer_id) or ProducerStateEntry.empty(producer_id)
        return ProducerAppendInfo(self.topic_partition, producer_id, current, origin)

    def update(self, append_info: ProducerAppendInfo) -> None:
        updated = append_info.to_entry()
        current = self.producers.get(append_info.producer_id)
        if current is not None:
            current.update(updated)
        else:
            self.producers[append_info.producer_id] = updated
        for first_offset in append_info.started_transactions:
            self.ongoing_txns[first_offset] = append_info.producer_id

    def complete_txn(self, completed: CompletedTxn) -> None:
        self.ongoing_txns.pop(completed.first_offset, None)

    def update_map_end_offset(self, offset: int) -> None:
        self.last_map_offset = offset

    @property
    def map_end_offset(self) -> int:
        return self.last_map_offset

    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self.producers.get(producer_id)

    def is_empty(self) -> bool:
        return not self.producers

    def append_batch(self, append_info: ProducerAppendInfo, batch: rb.RecordBatch, view) -> CompletedTxn | None:
        """Apply one batch (``view`` holds its bytes) to ``append_info``."""
        if batch.is_control_batch:
            records = batch_records(view, batch, start=0)
            if not records:
                return None
            control_type, coordinator_epoch = parse_end_txn_marker(records[0])
            return append_info.append_end_txn_marker(control_type is ControlRecordType.ABORT, coordinator_epoch,
                                                     batch.producer_epoch, batch.base_offset, records[0].timestamp)
        append_info.append_data_batch(batch.producer_epoch, batch.base_sequence, batch.last_sequence,
                                      batch.max_timestamp, batch.base_offset, batch.last_offset,
                                      batch.is_transactional)
        return None

    def load_batch(self, batch: rb.RecordBatch, view) -> None:
        """Replay one batch from the log without checks (recovery and rebuilding)."""
        if batch.has_producer_id:
            info = self.prepare_update(batch.producer_id, AppendOrigin.REPLICATION)
            completed = self.append_batch(info, batch, view)
            self.update(info)
            if completed is not None:
                self.complete_txn(completed)
        self.update_map_end_offset(batch.last_offset + 1)

    # ------------------------------------------------------------------ snapshots
    def take_snapshot(self) -> str | None:
        """Write ``<map end offset>.snapshot`` unless one at that offset or later already exists."""
        if self.last_map_offset <= self.last_snap_offset:
            return None
        path = names.producer_snapshot_file(self.dir_path, self.last_map_offset)
        write_snapshot(path, self.producers, self.directory)
        self.snapshots[self.last_map_offset] = path
        self.snapshots = dict(sorted(self.snapshots.items()))
        self.last_snap_offset = self.last_map_offset
        return path

    def latest_snapshot_offset(self) -> int | None:
        return max(self.snapshots) if self.snapshots else None

    def oldest_snapshot_offset(self) -> int | None:
        return min(self.snapshots) if self.snapshots else None

    def remove_and_delete_snapshot(self, offset: int) -> None:
        path = self.snapshots.pop(offset, None)
        if path is not None:
            self.directory.remove(path)

    def remove_and_mark_snapshot_for_deletion(self, offset: int) -> str | None:
        """Forget the snapshot at ``offset`` and rename it ``.deleted`` (removed later with its segment)."""
        path = self.snapshots.pop(offset, None)
        if path is None or not self.directory.exists(path):
            return None
        self.directory.replace(path, path + names.DELETED_FILE_SUFFIX)
        return path + names.DELETED_FILE_SUFFIX

    def remove_stray_snapshots(self, segment_base_offsets: list[int]) -> None:
        """Re-list snapshots; keep those at segment base offsets and a newer-than-all-segments stray one."""
        self.snapshots = self._list_snapshots()
        bases = set(segment_base_offsets)
        strays = [offset for offset in self.snapshots if offset not in bases]
        keep_stray = strays[-1] if strays and (not bases or strays[-1] > max(bases)) else None
        for offset in strays:
            if offset != keep_stray:
                self.remove_and_delete_snapshot(offset)

    def _load_from_snapshot(self, log_start_offset: int, now: int) -> None:
        while self.snapshots:
            offset = self.latest_snapshot_offset()
            try:
                for entry in read_snapshot(self.snapshots[offset], self.directory):
                    if not self._is_expired(now, entry):
                        self._load_entry(entry)
                self.last_snap_offset = self.last_map_offset = offset
                return
            except CorruptSnapshotException:
                self.remove_and_delete_snapshot(offset)      # Kafka warns and tries the next older one
        self.last_snap_offset = self.last_map_offset = log_start_offset

    def _load_entry(self, entry: ProducerStateEntry) -> None:
        self.producers[entry.producer_id] = entry
        if entry.current_txn_first_offset is not None:
            self.ongoing_txns[entry.current_txn_first_offset] = entry.producer_id

    def _is_expired(self, now: int, entry: ProducerStateEntry) -> bool:
        return entry.current_txn_first_offset is None and now - entry.last_timestamp >= self.producer_id_expiration_ms

    def remove_expired_producers(self, now: int) -> None:
        for producer_id in [p for p, e in self.producers.items() if self._is_expired(now, e)]:
            del self.producers[producer_id]

    # ------------------------------------------------------------------ truncation
    def truncate_and_reload(self, log_start_offset: int, log_end_offset: int, now: int) -> None:
        """Drop snapshots outside (log_start, log_end]; reload from the newest remaining one if needed."""
        for offset in list(self.snapshots):
            if offset > log_end_offset or offset <= log_start_offset:
                self.remove_and_delete_snapshot(offset)
        if log_end_offset != self.last_map_offset:
            self.producers.clear()
            self.ongoing_txns.clear()
            self._load_from_snapshot(log_start_offset, now)
        else:
            self.on_log_start_offset_incremented(log_start_offset)

    def on_log_start_offset_incremented(self, log_start_offset: int) -> None:
        if self.last_map_offset < log_start_offset:
            self.last_map_offset = log_start_offset
        latest = self.latest_snapshot_offset()
        self.last_snap_offset = log_start_offset if latest is None else latest

    def truncate_fully_and_start_at(self, offset: int) -> None:
        self.producers.clear()
        self.ongoing_txns.clear()
        for snapshot_offset in list(self.snapshots):
            self.remove_and_delete_snapshot(snapshot_offset)
        self.last_snap_offset = 0
        self.last_map_offset = offset

    def delete_snapshots_before(self, offset: int) -> None:
        for snapshot_offset in [o for o in self.snapshots if o < offset]:
            self.remove_and_delete_snapshot(snapshot_offset)

    def update_parent_dir(self, dir_path: str) -> None:
        self.dir_path = dir_path
        self.snapshots = {o: os.path.join(dir_path, os.path.basename(p)) for o, p in self.snapshots.items()}
