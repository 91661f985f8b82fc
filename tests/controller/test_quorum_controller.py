import pytest

from minikafka.common.errors import Errors
from minikafka.controller.requests import (CreatableTopic, CreateTopicsRequest, DeleteTopicsRequest,
                                           ListPartitionReassignmentsRequest)
from minikafka.metadata.delta import replay_all
from minikafka.metadata.records import (BeginTransactionRecord, ConfigRecord, EndTransactionRecord,
                                        FeatureLevelRecord, NoOpRecord, RegisterBrokerRecord)

from tests.controller.harness import ControllerHarness


def test_first_leader_on_an_empty_log_writes_the_bootstrap_records():
    h = ControllerHarness()
    h.activate()
    assert h.raft.all_records() == [
        BeginTransactionRecord(name="Bootstrap records"),
        FeatureLevelRecord(name="metadata.version", feature_level=30),
        FeatureLevelRecord(name="eligible.leader.replicas.version", feature_level=1),
        FeatureLevelRecord(name="group.version", feature_level=1),
        FeatureLevelRecord(name="share.version", feature_level=1),
        FeatureLevelRecord(name="streams.version", feature_level=1),
        FeatureLevelRecord(name="transaction.version", feature_level=2),
        ConfigRecord(resource_type=4, resource_name="", name="min.insync.replicas", value="1"),
        EndTransactionRecord()]
    assert h.controller.committed_image.metadata_version() == 30


def test_first_leader_without_elr_writes_no_cluster_level_min_isr():
    h = ControllerHarness(bootstrap_features={"eligible.leader.replicas.version": 0, "group.version": 1,
                                              "transaction.version": 2})
    h.activate()
    assert h.raft.all_records() == [
        BeginTransactionRecord(name="Bootstrap records"),
        FeatureLevelRecord(name="metadata.version", feature_level=30),
        FeatureLevelRecord(name="group.version", feature_level=1),
        FeatureLevelRecord(name="transaction.version", feature_level=2),
        EndTransactionRecord()]


def test_a_new_leader_on_a_non_empty_log_writes_no_bootstrap():
    h = ControllerHarness()
    h.activate()
    h.raft.elect(None, 2)
    h.raft.elect(h.node.node_id, 3)
    assert [type(r) for r in h.raft.all_records()].count(BeginTransactionRecord) == 1


def test_broker_epoch_is_the_offset_of_its_register_broker_record():
    h = ControllerHarness()
    h.activate()
    h.register(1)
    h.register(2)
    for broker_id in (1, 2):
        offsets = [b.base_offset + i for b in h.raft.batches for i, r in enumerate(b.records)
                   if isinstance(r, RegisterBrokerRecord) and r.broker_id == broker_id]
        assert h.epochs[broker_id] == offsets[-1]
        assert h.controller.committed_image.cluster.broker(broker_id).epoch == offsets[-1]


def test_answer_and_events_wait_for_the_commit():
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1)
    h.events()
    answers = []
    h.controller.handle_request(CreateTopicsRequest((CreatableTopic("t"),)), answers.append)
    assert answers == [] and h.events() == []
    assert h.controller.image.topic("t") is not None            # working image has it at once
    assert h.controller.committed_image.topic("t") is None
    h.raft.commit()
    assert answers[0].topics[0].error_code is Errors.NONE
    assert [e.kind for e in h.events()] == ["topic_created"]


def test_standby_answers_not_controller_naming_the_active_one():
    h = ControllerHarness(node_id=1002)
    h.raft.leader = h.raft.leader.__class__(1001, 4)
    response = h.request(CreateTopicsRequest((CreatableTopic("t"),)))
    assert response.topics[0].error_code is Errors.NOT_CONTROLLER
    assert response.topics[0].error_message == "The active controller appears to be node 1001."


def test_leadership_loss_discards_uncommitted_state_and_fails_waiting_requests():
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1)
    answers = []
    h.controller.handle_request(CreateTopicsRequest((CreatableTopic("lost"),)), answers.append)
    assert h.controller.image.topic("lost") is not None
    h.raft.elect(1002, 2)                                    # another controller won
    assert not h.controller.is_active
    assert h.controller.image.topic("lost") is None
    assert h.controller.image == h.controller.committed_image
    assert answers[0].topics[0].error_code is Errors.NOT_CONTROLLER
    assert answers[0].topics[0].error_message == "No controller appears to be active."
    assert h.node.timer_deadline(("controller", "noop")) is None


def test_standby_follows_committed_records_from_the_active_controller():
    active, standby = ControllerHarness(1001), ControllerHarness(1002)
    active.activate()
    active.start_brokers(1, 2)
    active.create_topic("t", 2, 2)
    for batch in active.raft.batches:
        standby.controller.handle_commit(batch)
    assert standby.controller.committed_image.topics == active.controller.committed_image.topics
    assert standby.controller.committed_image.cluster == active.controller.committed_image.cluster
    # The standby can take over: it knows the brokers' registration offsets.
    standby.raft.batches = list(active.raft.batches)
    standby.raft.delivered = len(standby.raft.batches)
    standby.epochs = dict(active.epochs)
    standby.raft.elect(1002, 2)
    assert standby.controller.is_active
    assert standby.heartbeat(1).error_code is Errors.NONE
    assert standby.create_topic("u").error_code is Errors.NONE


def test_replaying_the_written_records_rebuilds_the_controllers_image():
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1, 2, 3)
    h.create_topic("a", 3, 3)
    h.create_topic("b", 2, 1, configs=())
    h.request(DeleteTopicsRequest(topic_names=("b",)))
    for _ in range(5):                                       # broker 3 goes silent and is fenced
        h.tick(500)
        h.heartbeat(1)
        h.heartbeat(2)
    rebuilt = replay_all(h.raft.all_records())
    image = h.controller.committed_image
    assert (rebuilt.features, rebuilt.cluster, rebuilt.topics, rebuilt.configs, rebuilt.producer_ids) == (
        image.features, image.cluster, image.topics, image.configs, image.producer_ids)
    assert image == h.controller.image


def test_noop_record_every_max_idle_interval_while_active():
    h = ControllerHarness()
    h.activate()
    h.tick(h.controller.max_idle_interval_ms * 4)
    assert h.raft.all_records().count(NoOpRecord()) == 4


def test_read_only_list_reassignments_works_on_a_standby():
    h = ControllerHarness()
    response = h.request(ListPartitionReassignmentsRequest())
    assert response.topics == () and response.error_code is Errors.NONE


def test_append_rejected_by_raft_renounces():
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1)
    h.raft.leader = h.raft.leader.__class__(1002, 2)         # Raft moved on before telling us
    response = h.request(CreateTopicsRequest((CreatableTopic("t"),)))
    assert response.topics[0].error_code is Errors.NOT_CONTROLLER
    assert not h.controller.is_active


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_same_seed_same_metadata_log(seed):
    logs = []
    for _ in range(2):
        h = ControllerHarness(seed=seed)
        h.activate()
        h.start_brokers(1, 2, 3)
        h.create_topic("orders", 6, 3)
        logs.append(h.raft.all_records())
    assert logs[0] == logs[1]


def test_an_operation_writing_more_than_10000_records_is_refused():
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1)
    result = h.create_topic("huge", 10000, 1)              # TopicRecord + 10000 PartitionRecords
    assert (result.error_code, result.error_message) == (Errors.POLICY_VIOLATION,
                                                         "Unable to perform excessively large batch operation.")
    assert h.controller.image.topic("huge") is None
