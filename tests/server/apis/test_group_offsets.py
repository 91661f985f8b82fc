"""OffsetCommit and OffsetFetch through the broker's codec, every folding rule."""

import pytest

from tests.server.apis.admin_harness import (OffsetCommit, OffsetFetch, commit, commit_errors,
                                                  coordinator_of, join_as_only_member, not_coordinator_of,
                                                  send, start_cluster, topic_names, versions, wire_topic_id)


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=31)
    c.create_topic("orders", 3, 2)
    c.create_topic("payments", 1, 1)
    yield c
    c.stop()


def fetch_v1(cluster, broker, group_id, wanted):
    return send(cluster, broker, OffsetFetch[1](group_id=group_id, topics=[
        OffsetFetch.OffsetFetchRequestTopic(name=t, partition_indexes=ps) for t, ps in wanted.items()]))


def partitions_of(response):
    return [(t.name, p.partition_index, p.committed_offset, p.metadata, p.error_code)
            for t in response.topics for p in t.partitions]


# ---------------------------------------------------------------------------- OffsetCommit
def test_standalone_commit_then_fetch(cluster):
    coordinator = coordinator_of(cluster, "standalone")
    answer = commit(cluster, coordinator, "standalone", {("orders", 0): 42, ("orders", 2): 7})
    assert commit_errors(answer) == [("orders", 0, 0), ("orders", 2, 0)]
    fetched = fetch_v1(cluster, coordinator, "standalone", {"orders": [0, 1, 2]})
    assert partitions_of(fetched) == [("orders", 0, 42, "meta", 0), ("orders", 1, -1, "", 0),
                                      ("orders", 2, 7, "meta", 0)]


def test_unknown_topics_and_partitions_are_answered_by_the_broker_first(cluster):
    coordinator = coordinator_of(cluster, "mixed")
    answer = commit(cluster, coordinator, "mixed", {("orders", 9): 1, ("ghost", 0): 1, ("orders", 1): 5,
                                                    ("payments", 0): 3})
    # KafkaApis' builder: the broker's answers first (in request order), the coordinator's merged in.
    assert commit_errors(answer) == [("orders", 9, 3), ("orders", 1, 0), ("ghost", 0, 3), ("payments", 0, 0)]
    fetched = fetch_v1(cluster, coordinator, "mixed", {"orders": [1, 9], "ghost": [0]})
    assert [(t, p, o) for t, p, o, _, _ in partitions_of(fetched)] == [("orders", 1, 5), ("orders", 9, -1),
                                                                       ("ghost", 0, -1)]


def test_a_commit_with_only_unknown_partitions_never_reaches_the_coordinator(cluster):
    wrong = not_coordinator_of(cluster, "nowhere")
    answer = commit(cluster, wrong, "nowhere", {("ghost", 0): 1})
    assert commit_errors(answer) == [("ghost", 0, 3)]            # not NOT_COORDINATOR: filtered first


def test_commit_to_a_non_coordinator(cluster):
    wrong = not_coordinator_of(cluster, "misrouted")
    assert commit_errors(commit(cluster, wrong, "misrouted", {("orders", 0): 1})) == [("orders", 0, 16)]


@pytest.mark.parametrize("version", [2, 4, 7, 8, 9])
def test_member_commits_at_every_version(cluster, version):
    group_id = f"members-v{version}"
    coordinator, member_id, generation = join_as_only_member(cluster, group_id)
    answer = commit(cluster, coordinator, group_id, {("payments", 0): 11}, version=version,
                    generation=generation, member_id=member_id)
    assert commit_errors(answer) == [("payments", 0, 0)]
    wrong_generation = commit(cluster, coordinator, group_id, {("payments", 0): 12}, version=version,
                              generation=generation + 1, member_id=member_id)
    assert commit_errors(wrong_generation) == [("payments", 0, 22)]   # ILLEGAL_GENERATION


