"""The group coordinator's broker dies: the group moves with its ``__consumer_offsets`` partition.

The coordinator of a group is the leader of the group's ``__consumer_offsets``
partition.  Killing that broker makes the controller elect a new leader for
the partition; the new leader loads the group's committed offsets from its
replica of the log, and kafka-python finds it again (NOT_COORDINATOR or a
dead connection -> FindCoordinator) and carries on.
"""

import pytest
from kafka import TopicPartition

from minikafka import Cluster
from minikafka.coordinator.group_coordinator import partition_for
from tests.e2e.groups_admin_helpers import admin_client, drain, eventually, group_consumer, produce_values

pytestmark = pytest.mark.live


def test_the_coordinator_moves_and_committed_offsets_survive():
    cluster = Cluster(brokers=3, controllers=3, seed=102).start()
    try:
        cluster.create_topic("payments", 3, 3)
        produce_values(cluster, "payments", [f"before-{i}".encode() for i in range(30)])
        consumer = group_consumer(cluster, "ledger", "payments", enable_auto_commit=False)
        drain(consumer, 30)
        consumer.commit()
        offsets_partition = partition_for("ledger", 50)
        old_coordinator = cluster.leader("__consumer_offsets", offsets_partition)
        admin = admin_client(cluster)
        before = admin.list_group_offsets({"ledger": None})["ledger"]
        assert sum(meta.offset for meta in before.values()) == 30
        admin.close()

        cluster.kill(old_coordinator)
        new_coordinator = eventually(
            lambda: cluster.leader("__consumer_offsets", offsets_partition) not in (None, old_coordinator)
            and cluster.leader("__consumer_offsets", offsets_partition), what="a new coordinator")
        produce_values(cluster, "payments", [f"after-{i}".encode() for i in range(30)])
        after = drain(consumer, 30, timeout_s=30)              # the same member keeps consuming
        assert sorted(r.value for r in after) == sorted(f"after-{i}".encode() for i in range(30))
        eventually(lambda: consumer.commit() is None, what="a commit to the new coordinator")
        consumer.close(autocommit=False)

        admin = admin_client(cluster)
        try:
            now = admin.list_group_offsets({"ledger": None})["ledger"]
            assert sum(meta.offset for meta in now.values()) == 60
            assert {tp.partition for tp in now} == {0, 1, 2}
            coordinator = admin._manager.run(admin._find_coordinator_ids, ["ledger"])["ledger"]
            assert coordinator == new_coordinator
        finally:
            admin.close()
        resumed = group_consumer(cluster, "ledger", "payments", enable_auto_commit=False)
        try:
            positions = eventually(lambda: resumed.poll(timeout_ms=100) is not None and resumed.assignment()
                                   and {tp: resumed.position(tp) for tp in resumed.assignment()},
                                   what="an assignment with positions")
            assert positions == {TopicPartition("payments", p): now[TopicPartition("payments", p)].offset
                                 for p in range(3)}
        finally:
            resumed.close(autocommit=False)
    finally:
        cluster.stop()
