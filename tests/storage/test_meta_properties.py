import pytest

from minikafka.common.errors import InconsistentNodeStorageException
from minikafka.common.uuid import Uuid
from minikafka.storage.meta_properties import MetaProperties, java_date_string, properties_store_order

CLUSTER = "MkU3OEVBNTcwNTJENDM2Qg"
NOW = 1767225600000


def test_java_date_to_string_in_utc():
    assert java_date_string(NOW) == "Thu Jan 01 00:00:00 UTC 2026"
    assert java_date_string(1710238844000) == "Tue Mar 12 10:20:44 UTC 2024"


def test_golden_file_in_kafkas_line_order(tmp_path):
    directory_id = Uuid.from_string("J8aAbvNVSqGfRc5n2wzHxA")
    MetaProperties(1, CLUSTER, 1, directory_id).write(str(tmp_path), NOW)
    assert (tmp_path / "meta.properties").read_text() == (
        "#\n#Thu Jan 01 00:00:00 UTC 2026\nnode.id=1\ndirectory.id=J8aAbvNVSqGfRc5n2wzHxA\nversion=1\n"
        f"cluster.id={CLUSTER}\n")
    assert not (tmp_path / "meta.properties.tmp").exists()
    assert MetaProperties.read(str(tmp_path)) == MetaProperties(1, CLUSTER, 1, directory_id)


def test_store_order_is_the_hash_order_not_the_insertion_order():
    assert properties_store_order(["version", "cluster.id", "node.id"]) == ["node.id", "version", "cluster.id"]


def test_verify_refuses_another_cluster_or_node(tmp_path):
    props = MetaProperties(1, CLUSTER, 2)
    props.verify(str(tmp_path), CLUSTER, 2)
    path = tmp_path / "meta.properties"
    with pytest.raises(InconsistentNodeStorageException,
                       match=f"^Invalid cluster.id in: {path}. Expected OTHER, but read {CLUSTER}$"):
        props.verify(str(tmp_path), "OTHER", 2)
    with pytest.raises(InconsistentNodeStorageException,
                       match=f"^Stored node id 2 doesn't match previous node id 3 in {path}. If you moved your "
                             "data, make sure your configured node id matches. If you intend to create a new node, "
                             "you should remove all data in your data directories.$"):
        props.verify(str(tmp_path), CLUSTER, 3)


def test_v1_files_need_cluster_and_node_ids(tmp_path):
    (tmp_path / "meta.properties").write_text("#\nversion=1\nnode.id=1\n")
    with pytest.raises(InconsistentNodeStorageException, match="^cluster.id was not found.$"):
        MetaProperties.read(str(tmp_path))
    (tmp_path / "meta.properties").write_text(f"version=1\ncluster.id={CLUSTER}\n")
    with pytest.raises(InconsistentNodeStorageException, match="^Failed to find node.id$"):
        MetaProperties.read(str(tmp_path))
    (tmp_path / "meta.properties").write_text("version=7\n")
    with pytest.raises(InconsistentNodeStorageException, match="^Unknown meta.properties version number 7$"):
        MetaProperties.read(str(tmp_path))
