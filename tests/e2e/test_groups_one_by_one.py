"""Four kafka-python consumers join one group one by one, and the group settles.

Each consumer polls in its own thread (`GroupMember`), as an application
runs it, with a 1 s poll timeout.  kafka-python 3.0.12 runs each
JoinGroup/SyncGroup round trip on its IO thread; when one finishes while no
poll() of that consumer is waiting for it, the next poll() drops the result
and sends the same JoinGroup again.  From a follower that is harmless; from
the leader of a Stable group Kafka takes it as a request to reassign and
starts a new generation (``GroupMetadataManager.classicGroupJoinExistingMember``).
Consumers polled in turn from one thread are each left unpolled most of the
time, so their group keeps rebalancing; a consumer polling in its own loop
is almost always inside poll().  That churn is the client's doing, not the
coordinator's: ``tests/coordinator`` pins the coordinator's side.
"""

import time

import pytest

from minikafka import Cluster
from tests.e2e.groups_admin_helpers import GroupMember, admin_client, eventually, group_consumer

pytestmark = pytest.mark.live

GROUP, TOPIC = "billing", "orders"
QUIET_S = 15


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=5).start()
    yield c
    c.stop()


def group_steps(cluster, since=0):
    kinds = {"group_rebalance", "group_join_completed", "group_stable"}
    return [e for e in cluster.events.since(since, kinds) if e.data.get("group") == GROUP]


def stable_with(cluster, count):
    """The coordinator's last step for the group was Stable, in a generation of ``count`` members."""
    steps = group_steps(cluster)
    joins = [e for e in steps if e.kind == "group_join_completed"]
    return bool(steps) and steps[-1].kind == "group_stable" and len(joins[-1].data["members"]) == count


def owned(members):
    return sorted(tp.partition for m in members for tp in m.assignment())


def settled(cluster, members):
    """Stable with every member in, and the members' own view: each partition once, none idle but one."""
    busy = sum(1 for m in members if m.assignment())
    return stable_with(cluster, len(members)) and owned(members) == [0, 1, 2] and busy == min(len(members), 3)


def test_four_consumers_added_one_by_one_settle_with_each_partition_owned_once(cluster):
    cluster.create_topic(TOPIC, partitions=3, replication_factor=3)
    members: list[GroupMember] = []
    try:
        for count in range(1, 5):
            consumer = group_consumer(cluster, GROUP, TOPIC, client_id=f"billing-{count}",
                                      enable_auto_commit=False)
            members.append(GroupMember(consumer, poll_timeout_ms=1000))
            eventually(lambda: settled(cluster, members), timeout_s=30,
                       what=f"a Stable generation of {count} members sharing the 3 partitions")
        mark = cluster.events.last_seq
        quiet_until = time.monotonic() + QUIET_S
        while time.monotonic() < quiet_until:
            assert [e.text for e in group_steps(cluster, mark)] == []
            time.sleep(0.5)
        assert owned(members) == [0, 1, 2]
        assert sorted(len(m.assignment()) for m in members) == [0, 1, 1, 1]
        admin = admin_client(cluster)
        try:
            [described] = admin.describe_groups([GROUP]).values()
        finally:
            admin.close()
        assert described["group_state"] == "Stable"
        assert sorted(m["client_id"] for m in described["members"]) == [f"billing-{i}" for i in range(1, 5)]
        # One rebalance per newcomer, and nothing else.
        rebalances = [e for e in group_steps(cluster) if e.kind == "group_rebalance"]
        assert [e.data["generation"] for e in rebalances] == [0, 1, 2, 3]
    finally:
        for member in members:
            member.close()
