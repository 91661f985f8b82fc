"""The Cluster facade on the simulated driver: layout, placement, admin errors, faults, restarts."""

from collections import Counter

import pytest

from minikafka import Cluster
from minikafka.common.errors import (InconsistentNodeStorageException, InvalidConfigurationException,
                                     InvalidPartitionsException, InvalidReplicationFactorException,
                                     InvalidTopicException, TimeoutException, TopicExistsException)


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=11, simulated=True).start()
    yield c
    c.stop()


def test_start_gives_kafka_node_ids_and_formatted_directories(cluster):
    assert cluster.broker_ids == [1, 2, 3]
    assert cluster.controller_ids == [1001, 1002, 1003]
    assert cluster.active_controller in cluster.controller_ids
    meta = (cluster.broker_data_dir(2) / "meta.properties").read_text().splitlines()
    assert meta[0] == "#" and meta[1].startswith("#") and meta[1].endswith("UTC 2026")
    props = dict(line.split("=", 1) for line in meta[2:])
    assert props["version"] == "1" and props["node.id"] == "2"
    assert props["cluster.id"] == cluster.cluster_id and len(cluster.cluster_id) == 22
    ids = {(cluster.node_data_dir(n) / "meta.properties").read_text().split("cluster.id=")[1][:22]
           for n in cluster.broker_ids + cluster.controller_ids}
    assert ids == {cluster.cluster_id}
    assert (cluster.node_data_dir(1001) / "__cluster_metadata-0" / "quorum-state").exists()


def test_same_seed_same_cluster_id_and_placement():
    def run():
        c = Cluster(brokers=3, controllers=3, seed=5, simulated=True).start()
        try:
            c.create_topic("orders", partitions=3, replication_factor=3)
            return c.cluster_id, [c.replicas("orders", p) for p in range(3)]
        finally:
            c.stop()
    assert run() == run()


