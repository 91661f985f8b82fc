"""ElectLeaders, AlterPartitionReassignments and ListPartitionReassignments, forwarded to the controller."""

import pytest

from tests.server.apis.admin_harness import (AlterReassignments, ElectLeaders, ListReassignments, send,
                                                  start_cluster, versions)

Reassignable = AlterReassignments.ReassignableTopic


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=71, brokers=4)
    c.create_topic("orders", 2, 2)
    yield c
    c.stop()


def elect(cluster, version, partitions, election_type=0, broker=1):
    fields = {"topic_partitions": partitions, "timeout_ms": 5000}
    if version >= 1:
        fields["election_type"] = election_type
    return send(cluster, broker, ElectLeaders[version](**fields))


def results(answer):
    return [(r.topic, p.partition_id, p.error_code, p.error_message)
            for r in answer.replica_election_results for p in r.partition_result]


def test_preferred_election_returns_leadership_to_the_first_replica(cluster):
    preferred = cluster.replicas("orders", 0)[0]
    cluster.kill(preferred)
    assert cluster.wait_until(lambda: cluster.leader("orders", 0) not in (None, preferred), 10_000)
    cluster.restart(preferred)
    assert cluster.wait_until(lambda: preferred in cluster.isr("orders", 0), 20_000)
    answer = elect(cluster, 2, [ElectLeaders.TopicPartitions(topic="orders", partitions=[0])], broker=preferred)
    assert (answer.error_code, results(answer)) == (0, [("orders", 0, 0, None)])
    assert cluster.wait_until(lambda: cluster.leader("orders", 0) == preferred, 5000)


def test_election_not_needed_and_unknown_partitions(cluster):
    answer = elect(cluster, 1, [ElectLeaders.TopicPartitions(topic="orders", partitions=[1, 9])])
    codes = [(t, p, code) for t, p, code, _ in results(answer)]
    assert codes == [("orders", 1, 84), ("orders", 9, 3)]           # ELECTION_NOT_NEEDED, UNKNOWN_TOPIC_OR_PARTITION


def test_v0_is_a_preferred_election_of_every_partition(cluster):
    answer = elect(cluster, 0, None)
    assert answer.version == 0 and results(answer) == []          # all leaders already preferred: nothing listed


def test_reassignment_moves_a_partition_and_completes(cluster):
    target = [b for b in cluster.broker_ids if b not in cluster.replicas("orders", 1)][:2]
    answer = send(cluster, 2, AlterReassignments[1](
        timeout_ms=5000, allow_replication_factor_change=True,
        topics=[Reassignable(name="orders", partitions=[
            Reassignable.ReassignablePartition(partition_index=1, replicas=target),
            Reassignable.ReassignablePartition(partition_index=7, replicas=target)])]))
    assert (answer.error_code, answer.error_message, answer.allow_replication_factor_change) == (0, None, True)
    assert [(p.partition_index, p.error_code, p.error_message) for t in answer.responses for p in t.partitions] == [
        (1, 0, None), (7, 3, "Unable to find partition orders:7.")]
    assert cluster.wait_until(lambda: sorted(cluster.replicas("orders", 1)) == sorted(target), 20_000)
    listed = send(cluster, 3, ListReassignments[0](timeout_ms=5000, topics=None))
    assert (listed.error_code, listed.topics) == (0, [])


def test_list_shows_a_reassignment_in_progress(cluster):
    cluster.create_topic("slow", 1, 1)
    source = cluster.replicas("slow", 0)[0]
    target = next(b for b in cluster.broker_ids if b != source)
    sender = next(b for b in cluster.broker_ids if b not in (source, target))
    cluster.pause(target)                                          # the new replica cannot catch up
    try:
        send(cluster, sender, AlterReassignments[0](timeout_ms=5000, topics=[
            Reassignable(name="slow", partitions=[Reassignable.ReassignablePartition(partition_index=0,
                                                                                    replicas=[target])])]))
        listed = send(cluster, source, ListReassignments[0](timeout_ms=5000, topics=[
            ListReassignments.ListPartitionReassignmentsTopics(name="slow", partition_indexes=[0])]))
        [topic] = listed.topics
        [partition] = topic.partitions
        assert (topic.name, partition.partition_index, partition.adding_replicas, partition.removing_replicas) == \
            ("slow", 0, [target], [source])
        cancel = send(cluster, source, AlterReassignments[1](
            timeout_ms=5000, allow_replication_factor_change=True,
            topics=[Reassignable(name="slow", partitions=[
                Reassignable.ReassignablePartition(partition_index=0, replicas=None)])]))
        assert [p.error_code for t in cancel.responses for p in t.partitions] == [0]
    finally:
        cluster.resume(target)
    assert cluster.wait_until(lambda: cluster.replicas("slow", 0) == [source], 5000)


def test_without_a_controller_each_api_times_out():
    c = start_cluster(seed=72, controllers=3)
    try:
        for controller in c.controller_ids[:2]:
            c.kill(controller)
        assert c.wait_until(lambda: c.active_controller is None, 10_000)   # the last one resigns (check quorum)
        elected = elect(c, 2, [ElectLeaders.TopicPartitions(topic="t", partitions=[0, 1])])
        assert elected.error_code == 7 and results(elected) == [("t", 0, 7, None), ("t", 1, 7, None)]
        moved = send(c, 1, AlterReassignments[1](timeout_ms=500, allow_replication_factor_change=True, topics=[
            Reassignable(name="t", partitions=[Reassignable.ReassignablePartition(partition_index=0, replicas=[1])])]))
        assert (moved.error_code, moved.error_message) == (7, None)
        assert [(p.partition_index, p.error_code) for t in moved.responses for p in t.partitions] == [(0, 7)]
        listed = send(c, 1, ListReassignments[0](timeout_ms=500, topics=[
            ListReassignments.ListPartitionReassignmentsTopics(name="t", partition_indexes=[3])]))
        assert listed.error_code == 7
        assert [(t.name, [(p.partition_index, p.replicas) for p in t.partitions]) for t in listed.topics] == \
            [("t", [(3, [])])]
    finally:
        c.stop()


def test_every_advertised_version(cluster):
    for version in versions(43):
        answer = elect(cluster, version, [ElectLeaders.TopicPartitions(topic="orders", partitions=[0])])
        assert [(t, p) for t, p, _, _ in results(answer)] == [("orders", 0)], version
    for version in versions(45):
        answer = send(cluster, 1, AlterReassignments[version](timeout_ms=5000, allow_replication_factor_change=True,
                                                              topics=[]))
        assert (answer.error_code, answer.responses) == (0, []), version
    for version in versions(46):
        assert send(cluster, 1, ListReassignments[version](timeout_ms=5000, topics=None)).error_code == 0, version
