"""The files of the log directories: one interface, on disk or in memory.

Theory of operation
-------------------
Every byte the storage layer keeps -- segments (``.log``), their offset and
time indexes, the checkpoint files, ``meta.properties``,
``partition.metadata``, the leader-epoch checkpoint, producer snapshots and
the clean-shutdown marker -- goes through a `LogDirectory`, which each
storage object receives in its constructor.  The interface is path-keyed
(absolute or relative names, as the storage modules build them with
``os.path.join``) and small: existence, size, whole-file and positional
reads, positional writes through a `FileHandle`, a durable atomic write
(write a temporary file, flush it, rename it over the old one, as Kafka's
checkpoint files do), truncation or sparse extension, rename, delete,
listing, directories, modification times, the file system's space, and
`flush`.

Kafka writes through ``java.nio.channels.FileChannel`` and memory-mapped
index buffers; a write lands in the operating system's page cache, and only
``FileChannel.force`` (fsync) makes it durable.  Kafka flushes rarely
(``flush.messages`` and ``log.flush.interval.ms`` default to "never"): its
durability rests on replication, not on fsync.  A *process crash* keeps the
page cache, so every written byte survives; a *power loss* keeps only what
was flushed, so a write acknowledged by every replica and flushed by none is
gone if every replica loses power.

`FileSystemLogDirectory` is today's behaviour: real files, byte for byte
what the sandbox always wrote.  Its `flush` does not fsync (a live sandbox
cluster runs in one process on one machine; a power loss ends the lesson,
and fsync would only slow it).  `InMemoryLogDirectory` keeps each file as
bytes and remembers, per file, the bytes of its last flush; `crash_process`
changes nothing (the page cache survives) and `lose_power` puts every file
back to its flushed bytes -- deterministically, so a simulated cluster can
show the difference.

Simplified: directory operations (create, rename, delete, mkdir) are durable
at once in memory (a journaling file system, with the directory fsync Kafka
does after a rename); a file never flushed survives a power loss empty.
There is no page granularity: the flushed state of a file is all of it.

Mirrors the part of ``java.nio.file.Files`` and ``FileChannel`` that
``LogSegment``, ``FileRecords``, ``AbstractIndex``, ``CheckpointFile`` and
``LogManager`` use; Kafka has no such interface of its own (its tests use
temporary directories).
"""

from __future__ import annotations

import fcntl
import gc
import mmap
import os
from dataclasses import dataclass, field
from typing import IO, Callable, Protocol

from minikafka.storage.file_store import total_and_usable_space


class FileHandle(Protocol):
    """An open file taking positional reads and writes (a ``FileChannel``)."""

    def read_at(self, size: int, position: int) -> bytes: ...

    def write_at(self, data: bytes, position: int) -> int: ...

    def close(self) -> None: ...


class MappedBuffer(Protocol):
    """A file mapped into memory for writes (a ``MappedByteBuffer``): a write is a memory copy."""

    def write_at(self, data: bytes, position: int) -> None: ...

    def close(self) -> None: ...


class DirectoryLock(Protocol):
    """An exclusive lock on a log directory's ``.lock`` file, held until released."""

    def release(self) -> None: ...


