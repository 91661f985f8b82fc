"""CreateTopics, DeleteTopics and CreatePartitions, forwarded to the active controller."""

import uuid

import pytest

from minikafka.server.apis.topics_admin import domain_uuid, wire_uuid
from tests.server.apis.admin_harness import (CreatePartitions, CreateTopics, DeleteTopics, broker_node, send,
                                                  start_cluster, versions)

Topic = CreateTopics.CreatableTopic


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=51, controllers=3)
    yield c
    c.stop()


def create(cluster, *topics, version=7, validate_only=False, timeout_ms=5000, broker=2):
    return send(cluster, broker, CreateTopics[version](topics=list(topics), timeout_ms=timeout_ms,
                                                       validate_only=validate_only))


def topic(name, partitions=-1, rf=-1, configs=None, assignments=None):
    return Topic(name=name, num_partitions=partitions, replication_factor=rf,
                 assignments=[Topic.CreatableReplicaAssignment(partition_index=p, broker_ids=b)
                              for p, b in (assignments or {}).items()],
                 configs=[Topic.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()])


def test_uuid_conversion_round_trips():
    value = uuid.UUID("8df6efd0-dff4-b556-182d-aac5b649fe3e")
    assert wire_uuid(domain_uuid(value)) == value
    assert str(wire_uuid(domain_uuid(None))) == "00000000-0000-0000-0000-000000000000"


def test_v7_create_returns_id_counts_and_configs(cluster):
    answer = create(cluster, topic("orders", 3, 2, {"retention.ms": "1000"}))
    [result] = answer.topics
    assert (result.name, result.error_code, result.error_message) == ("orders", 0, None)
    assert (result.num_partitions, result.replication_factor) == (3, 2)
    assert domain_uuid(result.topic_id) == cluster.processes.cluster_image().topic("orders").topic_id
    configs = {c.name: (c.value, c.config_source, c.read_only) for c in result.configs}
    assert configs["retention.ms"] == ("1000", 1, False)           # DYNAMIC_TOPIC_CONFIG
    assert configs["cleanup.policy"] == ("delete", 5, False)       # DEFAULT_CONFIG
    assert result.topic_config_error_code == 0


def test_defaults_apply_to_minus_one(cluster):
    [result] = create(cluster, topic("defaults")).topics
    assert (result.error_code, result.num_partitions, result.replication_factor) == (0, 1, 1)


def test_manual_assignment(cluster):
    [result] = create(cluster, topic("manual", assignments={0: [3, 1], 1: [1, 2]})).topics
    assert result.error_code == 0
    assert cluster.replicas("manual", 0) == [3, 1] and cluster.replicas("manual", 1) == [1, 2]


@pytest.mark.parametrize("name, partitions, rf, code, message", [
    ("bad!", 1, 1, 17, "Topic name is invalid: 'bad!' contains one or more characters other than ASCII "
                       "alphanumerics, '.', '_' and '-'"),
    ("huge", 1, 5, 38, "Unable to replicate the partition 5 time(s): The target replication factor of 5 cannot "
                       "be reached because only 3 broker(s) are registered or some brokers have all their log "
                       "directories cordoned."),
    ("__cluster_metadata", 1, 1, 42, "Creation of internal topic __cluster_metadata is prohibited."),
])
def test_create_errors_carry_kafkas_messages(cluster, name, partitions, rf, code, message):
    [result] = create(cluster, topic(name, partitions, rf)).topics
    assert (result.name, result.error_code, result.error_message) == (name, code, message)
    assert (result.num_partitions, result.replication_factor, result.configs) == (-1, -1, [])


def test_existing_and_duplicate_names(cluster):
    create(cluster, topic("twice"))
    answer = create(cluster, topic("twice"), topic("dup"), topic("dup"), version=4)
    assert [(t.name, t.error_code, t.error_message) for t in answer.topics] == [
        ("twice", 36, "Topic 'twice' already exists."), ("dup", 42, "Duplicate topic name.")]


def test_validate_only_creates_nothing(cluster):
    [result] = create(cluster, topic("dry-run", 2, 1), validate_only=True).topics
    assert (result.error_code, result.num_partitions) == (0, 2)
    cluster.run_for(500)
    assert "dry-run" not in cluster.topics()


def test_v2_answers_without_the_v5_fields(cluster):
    [result] = create(cluster, topic("old-client", 1, 1), version=2).topics
    assert (result.name, result.error_code, result.error_message) == ("old-client", 0, None)
    # Not on the wire before v5: the client sees the schema defaults, not 1 partition and the configs.
    assert (result.num_partitions, result.replication_factor, result.configs) == (-1, -1, [])


