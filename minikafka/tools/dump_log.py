"""``kafka-dump-log.sh --files ...``: a segment's batches and records, as Kafka 4.3.1 prints them.

Theory of operation
-------------------
The tool reads a ``.log`` segment (or a KRaft ``.checkpoint`` snapshot) the
way a broker does: shallowly, batch header by batch header, stopping quietly
at a torn tail (and then saying ``Found N invalid bytes at the end of ...``).
For each batch it prints one line with every header field, where
``position`` is the byte offset of the batch in the file, ``crc`` the stored
CRC as an unsigned number and ``isvalid`` whether it matches the bytes::

    baseOffset: 0 lastOffset: 0 count: 1 baseSequence: 0 lastSequence: 0 producerId: 0 producerEpoch: 0
    partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty
    position: 0 CreateTime: 1720108310684 size: 74 magic: 2 compresscodec: none crc: 990125471 isvalid: true

(one line in reality).  With ``--deep-iteration`` (implied by
``--print-data-log`` and by every decoder option) each record follows as
``| offset: 0 CreateTime: ... keySize: 1 valueSize: 5 sequence: 0 headerKeys: []``;
control records add what they mean (``endTxnMarker: COMMIT coordinatorEpoch: 0``,
``LeaderChange: {...}``); ``--print-data-log`` adds `` key: ...`` and
`` payload: ...`` decoded as UTF-8, and ``--cluster-metadata-decoder`` turns
the payload of a ``__cluster_metadata`` record into
``{"type":"TOPIC_RECORD","version":0,"data":{...}}``.  Offsets that do not
follow each other (a compacted log) are listed on standard error at the end,
most recent first.  ``.index`` and ``.timeindex`` files are handled by
`minikafka.tools.dump_log_index`.

Mirrors ``org.apache.kafka.tools.DumpLogSegments`` (4.3.1, in Java; 4.1.1 had
the Scala ``kafka.tools.DumpLogSegments``: ``dumpLog``, ``printBatchLevel``,
``printControlRecord``, ``ClusterMetadataLogMessageParser``) and
``FileLogInputStream.nextBatch``.  With ``--skip-record-metadata`` a record
line is ``| `` and its key and payload (an empty line when the record has
neither); 4.1.1 left out the ``| `` when a record had no key.
Simplified: magic v0/v1 batches are not decoded; of the control records
only transaction markers and LeaderChange are decoded (the others Kafka
writes only for snapshots and dynamic quorums, which the sandbox does not
have); the ``--offsets-decoder``, ``--transaction-log-decoder``,
``--max-bytes`` and custom decoder options are not modelled; a crash prints
Java's one-line ``Exception in thread "main"`` message without the stack
trace.
"""

from __future__ import annotations

import json
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from minikafka.common.errors import KafkaException
from minikafka.metadata.serde import deserialize_with_version
from minikafka.raft.kafka_metadata_log import decode_leader_change
from minikafka.record import record_batch as rb
from minikafka.record.default_record import Record
from minikafka.record.memory_records import ControlRecordType, batch_records, parse_end_txn_marker
from minikafka.record.record_batch import RecordBatch
from minikafka.tools.tool_output import Console, ToolOutput

RECORD_INDENT = "|"
BOOTSTRAP_SNAPSHOT = "bootstrap.checkpoint"
_SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


@dataclass(frozen=True, slots=True)
class DumpOptions:
    """The command-line options that shape the output."""

    print_data_log: bool = False
    deep_iteration: bool = False
    cluster_metadata_decoder: bool = False
    skip_record_metadata: bool = False
    index_sanity_check: bool = False
    verify_index_only: bool = False
    max_message_size: int = 5 * 1024 * 1024

    @property
    def should_print_data_log(self) -> bool:
        return self.print_data_log or self.cluster_metadata_decoder

    @property
    def is_deep_iteration(self) -> bool:
        return self.deep_iteration or self.should_print_data_log


class JavaCrash(Exception):
    """The JVM's uncaught exception: ``Exception in thread "main" <class>: <message>``."""

    def __init__(self, java_class: str, message: str | None):
        # Throwable.toString() leaves out ": message" when there is no message.
        super().__init__(f'Exception in thread "main" {java_class}' + ("" if message is None else f": {message}"))


