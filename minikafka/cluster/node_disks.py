"""`NodeDisks`: the disk of every machine of a sandbox cluster, real or in memory.

Theory of operation
-------------------
Each Kafka node runs on a machine with its own disk; everything the node
keeps (``meta.properties``, ``__cluster_metadata-0`` and its
``quorum-state``, partition logs, checkpoints, the clean-shutdown marker)
lives there.  The sandbox chooses, per cluster, what that disk is:

* ``"disk"``: real files under the cluster's data directory, one
  `FileSystemLogDirectory` shared by every node (a live cluster's default);
* ``"memory"``: one `InMemoryLogDirectory` per node, so nothing is written
  to the machine's file system (a simulated cluster's default, unless it is
  given a ``data_dir`` to keep).  A node's
  directory outlives its process (a restart finds what the crashed process
  wrote), ``replace_disk`` gives the node a new, empty one (``wipe``), and
  ``lose_power`` puts it back to what was flushed.

The operator's own files next to the node directories (the ``config/``
folder of ``server.properties`` files) live on a disk of their own
(``host``), real or in memory like the nodes'.

`StoredPath` reads any of these files through the right directory with the
part of ``pathlib.Path`` a lesson uses (``/``, ``name``, ``iterdir``,
``read_text``, ``stat().st_size`` ...), so ``cluster.node_data_dir(1001) /
"__cluster_metadata-0"`` lists a simulated node's files as it lists a live
one's.  A disk-backed cluster hands out plain ``Path`` objects instead.

The layout and the node processes receive this object; each `KafkaNode`
receives only its own `LogDirectory`.  Kafka has no such class: an operator
chooses disks and mounts them at ``log.dirs``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Literal

from minikafka.storage.log_directory import (FILE_SYSTEM, InMemoryLogDirectory, LogDirectory,
                                             read_text)

Storage = Literal["memory", "disk"]
STORAGE_CHOICES: tuple[Storage, ...] = ("memory", "disk")


def storage_choice(storage: str | None, simulated: bool, data_dir_given: bool) -> Storage:
    """The ``storage=`` keyword of `Cluster`, checked.  Unless chosen: memory for a simulated cluster
    on a temporary directory, disk for a live one or for a given ``data_dir`` (kept after the cluster)."""
    if storage is None:
        return "memory" if simulated and not data_dir_given else "disk"
    if storage not in STORAGE_CHOICES:
        raise ValueError(f"storage must be 'memory' or 'disk', not {storage!r}")
    return "memory" if storage == "memory" else "disk"


class NodeDisks:
    """The disks of a cluster's machines: per node id a `LogDirectory`, and one for the operator's files."""

    def __init__(self, storage: Storage, clock_ms: Callable[[], int] | None = None):
        self.storage: Storage = storage
        self._clock_ms = clock_ms            # modification times of in-memory files (the driver's clock)
        self._node_dirs: dict[int, LogDirectory] = {}      # memory only: node id -> its disk
        self._node_roots: dict[int, str] = {}              # node id -> its data directory's path
        self._retired: list[tuple[str, LogDirectory]] = []  # memory only: (renamed directory, disk) kept aside
        self.host: LogDirectory = self._new_disk()          # config/ and other operator files

    @property
    def in_memory(self) -> bool:
        return self.storage == "memory"

    def _new_disk(self) -> LogDirectory:
        if self.storage == "disk":
            return FILE_SYSTEM
        return InMemoryLogDirectory(self._now)

    def _now(self) -> int:
        return self._clock_ms() if self._clock_ms is not None else 0

    def use_clock(self, clock_ms: Callable[[], int]) -> None:
        """The clock that dates files written from now on (the driver's, once it exists)."""
        self._clock_ms = clock_ms

    # ------------------------------------------------------------------ one node's disk
    def directory(self, node_id: int, data_dir: str | os.PathLike[str]) -> LogDirectory:
        """The disk of node ``node_id``, whose data directory is ``data_dir`` (made on first use)."""
        self._node_roots[node_id] = os.path.abspath(data_dir)
        if self.storage == "disk":
            return FILE_SYSTEM
        if node_id not in self._node_dirs:
            self._node_dirs[node_id] = self._new_disk()
        return self._node_dirs[node_id]

    def crash(self, node_id: int) -> None:
        """The node's process died: its files stay as written (page cache kept); its locks are freed."""
        disk = self._node_dirs.get(node_id)
        if isinstance(disk, InMemoryLogDirectory):
            disk.crash_process()

    def lose_power(self, node_id: int) -> int:
        """The node's machine lost power: its files go back to what was flushed.  Returns the bytes lost."""
        disk = self._node_dirs.get(node_id)
        if not isinstance(disk, InMemoryLogDirectory):
            raise RuntimeError("lose_power needs the in-memory storage")
        lost = disk.unflushed_bytes()
        disk.lose_power()
        return lost

    def replace_disk(self, node_id: int) -> None:
        """Delete the node's data directory: a new empty disk in memory, ``rm -rf`` on disk."""
        root = self._node_roots.get(node_id)
        if self.storage == "memory":
            self._node_dirs[node_id] = self._new_disk()
        elif root is not None:
            shutil.rmtree(root, ignore_errors=True)

    def retire(self, node_id: int, kept_at: str | os.PathLike[str]) -> None:
        """The node's machine is retired (decommissioned): its disk stays readable at ``kept_at``,
        where its data directory was renamed, and the node id no longer names it."""
        root, disk = self._node_roots.pop(node_id, None), self._node_dirs.pop(node_id, None)
        if root is not None and disk is not None:
            self._retired.append((os.path.abspath(kept_at), disk))

    def discard(self) -> None:
        """In memory: throw every disk away (the cluster stopped and its temporary files go)."""
        if self.storage == "memory":
            self._node_dirs.clear()
            self._node_roots.clear()
            self._retired.clear()
            self.host = self._new_disk()

    # ------------------------------------------------------------------ any path
    def owner(self, path: str | os.PathLike[str]) -> LogDirectory:
        """The disk that holds ``path``: a node's when it is under that node's data directory, else the host's."""
        if self.storage == "disk":
            return FILE_SYSTEM
        key = os.path.abspath(path)
        for root, disk in [(r, self._node_dirs[n]) for n, r in self._node_roots.items()] + self._retired:
            if key == root or key.startswith(root + os.sep):
                return disk
        return self.host

    def list_dir(self, path: str | os.PathLike[str]) -> list[str]:
        """The names in a directory; a node's data directory shows in its parent's listing."""
        key = os.path.abspath(path)
        disk = self.owner(key)
        names = set(disk.list_dir(key)) if disk.is_dir(key) else set()
        for root, node_disk in [(r, self._node_dirs.get(n, disk)) for n, r in self._node_roots.items()] \
                + self._retired:
            if os.path.dirname(root) == key and node_disk.is_dir(root):
                names.add(os.path.basename(root))
        if not names and not disk.is_dir(key):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return sorted(names)

    def path(self, path: str | os.PathLike[str]) -> "Path | StoredPath":
        """``path`` as a lesson reads it: a ``Path`` on disk, a `StoredPath` in memory."""
        return Path(path) if self.storage == "disk" else StoredPath(self, os.path.abspath(path))

    def remove_tree(self, path: str | os.PathLike[str]) -> None:
        """Delete a directory and everything under it (``rm -rf``)."""
        if self.storage == "disk":
            shutil.rmtree(path, ignore_errors=True)
            return
        remove_tree(self.owner(path), os.path.abspath(path))

    def walk_files(self, path: str | os.PathLike[str]) -> Iterator[str]:
        """Every file under ``path``, recursively (nothing if it does not exist)."""
        if self.storage == "disk":          # os.walk's scandir: one system call per directory
            for root, _, files in os.walk(path):
                yield from (os.path.join(root, name) for name in files)
            return
        yield from walk_files(self.owner(path), os.path.abspath(path))


def walk_files(disk: LogDirectory, path: str) -> Iterator[str]:
    """Every file under the directory ``path`` of ``disk``, recursively."""
    try:
        names = sorted(disk.list_dir(path))
    except OSError:                # not there, or deleted meanwhile by the cluster's thread
        return
    for name in names:
        child = os.path.join(path, name)
        if disk.is_dir(child):
            yield from walk_files(disk, child)
        elif disk.is_file(child):
            yield child


def remove_tree(disk: LogDirectory, path: str) -> None:
    """Delete the directory ``path`` of ``disk`` and everything under it; nothing if it does not exist."""
    if not disk.is_dir(path):
        return
    for name in disk.list_dir(path):
        child = os.path.join(path, name)
        if disk.is_dir(child):
            remove_tree(disk, child)
        else:
            disk.remove(child)
    disk.remove_dir(path)


@dataclass(frozen=True)
class StoredStat:
    """What ``Path.stat()`` tells of a stored file, for a lesson: its size and modification time."""

    st_size: int
    st_mtime: float


class StoredPath:
    """A path into a cluster's in-memory disks, with the read side of ``pathlib.Path``.

    It is path-like (``os.path.abspath`` works on it), but the file is not on the machine:
    read it with its own methods, not with ``open()``."""

    def __init__(self, disks: NodeDisks, path: str):
        self._disks = disks
        self._path = path

    def __truediv__(self, name: str | os.PathLike[str]) -> "StoredPath":
        return StoredPath(self._disks, os.path.normpath(os.path.join(self._path, os.fspath(name))))

    def __str__(self) -> str:
        return self._path

    def __fspath__(self) -> str:
        """The path's name, for ``os.path`` functions; ``open()`` finds nothing there (the file is in memory)."""
        return self._path

    def __repr__(self) -> str:
        return f"StoredPath({self._path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoredPath) and other._path == self._path

    def __hash__(self) -> int:
        return hash(self._path)

    def __lt__(self, other: "StoredPath") -> bool:
        return self._path < other._path

    @property
    def name(self) -> str:
        return os.path.basename(self._path)

    @property
    def suffix(self) -> str:
        return os.path.splitext(self.name)[1]

    @property
    def stem(self) -> str:
        return os.path.splitext(self.name)[0]

    @property
    def parent(self) -> "StoredPath":
        return StoredPath(self._disks, os.path.dirname(self._path))

    def with_name(self, name: str) -> "StoredPath":
        return self.parent / name

    def _disk(self) -> LogDirectory:
        return self._disks.owner(self._path)

    def exists(self) -> bool:
        return self.is_dir() or self._disk().exists(self._path)

    def is_dir(self) -> bool:
        return self._disk().is_dir(self._path)

    def is_file(self) -> bool:
        return self._disk().is_file(self._path)

    def iterdir(self) -> Iterator["StoredPath"]:
        return iter([self / name for name in self._disks.list_dir(self._path)])

    def glob(self, pattern: str) -> Iterator["StoredPath"]:
        import fnmatch
        return iter([p for p in self.iterdir() if fnmatch.fnmatch(p.name, pattern)])

    def read_bytes(self) -> bytes:
        return self._disk().read_bytes(self._path)

    def read_text(self, encoding: str = "utf-8") -> str:
        return read_text(self._disk(), self._path)

    def stat(self) -> StoredStat:
        disk = self._disk()
        if disk.is_dir(self._path):
            return StoredStat(0, 0.0)
        return StoredStat(disk.size(self._path), disk.last_modified_ms(self._path) / 1000)