def test_create_partitions(cluster):
    create(cluster, topic("growing", 1, 2))
    answer = send(cluster, 1, CreatePartitions[3](timeout_ms=5000, validate_only=False, topics=[
        CreatePartitions.CreatePartitionsTopic(name="growing", count=3, assignments=None),
        CreatePartitions.CreatePartitionsTopic(name="growing-not", count=3, assignments=None),
        CreatePartitions.CreatePartitionsTopic(name="defaults", count=1, assignments=None)]))
    # In the HashSet order of the names, as Kafka's ControllerApis hands them to the controller.
    assert [(r.name, r.error_code) for r in answer.results] == [("growing-not", 3), ("growing", 0), ("defaults", 37)]
    assert answer.results[2].error_message == "Topic already has 1 partition(s)."
    assert cluster.wait_until(lambda: len(cluster.processes.cluster_image().topic("growing").partitions) == 3, 5000)


def test_delete_by_name_before_v6(cluster):
    create(cluster, topic("short-lived"))
    answer = send(cluster, 3, DeleteTopics[4](topic_names=["short-lived", "never-existed"], timeout_ms=5000))
    assert [(r.name, r.error_code) for r in answer.responses] == [("short-lived", 0), ("never-existed", 3)]
    assert cluster.wait_until(lambda: "short-lived" not in cluster.topics(), 5000)


def test_delete_by_id_in_v6(cluster):
    [created] = create(cluster, topic("by-id")).topics
    stranger = uuid.UUID("11111111-2222-3333-4444-555555555555")
    answer = send(cluster, 1, DeleteTopics[6](timeout_ms=5000, topics=[
        DeleteTopics.DeleteTopicState(name=None, topic_id=created.topic_id),
        DeleteTopics.DeleteTopicState(name=None, topic_id=stranger)]))
    assert [(r.name, r.topic_id, r.error_code) for r in answer.responses] == [
        ("by-id", created.topic_id, 0), (None, stranger, 100)]     # UNKNOWN_TOPIC_ID


def test_deletion_disabled_is_a_whole_request_error_without_message():
    c = start_cluster(seed=52, broker_config={"delete.topic.enable": "false"})
    try:
        c.create_topic("kept")
        new = send(c, 1, DeleteTopics[5](topic_names=["kept"], timeout_ms=5000))
        assert [(r.name, r.error_code, r.error_message) for r in new.responses] == [("kept", 73, None)]
        old = send(c, 1, DeleteTopics[2](topic_names=["kept"], timeout_ms=5000))
        assert [(r.name, r.error_code) for r in old.responses] == [("kept", 42)]   # INVALID_REQUEST before v3
    finally:
        c.stop()


def test_no_quorum_majority_times_out_after_the_request_timeout():
    c = start_cluster(seed=53, controllers=3)
    try:
        for controller in c.controller_ids[:2]:
            c.kill(controller)
        started = c.driver.now()
        answer = create(c, topic("unreachable"), timeout_ms=3000, broker=1)
        waited = c.driver.now() - started
        assert [(t.name, t.error_code, t.error_message) for t in answer.topics] == [("unreachable", 7, None)]
        assert 2900 <= waited < 3500                                # about the 3 s asked for
        partitions = send(c, 1, CreatePartitions[1](timeout_ms=1000, validate_only=False, topics=[
            CreatePartitions.CreatePartitionsTopic(name="x", count=2, assignments=None)]))
        assert [(r.name, r.error_code, r.error_message) for r in partitions.results] == [("x", 7, None)]
        deleted = send(c, 1, DeleteTopics[6](timeout_ms=1000, topics=[
            DeleteTopics.DeleteTopicState(name="x", topic_id=None)]))
        assert [(r.name, r.error_code, r.error_message) for r in deleted.responses] == [("x", 7, None)]
    finally:
        c.stop()


def test_broker_images_see_created_topics(cluster):
    create(cluster, topic("visible", 2, 3))
    assert cluster.wait_until(lambda: all(broker_node(cluster, b).image.topic("visible") is not None
                                          for b in cluster.broker_ids), 5000)


def test_every_advertised_version(cluster):
    for version in versions(19):
        [result] = create(cluster, topic(f"versioned-{version}", 1, 1), version=version).topics
        assert (result.name, result.error_code) == (f"versioned-{version}", 0), version
    for version in versions(37):
        answer = send(cluster, 1, CreatePartitions[version](timeout_ms=5000, validate_only=False, topics=[
            CreatePartitions.CreatePartitionsTopic(name=f"versioned-{2 + version}", count=2, assignments=None)]))
        assert [r.error_code for r in answer.results] == [0], version
    for version in versions(20):
        name = f"versioned-{version + 1}"
        answer = send(cluster, 2, DeleteTopics[version](timeout_ms=5000, topic_names=[name], topics=[
            DeleteTopics.DeleteTopicState(name=name, topic_id=None)]))
        assert [(r.name, r.error_code) for r in answer.responses] == [(name, 0)], version
