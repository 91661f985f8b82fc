import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller.requests import (CreatableReplicaAssignment as Assign, CreatableTopic,
                                           CreatableTopicConfig as Config, CreatePartitionsAssignment,
                                           CreatePartitionsRequest, CreatePartitionsTopic, CreateTopicsRequest,
                                           DeleteTopicsRequest, DeleteTopicState)
from minikafka.metadata.records import ConfigRecord, PartitionRecord, TopicRecord

from tests.controller.harness import ControllerHarness


@pytest.fixture
def h():
    harness = ControllerHarness()
    harness.activate()
    harness.start_brokers(1, 2, 3)
    return harness


def create(h, *topics, **kwargs):
    return {t.name: t for t in h.request(CreateTopicsRequest(tuple(topics), **kwargs)).topics}


def error_of(result):
    return result.error_code, result.error_message


def test_create_topic_writes_topic_configs_then_partitions(h):
    before = len(h.raft.all_records())
    result = create(h, CreatableTopic("orders", 3, 2, configs=(Config("retention.ms", "60000"),)))["orders"]
    records = h.raft.all_records()[before:]
    assert [type(r) for r in records] == [TopicRecord, ConfigRecord, PartitionRecord, PartitionRecord,
                                         PartitionRecord]
    assert records[0].topic_id == result.topic_id
    assert (records[1].name, records[1].value) == ("retention.ms", "60000")
    for index, record in enumerate(records[2:]):
        assert record.partition_id == index and record.leader == record.replicas[0]
        assert record.isr == record.replicas and (record.leader_epoch, record.partition_epoch) == (0, 0)
    assert (result.num_partitions, result.replication_factor) == (3, 2)
    configs = {c.name: (c.value, c.config_source) for c in result.configs}
    assert configs["retention.ms"] == ("60000", 1)            # DYNAMIC_TOPIC_CONFIG
    assert configs["segment.bytes"] == ("1073741824", 5)      # DEFAULT_CONFIG
    assert [c.name for c in result.configs] == sorted(configs)


def test_defaults_come_from_num_partitions_and_default_replication_factor():
    h = ControllerHarness(static_config={"num.partitions": "4", "default.replication.factor": "2"})
    h.activate()
    h.start_brokers(1, 2, 3)
    result = h.create_topic("t", -1, -1)
    assert (result.num_partitions, result.replication_factor) == (4, 2)
    assert len(h.partition("t", 3).replicas) == 2