# ----------------------------------------------------------------------------- reading files
def read_file(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise JavaCrash("java.nio.file.NoSuchFileException", str(path)) from None


def file_batches(buf: bytes, path: str | Path) -> Iterator[RecordBatch]:
    """``FileLogInputStream.nextBatch``: shallow batches, quietly stopping at a torn tail."""
    position, end = 0, len(buf)
    while position < end - rb.HEADER_SIZE_UP_TO_MAGIC:
        size = struct.unpack_from(">i", buf, position + rb.LENGTH_OFFSET)[0]
        if size < rb.LEGACY_RECORD_OVERHEAD_V0:
            raise JavaCrash("org.apache.kafka.common.errors.CorruptRecordException",
                            f"Found record size {size} smaller than minimum record overhead "
                            f"({rb.LEGACY_RECORD_OVERHEAD_V0}) in file {path}.")
        if position > end - rb.LOG_OVERHEAD - size:
            return
        magic = buf[position + rb.MAGIC_OFFSET]
        if magic < rb.MAGIC_VALUE_V2 or magic > 127:          # a signed byte below 2: a legacy batch
            raise JavaCrash("java.lang.UnsupportedOperationException",
                            f"minikafka does not decode magic v0/v1 batches (at position {position} of {path})")
        if size + rb.LOG_OVERHEAD < rb.RECORD_BATCH_OVERHEAD:
            raise JavaCrash("org.apache.kafka.common.errors.CorruptRecordException",
                            f"Record batch is corrupt (the size {size + rb.LOG_OVERHEAD} is smaller than the "
                            f"minimum allowed overhead {rb.RECORD_BATCH_OVERHEAD})")
        yield RecordBatch.parse(buf, position)
        position += size + rb.LOG_OVERHEAD


def base_offset_of(path: str | Path) -> int:
    """``Long.parseLong`` of the file name up to the first dot (``00000000000000000100.log`` -> 100)."""
    prefix = Path(path).name.split(".")[0]
    if not re.fullmatch(r"[+-]?\d+", prefix) or not -2**63 <= int(prefix) < 2**63:
        raise JavaCrash("java.lang.NumberFormatException", f'For input string: "{prefix}"')
    return int(prefix)


# ----------------------------------------------------------------------------- lines
def _bool(value: bool) -> str:
    return "true" if value else "false"


def batch_line(buf: bytes, batch: RecordBatch, position: int) -> str:
    """``printBatchLevel`` for a v2 batch (``position``: bytes of the batches before it)."""
    horizon = (f"OptionalLong[{batch.base_timestamp}]" if batch.attributes & rb.DELETE_HORIZON_FLAG_MASK
               else "OptionalLong.empty")
    return (f"baseOffset: {batch.base_offset} lastOffset: {batch.last_offset} count: {batch.count} "
            f"baseSequence: {batch.base_sequence} lastSequence: {batch.last_sequence} "
            f"producerId: {batch.producer_id} producerEpoch: {batch.producer_epoch} "
            f"partitionLeaderEpoch: {batch.partition_leader_epoch} isTransactional: {_bool(batch.is_transactional)} "
            f"isControl: {_bool(batch.is_control_batch)} deleteHorizonMs: {horizon} "
            f"position: {position} {batch.timestamp_type}: {batch.max_timestamp} size: {batch.size_in_bytes} "
            f"magic: {batch.magic} compresscodec: {batch.compression_type.kafka_name} crc: {batch.crc} "
            f"isvalid: {_bool(rb.is_valid(buf, batch))}")


def control_text(record: Record) -> str:
    """``printControlRecord``: what a control record means."""
    type_id = ControlRecordType.parse_type_id(record.key or b"")
    try:
        control_type = ControlRecordType(type_id)
    except ValueError:
        return f" controlType: UNKNOWN({type_id})"
    if control_type in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        kind, epoch = parse_end_txn_marker(record)
        return f" endTxnMarker: {kind.name} coordinatorEpoch: {epoch}"
    if control_type is ControlRecordType.LEADER_CHANGE:
        message = decode_leader_change(record.value or b"")
        data = {"version": message.version, "leaderId": message.leader_id,
                "voters": [{"voterId": v} for v in message.voters],
                "grantingVoters": [{"voterId": v} for v in message.granting_voters]}
        return " LeaderChange: " + json.dumps(data, separators=(",", ":"))
    return f" {control_type.name} (not decoded by minikafka)"


def _utf8(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _parse(record: Record, options: DumpOptions) -> tuple[str | None, str | None]:
    """The message parser: (key, payload) to print."""
    if options.cluster_metadata_decoder:
        if record.value is None:
            return None, f"Error at {record.offset}, skipping. null"
        try:
            return None, deserialize_with_version(record.value).to_json()
        except KafkaException as exc:
            return None, f"Error at {record.offset}, skipping. {exc.message}"
    key = None if record.key is None else _utf8(record.key)
    return key, None if record.value is None else _utf8(record.value)


def record_line(batch: RecordBatch, record: Record, options: DumpOptions) -> str:
    prefix = f"{RECORD_INDENT} "
    text = ""
    if not options.skip_record_metadata:
        key_size = -1 if record.key is None else len(record.key)
        value_size = -1 if record.value is None else len(record.value)
        text += (f"{prefix}offset: {record.offset} {batch.timestamp_type}: {record.timestamp} "
                 f"keySize: {key_size} valueSize: {value_size}")
        prefix = " "
        text += f" sequence: {record.sequence} headerKeys: [{','.join(k for k, _ in record.headers)}]"
        if batch.is_control_batch:
            text += control_text(record)
    if options.should_print_data_log and not batch.is_control_batch:
        key, payload = _parse(record, options)
        if key is not None:
            text += f"{prefix}key: {key}"
            prefix = " "
        if payload is not None:
            text += f"{prefix}payload: {payload}"
    return text


# ----------------------------------------------------------------------------- the dump
def _heading(console: Console, path: str | Path) -> None:
    name = Path(path).name
    if name.endswith(".log"):
        console.println(f"Log starting offset: {base_offset_of(path)}")
    elif name == BOOTSTRAP_SNAPSHOT:
        console.println("KRaft bootstrap snapshot")
    else:
        match = _SNAPSHOT_NAME.match(name)
        if match is None:
            raise JavaCrash("java.util.NoSuchElementException", "No value present")
        console.println(f"Snapshot end offset: {int(match[1])}, epoch: {int(match[2])}")


def dump_log(console: Console, path: str | Path, options: DumpOptions,
             gaps: dict[str, list[tuple[int, int]]]) -> None:
    """``dumpLog``: append the dump of one segment; offset gaps go into ``gaps`` (newest first)."""
    _heading(console, path)
    buf = read_file(path)
    valid_bytes, last_offset = 0, -1
    for batch in file_batches(buf, path):
        console.println(batch_line(buf, batch, valid_bytes))
        if options.is_deep_iteration:
            for record in records_of(buf, batch):
                if last_offset != -1 and record.offset != last_offset + 1:
                    gaps.setdefault(os.path.abspath(path), []).insert(0, (last_offset, record.offset))
                last_offset = record.offset
                console.println(record_line(batch, record, options))
        valid_bytes += batch.size_in_bytes
    if len(buf) - valid_bytes > 0:
        console.println(f"Found {len(buf) - valid_bytes} invalid bytes at the end of {Path(path).name}")


def records_of(buf: bytes, batch: RecordBatch) -> list[Record]:
    """The batch's records; a corrupt batch crashes the tool as it crashes Kafka's."""
    try:
        return batch_records(buf, batch)
    except KafkaException as exc:
        raise JavaCrash(exc.java_class, exc.message) from None


def dump_files(paths: Sequence[str | Path], options: DumpOptions = DumpOptions()) -> ToolOutput:
    """``kafka-dump-log.sh --files a,b,...``: every file in turn, then the problems found (stderr)."""
    from minikafka.tools import dump_log_index
    console = Console()
    gaps: dict[str, list[tuple[int, int]]] = {}
    problems = dump_log_index.IndexProblems()
    try:
        for path in paths:
            console.println(f"Dumping {path}")
            suffix = _suffix(path)
            if suffix in (".log", ".checkpoint"):
                dump_log(console, path, options, gaps)
            elif suffix == ".index":
                dump_log_index.dump_index(console, path, options, problems)
            elif suffix == ".timeindex":
                dump_log_index.dump_time_index(console, path, options, problems)
            else:
                console.eprintln(f"Ignoring unknown file {path}")
    except JavaCrash as crash:
        console.eprintln(str(crash))
        return console.result(exit_code=1)
    problems.report(console)
    for name, pairs in gaps.items():
        console.eprintln(f"Non-consecutive offsets in {name}")
        for first, second in pairs:
            console.eprintln(f"  {first} is followed by {second}")
    return console.result()


def _suffix(path: str | Path) -> str:
    name = Path(path).name
    if "." not in name:
        raise JavaCrash("java.lang.StringIndexOutOfBoundsException",
                        f"begin -1, end {len(name)}, length {len(name)}")
    return name[name.rindex("."):]


__all__ = ["DumpOptions", "JavaCrash", "RECORD_INDENT", "read_file", "file_batches", "base_offset_of",
           "batch_line", "control_text", "record_line", "records_of", "dump_log", "dump_files"]
