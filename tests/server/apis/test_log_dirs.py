import os

import pytest

from minikafka.common.errors import Errors
from tests.server.apis.admin_harness import versions
from tests.server.apis.dataplane_harness import (AlterReplicaLogDirs, DescribeLogDirs, batch, leader_of,
                                                      produce, send, start_cluster)


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=61)
    c.create_topic("sized", partitions=2, replication_factor=3)
    c.create_topic("elsewhere", replica_assignment={0: [2]})
    produce(c, leader_of(c, "sized", 0), "sized", 0, batch(c, [b"x" * 100]))
    c.run_for(200)
    yield c
    c.stop()


def test_one_log_dir_with_every_hosted_replica(cluster):
    response = send(cluster, 1, DescribeLogDirs[4](topics=None))
    assert response.error_code == 0
    [result] = response.results
    assert result.error_code == 0 and result.log_dir == os.path.abspath(cluster.broker_data_dir(1))
    assert result.total_bytes > 0 and 0 <= result.usable_bytes <= result.total_bytes
    parts = {(t.name, p.partition_index): p for t in result.topics for p in t.partitions}
    assert set(parts) == {("sized", 0), ("sized", 1)}      # "elsewhere" lives on broker 2 only
    log = cluster.processes.node(1).broker.log_manager.get_log(("sized", 0))
    assert parts[("sized", 0)].partition_size == log.size_in_bytes > 0
    assert {p.offset_lag for p in parts.values()} == {0} and not any(p.is_future_key for p in parts.values())


def test_asked_partitions_only(cluster):
    request = DescribeLogDirs[1](topics=[DescribeLogDirs.DescribableLogDirTopic(topic="sized", partitions=[1, 5])])
    [result] = send(cluster, 1, request).results
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in result.topics] == [("sized", [1])]


def alter(cluster, broker_id, path, topic, partitions):
    request = AlterReplicaLogDirs[2](dirs=[AlterReplicaLogDirs.AlterReplicaLogDir(path=path, topics=[
        AlterReplicaLogDirs.AlterReplicaLogDir.AlterReplicaLogDirTopic(name=topic, partitions=partitions)])])
    return [(r.topic_name, p.partition_index, p.error_code)
            for r in send(cluster, broker_id, request).results for p in r.partitions]


def test_alter_replica_log_dirs_has_only_one_place_to_go(cluster):
    own = os.path.abspath(cluster.broker_data_dir(1))
    assert alter(cluster, 1, own, "sized", [0, 1]) == [("sized", 0, 0), ("sized", 1, 0)]
    assert alter(cluster, 1, "/tmp/elsewhere", "sized", [0]) == [("sized", 0, Errors.LOG_DIR_NOT_FOUND.code)]
    assert alter(cluster, 1, own, "elsewhere", [0]) == [("elsewhere", 0, Errors.REPLICA_NOT_AVAILABLE.code)]
    assert alter(cluster, 1, own, "ghost", [0]) == [("ghost", 0, Errors.UNKNOWN_TOPIC_OR_PARTITION.code)]
    long_name = "t" * 249
    assert alter(cluster, 1, own, long_name, [0]) == [(long_name, 0, Errors.INVALID_TOPIC_EXCEPTION.code)]
    assert (cluster.broker_data_dir(1) / "sized-0").is_dir()   # nothing moved


@pytest.mark.parametrize("version", versions(35))
def test_every_describe_log_dirs_version(cluster, version):
    [result] = send(cluster, 1, DescribeLogDirs[version](topics=None)).results
    assert result.log_dir == os.path.abspath(cluster.broker_data_dir(1))
    assert {t.name for t in result.topics} == {"sized"}


def test_v5_says_the_directory_is_not_cordoned(cluster):
    [result] = send(cluster, 1, DescribeLogDirs[5](topics=None)).results
    assert result.is_cordoned is False and result.total_bytes > 0


@pytest.mark.parametrize("version", range(1, 3))
def test_every_alter_replica_log_dirs_version(cluster, version):
    request = AlterReplicaLogDirs[version](dirs=[AlterReplicaLogDirs.AlterReplicaLogDir(
        path="/nowhere", topics=[AlterReplicaLogDirs.AlterReplicaLogDir.AlterReplicaLogDirTopic(
            name="sized", partitions=[0])])])
    [result] = send(cluster, 1, request).results
    assert [(p.partition_index, p.error_code) for p in result.partitions] == [(0, Errors.LOG_DIR_NOT_FOUND.code)]
