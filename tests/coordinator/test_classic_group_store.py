"""ClassicGroupStore: the groups, timers and records the classic-group and offset logic share."""

import pytest

from minikafka.common.errors import Errors, KafkaException
from minikafka.coordinator.classic_group_store import ClassicGroupStore
from minikafka.coordinator.records import GroupMetadataKey, decode_record


class FakeContext:
    """The three doors the store uses: the clock, the timers, the writes."""

    def __init__(self):
        self.now = 1000
        self.timers: dict[tuple, int] = {}
        self.writes: list = []

    def schedule(self, key, delay_ms, fn):
        self.timers[key] = self.now + delay_ms

    def cancel(self, key):
        self.timers.pop(key, None)

    def write(self, records, on_done):
        self.writes.append(records)
        on_done(Errors.NONE)


def test_get_or_create_makes_an_empty_group_only_when_asked():
    store = ClassicGroupStore(FakeContext())
    assert store.get("g") is None
    with pytest.raises(KafkaException) as refused:
        store.get_or_create("g", create=False)
    assert refused.value.error is Errors.GROUP_ID_NOT_FOUND
    group = store.get_or_create("g", create=True)
    assert store.group("g") is group and store.groups == {"g": group}
    assert group.current_state_timestamp == 1000


def test_dropping_a_group_cancels_its_timers_and_only_that_incarnation():
    ctx = FakeContext()
    store = ClassicGroupStore(ctx)
    group = store.get_or_create("g", create=True)
    store.schedule(("join", "g"), 3000, lambda: None)
    store.schedule(("sync", "g"), 3000, lambda: None)
    store.drop_group(group, Errors.COORDINATOR_NOT_AVAILABLE)
    assert store.get("g") is None and ctx.timers == {}
    again = store.get_or_create("g", create=True)
    store.drop_group(group, Errors.COORDINATOR_NOT_AVAILABLE)      # the old one: the new group stays
    assert store.get("g") is again


def test_removed_groups_come_back_unless_the_id_was_reused():
    store = ClassicGroupStore(FakeContext())
    group = store.get_or_create("g", create=True)
    assert store.remove_group("g") is group and store.get("g") is None
    store.restore_group(group)
    assert store.get("g") is group
    store.remove_group("g")
    newer = store.get_or_create("g", create=True)
    store.restore_group(group)
    assert store.get("g") is newer


def test_persist_writes_the_group_as_one_group_metadata_record():
    ctx = FakeContext()
    store = ClassicGroupStore(ctx)
    group = store.get_or_create("g", create=True)
    outcome = []
    store.persist(group, {}, outcome.append)
    assert outcome == [Errors.NONE]
    [[(key, value)]] = ctx.writes
    assert decode_record(key, value).key == GroupMetadataKey("g")
