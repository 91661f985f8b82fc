"""Consumer groups with real kafka-python clients against a live cluster: commits, rebalances, admin.

One live cluster (3 brokers, 3 controllers, teaching timing) serves the whole
module; every test uses its own topic and group names.
"""

import pytest
from kafka import TopicPartition
from kafka.errors import GroupIdNotFoundError
from kafka.structs import OffsetAndMetadata

from minikafka import Cluster
from tests.e2e.groups_admin_helpers import (GroupMember, admin_client, drain, eventually, group_consumer,
                                            produce_values)

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=101).start()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def admin(cluster):
    client = admin_client(cluster)
    yield client
    client.close()


def make_topic(cluster, name, partitions=3, records=30):
    cluster.create_topic(name, partitions, 3)
    produce_values(cluster, name, [f"{name}-{i}".encode() for i in range(records)])


def end_offsets(cluster, topic, partitions):
    consumer = group_consumer(cluster, None)
    try:
        return consumer.end_offsets([TopicPartition(topic, p) for p in range(partitions)])
    finally:
        consumer.close()


def committed(admin, group_id):
    return {tp: meta.offset for tp, meta in admin.list_group_offsets({group_id: None})[group_id].items()}


def test_auto_commit_stores_the_position_when_the_consumer_closes(cluster, admin):
    make_topic(cluster, "auto")
    consumer = group_consumer(cluster, "auto-app", "auto", enable_auto_commit=True, auto_commit_interval_ms=200)
    records = drain(consumer, 30)
    assert sorted(r.value for r in records) == sorted(f"auto-{i}".encode() for i in range(30))
    consumer.close()                                            # commits on close, then LeaveGroup
    assert committed(admin, "auto-app") == end_offsets(cluster, "auto", 3)


def test_manual_commit_and_a_new_member_resumes_there(cluster, admin):
    make_topic(cluster, "manual", partitions=1, records=10)
    tp = TopicPartition("manual", 0)
    first = group_consumer(cluster, "manual-app", "manual", enable_auto_commit=False)
    drain(first, 10)
    first.commit({tp: OffsetAndMetadata(4, "checkpoint", -1)})
    first.close(autocommit=False)
    [(_, stored)] = admin.list_group_offsets({"manual-app": [tp]})["manual-app"].items()
    assert (stored.offset, stored.metadata) == (4, "checkpoint")
    second = group_consumer(cluster, "manual-app", "manual", enable_auto_commit=False)
    resumed = drain(second, 6)
    assert [r.offset for r in resumed] == list(range(4, 10))
    second.close(autocommit=False)


def test_two_members_share_partitions_and_the_survivor_takes_over(cluster, admin):
    make_topic(cluster, "shared", partitions=4, records=0)
    alice = GroupMember(group_consumer(cluster, "shared-app", "shared", enable_auto_commit=False))
    bob = GroupMember(group_consumer(cluster, "shared-app", "shared", enable_auto_commit=False))
    eventually(lambda: len(alice.assignment()) == 2 and len(bob.assignment()) == 2,
               what="a two-member generation with two partitions each")
    assert alice.assignment() | bob.assignment() == {TopicPartition("shared", p) for p in range(4)}
    produce_values(cluster, "shared", [f"first-{i}".encode() for i in range(20)])
    eventually(lambda: len(alice.records) + len(bob.records) == 20, what="the first 20 records")
    alice.call(lambda c: c.commit())
    bob.call(lambda c: c.commit())
    description = admin.describe_groups(["shared-app"])["shared-app"]
    assert description["group_state"] == "Stable" and len(description["members"]) == 2
    assert sum(committed(admin, "shared-app").values()) == 20

    bob.close()                                                 # LeaveGroup: an immediate rebalance
    eventually(lambda: len(alice.assignment()) == 4, what="alice owning all four partitions")
    seen_before = len(alice.records)
    produce_values(cluster, "shared", [f"second-{i}".encode() for i in range(20)])
    eventually(lambda: len(alice.records) >= seen_before + 20, what="the next 20 records at alice")
    later = sorted(r.value for r in alice.records[seen_before:])
    # Bob's partitions resumed from Bob's commits: nothing of the first batch again, nothing lost.
    assert later == sorted(f"second-{i}".encode() for i in range(20))
    alice.close()


def test_admin_lists_describes_and_deletes_groups(cluster, admin):
    make_topic(cluster, "adminned", partitions=2, records=4)
    member = group_consumer(cluster, "admin-app", "adminned", enable_auto_commit=False)
    drain(member, 4)
    member.commit()
    listed = {g["group_id"]: g for g in admin.list_groups()}
    assert (listed["admin-app"]["protocol_type"], listed["admin-app"]["group_state"]) == ("consumer", "Stable")
    stable = {g["group_id"] for g in admin.list_groups(states_filter=["Stable"])}
    assert "admin-app" in stable
    [described] = admin.describe_groups(["admin-app"]).values()
    [info] = described["members"]
    assert info["client_host"] == "/127.0.0.1" and info["client_id"].startswith("kafka-python")
    assert admin.delete_groups(["admin-app"]) == {"admin-app": "NonEmptyGroupError"}
    member.close(autocommit=False)
    assert eventually(lambda: admin.delete_groups(["admin-app"]) == {"admin-app": "OK"}, what="deletion")
    assert "admin-app" not in {g["group_id"] for g in admin.list_groups()}
    gone = admin.describe_groups(["admin-app"])["admin-app"]        # DescribeGroups v6: not found, with a message
    assert gone["error"] == str(GroupIdNotFoundError("Group admin-app not found."))


def test_deleting_a_topic_deletes_the_groups_offsets_for_it(cluster, admin):
    make_topic(cluster, "doomed", partitions=2, records=6)
    make_topic(cluster, "lasting", partitions=1, records=3)
    consumer = group_consumer(cluster, "two-topics", "doomed", "lasting")
    drain(consumer, 9)
    consumer.commit()
    consumer.close()
    assert {tp.topic for tp in committed(admin, "two-topics")} == {"doomed", "lasting"}
    admin.delete_topics(["doomed"])
    # As in Kafka 4.3, the coordinator deletes the deleted topic's offsets; the group keeps the rest.
    eventually(lambda: {tp.topic for tp in committed(admin, "two-topics")} == {"lasting"},
               what="the offsets of the deleted topic gone")
    assert committed(admin, "two-topics") == {TopicPartition("lasting", 0): 3}
    assert any(e.kind == "offsets_deleted" and e.data["topics"] == ["doomed"] for e in cluster.events.since(0))