@pytest.mark.parametrize("topic, error, message", [
    (CreatableTopic("bad/name"), Errors.INVALID_TOPIC_EXCEPTION,
     "Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, "
     "'.', '_' and '-'"),
    (CreatableTopic("..", 1, 1), Errors.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: '..' is not allowed"),
    (CreatableTopic("p", 0, 1), Errors.INVALID_PARTITIONS,
     "Number of partitions was set to an invalid non-positive value."),
    (CreatableTopic("r", 1, 0), Errors.INVALID_REPLICATION_FACTOR,
     "Replication factor must be larger than 0, or -1 to use the default value."),
    (CreatableTopic("r4", 1, 4), Errors.INVALID_REPLICATION_FACTOR,
     "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached "
     "because only 3 broker(s) are registered or some brokers have all their log directories cordoned."),
    (CreatableTopic("c", 1, 1, configs=(Config("foo", "1"),)), Errors.INVALID_CONFIG,
     "Unknown topic config name: foo"),
    (CreatableTopic("c", 1, 1, configs=(Config("retention.ms", "abc"),)), Errors.INVALID_CONFIG,
     "Invalid value abc for configuration retention.ms: Not a number of type LONG"),
    (CreatableTopic("c", 1, 1, configs=(Config("retention.ms", None), Config("x", None))), Errors.INVALID_CONFIG,
     "Null value not supported for topic configs: retention.ms,x"),
    (CreatableTopic("m", 3, -1, (Assign(0, (1, 2)),)), Errors.INVALID_REQUEST,
     "A manual partition assignment was specified, but numPartitions was not set to -1."),
    (CreatableTopic("m", -1, 2, (Assign(0, (1, 2)),)), Errors.INVALID_REQUEST,
     "A manual partition assignment was specified, but replication factor was not set to -1."),
    (CreatableTopic("m", -1, -1, (Assign(0, (1, 2)), Assign(0, (2, 3)))), Errors.INVALID_REPLICA_ASSIGNMENT,
     "Found multiple manual partition assignments for partition 0"),
    (CreatableTopic("m", -1, -1, (Assign(0, (1, 1)),)), Errors.INVALID_REPLICA_ASSIGNMENT,
     "The manual partition assignment includes the broker 1 more than once."),
    (CreatableTopic("m", -1, -1, (Assign(0, (1, 9)),)), Errors.INVALID_REPLICA_ASSIGNMENT,
     "The manual partition assignment includes broker 9, but no such broker is registered."),
    (CreatableTopic("m", -1, -1, (Assign(0, (1, 2)), Assign(1, (3,)))), Errors.INVALID_REPLICA_ASSIGNMENT,
     "The manual partition assignment includes a partition with 1 replica(s), but this is not consistent "
     "with previous partitions, which have 2 replica(s)."),
    (CreatableTopic("m", -1, -1, (Assign(1, (1, 2)),)), Errors.INVALID_REPLICA_ASSIGNMENT,
     "partitions should be a consecutive 0-based integer sequence"),
    (CreatableTopic("m", -1, -1, (Assign(0, ()),)), Errors.INVALID_REPLICA_ASSIGNMENT,
     "The manual partition assignment includes an empty replica list."),
])
def test_create_topic_errors_in_kafkas_words(h, topic, error, message):
    before = len(h.raft.all_records())
    assert error_of(create(h, topic)[topic.name]) == (error, message)
    assert len(h.raft.all_records()) == before


def test_existing_and_colliding_names(h):
    h.create_topic("a_b")
    results = create(h, CreatableTopic("a_b"), CreatableTopic("a.b"))
    assert error_of(results["a_b"]) == (Errors.TOPIC_ALREADY_EXISTS, "Topic 'a_b' already exists.")
    assert error_of(results["a.b"]) == (Errors.INVALID_TOPIC_EXCEPTION, "Topic 'a.b' collides with existing topic: a_b")


def test_back_to_back_requests_see_uncommitted_topic(h):
    answers = []
    h.controller.handle_request(CreateTopicsRequest((CreatableTopic("x"),)), answers.append)
    h.controller.handle_request(CreateTopicsRequest((CreatableTopic("x"),)), answers.append)
    assert answers == []                       # both wait: the second for the first's records
    h.raft.commit()
    assert [a.topics[0].error_code for a in answers] == [Errors.NONE, Errors.TOPIC_ALREADY_EXISTS]
    assert h.controller.committed_image.topic("x") is not None


def test_duplicate_and_metadata_topic_names_are_refused(h):
    results = create(h, CreatableTopic("d"), CreatableTopic("d"), CreatableTopic("__cluster_metadata"),
                     CreatableTopic("fine"))
    assert error_of(results["d"]) == (Errors.INVALID_REQUEST, "Duplicate topic name.")
    assert error_of(results["__cluster_metadata"]) == (
        Errors.INVALID_REQUEST, "Creation of internal topic __cluster_metadata is prohibited.")
    assert results["fine"].error_code is Errors.NONE


def test_validate_only_writes_nothing(h):
    before = len(h.raft.batches)
    result = create(h, CreatableTopic("v", 2, 2), validate_only=True)["v"]
    assert result.error_code is Errors.NONE and result.num_partitions == 2
    assert len(h.raft.batches) == before
    assert h.controller.image.topic("v") is None


def test_manual_assignment_isr_excludes_fenced_brokers(h):
    h.heartbeat(2, want_fence=True)
    create(h, CreatableTopic("m", -1, -1, (Assign(0, (2, 3)),)))
    part = h.partition("m", 0)
    assert (part.replicas, part.isr, part.leader) == ((2, 3), (3,), 3)


def test_manual_assignment_on_fenced_brokers_only_is_refused(h):
    h.heartbeat(2, want_fence=True)
    result = create(h, CreatableTopic("m", -1, -1, (Assign(0, (2,)),)))["m"]
    assert error_of(result) == (Errors.INVALID_REPLICA_ASSIGNMENT, "All brokers specified in the manual "
                                "partition assignment for partition 0 are fenced or in controlled shutdown.")


def test_all_brokers_fenced_refuses_creation(h):
    for broker in (1, 2, 3):
        h.heartbeat(broker, want_fence=True)
    result = create(h, CreatableTopic("f", 1, 1))["f"]
    assert error_of(result) == (Errors.INVALID_REPLICATION_FACTOR,
                                "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all "
                                "their log directories cordoned.")


def test_placement_and_topic_id_are_reproducible_per_name_and_incarnation():
    first, second = ControllerHarness(seed="s"), ControllerHarness(seed="s")
    for h in (first, second):
        h.activate()
        h.start_brokers(1, 2, 3, 4, 5)
    a, b = first.create_topic("orders", 6, 2), second.create_topic("orders", 6, 2)
    assert a.topic_id == b.topic_id
    assert [first.partition("orders", i) for i in range(6)] == [second.partition("orders", i) for i in range(6)]
    # Recreated after deletion: a new incarnation gets a new id.
    first.request(DeleteTopicsRequest(topic_names=("orders",)))
    assert first.create_topic("orders", 6, 2).topic_id != a.topic_id


def test_delete_topics_by_name_and_id(h):
    one, two = h.create_topic("one"), h.create_topic("two")
    response = h.request(DeleteTopicsRequest(topics=(DeleteTopicState("one"), DeleteTopicState(None, two.topic_id),
                                                     DeleteTopicState("nope"), DeleteTopicState(None, Uuid(9, 9)))))
    answers = [(r.name, r.topic_id, r.error_code, r.error_message) for r in response.responses]
    assert answers == [("one", one.topic_id, Errors.NONE, None), ("two", two.topic_id, Errors.NONE, None),
                       ("nope", Uuid.ZERO, Errors.UNKNOWN_TOPIC_OR_PARTITION, None),
                       (None, Uuid(9, 9), Errors.UNKNOWN_TOPIC_ID, None)]
    assert h.controller.committed_image.topic_names() == []


def test_delete_topics_request_checks(h):
    t = h.create_topic("t")
    response = h.request(DeleteTopicsRequest(topics=(
        DeleteTopicState(), DeleteTopicState("t", t.topic_id), DeleteTopicState("d"), DeleteTopicState("d"),
        DeleteTopicState(None, t.topic_id), DeleteTopicState("t"))))
    answers = {(r.name, r.error_message) for r in response.responses}
    assert (None, "Neither topic name nor id were specified.") in answers
    assert ("t", "You may not specify both topic name and topic id.") in answers
    assert ("d", "Duplicate topic name.") in answers
    assert ("t", "The provided topic name maps to an ID that was already supplied.") in answers
    assert h.controller.committed_image.topic("t") is not None


def test_delete_topic_disabled():
    h = ControllerHarness(static_config={"delete.topic.enable": "false"})
    h.activate()
    h.start_brokers(1)
    h.create_topic("t")
    response = h.request(DeleteTopicsRequest(topic_names=("t",)))
    assert [(r.name, r.error_code) for r in response.responses] == [("t", Errors.TOPIC_DELETION_DISABLED)]


def create_partitions(h, *topics, validate_only=False):
    return {r.name: r for r in h.request(CreatePartitionsRequest(tuple(topics),
                                                                 validate_only=validate_only)).results}


def test_create_partitions_adds_with_the_topics_replication_factor(h):
    h.create_topic("t", 2, 2)
    result = create_partitions(h, CreatePartitionsTopic("t", 5))["t"]
    assert result.error_code is Errors.NONE
    image = h.controller.committed_image
    assert sorted(image.topic("t").partitions) == [0, 1, 2, 3, 4]
    assert all(len(image.partition("t", i).replicas) == 2 for i in range(5))


@pytest.mark.parametrize("topic, error, message", [
    (CreatePartitionsTopic("t", 3), Errors.INVALID_PARTITIONS, "Topic already has 3 partition(s)."),
    (CreatePartitionsTopic("t", 2), Errors.INVALID_PARTITIONS,
     "The topic t currently has 3 partition(s); 2 would not be an increase."),
    (CreatePartitionsTopic("t", 5, (CreatePartitionsAssignment((1,)),)), Errors.INVALID_REPLICA_ASSIGNMENT,
     "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified."),
    (CreatePartitionsTopic("t", 4, (CreatePartitionsAssignment((1, 2)),)), Errors.INVALID_REPLICA_ASSIGNMENT,
     "The manual partition assignment includes a partition with 2 replica(s), but this is not consistent "
     "with previous partitions, which have 1 replica(s)."),
    (CreatePartitionsTopic("nope", 4), Errors.UNKNOWN_TOPIC_OR_PARTITION, None),   # the bare code, as Kafka
])
def test_create_partitions_errors(h, topic, error, message):
    h.create_topic("t", 3, 1)
    result = create_partitions(h, topic)[topic.name]
    assert error_of(result) == (error, message)


def test_create_partitions_validate_only_and_duplicates(h):
    h.create_topic("t", 1, 1)
    results = create_partitions(h, CreatePartitionsTopic("t", 3), validate_only=True)
    assert results["t"].error_code is Errors.NONE
    assert len(h.controller.committed_image.topic("t").partitions) == 1
    dup = create_partitions(h, CreatePartitionsTopic("t", 3), CreatePartitionsTopic("t", 4))
    assert error_of(dup["t"]) == (Errors.INVALID_REQUEST, "Duplicate topic name.")
