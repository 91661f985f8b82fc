"""GroupCoordinatorAdapter alone: FindCoordinator lookups, creating __consumer_offsets, and the
coordinator's writes and reloads through ``__consumer_offsets`` partitions.

The adapter runs on a `FakeNode` with a real `KafkaConfig`; the metadata image is replayed
from hand-written records, a recording stand-in plays the replica manager's produce path and
another the forwarding channel to the controller.
"""

from types import SimpleNamespace

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.controller.requests import CreatableTopic, CreatableTopicConfig, CreateTopicsResponse
from minikafka.coordinator.find_coordinator import Endpoint
from minikafka.coordinator.group_coordinator import partition_for
from minikafka.coordinator.requests import (OffsetCommitRequest, OffsetCommitRequestPartition,
                                            OffsetCommitRequestTopic)
from minikafka.metadata.delta import replay_all
from minikafka.metadata.records import BrokerRegistrationChangeRecord
from minikafka.server.group_coordinator_adapter import GroupCoordinatorAdapter
from minikafka.server.replica_manager import PartitionProduceResult
from tests.server.harness import (START, TIMING, FakeNode, broker_kafka_config, open_follower_log,
                                  registered_brokers, topic_records)

PARTITIONS = 3
OFFSETS_ID = Uuid(9, 9)


class ProducePath:
    """Stands in for ReplicaManager.append_records: keeps each write until answered."""

    def __init__(self) -> None:
        self.appends: list[tuple] = []      # (acks, timeout, entries, callback, internal)

    def append_records(self, required_acks, timeout_ms, entries, callback, internal=False) -> None:
        self.appends.append((required_acks, timeout_ms, entries, callback, internal))


def adapter(records=(), listener: str = "PLAINTEXT", **config):
    node = FakeNode(1)
    node.start(START)
    state = SimpleNamespace(image=replay_all(list(records)), forwarded=[])
    produce = ProducePath()
    made = GroupCoordinatorAdapter(
        node, kafka_config=lambda: broker_kafka_config(offsets_topic_num_partitions=PARTITIONS,
                                                       **config),
        timing=TIMING, listener_name=listener, image=lambda: state.image, replica_manager=produce,
        forward_to_controller=lambda request, respond, timeout_ms: state.forwarded.append(
            (request, respond, timeout_ms)))
    return made, state, produce


def with_offsets_topic(leader: int = 2) -> list:
    return registered_brokers(1, 2, 3) + topic_records(
        "__consumer_offsets", OFFSETS_ID, [(leader, 1)] * PARTITIONS)


def test_the_first_lookup_asks_for_consumer_offsets_once_with_kafkas_settings():
    groups, state, _ = adapter(registered_brokers(1), offsets_topic_replication_factor=1)
    assert groups.find_group_coordinator("g") == (Errors.COORDINATOR_NOT_AVAILABLE, Endpoint(-1, "", -1))
    groups.find_group_coordinator("other")
    [(request, respond, timeout_ms)] = state.forwarded
    assert request.topics == (CreatableTopic("__consumer_offsets", PARTITIONS, 1, configs=(
        CreatableTopicConfig("cleanup.policy", "compact"),
        CreatableTopicConfig("compression.type", "producer"),
        CreatableTopicConfig("segment.bytes", str(100 * 1024 * 1024)))),)
    assert timeout_ms is None                             # the forwarding default
    respond(CreateTopicsResponse(()))                     # answered: the next lookup may ask again
    groups.find_group_coordinator("g")
    assert len(state.forwarded) == 2


def test_a_published_offsets_topic_ends_the_creation_in_flight():
    groups, state, _ = adapter(registered_brokers(1, 2, 3))
    groups.find_group_coordinator("g")
    state.image = replay_all(with_offsets_topic())
    groups.on_metadata(state.image)
    assert not groups.creating_offsets_topic


def test_the_coordinator_is_the_live_leader_of_the_groups_partition_on_the_clients_listener():
    groups, state, _ = adapter(with_offsets_topic(leader=2))
    assert groups.find_group_coordinator("g") == (Errors.NONE, Endpoint(2, "localhost", 9092))
    assert state.forwarded == []
    state.image = replay_all(with_offsets_topic(leader=2) + [BrokerRegistrationChangeRecord(2, 12, fenced=1)])
    assert groups.find_group_coordinator("g") == (Errors.COORDINATOR_NOT_AVAILABLE, Endpoint(-1, "", -1))
    other, _, _ = adapter(with_offsets_topic(leader=2), listener="EXTERNAL")
    assert other.find_group_coordinator("g")[0] is Errors.COORDINATOR_NOT_AVAILABLE


def test_commits_are_written_with_acks_all_and_reloaded_by_the_next_leader(tmp_path):
    index = partition_for("g", PARTITIONS)
    tp = TopicPartition("__consumer_offsets", index)
    log = open_follower_log(tmp_path, tp)
    groups, _, produce = adapter(with_offsets_topic(leader=1))
    groups.on_became_leader(SimpleNamespace(topic_partition=tp, leader_epoch=0, log=log))
    answers = []
    groups.coordinator.handle_offset_commit(OffsetCommitRequest("g", (OffsetCommitRequestTopic(
        "orders", (OffsetCommitRequestPartition(0, 42),)),)), answers.append)
    [(acks, timeout_ms, entries, callback, internal)] = produce.appends
    assert (acks, timeout_ms, list(entries), internal) == (-1, 5000, [tp], True)
    assert answers == []                                  # acknowledged only once the ISR has it
    log.append_as_leader(entries[tp], 0, START)
    callback({tp: PartitionProduceResult(Errors.NONE, base_offset=0)})
    assert answers[0].topics[0].partitions[0].error_code is Errors.NONE

    groups.on_resigned_leader(SimpleNamespace(topic_partition=tp))
    assert groups.coordinator.partition_state(index) is None
    successor, _, _ = adapter(with_offsets_topic(leader=1))
    successor.on_became_leader(SimpleNamespace(topic_partition=tp, leader_epoch=1, log=log))
    assert successor.coordinator.committed_offsets("g") == {("orders", 0): 42}


def test_partitions_of_other_topics_are_not_the_coordinators_business(tmp_path):
    groups, _, _ = adapter(with_offsets_topic())
    orders = TopicPartition("orders", partition_for("g", PARTITIONS))
    groups.on_became_leader(SimpleNamespace(topic_partition=orders, leader_epoch=0,
                                            log=open_follower_log(tmp_path, orders)))
    assert groups.coordinator.partition_state(orders.partition) is None
