"""OffsetDelete through the broker's codec: the broker's own answers merged with the coordinator's."""

import pytest

from tests.server.apis.admin_harness import (OffsetDelete, OffsetFetch, commit, coordinator_of,
                                                  join_as_only_member, not_coordinator_of, send, start_cluster)

NONE, UNKNOWN_TOPIC_OR_PARTITION, NOT_COORDINATOR, GROUP_ID_NOT_FOUND, GROUP_SUBSCRIBED_TO_TOPIC = 0, 3, 16, 69, 86


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=47)
    c.create_topic("orders", 2, 2)
    yield c
    c.stop()


def delete(cluster, broker, group_id, topics: dict[str, list[int]]):
    Topic = OffsetDelete.OffsetDeleteRequestTopic
    return send(cluster, broker, OffsetDelete[0](group_id=group_id, topics=[
        Topic(name=t, partitions=[Topic.OffsetDeleteRequestPartition(partition_index=p) for p in ps])
        for t, ps in topics.items()]))


def answers(response) -> list[tuple[str, int, int]]:
    return [(t.name, p.partition_index, p.error_code) for t in response.topics for p in t.partitions]


def committed(cluster, broker, group_id) -> dict[tuple[str, int], int]:
    fetched = send(cluster, broker, OffsetFetch[7](group_id=group_id, topics=None, require_stable=False))
    return {(t.name, p.partition_index): p.committed_offset for t in fetched.topics for p in t.partitions}


def test_unknown_partitions_are_answered_by_the_broker_first_then_the_coordinator(cluster):
    coordinator = coordinator_of(cluster, "idle")
    assert commit(cluster, coordinator, "idle", {("orders", 0): 4, ("orders", 1): 5}).topics
    response = delete(cluster, coordinator, "idle", {"orders": [0, 7], "ghost": [0]})
    assert response.error_code == NONE
    assert answers(response) == [("orders", 7, UNKNOWN_TOPIC_OR_PARTITION), ("orders", 0, NONE),
                                 ("ghost", 0, UNKNOWN_TOPIC_OR_PARTITION)]
    assert committed(cluster, coordinator, "idle") == {("orders", 1): 5}


def test_a_group_error_replaces_the_brokers_answers(cluster):
    coordinator = coordinator_of(cluster, "nobody")
    response = delete(cluster, coordinator, "nobody", {"orders": [0], "ghost": [0]})
    assert (response.error_code, answers(response)) == (GROUP_ID_NOT_FOUND, [])
    response = delete(cluster, not_coordinator_of(cluster, "nobody"), "nobody", {"orders": [0]})
    assert (response.error_code, answers(response)) == (NOT_COORDINATOR, [])


def test_the_coordinator_is_asked_even_when_the_broker_answered_everything(cluster):
    coordinator = coordinator_of(cluster, "nobody")
    response = delete(cluster, coordinator, "nobody", {"ghost": [0]})
    assert (response.error_code, answers(response)) == (GROUP_ID_NOT_FOUND, [])


def test_a_live_member_with_an_unreadable_subscription_counts_as_subscribed(cluster):
    coordinator, _, _ = join_as_only_member(cluster, "busy")     # its subscription is b"subscription"
    response = delete(cluster, coordinator, "busy", {"orders": [0, 1]})
    assert answers(response) == [("orders", 0, GROUP_SUBSCRIBED_TO_TOPIC), ("orders", 1, GROUP_SUBSCRIBED_TO_TOPIC)]
