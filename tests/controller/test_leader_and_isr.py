import pytest

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.controller.requests import (AlterableConfig, AlterConfigsResource, AlterPartitionPartitionData,
                                           AlterPartitionRequest, AlterPartitionTopicData, BrokerState,
                                           CreatableReplicaAssignment as Assign, CreatableTopic,
                                           CreatableTopicConfig, CreateTopicsRequest, ElectionType,
                                           ElectLeadersRequest, IncrementalAlterConfigsRequest, TopicPartitions,
                                           BrokerHeartbeatRequest)
from minikafka.metadata.records import BrokerRegistrationChangeRecord, PartitionChangeRecord

from tests.controller.harness import ControllerHarness

SESSION = 1800      # teaching profile broker.session.timeout.ms
NO_ELR = {"eligible.leader.replicas.version": 0, "group.version": 1, "transaction.version": 2}


@pytest.fixture
def h():
    harness = ControllerHarness()
    harness.activate()
    harness.start_brokers(1, 2, 3)
    return harness


def manual_topic(h, name, *assignments, configs=()):
    topic = CreatableTopic(name, -1, -1, tuple(Assign(i, tuple(r)) for i, r in enumerate(assignments)),
                           tuple(CreatableTopicConfig(k, v) for k, v in configs))
    result = h.request(CreateTopicsRequest((topic,))).topics[0]
    assert result.error_code is Errors.NONE, result.error_message
    return result


