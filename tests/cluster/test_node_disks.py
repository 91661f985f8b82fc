"""`NodeDisks`: a simulated cluster keeps its files in memory by default, byte for byte what it
would write on disk; a live cluster still writes real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from minikafka.cluster import Cluster
from minikafka.cluster.node_disks import NodeDisks, StoredPath, storage_choice
from minikafka.storage.log_directory import FILE_SYSTEM, InMemoryLogDirectory
from tests.server.apis.dataplane_harness import batch, only_partition, produce


def every_file(root) -> dict[str, bytes]:
    """Relative path -> bytes of every file under ``root`` (a Path or a StoredPath)."""
    found: dict[str, bytes] = {}

    def walk(directory, prefix: str) -> None:
        for child in directory.iterdir():
            name = f"{prefix}{child.name}"
            if child.is_dir():
                walk(child, name + "/")
            else:
                found[name] = child.read_bytes()
    walk(root, "")
    return found


def busy_cluster(storage: str) -> Cluster:
    """The same seeded work on a simulated cluster: topics, records, a crash, a clean shutdown."""
    cluster = Cluster(brokers=3, controllers=1, seed=21, simulated=True, storage=storage).start()
    cluster.create_topic("orders", partitions=2, replication_factor=3, config={"segment.ms": 1000})
    cluster.create_topic("audit", partitions=1, replication_factor=2, config={"flush.messages": 2})
    for i in range(12):
        for topic, partition in (("orders", i % 2), ("audit", 0)):
            records = batch(cluster, [f"{topic} {i} {j}".encode() * 5 for j in range(4)])
            assert only_partition(produce(cluster, cluster.leader(topic, partition), topic, partition,
                                          records)).error_code == 0
        cluster.run_for(300)                # segment.ms rolls a new segment now and then
    cluster.kill(2)
    cluster.restart(2)
    cluster.run_for(3_000)
    for broker in cluster.broker_ids:       # closed logs: the indexes are cut to their entries
        cluster.shutdown(broker)
    return cluster


def test_the_same_work_writes_the_same_bytes_in_memory_and_on_disk():
    in_memory, on_disk = busy_cluster("memory"), busy_cluster("disk")
    try:
        assert isinstance(in_memory.data_dir, StoredPath) and isinstance(on_disk.data_dir, Path)
        memory_files, disk_files = every_file(in_memory.data_dir), every_file(on_disk.data_dir)
        for files, root in ((memory_files, in_memory.data_dir), (disk_files, on_disk.data_dir)):
            for name in [n for n in files if n.startswith("config/")]:    # log.dirs names the root
                files[name] = files[name].replace(str(root).encode(), b"<root>")
        assert sorted(memory_files) == sorted(disk_files)
        assert sum(name.startswith("broker-1/orders-0/") and name.endswith(".log") for name in disk_files) > 1
        assert any(name.endswith("quorum-state") for name in disk_files)
        different = [name for name in disk_files if memory_files[name] != disk_files[name]]
        assert different == []
    finally:
        in_memory.stop()
        on_disk.stop()


def test_a_simulated_cluster_writes_nothing_to_the_machine():
    cluster = Cluster(brokers=1, controllers=1, seed=3, simulated=True).start()
    try:
        assert cluster.storage == "memory"
        assert not os.path.exists(str(cluster.data_dir))
        names = sorted(p.name for p in cluster.node_data_dir(1).iterdir())
        assert "meta.properties" in names and "__cluster_metadata-0" in names
        assert "node.id=1" in (cluster.node_data_dir(1) / "meta.properties").read_text()
        assert cluster.snapshot().node(1).disk_bytes > 0
    finally:
        cluster.stop()
    assert not cluster.data_dir.exists()


def test_a_live_cluster_still_writes_real_files():
    cluster = Cluster(brokers=1, controllers=1, seed=3).start()
    try:
        assert cluster.storage == "disk"
        meta = Path(cluster.node_data_dir(1)) / "meta.properties"
        assert meta.is_file() and "node.id=1" in meta.read_text()
        assert (Path(cluster.data_dir) / "config" / "broker-1.properties").is_file()
    finally:
        cluster.stop()


def test_storage_defaults_and_choices():
    assert storage_choice(None, simulated=True, data_dir_given=False) == "memory"
    assert storage_choice(None, simulated=True, data_dir_given=True) == "disk"
    assert storage_choice(None, simulated=False, data_dir_given=False) == "disk"
    assert storage_choice("memory", simulated=False, data_dir_given=False) == "memory"
    with pytest.raises(ValueError, match="storage must be 'memory' or 'disk', not 'tape'"):
        Cluster(brokers=1, controllers=1, simulated=True, storage="tape")


def test_each_node_has_its_own_in_memory_disk(tmp_path):
    disks = NodeDisks("memory")
    one, two = disks.directory(1, tmp_path / "broker-1"), disks.directory(2, tmp_path / "broker-2")
    assert isinstance(one, InMemoryLogDirectory) and one is not two
    assert disks.directory(1, tmp_path / "broker-1") is one        # it outlives the process
    one.make_dirs(str(tmp_path / "broker-1"))
    one.write_bytes(str(tmp_path / "broker-1" / "x"), b"abc")
    assert disks.owner(tmp_path / "broker-1" / "x") is one and disks.owner(tmp_path / "config") is disks.host
    assert disks.list_dir(tmp_path) == ["broker-1"]
    assert disks.lose_power(1) == 3 and one.read_bytes(str(tmp_path / "broker-1" / "x")) == b""
    disks.replace_disk(1)
    assert disks.directory(1, tmp_path / "broker-1") is not one
    assert NodeDisks("disk").directory(1, tmp_path) is FILE_SYSTEM
