"""``kafka-dump-log.sh`` on ``.index`` and ``.timeindex`` files, with Kafka's consistency checks.

Theory of operation
-------------------
A segment's offset index is a list of 8-byte entries (offset relative to the
segment's base offset, int32; byte position in the ``.log``, int32), its time
index a list of 12-byte entries (timestamp, int64; relative offset, int32).
The index of the active segment is preallocated and filled with zeros
beyond the last real entry, so the tool stops at the first entry (after the
first) that points back at the base offset.

For every offset-index entry the tool prints ``offset: <o> position: <p>``
and checks that the batch at that position really ends at that offset;
for every time-index entry it prints ``timestamp: <t> offset: <o>`` and
checks that the batch ending at that offset exists and that its largest
record timestamp is the indexed one, and that timestamps increase.  What it
finds goes to standard error after all files were dumped (``Mismatches in
:<file>``, ``Found timestamp mismatch in :<file>`` ...), newest first for
the offset index.  ``--verify-index-only`` prints only those findings,
``--index-sanity-check`` only ``<file> passed sanity check.``

Mirrors ``DumpLogSegments.dumpIndex``/``dumpTimeIndex``/``TimeIndexDumpErrors``
(``org.apache.kafka.tools.DumpLogSegments``, 4.3.1) and the lookup of
``AbstractIndex.indexSlotRangeFor`` (including its "warm section" search).
4.3.1 names the time index in ``The following indexed offsets are not found
in :<file>``, where 4.1.1 said ``... not found in the log.``
Simplified: only one problem list per kind is kept across files in file
order (Kafka keys them by file in a hash map).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path

from minikafka.tools.dump_log import DumpOptions, JavaCrash, base_offset_of, file_batches, read_file, records_of
from minikafka.tools.tool_output import Console

OFFSET_ENTRY_SIZE = 8
TIME_ENTRY_SIZE = 12


@dataclass
class IndexProblems:
    """What the index checks found, reported on stderr once every file was dumped."""

    offset_mismatches: dict[str, list[tuple[int, int]]] = field(default_factory=dict)   # file -> (index, log)
    time_mismatches: dict[str, list[tuple[int, int]]] = field(default_factory=dict)     # file -> (index ts, log ts)
    out_of_order: dict[str, list[tuple[int, int]]] = field(default_factory=dict)        # file -> (ts, previous ts)
    not_found: dict[str, list[tuple[int, int]]] = field(default_factory=dict)           # file -> (offset, log offset)

    def report(self, console: Console) -> None:
        for name, pairs in self.offset_mismatches.items():
            console.eprintln(f"Mismatches in :{name}")
            for index_offset, log_offset in pairs:
                console.eprintln(f"  Index offset: {index_offset}, log offset: {log_offset}")
        for name, pairs in self.time_mismatches.items():
            console.eprintln(f"Found timestamp mismatch in :{name}")
            for index_ts, log_ts in pairs:
                console.eprintln(f"  Index timestamp: {index_ts}, log timestamp: {log_ts}")
        for name, pairs in self.out_of_order.items():
            console.eprintln(f"Found out of order timestamp in :{name}")
            for index_ts, previous in pairs:
                console.eprintln(f"  Index timestamp: {index_ts}, Previously indexed timestamp: {previous}")
        for name, pairs in self.not_found.items():
            console.eprintln(f"The following indexed offsets are not found in :{name}")
            for indexed, found in pairs:
                console.eprintln(f"Indexed offset: {indexed}, found log offset: {found}")


def _sibling(path: str | Path, suffix: str) -> Path:
    return Path(os.path.abspath(path)).parent / (Path(path).name.split(".")[0] + suffix)


def read_index(path: str | Path) -> bytes:
    """The index bytes; a missing index is an error (Kafka refuses to create one of size -1)."""
    if not Path(path).exists():
        raise JavaCrash("java.lang.IllegalArgumentException", "Invalid max index size: -1")
    return read_file(path)


def offset_entries(data: bytes, base_offset: int) -> list[tuple[int, int]]:
    """Every (offset, position) slot of an offset index, zero slots included."""
    return [(base_offset + rel, pos) for rel, pos in struct.iter_unpack(">ii", data[:len(data) // 8 * 8])]


def time_entries(data: bytes, base_offset: int) -> list[tuple[int, int]]:
    """Every (timestamp, offset) slot of a time index."""
    usable = data[:len(data) // TIME_ENTRY_SIZE * TIME_ENTRY_SIZE]
    return [(ts, base_offset + rel) for ts, rel in struct.iter_unpack(">qi", usable)]


def lookup(entries: list[tuple[int, int]], base_offset: int, target: int) -> tuple[int, int]:
    """``OffsetIndex.lookup``: the last entry with offset <= target, or (base offset, 0)."""
    if not entries:
        return base_offset, 0
    first_hot = max(0, len(entries) - 1 - 8192 // OFFSET_ENTRY_SIZE)
    if entries[first_hot][0] < target:
        lo, hi = first_hot, len(entries) - 1
    elif entries[0][0] > target:
        return base_offset, 0
    else:
        lo, hi = 0, first_hot
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if entries[mid][0] > target:
            hi = mid - 1
        elif entries[mid][0] < target:
            lo = mid
        else:
            return entries[mid]
    return entries[lo]


def dump_index(console: Console, path: str | Path, options: DumpOptions, problems: IndexProblems) -> None:
    """``dumpIndex``."""
    base = base_offset_of(path)
    log_path = _sibling(path, ".log")
    log = read_file(log_path)
    data = read_index(path)
    entries = offset_entries(data, base)
    if not entries:
        console.println(f"{path} is empty.")
        return
    if options.index_sanity_check:
        _sanity_check(path, data, entries, base)
        console.println(f"{path} passed sanity check.")
        return
    for i, (offset, position) in enumerate(entries):
        if offset == base and i > 0:
            return
        first = next(file_batches(log[position:position + options.max_message_size], log_path), None)
        if first is None:
            raise JavaCrash("java.util.NoSuchElementException", None)
        if first.last_offset != offset:
            problems.offset_mismatches.setdefault(os.path.abspath(path), []).insert(0, (offset, first.last_offset))
        if not options.verify_index_only:
            console.println(f"offset: {offset} position: {position}")


def _sanity_check(path: str | Path, data: bytes, entries: list[tuple[int, int]], base: int) -> None:
    """``OffsetIndex.sanityCheck``."""
    name = os.path.abspath(path)
    if entries and entries[-1][0] < base:
        raise JavaCrash("org.apache.kafka.storage.internals.log.CorruptIndexException",
                        f"Corrupt index found, index file {name} has non-zero size but the last offset is "
                        f"{entries[-1][0]} which is less than the base offset {base}")
    if len(data) % OFFSET_ENTRY_SIZE:
        raise JavaCrash("org.apache.kafka.storage.internals.log.CorruptIndexException",
                        f"Index file {name} is corrupt, found {len(data)} bytes which is neither positive nor a "
                        f"multiple of {OFFSET_ENTRY_SIZE}")


def dump_time_index(console: Console, path: str | Path, options: DumpOptions, problems: IndexProblems) -> None:
    """``dumpTimeIndex``."""
    base = base_offset_of(path)
    log_path = _sibling(path, ".log")
    log = read_file(log_path)
    offsets = offset_entries(read_index(_sibling(path, ".index")), base)
    entries = time_entries(read_index(path), base)
    if options.index_sanity_check:
        console.println(f"{path} passed sanity check.")
        return
    name, previous = os.path.abspath(path), -1
    for i, (timestamp, offset) in enumerate(entries):
        if offset == base and i > 0:
            return
        position = lookup(offsets, base, offset)[1]
        batch = next((b for b in file_batches(log[position:], log_path) if b.last_offset >= offset), None)
        if batch is None:
            problems.not_found.setdefault(name, []).append((offset, -1))
        elif batch.last_offset != offset:
            problems.not_found.setdefault(name, []).append((offset, batch.last_offset))
        else:
            start = position + batch.position
            max_ts = max([-1] + [r.timestamp for r in records_of(log, replace(batch, position=start))])
            if max_ts != timestamp:
                problems.time_mismatches.setdefault(name, []).append((timestamp, max_ts))
            if previous >= timestamp:
                problems.out_of_order.setdefault(name, []).append((timestamp, previous))
        if not options.verify_index_only:
            console.println(f"timestamp: {timestamp} offset: {offset}")
        previous = timestamp


__all__ = ["IndexProblems", "offset_entries", "time_entries", "lookup", "dump_index", "dump_time_index"]