def test_v2_carries_a_retention_time(cluster):
    coordinator = coordinator_of(cluster, "retained")
    answer = send(cluster, coordinator, OffsetCommit[2](
        group_id="retained", generation_id_or_member_epoch=-1, member_id="", retention_time_ms=60_000,
        topics=[OffsetCommit.OffsetCommitRequestTopic(name="payments", partitions=[
            OffsetCommit.OffsetCommitRequestTopic.OffsetCommitRequestPartition(
                partition_index=0, committed_offset=5, committed_metadata=None)])]))
    assert commit_errors(answer) == [("payments", 0, 0)]


# ---------------------------------------------------------------------------- OffsetFetch
def test_v1_reports_group_errors_on_every_partition(cluster):
    wrong = not_coordinator_of(cluster, "v1-errors")
    fetched = fetch_v1(cluster, wrong, "v1-errors", {"orders": [0, 1]})
    assert partitions_of(fetched) == [("orders", 0, -1, "", 16), ("orders", 1, -1, "", 16)]


@pytest.mark.parametrize("version", [2, 5, 7])
def test_v2_to_v7_report_group_errors_at_the_top(cluster, version):
    wrong = not_coordinator_of(cluster, "v2-errors")
    fetched = send(cluster, wrong, OffsetFetch[version](group_id="v2-errors", topics=None))
    assert (fetched.error_code, fetched.topics) == (16, [])


def test_null_topics_fetch_every_committed_partition(cluster):
    coordinator = coordinator_of(cluster, "everything")
    commit(cluster, coordinator, "everything", {("orders", 2): 9, ("payments", 0): 4})
    fetched = send(cluster, coordinator, OffsetFetch[7](group_id="everything", topics=None, require_stable=True))
    assert fetched.error_code == 0
    assert sorted((t, p, o) for t, p, o, _, _ in partitions_of(fetched)) == [("orders", 2, 9), ("payments", 0, 4)]
    assert all(p.committed_leader_epoch == -1 for t in fetched.topics for p in t.partitions)


def test_v8_fetches_several_groups_each_with_its_own_error(cluster):
    here = coordinator_of(cluster, "batch-a")
    commit(cluster, here, "batch-a", {("orders", 0): 3})
    other = next(g for g in (f"batch-{i}" for i in range(100)) if coordinator_of(cluster, g) != here)
    Group = OffsetFetch.OffsetFetchRequestGroup
    fetched = send(cluster, here, OffsetFetch[8](require_stable=False, groups=[
        Group(group_id="batch-a", topics=[Group.OffsetFetchRequestTopics(name="orders", partition_indexes=[0])]),
        Group(group_id=other, topics=None)]))
    first, second = fetched.groups
    assert (first.group_id, first.error_code) == ("batch-a", 0)
    assert [(t.name, [(p.partition_index, p.committed_offset) for p in t.partitions]) for t in first.topics] == \
        [("orders", [(0, 3)])]
    assert (second.group_id, second.error_code, second.topics) == (other, 16, [])


def test_every_advertised_version_commits_and_fetches(cluster):
    coordinator = coordinator_of(cluster, "all-versions")
    for version in versions(8):
        answer = commit(cluster, coordinator, "all-versions", {("payments", 0): version}, version=version)
        assert commit_errors(answer, cluster if version >= 10 else None) == [("payments", 0, 0)], version
    Group = OffsetFetch.OffsetFetchRequestGroup
    wanted = [Group.OffsetFetchRequestTopics(name="payments", topic_id=wire_topic_id(cluster, "payments"),
                                             partition_indexes=[0])]
    for version in versions(9):
        request = OffsetFetch[version](
            group_id="all-versions", require_stable=True,
            topics=[OffsetFetch.OffsetFetchRequestTopic(name="payments", partition_indexes=[0])],
            groups=[Group(group_id="all-versions", member_id=None, member_epoch=-1, topics=wanted)])
        fetched = send(cluster, coordinator, request)
        topics = fetched.groups[0].topics if version >= 8 else fetched.topics
        names = topic_names(cluster, topics) if version >= 10 else [t.name for t in topics]
        assert [(n, [(p.partition_index, p.committed_offset) for p in t.partitions]) for n, t in zip(names, topics)] \
            == [("payments", [(0, max(versions(8)))])], version