class LogDirectory(Protocol):
    """The file operations the storage layer needs, keyed by path."""

    def exists(self, path: str) -> bool: ...

    def is_file(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def size(self, path: str) -> int: ...

    def create(self, path: str) -> None:
        """Create an empty file unless it exists."""

    def open(self, path: str) -> FileHandle: ...

    def map(self, path: str, length: int) -> MappedBuffer:
        """Map the first ``length`` bytes of an existing file for writes."""

    def read_bytes(self, path: str) -> bytes: ...

    def read_range(self, path: str, position: int, size: int) -> bytes: ...

    def write_bytes(self, path: str, data: bytes) -> None:
        """Replace the file's content (page cache only, not flushed)."""

    def write_atomically(self, path: str, data: bytes) -> None:
        """Write ``path.tmp``, flush it and rename it over ``path``."""

    def truncate(self, path: str, size: int) -> None:
        """Cut the file to ``size`` bytes, or extend it with zeros (sparse)."""

    def replace(self, source: str, target: str) -> None: ...

    def remove(self, path: str) -> bool:
        """Delete a file; False if it did not exist."""

    def list_dir(self, path: str) -> list[str]: ...

    def make_dirs(self, path: str) -> None: ...

    def remove_dir(self, path: str) -> None:
        """Delete a directory and the files in it."""

    def last_modified_ms(self, path: str) -> int: ...

    def set_last_modified_ms(self, path: str, ms: int) -> None: ...

    def flush(self, path: str) -> None:
        """Make the file's written bytes durable (fsync)."""

    def try_lock(self, path: str) -> DirectoryLock | None:
        """Take the exclusive lock on the file ``path`` (created if missing); None if another holder has it."""

    def total_and_usable_space(self, path: str) -> tuple[int, int]:
        """Total and usable bytes of the file system holding ``path`` (Java's ``FileStore``)."""


def read_text(directory: LogDirectory, path: str) -> str:
    """The file as text, newlines read the way Python's text mode reads them."""
    return directory.read_bytes(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


# ---------------------------------------------------------------------- file system
class _OsFileHandle:
    def __init__(self, path: str):
        self._fd = os.open(path, os.O_RDWR)

    def read_at(self, size: int, position: int) -> bytes:
        return os.pread(self._fd, size, position)

    def write_at(self, data: bytes, position: int) -> int:
        return os.pwrite(self._fd, data, position)

    def close(self) -> None:
        os.close(self._fd)


class _OsMappedBuffer:
    """A shared mapping of the file; each page gets disk space (a zero write) before its first use."""

    def __init__(self, path: str, length: int):
        self._fd = os.open(path, os.O_RDWR)
        self._length = length
        self._map = mmap.mmap(self._fd, length)
        self._allocated_to = 0                  # bytes of the file known to have disk space

    def write_at(self, data: bytes, position: int) -> None:
        if position + len(data) > self._allocated_to:
            # The file is sparse: write the rest of this page (still zeros) first, so that it has
            # disk space and a full disk is an OSError here, not a SIGBUS inside the mapping.
            end = min(position - position % mmap.PAGESIZE + mmap.PAGESIZE, self._length)
            os.pwrite(self._fd, bytes(end - position), position)
            self._allocated_to = end
        self._map[position:position + len(data)] = data

    def close(self) -> None:
        self._map.close()
        os.close(self._fd)


class _OsDirectoryLock:
    """An advisory ``flock`` on an open file."""

    def __init__(self, handle: IO[str]):
        self._handle = handle

    def release(self) -> None:
        fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
        self._handle.close()


class FileSystemLogDirectory:
    """Real files; `flush` is a no-op (see the module docstring)."""

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_file(self, path: str) -> bool:
        return os.path.isfile(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def size(self, path: str) -> int:
        return os.path.getsize(path)

    def create(self, path: str) -> None:
        if not os.path.exists(path):
            open(path, "ab").close()

    def open(self, path: str) -> FileHandle:
        return _OsFileHandle(path)

    def map(self, path: str, length: int) -> MappedBuffer:
        return _OsMappedBuffer(path, length)

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as handle:
            return handle.read()

    def read_range(self, path: str, position: int, size: int) -> bytes:
        fd = os.open(path, os.O_RDONLY)
        try:
            return os.pread(fd, size, position)
        finally:
            os.close(fd)

    def write_bytes(self, path: str, data: bytes) -> None:
        with open(path, "wb") as handle:
            handle.write(data)

    def write_atomically(self, path: str, data: bytes) -> None:
        with open(path + ".tmp", "wb") as handle:
            handle.write(data)
        os.replace(path + ".tmp", path)

    def truncate(self, path: str, size: int) -> None:
        os.truncate(path, size)

    def replace(self, source: str, target: str) -> None:
        os.replace(source, target)

    def remove(self, path: str) -> bool:
        try:
            os.remove(path)
            return True
        except FileNotFoundError:
            return False

    def list_dir(self, path: str) -> list[str]:
        return os.listdir(path)

    def make_dirs(self, path: str) -> None:
        os.makedirs(path, exist_ok=True)

    def remove_dir(self, path: str) -> None:
        for name in os.listdir(path):
            os.remove(os.path.join(path, name))
        os.rmdir(path)

    def last_modified_ms(self, path: str) -> int:
        return os.stat(path).st_mtime_ns // 1_000_000

    def set_last_modified_ms(self, path: str, ms: int) -> None:
        os.utime(path, ns=(ms * 1_000_000, ms * 1_000_000))

    def flush(self, path: str) -> None:
        return None

    def total_and_usable_space(self, path: str) -> tuple[int, int]:
        return total_and_usable_space(path)

    def try_lock(self, path: str) -> DirectoryLock | None:
        handle = open(path, "a+")
        for _ in range(2):
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                return _OsDirectoryLock(handle)
            except OSError:
                gc.collect()      # a crashed node object may still hold the lock until it is collected
        handle.close()
        return None


FILE_SYSTEM: LogDirectory = FileSystemLogDirectory()   # stateless: the default of the file objects


# ---------------------------------------------------------------------- memory
DEFAULT_CAPACITY_BYTES = 100 * 2**30       # the size of an in-memory disk: 100 GiB, as a small broker's
@dataclass
class _MemoryFile:
    """A sparse file: ``data`` holds the bytes up to the last one written; the rest up to ``length`` is zeros."""

    data: bytearray = field(default_factory=bytearray)   # what a reader sees (the page cache)
    length: int = 0                                      # the file's size (>= len(data))
    flushed: bytes = b""                                 # what survives a power loss ...
    flushed_length: int = 0                              # ... and the size it had then
    modified_ms: int = 0


class _MemoryFileHandle:
    def __init__(self, directory: "InMemoryLogDirectory", path: str):
        self._directory = directory
        self._path = path

    def read_at(self, size: int, position: int) -> bytes:
        return self._directory.read_range(self._path, position, size)

    def write_at(self, data: bytes, position: int) -> int:
        return self._directory.write_at(self._path, data, position)

    def close(self) -> None:
        return None


class _MemoryMappedBuffer:
    def __init__(self, directory: "InMemoryLogDirectory", path: str):
        self._directory = directory
        self._path = path

    def write_at(self, data: bytes, position: int) -> None:
        self._directory.write_at(self._path, data, position)

    def close(self) -> None:
        return None


class _MemoryDirectoryLock:
    def __init__(self, held: set[str], key: str):
        self._held = held
        self._key = key

    def release(self) -> None:
        self._held.discard(self._key)


def _key(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


class InMemoryLogDirectory:
    """Files as bytes in a dict; tracks written versus flushed bytes for `lose_power`.

    ``clock_ms`` gives new files their modification time (the node's clock; 0 if not given), so that
    nothing here reads the wall clock.
    """

    def __init__(self, clock_ms: Callable[[], int] | None = None, capacity_bytes: int = DEFAULT_CAPACITY_BYTES):
        self._capacity_bytes = capacity_bytes     # the disk's size, as DescribeLogDirs reports it
        self._files: dict[str, _MemoryFile] = {}
        self._dirs: set[str] = {os.sep}
        self._locks: set[str] = set()             # lock files currently held
        self._clock_ms = clock_ms if clock_ms is not None else (lambda: 0)   # modification time of new files

    # ------------------------------------------------------------------ lookups
    def _file(self, path: str) -> _MemoryFile:
        found = self._files.get(_key(path))
        if found is None:
            raise FileNotFoundError(2, "No such file or directory", path)
        return found

    def _require_parent(self, path: str) -> None:
        if os.path.dirname(_key(path)) not in self._dirs:
            raise FileNotFoundError(2, "No such file or directory", path)

    def exists(self, path: str) -> bool:
        return _key(path) in self._files or _key(path) in self._dirs

    def is_file(self, path: str) -> bool:
        return _key(path) in self._files

    def is_dir(self, path: str) -> bool:
        return _key(path) in self._dirs

    def size(self, path: str) -> int:
        return self._file(path).length

    # ------------------------------------------------------------------ contents
    def create(self, path: str) -> None:
        if _key(path) not in self._files:
            self._require_parent(path)
            self._files[_key(path)] = _MemoryFile(modified_ms=self._clock_ms())

    def open(self, path: str) -> FileHandle:
        self._file(path)
        return _MemoryFileHandle(self, path)

    def map(self, path: str, length: int) -> MappedBuffer:
        self._file(path)
        return _MemoryMappedBuffer(self, path)

    def read_bytes(self, path: str) -> bytes:
        entry = self._file(path)
        return bytes(entry.data) + bytes(entry.length - len(entry.data))

    def read_range(self, path: str, position: int, size: int) -> bytes:
        entry = self._file(path)
        end = min(position + size, entry.length)
        if end <= position:
            return b""
        found = bytes(entry.data[position:end])
        return found + bytes(end - position - len(found))     # the sparse zeros past the last write

    def write_at(self, path: str, data: bytes, position: int) -> int:
        entry = self._file(path)
        content = entry.data
        if position > len(content):
            content.extend(bytes(position - len(content)))
        content[position:position + len(data)] = data
        entry.length = max(entry.length, position + len(data))
        return len(data)

    def write_bytes(self, path: str, data: bytes) -> None:
        self.create(path)
        entry = self._file(path)
        entry.data[:] = data
        entry.length = len(data)

    def write_atomically(self, path: str, data: bytes) -> None:
        self.write_bytes(path + ".tmp", data)
        self.flush(path + ".tmp")
        self.replace(path + ".tmp", path)

    def truncate(self, path: str, size: int) -> None:
        entry = self._file(path)
        if size < len(entry.data):
            del entry.data[size:]
        entry.length = size

    def flush(self, path: str) -> None:
        entry = self._files.get(_key(path))
        if entry is not None:            # a file deleted meanwhile has nothing left to flush
            entry.flushed, entry.flushed_length = bytes(entry.data), entry.length

    # ------------------------------------------------------------------ names
    def replace(self, source: str, target: str) -> None:
        source_key, target_key = _key(source), _key(target)
        if source_key in self._dirs:
            self._require_parent(target)
            prefix = source_key + os.sep
            self._dirs = {target_key + d[len(source_key):] if d == source_key or d.startswith(prefix) else d
                          for d in self._dirs}
            self._files = {target_key + p[len(source_key):] if p.startswith(prefix) else p: f
                           for p, f in self._files.items()}
            return
        entry = self._file(source)
        self._require_parent(target)
        del self._files[source_key]
        self._files[target_key] = entry

    def remove(self, path: str) -> bool:
        return self._files.pop(_key(path), None) is not None

    def list_dir(self, path: str) -> list[str]:
        directory = _key(path)
        if directory not in self._dirs:
            raise FileNotFoundError(2, "No such file or directory", path)
        names = [p for p in list(self._files) + list(self._dirs) if p != directory and os.path.dirname(p) == directory]
        return [os.path.basename(p) for p in names]

    def make_dirs(self, path: str) -> None:
        directory = _key(path)
        while directory not in self._dirs:
            self._dirs.add(directory)
            directory = os.path.dirname(directory)

    def remove_dir(self, path: str) -> None:
        directory = _key(path)
        for name in self.list_dir(path):
            if os.path.join(directory, name) in self._dirs:
                raise OSError(39, "Directory not empty", path)
            del self._files[os.path.join(directory, name)]
        self._dirs.discard(directory)

    def last_modified_ms(self, path: str) -> int:
        return self._file(path).modified_ms

    def set_last_modified_ms(self, path: str, ms: int) -> None:
        self._file(path).modified_ms = ms

    def try_lock(self, path: str) -> DirectoryLock | None:
        self.create(path)
        if _key(path) in self._locks:
            return None
        self._locks.add(_key(path))
        return _MemoryDirectoryLock(self._locks, _key(path))

    def total_and_usable_space(self, path: str) -> tuple[int, int]:
        """A disk of ``capacity_bytes``, less what the files hold."""
        used = sum(entry.length for entry in self._files.values())
        return self._capacity_bytes, max(self._capacity_bytes - used, 0)

    # ------------------------------------------------------------------ failures
    def crash_process(self) -> None:
        """The broker's process dies: the page cache survives, every written byte stays; locks are freed."""
        self._locks.clear()

    def lose_power(self) -> None:
        """The machine loses power: every file goes back to the bytes of its last flush."""
        self._locks.clear()
        for entry in self._files.values():
            entry.data, entry.length = bytearray(entry.flushed), entry.flushed_length

    def unflushed_bytes(self) -> int:
        """Bytes written but not yet flushed, over all files (what a power loss would cost)."""
        return sum(abs(len(e.data) - len(e.flushed)) if e.data.startswith(e.flushed) or e.flushed.startswith(e.data)
                   else len(e.data) for e in self._files.values() if e.data != e.flushed)
