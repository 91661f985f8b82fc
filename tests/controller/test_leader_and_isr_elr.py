"""The controller's ELR decisions (KIP-966) on a cluster formatted with eligible.leader.replicas.version=1.

A topic ``fo`` on replicas 1,2,3 with ``min.insync.replicas=2``, as the
differential suite's failover against a real Kafka 4.3.1: its records there
were ``{"isr": [2, 3], "leader": 2}`` (broker 1 gone), ``{"isr": [3],
"leader": 3, "eligibleLeaderReplicas": [2]}`` (broker 2 fenced) and
``{"eligibleLeaderReplicas": []}`` (broker 2, killed, registering again).
"""

import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller.requests import (AlterableConfig, AlterConfigsResource, CreatableReplicaAssignment,
                                           CreatableTopic, CreatableTopicConfig, CreateTopicsRequest,
                                           IncrementalAlterConfigsRequest, UnregisterBrokerRequest)
from minikafka.metadata.records import (ClearElrRecord, ConfigRecord, FeatureLevelRecord, PartitionChangeRecord,
                                        RegisterBrokerRecord)
from tests.controller.harness import ControllerHarness
from tests.controller.test_leader_and_isr import keep_alive

ELR_ON = {"eligible.leader.replicas.version": 1, "group.version": 1, "transaction.version": 2}
TOPIC, BROKER = 2, 4           # ConfigResource.Type ids


def harness(features=ELR_ON):
    h = ControllerHarness(bootstrap_features=features)
    h.activate()
    h.start_brokers(1, 2, 3)
    topic = CreatableTopic("fo", -1, -1, (CreatableReplicaAssignment(0, (1, 2, 3)),),
                           (CreatableTopicConfig("min.insync.replicas", "2"),))
    assert h.request(CreateTopicsRequest((topic,))).topics[0].error_code is Errors.NONE
    return h


def changes(h, since):
    """The partition records (and ELR clears) written after record number ``since``, as dicts of set fields."""
    out = []
    for record in h.raft.all_records()[since:]:
        if isinstance(record, PartitionChangeRecord):
            out.append({k: v for k, v in (("isr", record.isr), ("leader", record.leader),
                                          ("elr", record.eligible_leader_replicas),
                                          ("last_known_elr", record.last_known_elr))
                        if v is not None and v != -2})
        elif isinstance(record, ClearElrRecord):
            out.append({"clear_elr": record.topic_name})
    return out


def view(h):
    p = h.partition("fo", 0)
    return p.leader, p.isr, p.elr, p.last_known_elr


def incarnation(broker_id):
    return Uuid(broker_id, 8)


def fail_1_then_2(h):
    """Broker 1 then broker 2 stop heartbeating: the records of a real 4.3.1 cluster."""
    start = len(h.raft.all_records())
    keep_alive(h, 2, 3)
    keep_alive(h, 3)
    assert changes(h, start) == [{"isr": (2, 3), "leader": 2}, {"isr": (3,), "leader": 3, "elr": (2,)}]
    assert view(h) == (3, (3,), (2,), ())


def test_bootstrap_with_elr_writes_the_cluster_level_min_insync_replicas():
    h = harness()
    records = h.raft.all_records()
    assert FeatureLevelRecord(name="eligible.leader.replicas.version", feature_level=1) in records
    assert ConfigRecord(resource_type=BROKER, resource_name="", name="min.insync.replicas", value="1") in records
    assert records.index(ConfigRecord(resource_type=BROKER, resource_name="", name="min.insync.replicas",
                                      value="1")) < 6          # inside the bootstrap transaction


def test_fencing_below_min_isr_moves_the_replica_into_the_elr():
    fail_1_then_2(harness())


def test_a_crashed_broker_registering_again_leaves_the_elr_before_its_registration():
    h = harness()
    fail_1_then_2(h)
    start = len(h.raft.all_records())
    h.register(2, incarnation=incarnation(2), previous_broker_epoch=-1)    # no clean-shutdown file
    assert changes(h, start) == [{"elr": ()}]
    written = h.raft.all_records()[start:]
    assert isinstance(written[0], PartitionChangeRecord) and isinstance(written[1], RegisterBrokerRecord)
    assert view(h) == (3, (3,), (), ())


def test_a_broker_that_shut_down_cleanly_keeps_its_elr_place():
    h = harness()
    fail_1_then_2(h)
    start = len(h.raft.all_records())
    h.register(2, incarnation=incarnation(2), previous_broker_epoch=h.epochs[2])
    assert changes(h, start) == []
    assert view(h) == (3, (3,), (2,), ())