def test_three_partitions_rf3_give_each_broker_one_leader(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    leaders = [cluster.leader("orders", p) for p in range(3)]
    assert sorted(leaders) == [1, 2, 3]
    for p in range(3):
        assert cluster.leader("orders", p) == cluster.replicas("orders", p)[0]
        assert sorted(cluster.isr("orders", p)) == [1, 2, 3]


def test_partition_directories_hold_kafka_files(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    part = cluster.broker_data_dir(1) / "orders-0"
    names = sorted(p.name for p in part.iterdir())
    assert "00000000000000000000.log" in names
    assert "00000000000000000000.index" in names and "00000000000000000000.timeindex" in names
    assert "partition.metadata" in names
    metadata = (part / "partition.metadata").read_text()
    assert metadata.startswith("version: 0\ntopic_id: ")


@pytest.mark.parametrize("seed", range(6))
def test_eight_partitions_rf1_on_five_brokers_counts_2_2_2_1_1(seed):
    c = Cluster(brokers=5, controllers=1, seed=seed, simulated=True).start()
    try:
        c.create_topic("events", partitions=8, replication_factor=1)
        counts = Counter(c.leader("events", p) for p in range(8))
        assert sorted(counts.values(), reverse=True) == [2, 2, 2, 1, 1]
    finally:
        c.stop()


def test_two_partitions_on_three_brokers_leave_one_broker_out(cluster):
    cluster.create_topic("topic-b", partitions=2, replication_factor=1)
    holders = {cluster.replicas("topic-b", p)[0] for p in range(2)}
    assert len(holders) == 2
    (missing,) = set(cluster.broker_ids) - holders
    assert not (cluster.broker_data_dir(missing) / "topic-b-0").exists()
    assert not (cluster.broker_data_dir(missing) / "topic-b-1").exists()


def test_explicit_replica_assignment(cluster):
    cluster.create_topic("pinned", replica_assignment={0: [3, 1], 1: [2, 3]})
    assert cluster.replicas("pinned", 0) == [3, 1] and cluster.leader("pinned", 0) == 3
    assert cluster.replicas("pinned", 1) == [2, 3]


@pytest.mark.parametrize("name", ["bad/name", "..", ".", "a" * 250, "", "../escape"])
def test_invalid_topic_names_are_refused_and_nothing_is_written(cluster, name):
    with pytest.raises(InvalidTopicException) as info:
        cluster.create_topic(name, partitions=1, replication_factor=1)
    assert "Topic name is invalid" in str(info.value) or "illegal" in str(info.value)
    assert cluster.topics() == []
    assert not any(p.name.startswith("..") for p in cluster.data_dir.iterdir())


def test_admin_errors_use_kafkas_words(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=1)
    with pytest.raises(TopicExistsException, match="Topic 'orders' already exists."):
        cluster.create_topic("orders")
    with pytest.raises(InvalidReplicationFactorException,
                       match=r"Unable to replicate the partition 4 time\(s\): The target replication "
                             r"factor of 4 cannot be reached because only 3 broker\(s\) are registered."):
        cluster.create_topic("x", partitions=1, replication_factor=4)
    with pytest.raises(InvalidPartitionsException):
        cluster.create_topic("x", partitions=0)
    with pytest.raises(InvalidConfigurationException, match="Unknown topic config name: foo"):
        cluster.create_topic("x", config={"foo": "1"})
    with pytest.raises(InvalidConfigurationException,
                       match="Invalid value abc for configuration retention.ms: Not a number of type LONG"):
        cluster.create_topic("x", config={"retention.ms": "abc"})
    assert cluster.topics() == ["orders"]


def test_fault_verbs_refuse_bad_targets(cluster):
    with pytest.raises(ValueError, match="No node with id 7"):
        cluster.kill(7)
    with pytest.raises(ValueError, match="is not a broker"):
        cluster.kill_broker(1001)
    cluster.kill_broker(2)
    with pytest.raises(RuntimeError, match="Cannot kill broker 2: it is dead"):
        cluster.kill_broker(2)
    with pytest.raises(RuntimeError, match="Cannot resume broker 3: it is running"):
        cluster.resume(3)


def test_killed_leader_is_fenced_and_replaced_by_the_first_isr_replica(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    victim = cluster.leader("orders", 1)
    before = cluster.replicas("orders", 1)
    seq = cluster.events.last_seq
    cluster.kill_broker(victim)
    cluster.run_for(3000)
    texts = [e.text for e in cluster.events.since(seq)]
    assert any(t.startswith(f"broker {victim} fenced after") for t in texts)
    expected = [b for b in before if b != victim][0]
    assert cluster.leader("orders", 1) == expected
    assert victim not in cluster.isr("orders", 1)
    assert any(t.startswith(f"orders-1 leader {victim} -> {expected}, epoch 0 -> 1") for t in texts)


def test_restarted_broker_recovers_and_rejoins_the_isr(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    cluster.kill_broker(2)
    cluster.run_for(3000)
    cluster.restart_broker(2)
    assert cluster.wait_until(lambda: all(2 in cluster.isr("orders", p) for p in range(3)), 10_000)
    assert cluster.snapshot().node(2).registration == "unfenced"


def test_losing_the_quorum_majority_stops_metadata_changes_but_not_leaders(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    leaders = [cluster.leader("orders", p) for p in range(3)]
    standby = [c for c in cluster.controller_ids if c != cluster.active_controller]
    for controller in standby:
        cluster.kill_controller(controller)
    with pytest.raises(TimeoutException, match="Timed out waiting for a node assignment. Call: createTopics"):
        cluster.create_topic("new-topic")
    snap = cluster.snapshot()
    assert snap.quorum.leader is None
    assert [p.leader for p in snap.topic("orders").partitions] == leaders
    assert "new-topic" not in [t.name for t in snap.topics]
    for controller in standby:
        cluster.restart_controller(controller)
    assert cluster.wait_until(lambda: cluster.active_controller is not None, 10_000)
    # The timed-out TopicRecord may still be in the old leader's log; Raft commits it
    # if that controller wins again, or drops it if another one does.  Either way the
    # cluster ends up consistent and usable.
    if "new-topic" not in cluster.topics():
        cluster.create_topic("new-topic")
    cluster.create_topic("after-outage")
    assert {"new-topic", "after-outage"} <= set(cluster.topics())


def test_new_broker_registers_and_gets_nothing_until_a_reassignment(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=2)
    new = cluster.add_broker()
    assert new == 4                        # the next broker id, not the next node id (1004)
    assert all(new not in cluster.replicas("orders", p) for p in range(3))
    cluster.reassign_partitions({("orders", 0): [new, cluster.replicas("orders", 0)[0]]})
    assert cluster.wait_until(lambda: cluster.replicas("orders", 0)[0] == new
                              and new in cluster.isr("orders", 0), 10_000)
    assert cluster.list_reassignments() == {}


def test_decommission_refuses_a_broker_that_still_hosts_replicas(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=3)
    with pytest.raises(RuntimeError, match="still hosts replicas of orders-0"):
        cluster.decommission_broker(2)


def test_a_decommissioned_broker_leaves_the_cluster(cluster):
    cluster.create_topic("orders", partitions=1, replication_factor=2)
    new = cluster.add_broker()
    cluster.decommission_broker(new)
    assert new not in cluster.broker_ids
    assert new not in [n.node_id for n in cluster.snapshot().nodes]
    assert not cluster.node_data_dir(1).with_name(f"broker-{new}").exists()
    assert cluster.node_data_dir(1).with_name(f"broker-{new}.decommissioned").is_dir()
    assert not (cluster.data_dir / "config" / f"broker-{new}.properties").exists()
    unregistered = [e for e in cluster.metadata_records() if e.type_name == "UNREGISTER_BROKER_RECORD"]
    assert [e.record.broker_id for e in unregistered] == [new]
    with pytest.raises(ValueError, match=f"No node with id {new}"):
        cluster.restart(new)
    assert cluster.add_broker() == new            # the id is free again, on a fresh disk
    assert cluster.snapshot().node(new).registration == "unfenced"


def test_restart_from_a_kept_data_dir_serves_the_same_topics(tmp_path):
    c = Cluster(brokers=3, controllers=3, seed=3, simulated=True, data_dir=tmp_path).start()
    c.create_topic("orders", partitions=2, replication_factor=3)
    cluster_id = c.cluster_id
    c.stop()
    again = Cluster(brokers=3, controllers=3, seed=3, simulated=True, data_dir=tmp_path).start()
    try:
        assert again.cluster_id == cluster_id
        assert again.topics() == ["orders"]
        assert again.wait_until(lambda: all(len(again.isr("orders", p)) == 3 for p in range(2)),
                                10_000)
    finally:
        again.stop()


def test_a_data_dir_of_another_cluster_is_refused(tmp_path):
    Cluster(brokers=1, controllers=1, seed=3, simulated=True, data_dir=tmp_path).start().stop()
    other = Cluster(brokers=1, controllers=1, seed=4, simulated=True, data_dir=tmp_path,
                    cluster_id="MkU3OEVBNTcwNTJENDM2Qg")
    with pytest.raises(InconsistentNodeStorageException, match="Invalid cluster.id in: .*meta.properties. "
                                                               "Expected MkU3OEVBNTcwNTJENDM2Qg, but read"):
        other.start()


def test_combined_single_node_cluster():
    c = Cluster(brokers=1, controllers=1, combined=True, seed=1, simulated=True).start()
    try:
        assert c.broker_ids == [1] and c.controller_ids == [1]
        assert c.layout.data_dir(1).name == "node-1"
        c.create_topic("solo", partitions=2)
        assert c.leader("solo", 1) == 1
    finally:
        c.stop()


def test_custom_broker_ids_like_course_diagrams():
    c = Cluster(brokers=[101, 102, 103], controllers=1, seed=2, simulated=True).start()
    try:
        assert c.broker_ids == [101, 102, 103]
        c.create_topic("orders", partitions=3, replication_factor=3)
        assert sorted(c.leader("orders", p) for p in range(3)) == [101, 102, 103]
    finally:
        c.stop()


def test_broker_config_is_checked_before_anything_is_written(tmp_path):
    from minikafka.common.errors import ConfigException
    with pytest.raises(ConfigException, match="Invalid value 0 for configuration num.partitions"):
        Cluster(brokers=1, controllers=1, simulated=True, data_dir=tmp_path / "c",
                broker_config={"num.partitions": 0})
    assert not (tmp_path / "c").exists()


def test_time_settings_in_broker_config_change_the_timing_profile():
    cluster = Cluster(brokers=1, controllers=1, simulated=True,
                      broker_config={"replica.lag.time.max.ms": 9000, "log.retention.ms": 60000})
    assert cluster.timing.ms("replica.lag.time.max.ms") == 9000
    assert cluster.timing.ms("broker.session.timeout.ms") == 1800          # the rest: teaching
    assert cluster.non_default_configs()["log.retention.ms"] == "60000"
    assert cluster.non_default_configs()["replica.lag.time.max.ms"] == "9000"
    assert "log.segment.bytes" not in cluster.non_default_configs()


def test_a_temporary_data_dir_goes_when_the_interpreter_exits_even_if_never_stopped():
    # a kernel restarted mid-lesson must not leave the cluster's files in /tmp
    import subprocess
    import sys
    from pathlib import Path
    script = ("from minikafka import Cluster\n"
              "c = Cluster(brokers=1, controllers=1, simulated=True, storage='disk')\n"
              "(c.data_dir / 'left-behind').write_text('x')\n"
              "print(c.data_dir)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    data_dir = Path(result.stdout.strip())
    assert data_dir.name.startswith("minikafka-") and not data_dir.exists()
