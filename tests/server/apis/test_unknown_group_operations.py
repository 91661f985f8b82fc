"""Operations on a group that does not exist: Kafka's errors, and nothing written or created."""

import pytest

from tests.server.apis.admin_harness import (DeleteGroups, DescribeGroups, Heartbeat, LeaveGroup,
                                                  ListGroups, OffsetFetch, SyncGroup, coordinator_of,
                                                  send, start_cluster)

GROUP = "no-such-group"


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=43)
    c.create_topic("orders", 2, 2)
    yield c
    c.stop()


def offsets_log_end(cluster) -> int:
    topic = cluster.snapshot().topic("__consumer_offsets")
    return sum(r.log_end_offset or 0 for p in topic.partitions for r in p.replica_states)


def group_ids(cluster) -> list[str]:
    return [g.group_id for b in cluster.broker_ids
            for g in send(cluster, b, ListGroups[4](states_filter=[])).groups]


def test_every_operation_on_an_unknown_group_fails_and_changes_nothing(cluster):
    coordinator = coordinator_of(cluster, GROUP)
    before = offsets_log_end(cluster)
    described = send(cluster, coordinator, DescribeGroups[6](
        groups=[GROUP], include_authorized_operations=False)).groups[0]
    assert (described.error_code, described.error_message, described.group_state) == \
        (69, f"Group {GROUP} not found.", "Dead")                       # GROUP_ID_NOT_FOUND
    deleted = send(cluster, coordinator, DeleteGroups[2](groups_names=[GROUP])).results[0]
    assert deleted.error_code == 69
    heartbeat = send(cluster, coordinator, Heartbeat[4](
        group_id=GROUP, generation_id=1, member_id="m-1", group_instance_id=None))
    assert heartbeat.error_code == 25                                   # UNKNOWN_MEMBER_ID
    synced = send(cluster, coordinator, SyncGroup[5](
        group_id=GROUP, generation_id=1, member_id="m-1", group_instance_id=None,
        protocol_type="consumer", protocol_name="range", assignments=[]))
    assert synced.error_code == 25
    left = send(cluster, coordinator, LeaveGroup[4](
        group_id=GROUP, members=[LeaveGroup.MemberIdentity(member_id="m-1", group_instance_id=None)]))
    assert (left.error_code, [m.error_code for m in left.members]) == (0, [25])
    fetched = send(cluster, coordinator, OffsetFetch[7](
        group_id=GROUP, topics=[OffsetFetch.OffsetFetchRequestTopic(name="orders", partition_indexes=[0])],
        require_stable=False))
    assert (fetched.error_code, fetched.topics[0].partitions[0].committed_offset) == (0, -1)
    cluster.run_for(1_000)
    assert GROUP not in group_ids(cluster)
    assert offsets_log_end(cluster) == before
