"""OffsetDelete on the group coordinator: group-level refusals, subscribed topics, tombstones and replay."""

from minikafka.common.errors import Errors
from minikafka.coordinator.byte_buffer_accessor import Writer
from minikafka.coordinator.classic_group import ClassicGroup, ClassicGroupState, subscribed_topics_of
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.records import OffsetCommitKey, decode_record
from minikafka.coordinator.requests import (
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic, OffsetDeleteRequest,
    OffsetDeleteRequestTopic, OffsetDeleteResponse, OffsetDeleteResponsePartition, OffsetDeleteResponseTopic,
)

from .harness import GROUP, Box, Consumer, Harness, form_group

S = ClassicGroupState


def subscription(*topics: str, user_data: bool = True) -> bytes:
    """A consumer's ``ConsumerProtocolSubscription`` at version 0."""
    writer = Writer().int16(0).array_length(len(topics))
    for topic in topics:
        writer.string(topic)
    return writer.int32(-1).bytes() if user_data else writer.bytes()


def _harness() -> Harness:
    h = Harness(config=GroupCoordinatorConfig(initial_rebalance_delay_ms=3000))
    h.elect_all()
    return h


def _delete(h: Harness, topics: dict[str, tuple[int, ...]], group: str = GROUP, settle: bool = True) -> Box:
    box = Box()
    h.coordinator.handle_offset_delete(OffsetDeleteRequest(group, tuple(
        OffsetDeleteRequestTopic(t, ps) for t, ps in topics.items())), box)
    if settle:
        h.settle()
    return box


def _standalone_commits(h: Harness, offsets: dict[tuple[str, int], int]) -> None:
    assert Consumer(h, "solo").commit(offsets, generation=-1, member_id="").value.topics


def _answer(*topics: tuple[str, tuple[tuple[int, Errors], ...]]) -> OffsetDeleteResponse:
    return OffsetDeleteResponse(topics=tuple(OffsetDeleteResponseTopic(t, tuple(
        OffsetDeleteResponsePartition(p, e) for p, e in parts)) for t, parts in topics))


OK = Errors.NONE


def test_an_empty_group_loses_the_offsets_asked_for_and_keeps_the_others():
    h = _harness()
    _standalone_commits(h, {("t", 0): 5, ("t", 1): 6, ("u", 0): 7})
    before = len(h.log[h.partition])
    box = _delete(h, {"t": (0, 1, 9)})
    assert box.value == _answer(("t", ((0, OK), (1, OK), (9, OK))))
    # A tombstone per committed offset; partition 9 had nothing committed: answered NONE, nothing written.
    written = [decode_record(k, v) for k, v in h.log[h.partition][before:]]
    assert [(r.key, r.value) for r in written] == [(OffsetCommitKey(GROUP, "t", 0), None),
                                                   (OffsetCommitKey(GROUP, "t", 1), None)]
    assert h.coordinator.committed_offsets(GROUP) == {("u", 0): 7}
    assert "group_offsets_deleted" in h.kinds()


def test_the_offsets_stay_gone_after_the_partition_is_loaded_again():
    h = _harness()
    _standalone_commits(h, {("t", 0): 5, ("u", 0): 7})
    _delete(h, {"t": (0,)})
    again = Harness(log=h.log)
    again.elect_all(epoch=1)
    assert again.coordinator.committed_offsets(GROUP) == {("u", 0): 7}


def test_nothing_changes_before_the_tombstones_are_committed_and_a_failed_write_answers_for_the_group():
    h = _harness()
    _standalone_commits(h, {("t", 0): 5})
    box = _delete(h, {"t": (0,)}, settle=False)
    assert not box.done and h.coordinator.committed_offsets(GROUP) == {("t", 0): 5}
    h.fail_appends(Errors.NOT_ENOUGH_REPLICAS)
    assert box.value == OffsetDeleteResponse(Errors.COORDINATOR_NOT_AVAILABLE)
    assert h.coordinator.committed_offsets(GROUP) == {("t", 0): 5}


def test_a_commit_still_being_written_gets_a_tombstone_after_it():
    h = _harness()
    _standalone_commits(h, {("t", 0): 5})
    commit = Box()
    h.coordinator.handle_offset_commit(OffsetCommitRequest(GROUP, (OffsetCommitRequestTopic(
        "t", (OffsetCommitRequestPartition(1, 8, -1, ""),)),), -1, "", None), commit)
    assert not commit.done                                   # written, not yet committed
    box = _delete(h, {"t": (0, 1)})
    assert commit.done and box.value == _answer(("t", ((0, OK), (1, OK))))
    assert h.coordinator.committed_offsets(GROUP) == {}