def keep_alive(h, *brokers, ms=SESSION + 1, step=500):
    """Let ``ms`` pass while ``brokers`` heartbeat; the others go silent."""
    for _ in range(ms // step):
        h.tick(step)
        for broker in brokers:
            h.heartbeat(broker)
    h.tick(ms % step)


def state(h, topic, index=0):
    p = h.partition(topic, index)
    return p.leader, p.isr, p.leader_epoch


def test_fencing_after_session_timeout_moves_leadership_to_first_isr_replica_in_replica_order(h):
    manual_topic(h, "t", (3, 1, 2))
    h.request(alter_isr(h, "t", 0, 3, [3, 2, 1]))            # ISR order differs from replica order
    h.events()
    keep_alive(h, 1, 2)
    assert state(h, "t") == (1, (2, 1), 1)
    fenced = h.events("broker_fenced")
    assert [e.data["broker"] for e in fenced] == [3]
    assert fenced[0].text == (f"broker 3 fenced after {SESSION + 1} ms without heartbeat "
                              f"(broker.session.timeout.ms={SESSION})")
    assert h.controller.committed_image.is_fenced(3)


def test_fencing_keeps_a_valid_leader(h):
    manual_topic(h, "t", (1, 2, 3))
    keep_alive(h, 1, 2)
    assert state(h, "t") == (1, (1, 2), 0)


def test_partition_changed_event_text(h):
    manual_topic(h, "orders", (1, 2, 3), (2, 3, 1))
    h.events()
    keep_alive(h, 1, 3)
    texts = [e.text for e in h.events("partition_changed")]
    assert texts == ["orders-0 ISR [1,2,3] -> [1,3] (leader 1, epoch 0)",
                     "orders-1 leader 2 -> 3, epoch 0 -> 1, ISR [2,3,1] -> [3,1]"]


def test_last_isr_member_fenced_leaves_partition_offline_in_the_elr_until_it_returns(h):
    # ELR on (the default): the fenced last ISR member leaves the ISR for the ELR (min ISR 1) and
    # is remembered as the last known leader; when it is unfenced it is elected cleanly from the ELR.
    manual_topic(h, "t", (1, 2))
    h.request(alter_isr(h, "t", 0, 1, [1]))
    keep_alive(h, 2)
    assert state(h, "t") == (-1, (), 1)
    assert (h.partition("t", 0).elr, h.partition("t", 0).last_known_elr) == ((1,), (1,))
    assert h.events("partition_changed")[-1].text == (
        "t-0 leader 1 -> none, epoch 0 -> 1, ISR [1] -> [], ELR [] -> [1], LastKnownElr [] -> [1]")
    h.register(1)
    h.heartbeat(1)
    assert state(h, "t") == (1, (1,), 2)
    assert (h.partition("t", 0).elr, h.partition("t", 0).last_known_elr) == ((), ())
    assert h.partition("t", 0).leader_recovery_state == 0          # RECOVERED: a clean election


def test_without_elr_the_last_isr_member_fenced_stays_in_the_isr_until_it_returns():
    h = ControllerHarness(bootstrap_features=NO_ELR)
    h.activate()
    h.start_brokers(1, 2, 3)
    manual_topic(h, "t", (1, 2))
    h.request(alter_isr(h, "t", 0, 1, [1]))
    keep_alive(h, 2)
    assert state(h, "t") == (-1, (1,), 1)
    assert "leader 1 -> none" in h.events("partition_changed")[-1].text
    # Broker 1 comes back (a new incarnation registers, catches up, is unfenced): it leads again.
    h.register(1)
    h.heartbeat(1)
    assert state(h, "t") == (1, (1,), 2)


def test_unclean_leader_election_when_topic_allows_it_and_the_event_says_so(h):
    manual_topic(h, "t", (1, 2), configs=[("unclean.leader.election.enable", "true")])
    h.request(alter_isr(h, "t", 0, 1, [1]))
    h.events()
    keep_alive(h, 2)
    leader, isr, _ = state(h, "t")
    assert (leader, isr) == (2, (2,))
    assert h.partition("t", 0).leader_recovery_state == 1         # RECOVERING
    text = h.events("partition_changed")[-1].text
    assert text.startswith("t-0 leader 1 -> 2, epoch 0 -> 1, ISR [1] -> [2]")
    assert "unclean leader election" in text and "may be lost" in text


def alter_isr(h, topic, index, leader, isr, leader_epoch=None, partition_epoch=None, epochs=None):
    p = h.controller.image.partition(topic, index)
    topic_id = h.controller.image.topic(topic).topic_id
    data = AlterPartitionPartitionData(
        index, p.leader_epoch if leader_epoch is None else leader_epoch,
        tuple(BrokerState(b, (epochs or {}).get(b, -1)) for b in isr),
        p.partition_epoch if partition_epoch is None else partition_epoch)
    return AlterPartitionRequest(leader, h.epochs[leader], (AlterPartitionTopicData(topic_id, (data,)),))


def test_alter_partition_shrink_and_expand(h):
    manual_topic(h, "t", (1, 2, 3))
    response = h.request(alter_isr(h, "t", 0, 1, [1, 3]))
    result = response.topics[0].partitions[0]
    assert (result.error_code, result.leader_id, result.isr, result.leader_epoch, result.partition_epoch) == (
        Errors.NONE, 1, (1, 3), 0, 1)
    response = h.request(alter_isr(h, "t", 0, 1, [1, 3, 2]))
    assert response.topics[0].partitions[0].isr == (1, 3, 2)
    assert h.partition("t", 0).partition_epoch == 2


@pytest.mark.parametrize("change, error", [
    (dict(leader_epoch=5), Errors.NOT_CONTROLLER),
    (dict(partition_epoch=9), Errors.NOT_CONTROLLER),
    (dict(leader=2), Errors.INVALID_REQUEST),
    (dict(isr=[1, 4]), Errors.INVALID_REQUEST),
    (dict(isr=[2, 3]), Errors.INVALID_REQUEST),
    (dict(isr=[1, 1]), Errors.INVALID_REQUEST),
    (dict(isr=[1, 2], epochs={2: 12345}), Errors.INELIGIBLE_REPLICA),
])
def test_alter_partition_errors(h, change, error):
    manual_topic(h, "t", (1, 2, 3))
    request = alter_isr(h, "t", 0, change.get("leader", 1), change.get("isr", [1, 2]),
                        change.get("leader_epoch"), change.get("partition_epoch"), change.get("epochs"))
    assert h.request(request).topics[0].partitions[0].error_code is error
    assert h.partition("t", 0).partition_epoch == 0


def test_alter_partition_with_stale_partition_epoch(h):
    manual_topic(h, "t", (1, 2, 3))
    h.request(alter_isr(h, "t", 0, 1, [1, 2]))             # partition epoch 0 -> 1
    stale = alter_isr(h, "t", 0, 1, [1, 2, 3], partition_epoch=0)
    assert h.request(stale).topics[0].partitions[0].error_code is Errors.INVALID_UPDATE_VERSION


def test_alter_partition_naming_a_fenced_replica(h):
    manual_topic(h, "t", (1, 2, 3))
    h.request(alter_isr(h, "t", 0, 1, [1, 2]))
    keep_alive(h, 1, 2)                                       # broker 3 fenced
    assert h.request(alter_isr(h, "t", 0, 1, [1, 2, 3])).topics[0].partitions[0].error_code \
        is Errors.INELIGIBLE_REPLICA


def test_alter_partition_with_stale_broker_epoch_fails_whole_request(h):
    manual_topic(h, "t", (1, 2, 3))
    request = alter_isr(h, "t", 0, 1, [1, 2])
    stale = AlterPartitionRequest(1, request.broker_epoch - 1, request.topics)
    assert h.request(stale).error_code is Errors.STALE_BROKER_EPOCH


def elect(h, election_type, partitions=None):
    return h.request(ElectLeadersRequest(election_type, partitions))


def test_preferred_election_and_election_not_needed(h):
    manual_topic(h, "t", (1, 2, 3))
    h.request(alter_isr(h, "t", 0, 1, [1, 2, 3]))
    keep_alive(h, 2, 3, ms=SESSION + 1)
    assert state(h, "t")[0] == 2
    h.register(1)
    h.heartbeat(1)
    h.request(alter_isr(h, "t", 0, 2, [2, 3, 1]))
    response = elect(h, ElectionType.PREFERRED, (TopicPartitions("t", (0,)),))
    assert response.replica_election_results[0].partition_result[0].error_code is Errors.NONE
    assert state(h, "t")[0] == 1
    again = elect(h, ElectionType.PREFERRED, (TopicPartitions("t", (0, 7)), TopicPartitions("x", (0,))))
    results = [(r.topic, p.partition_id, p.error_code, p.error_message)
               for r in again.replica_election_results for p in r.partition_result]
    assert results == [("t", 0, Errors.ELECTION_NOT_NEEDED, None),
                       ("t", 7, Errors.UNKNOWN_TOPIC_OR_PARTITION, "No such partition as t-7"),
                       ("x", 0, Errors.UNKNOWN_TOPIC_OR_PARTITION, "No such topic as x")]
    everything = elect(h, ElectionType.PREFERRED, None)
    assert [r.partition_result for r in everything.replica_election_results] == [()]


def test_unclean_election_on_request(h):
    manual_topic(h, "t", (1, 2))
    h.request(alter_isr(h, "t", 0, 1, [1]))
    keep_alive(h, 2)
    assert state(h, "t")[0] == -1
    preferred = elect(h, ElectionType.PREFERRED, (TopicPartitions("t", (0,)),))
    assert preferred.replica_election_results[0].partition_result[0].error_code \
        is Errors.PREFERRED_LEADER_NOT_AVAILABLE
    unclean = elect(h, ElectionType.UNCLEAN, (TopicPartitions("t", (0,)),))
    assert unclean.replica_election_results[0].partition_result[0].error_code is Errors.NONE
    assert state(h, "t")[:2] == (2, (2,))


def test_unknown_election_type_is_invalid_request(h):
    response = elect(h, 7, (TopicPartitions("t", (0,)),))
    assert response.error_code is Errors.INVALID_REQUEST


def test_controlled_shutdown_moves_leaders_then_lets_the_broker_go(h):
    manual_topic(h, "t", (1, 2, 3))
    response = h.heartbeat(1, want_shut_down=True)
    assert (response.is_fenced, response.should_shut_down) == (False, False)
    assert state(h, "t")[:2] == (2, (2, 3))
    assert h.controller.committed_image.cluster.broker(1).in_controlled_shutdown
    for broker in (2, 3):
        h.heartbeat(broker)
    response = h.heartbeat(1, want_shut_down=True)
    assert (response.is_fenced, response.should_shut_down) == (True, True)
    assert h.controller.committed_image.is_fenced(1)
    phases = [e.data["phase"] for e in h.events("broker_shutdown")]
    assert phases == ["started", "finished"]


def fencing_changes(h, start):
    """The records written since ``start``: broker registration changes as (id, fenced, in controlled
    shutdown), a partition change as its new leader."""
    return [(r.broker_id, r.fenced, r.in_controlled_shutdown) if isinstance(r, BrokerRegistrationChangeRecord)
            else ("leader", r.leader) for r in h.raft.all_records()[start:]
            if isinstance(r, (BrokerRegistrationChangeRecord, PartitionChangeRecord))]


def test_a_cleanly_stopped_broker_is_fenced_again_when_its_session_expires(h):
    # Real Kafka 4.3.1's records for a leader's clean stop: the shutdown's heartbeats, then, a session
    # timeout after the last of them, the same fence record again (the session outlives the fencing).
    manual_topic(h, "t", (1, 2, 3))
    start = len(h.raft.all_records())
    h.heartbeat(1, want_shut_down=True)                                # leads "t": controlled shutdown
    h.heartbeat(1, want_shut_down=True)                                # 50 ms later: 2 and 3 lag behind
    h.heartbeat(2), h.heartbeat(3)
    granted = h.heartbeat(1, want_shut_down=True)                      # 2 s later: may go
    assert (granted.is_fenced, granted.should_shut_down) == (True, True)
    h.events()
    keep_alive(h, 2, 3, ms=SESSION)
    assert fencing_changes(h, start) == [(1, 0, 1), ("leader", 2), (1, 1, 0)]
    keep_alive(h, 2, 3, ms=1)                                          # its session expires
    assert fencing_changes(h, start) == [(1, 0, 1), ("leader", 2), (1, 1, 0), (1, 1, 0)]
    again = h.raft.all_records()[-1]
    assert again == BrokerRegistrationChangeRecord(1, h.epochs[1], fenced=1)
    assert [e.text for e in h.events("broker_fenced")] == [
        f"broker 1 fenced again after {SESSION + 1} ms without heartbeat (broker.session.timeout.ms={SESSION})"]
    keep_alive(h, 2, 3, ms=10 * SESSION)                               # once only: the session is gone
    assert len(fencing_changes(h, start)) == 4


def test_a_broker_restarted_within_its_old_session_is_refused_until_the_session_expires(h):
    h.heartbeat(3, want_shut_down=True)                                # leads nothing: stops at once
    keep_alive(h, 1, 2, ms=SESSION)
    refused = h.register(3, incarnation=Uuid(3, 8))
    assert refused.error_code is Errors.DUPLICATE_BROKER_REGISTRATION
    start = len(h.raft.all_records())
    keep_alive(h, 1, 2, ms=1)                                          # the old session expires: fenced again
    assert fencing_changes(h, start) == [(3, 1, 0)]
    assert h.register(3, incarnation=Uuid(3, 8)).error_code is Errors.NONE


def test_a_session_of_an_old_epoch_expires_without_a_record(h):
    refused = h.request(BrokerHeartbeatRequest(2, h.epochs[2] + 100, 0))   # tracked, then refused
    assert refused.error_code is Errors.STALE_BROKER_EPOCH
    start = len(h.raft.all_records())
    keep_alive(h, 1, 2, 3, ms=2 * SESSION)
    assert fencing_changes(h, start) == [] and h.events("broker_fenced") == []


def test_broker_leading_nothing_shuts_down_at_once(h):
    response = h.heartbeat(3, want_shut_down=True)
    assert response.should_shut_down and response.is_fenced


def test_auto_leader_rebalance_after_the_check_interval(h):
    manual_topic(h, "t", (1, 2, 3))
    keep_alive(h, 2, 3)
    h.register(1)
    h.heartbeat(1)
    h.request(alter_isr(h, "t", 0, 2, [2, 3, 1]))
    interval = h.controller.imbalance_interval_ms
    keep_alive(h, 1, 2, 3, ms=interval - 3 * SESSION)
    assert h.partition("t", 0).leader == 2
    keep_alive(h, 1, 2, 3, ms=3 * SESSION + 10)
    assert h.partition("t", 0).leader == 1


def test_no_rebalance_when_disabled():
    h = ControllerHarness(static_config={"auto.leader.rebalance.enable": "false"})
    h.activate()
    h.start_brokers(1, 2, 3)
    manual_topic(h, "t", (1, 2, 3))
    keep_alive(h, 2, 3)
    h.register(1)
    h.heartbeat(1)
    h.request(alter_isr(h, "t", 0, 2, [2, 3, 1]))
    keep_alive(h, 1, 2, 3, ms=h.controller.imbalance_interval_ms + 1000)
    assert h.partition("t", 0).leader == 2


def test_periodic_unclean_election_after_enabling_it_for_the_topic(h):
    manual_topic(h, "t", (1, 2))
    h.request(alter_isr(h, "t", 0, 1, [1]))
    keep_alive(h, 2)
    assert state(h, "t")[0] == -1
    h.request(IncrementalAlterConfigsRequest((AlterConfigsResource(
        2, "t", (AlterableConfig("unclean.leader.election.enable", "true"),)),)))
    keep_alive(h, 2, ms=h.controller.unclean_interval_ms + 10)
    assert state(h, "t")[:2] == (2, (2,))