def test_the_last_isr_member_lost_the_elr_and_the_last_leader_are_kept():
    h = harness()
    fail_1_then_2(h)
    start = len(h.raft.all_records())
    keep_alive(h)                                                  # broker 3 goes silent too
    assert changes(h, start) == [{"isr": (), "leader": -1, "elr": (2, 3), "last_known_elr": (3,)}]
    assert view(h) == (-1, (), (2, 3), (3,))


def test_an_elr_member_coming_back_cleanly_is_elected_without_data_loss():
    h = harness()
    fail_1_then_2(h)
    keep_alive(h)
    start = len(h.raft.all_records())
    h.register(2, incarnation=incarnation(2), previous_broker_epoch=h.epochs[2])
    h.heartbeat(2)                                                  # caught up: unfenced
    assert changes(h, start) == [{"isr": (2,), "leader": 2, "elr": (3,), "last_known_elr": ()}]
    assert h.partition("fo", 0).leader_recovery_state == 0          # RECOVERED: a clean election


def test_the_last_known_leader_is_elected_once_every_elr_member_crashed():
    h = harness()
    fail_1_then_2(h)
    keep_alive(h)
    for broker in (2, 3):                                          # both crashed: they leave the ELR
        h.register(broker, incarnation=incarnation(broker), previous_broker_epoch=-1)
    assert view(h) == (-1, (), (), (3,))
    start = len(h.raft.all_records())
    h.heartbeat(2)                                                  # 2 is back, but was never the leader
    assert view(h)[0] == -1
    h.heartbeat(3)                                                  # 3, the last known leader, is back
    assert changes(h, start) == [{"isr": (3,), "leader": 3, "last_known_elr": ()}]
    assert h.partition("fo", 0).leader_recovery_state == 1          # RECOVERING: counted as unclean


def alter(h, resource_type, name, key, value, op=0):
    request = IncrementalAlterConfigsRequest((AlterConfigsResource(resource_type, name, (
        AlterableConfig(key, value, op),)),))
    return h.request(request).responses[0]


def test_changing_min_insync_replicas_clears_the_elr():
    h = harness()
    fail_1_then_2(h)
    start = len(h.raft.all_records())
    assert alter(h, TOPIC, "fo", "min.insync.replicas", "1").error_code is Errors.NONE
    assert changes(h, start) == [{"clear_elr": "fo"}]
    assert view(h) == (3, (3,), (), ())
    start = len(h.raft.all_records())
    assert alter(h, BROKER, "", "min.insync.replicas", "2").error_code is Errors.NONE
    assert changes(h, start) == [{"clear_elr": ""}]


@pytest.mark.parametrize("name, op, message", [
    ("1", 0, "Broker-level min.insync.replicas cannot be altered while ELR is enabled."),
    ("", 1, "Cluster-level min.insync.replicas cannot be removed while ELR is enabled."),
])
def test_min_insync_replicas_stays_at_cluster_and_topic_level(name, op, message):
    h = harness()
    before = len(h.raft.all_records())
    answer = alter(h, BROKER, name, "min.insync.replicas", "2", op=op)
    assert (answer.error_code, answer.error_message) == (Errors.INVALID_CONFIG, message)
    assert len(h.raft.all_records()) == before


def test_without_elr_nothing_of_this_happens():
    h = harness(features={"group.version": 1, "transaction.version": 2})
    assert not any(isinstance(r, ConfigRecord) and r.resource_type == BROKER for r in h.raft.all_records())
    start = len(h.raft.all_records())
    keep_alive(h, 2, 3)
    keep_alive(h, 3)
    keep_alive(h)
    assert changes(h, start) == [{"isr": (2, 3), "leader": 2}, {"isr": (3,), "leader": 3}, {"leader": -1}]
    h.register(3, incarnation=incarnation(3), previous_broker_epoch=-1)
    assert view(h) == (-1, (3,), (), ())
    assert alter(h, BROKER, "1", "min.insync.replicas", "2").error_code is Errors.NONE


def test_an_unregistered_broker_stays_in_the_elr_as_in_kafka():
    h = harness()
    fail_1_then_2(h)
    keep_alive(h)                                                  # ISR empty, ELR 2,3
    start = len(h.raft.all_records())
    h.request(UnregisterBrokerRequest(3))
    # Kafka's handleBrokerUnregistered visits this partition, but its builder takes out of an ELR
    # only replicas that restarted uncleanly: nothing to write (3 could lead only once registered).
    assert changes(h, start) == []
    assert view(h) == (-1, (), (2, 3), (3,))