def test_a_missing_group_is_group_id_not_found_and_an_empty_id_invalid():
    h = _harness()
    assert _delete(h, {"t": (0,)}, group="nobody").value == OffsetDeleteResponse(Errors.GROUP_ID_NOT_FOUND)
    assert _delete(h, {"t": (0,)}, group="").value == OffsetDeleteResponse(Errors.INVALID_GROUP_ID)


def test_group_errors_of_the_coordinator_itself():
    h = Harness()
    assert _delete(h, {"t": (0,)}).value == OffsetDeleteResponse(Errors.NOT_COORDINATOR)
    h.coordinator.on_elected(h.partition, 0)
    assert _delete(h, {"t": (0,)}).value == OffsetDeleteResponse(Errors.COORDINATOR_LOAD_IN_PROGRESS)
    h.coordinator.shutdown()
    assert _delete(h, {"t": (0,)}, group="").value == OffsetDeleteResponse(Errors.COORDINATOR_NOT_AVAILABLE)


def test_a_live_consumer_group_refuses_its_subscribed_topics_partition_by_partition():
    h = _harness()
    member = Consumer(h, "c1", subscription=subscription("t"))
    form_group(h, [member])
    assert member.commit({("t", 0): 3, ("old", 0): 4}).value.topics
    box = _delete(h, {"t": (0, 1), "old": (0,)})
    assert box.value == _answer(("t", ((0, Errors.GROUP_SUBSCRIBED_TO_TOPIC), (1, Errors.GROUP_SUBSCRIBED_TO_TOPIC))),
                                ("old", ((0, OK),)))
    assert h.coordinator.committed_offsets(GROUP) == {("t", 0): 3}


def test_a_live_group_of_another_protocol_type_is_non_empty_group():
    h = _harness()
    member = Consumer(h, "c1", subscription=subscription("t"))
    form_group(h, [member])
    h.group().protocol_type = "connect"                    # as a Connect worker group would be
    assert _delete(h, {"t": (0,)}).value == OffsetDeleteResponse(Errors.NON_EMPTY_GROUP)


def test_unreadable_subscriptions_count_as_subscribed_to_everything():
    h = _harness()
    form_group(h, [Consumer(h, "c1", subscription=b"\x00\x00garbage")])
    assert h.group().subscribed_topics is None
    assert _delete(h, {"any": (0,)}).value == _answer(("any", ((0, Errors.GROUP_SUBSCRIBED_TO_TOPIC),)))


def test_a_group_that_emptied_may_lose_the_offsets_of_its_former_topics():
    h = _harness()
    member = Consumer(h, "c1", subscription=subscription("t"))
    form_group(h, [member])
    member.commit({("t", 0): 3})
    member.leave()
    assert h.group().in_state(S.EMPTY) and h.group().subscribed_topics == frozenset()
    assert _delete(h, {"t": (0,)}).value == _answer(("t", ((0, OK),)))
    assert h.coordinator.committed_offsets(GROUP) == {}


def test_a_loaded_group_knows_its_members_subscriptions():
    h = _harness()
    form_group(h, [Consumer(h, "c1", subscription=subscription("t", "u"))])
    again = Harness(log=h.log)
    again.elect_all(epoch=1)
    assert again.group().subscribed_topics == frozenset({"t", "u"})


def test_subscriptions_are_read_as_version_0_and_must_be_whole():
    assert subscribed_topics_of(subscription("a", "b")) == ["a", "b"]
    newer = Writer().int16(3).array_length(1).string("a").int32(-1).int32(-1).bytes()   # extra fields follow
    assert subscribed_topics_of(newer) == ["a"]
    for broken in (b"", b"\x00", subscription("a", user_data=False)):
        try:
            subscribed_topics_of(broken)
        except ValueError:
            continue
        raise AssertionError(f"{broken!r} parsed")


def test_is_subscribed_to_topic_without_a_known_set_follows_the_protocol_type():
    group = ClassicGroup("g", 0)
    assert not group.is_subscribed_to_topic("t")            # a simple group: no protocol type
    group.protocol_type = "consumer"
    assert group.is_subscribed_to_topic("t")                 # a consumer group that never completed a join