# ---------------------------------------------------------------------------- v10: topics by id
def test_v10_commit_answers_unknown_ids_itself_one_entry_per_id(cluster):
    coordinator = coordinator_of(cluster, "by-id")
    ghost = wire_topic_id(cluster, "ghost")
    Topic, Partition = OffsetCommit.OffsetCommitRequestTopic, OffsetCommit.OffsetCommitRequestTopic.OffsetCommitRequestPartition

    def topic(topic_id, *indexes):
        return Topic(topic_id=topic_id, partitions=[Partition(partition_index=i, committed_offset=5,
                                                              committed_metadata="") for i in indexes])
    answer = send(cluster, coordinator, OffsetCommit[10](
        group_id="by-id", generation_id_or_member_epoch=-1, member_id="", topics=[
            topic(wire_topic_id(cluster, "orders"), 0, 9), topic(ghost, 0, 1),
            topic(wire_topic_id(cluster, "payments"), 0), topic(ghost, 3)]))
    # The broker's own answers first, in request order (one entry for the twice-named id), then the
    # coordinator's merged into them: UNKNOWN_TOPIC_ID is 100, UNKNOWN_TOPIC_OR_PARTITION 3.
    assert [(t.topic_id, [(p.partition_index, p.error_code) for p in t.partitions]) for t in answer.topics] == [
        (wire_topic_id(cluster, "orders"), [(9, 3), (0, 0)]), (ghost, [(0, 100), (1, 100), (3, 100)]),
        (wire_topic_id(cluster, "payments"), [(0, 0)])]


def test_v10_fetch_by_id_lists_unknown_ids_after_the_coordinators_answer(cluster):
    coordinator = coordinator_of(cluster, "fetch-by-id")
    commit(cluster, coordinator, "fetch-by-id", {("orders", 1): 8}, version=10)
    ghost = wire_topic_id(cluster, "ghost")
    Group = OffsetFetch.OffsetFetchRequestGroup
    fetched = send(cluster, coordinator, OffsetFetch[10](require_stable=False, groups=[Group(
        group_id="fetch-by-id", member_id=None, member_epoch=-1, topics=[
            Group.OffsetFetchRequestTopics(topic_id=ghost, partition_indexes=[0]),
            Group.OffsetFetchRequestTopics(topic_id=wire_topic_id(cluster, "orders"), partition_indexes=[1, 2])])]))
    (answer,) = fetched.groups
    assert answer.error_code == 0
    assert [(t.topic_id, [(p.partition_index, p.committed_offset, p.error_code) for p in t.partitions])
            for t in answer.topics] == [(wire_topic_id(cluster, "orders"), [(1, 8, 0), (2, -1, 0)]),
                                        (ghost, [(0, -1, 100)])]


def test_v10_fetch_of_every_partition_names_topics_by_id_and_skips_topics_without_one(cluster):
    coordinator = coordinator_of(cluster, "all-by-id")
    cluster.create_topic("short-lived", 1, 1)
    commit(cluster, coordinator, "all-by-id", {("orders", 0): 1, ("short-lived", 0): 2})
    cluster.delete_topic("short-lived")
    Group = OffsetFetch.OffsetFetchRequestGroup
    fetched = send(cluster, coordinator, OffsetFetch[10](require_stable=False, groups=[
        Group(group_id="all-by-id", member_id=None, member_epoch=-1, topics=None)]))
    (answer,) = fetched.groups
    assert [t.topic_id for t in answer.topics] == [wire_topic_id(cluster, "orders")]   # no id: left out

