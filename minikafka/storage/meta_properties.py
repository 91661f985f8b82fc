"""``meta.properties``: which cluster and node a data directory belongs to.

Theory of operation
-------------------
``kafka-storage.sh format`` writes ``meta.properties`` at the root of every
log dir before a KRaft node first starts::

    #
    #Thu Jan 01 00:00:00 UTC 2026
    node.id=1
    directory.id=J8aAbvNVSqGfRc5n2wzHxA
    version=1
    cluster.id=MkU3OEVBNTcwNTJENDM2Qg

It is a ``java.util.Properties`` file written with ``store(writer, "")``: an
empty comment line, the write time as ``Date.toString()``, then ``key=value``
lines in the iteration order of the ``Properties`` table (a hash order on the
JDK 17 Kafka 4.x runs on -- reproduced here, so the lines come out in the
order a real broker writes them).  Writes go through ``meta.properties.tmp``,
a flush and a rename, in the `LogDirectory` the caller passes.

At start-up a node checks every directory's file against its configuration:
a directory formatted for another cluster, or for another node id, is refused
with Kafka's error, because serving it would mix two nodes' data.

Mirrors ``org.apache.kafka.metadata.properties.MetaProperties``,
``MetaPropertiesEnsemble.verify`` and ``PropertiesUtils``.  Simplified: only
version 1 (KRaft) files are written; version 0 files are read.
"""

from __future__ import annotations

from minikafka.common.java_hashing import string_hash_code

import datetime
import os
from dataclasses import dataclass

from minikafka.common.errors import InconsistentNodeStorageException
from minikafka.common.uuid import Uuid
from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory, read_text

META_PROPERTIES_NAME = "meta.properties"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def java_date_string(now_ms: int) -> str:
    """``java.util.Date.toString()`` in UTC: ``Thu Jan 01 00:00:00 UTC 2026``."""
    t = datetime.datetime.fromtimestamp(now_ms / 1000, tz=datetime.timezone.utc)
    return f"{_DAYS[t.weekday()]} {_MONTHS[t.month - 1]} {t.day:02d} {t:%H:%M:%S} UTC {t.year}"


def properties_store_order(keys: list[str]) -> list[str]:
    """The order JDK 17's ``Properties.store`` writes ``keys`` in (its ConcurrentHashMap's bin order).

    A ``Properties`` starts with 16 bins; a key's bin is its spread String hash
    modulo 16, bins are visited in ascending order and each bin in insertion
    order.  (The table would grow at 12 keys; meta.properties has at most 4.)
    """
    def bin_of(key: str) -> int:
        h = string_hash_code(key) & 0xFFFFFFFF
        return ((h ^ (h >> 16)) & 0x7FFFFFFF) & 15
    return sorted(keys, key=lambda k: (bin_of(k), keys.index(k)))


@dataclass(frozen=True, slots=True)
class MetaProperties:
    version: int
    cluster_id: str | None
    node_id: int | None
    directory_id: Uuid | None = None

    def to_properties(self) -> dict[str, str]:
        """Keys in the order MetaProperties.toProperties() puts them."""
        props = {"version": str(self.version)}
        if self.cluster_id is not None:
            props["cluster.id"] = self.cluster_id
        if self.node_id is not None:
            props["node.id" if self.version == 1 else "broker.id"] = str(self.node_id)
        if self.directory_id is not None:
            props["directory.id"] = str(self.directory_id)
        return props

    @classmethod
    def from_properties(cls, props: dict[str, str]) -> "MetaProperties":
        version_text = props.get("version", "0")
        try:
            version = int(version_text)
        except ValueError:
            raise InconsistentNodeStorageException(f"Invalid meta.properties version string '{version_text}'") from None
        if version not in (0, 1):
            raise InconsistentNodeStorageException(f"Unknown meta.properties version number {version}")
        node_key = "node.id" if version == 1 else "broker.id"
        node_id = _required_int(props, node_key) if version == 1 or node_key in props else None
        directory_id = None
        if "directory.id" in props:
            try:
                directory_id = Uuid.from_string(props["directory.id"])
            except ValueError as exc:
                raise InconsistentNodeStorageException(f"Unable to read directory.id as a Uuid: {exc}") from None
        cluster_id = props.get("cluster.id")
        if version == 1 and cluster_id is None:
            raise InconsistentNodeStorageException("cluster.id was not found.")
        return cls(version, cluster_id, node_id, directory_id)

    # ------------------------------------------------------------------ files
    def render(self, now_ms: int) -> str:
        props = self.to_properties()
        lines = ["#", "#" + java_date_string(now_ms)]
        lines += [f"{key}={props[key]}" for key in properties_store_order(list(props))]
        return "\n".join(lines) + "\n"

    def write(self, log_dir: str, now_ms: int, directory: LogDirectory = FILE_SYSTEM) -> None:
        path = os.path.join(log_dir, META_PROPERTIES_NAME)
        directory.write_atomically(path, self.render(now_ms).encode("utf-8"))

    @classmethod
    def read(cls, log_dir: str, directory: LogDirectory = FILE_SYSTEM) -> "MetaProperties":
        props = {}
        for line in read_text(directory, os.path.join(log_dir, META_PROPERTIES_NAME)).split("\n"):
            line = line.strip()
            if not line or line[0] in "#!":
                continue
            key, _, value = line.partition("=")
            props[key.strip()] = value.strip()
        return cls.from_properties(props)

    def verify(self, log_dir: str, expected_cluster_id: str | None, expected_node_id: int | None) -> None:
        """Raise Kafka's error if this directory belongs to another cluster or another node."""
        path = os.path.join(log_dir, META_PROPERTIES_NAME)
        if self.cluster_id is None:
            if self.version == 1:
                raise InconsistentNodeStorageException(f"cluster.id was not specified in the v1 file: {path}")
        elif expected_cluster_id is not None and self.cluster_id != expected_cluster_id:
            raise InconsistentNodeStorageException(f"Invalid cluster.id in: {path}. Expected {expected_cluster_id}, "
                                                   f"but read {self.cluster_id}")
        if self.node_id is None:
            if self.version == 1:
                raise InconsistentNodeStorageException(f"node.id was not specified in {path}")
        elif expected_node_id is not None and self.node_id != expected_node_id:
            raise InconsistentNodeStorageException(
                f"Stored node id {self.node_id} doesn't match previous node id {expected_node_id} in {path}. If you "
                f"moved your data, make sure your configured node id matches. If you intend to create a new node, "
                f"you should remove all data in your data directories.")


def _required_int(props: dict[str, str], key: str) -> int:
    if key not in props:
        raise InconsistentNodeStorageException(f"Failed to find {key}")
    try:
        return int(props[key])
    except ValueError:
        raise InconsistentNodeStorageException(f"Unable to read {key} as a base-10 number.") from None
