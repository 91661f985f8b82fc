"""``ClassicGroupStore``: the classic groups of one ``__consumer_offsets`` partition, their timers, their records.

Theory of operation
-------------------
Three collaborators act on the same classic groups: `GroupMetadataManager`
(SyncGroup, Heartbeat, LeaveGroup, queries, replay), `ClassicGroupJoin`
(JoinGroup) with `ClassicGroupRebalance` (the timed machinery), and
`OffsetMetadataManager` (OffsetCommit needs the group's generation, and a
commit without membership creates an Empty "simple" group).  What they share
is this small object, not one another:

* **the groups** by id (`get`, `group`, `get_or_create`, and the removals:
  `remove_group` for a deleted or expired group, `restore_group` when its
  tombstone failed, `drop_group` when the record that created it failed);
* **the timers**, keyed by tuples such as ``("join", group)``,
  ``("sync", group)``, ``("heartbeat", group, member)`` (`schedule`,
  `cancel`);
* **the records out**: `persist` writes a group as a GroupMetadata record
  (members and their assignments), `write` any records.

Timers and writes go through the shard's `CoordinatorContext`, so they stop
when the partition is unloaded.  The store decides nothing: when to rebalance,
whom to fence and what to answer stay with the collaborators above.

Kafka has no class of this name: it stands for the state a
``GroupMetadataManager`` keeps for classic groups (its ``groups`` timeline
map) with the shard's ``CoordinatorTimer`` and the records a
``CoordinatorResult`` carries out; ``group_metadata_value`` mirrors
``GroupCoordinatorRecordHelpers.newGroupMetadataRecord``.
"""

from __future__ import annotations

from typing import Callable

from minikafka.common.errors import Errors, exception_for
from minikafka.coordinator.classic_group import ClassicGroup, IllegalStateException
from minikafka.coordinator.coordinator_context import CoordinatorContext, Record, WriteCallback
from minikafka.coordinator.records import GroupMetadataValue, MemberMetadata, group_metadata_record
from minikafka.coordinator.requests import JoinGroupResponse

GroupIdNotFoundException = exception_for(Errors.GROUP_ID_NOT_FOUND)


def group_metadata_value(group: ClassicGroup, assignment: dict[str, bytes]) -> GroupMetadataValue:
    """The GroupMetadata record of ``group`` with these assignments (newGroupMetadataRecord)."""
    members = []
    for m in group.all_members():
        if group.protocol_name is None:
            raise IllegalStateException(
                "Attempted to write non-empty group metadata with no defined protocol.")
        if m.member_id not in assignment:
            raise IllegalStateException(f"Attempted to write member {m.member_id} of group "
                                        f"{group.group_id} with no assignment.")
        members.append(MemberMetadata(m.member_id, m.group_instance_id, m.client_id, m.client_host,
                                      m.rebalance_timeout_ms, m.session_timeout_ms,
                                      m.metadata(group.protocol_name), assignment[m.member_id]))
    return GroupMetadataValue(group.protocol_type or "", group.generation_id, group.protocol_name,
                              group.leader_id, group.current_state_timestamp, tuple(members))


class ClassicGroupStore:
    """The shard's classic groups by id, with the timers and the record writes that go with them."""

    def __init__(self, ctx: CoordinatorContext):
        self._ctx = ctx                               # timers, writes and the clock of the shard
        self.groups: dict[str, ClassicGroup] = {}    # every classic group of this partition, by id

    # ------------------------------------------------------------------ the groups
    def get(self, group_id: str) -> ClassicGroup | None:
        return self.groups.get(group_id)

    def group(self, group_id: str) -> ClassicGroup:
        group = self.groups.get(group_id)
        if group is None:
            raise GroupIdNotFoundException(f"Group {group_id} not found.")
        return group

    def get_or_create(self, group_id: str, create: bool) -> ClassicGroup:
        group = self.groups.get(group_id)
        if group is None:
            if not create:
                raise GroupIdNotFoundException(f"Classic group {group_id} not found.")
            group = self.groups[group_id] = ClassicGroup(group_id, self._ctx.now)
        return group

    def remove_group(self, group_id: str) -> ClassicGroup | None:
        """Take an Empty group out at once (delete/expiry); its tombstone is being written."""
        group = self.groups.pop(group_id, None)
        if group is not None:
            for member_id in group.pending_join_members:
                self.cancel(("heartbeat", group_id, member_id))
            self.cancel(("join", group_id))
        return group

    def restore_group(self, group: ClassicGroup) -> None:
        """Undo `remove_group` after its tombstone failed to write, unless the id was reused."""
        self.groups.setdefault(group.group_id, group)

    def drop_group(self, group: ClassicGroup, error: Errors) -> None:
        """Forget a group whose creation could not be written (Kafka reverts its snapshot)."""
        if self.groups.get(group.group_id) is not group:
            return
        del self.groups[group.group_id]
        self.cancel(("join", group.group_id))
        self.cancel(("sync", group.group_id))
        for member in group.all_members():
            self.cancel(("heartbeat", group.group_id, member.member_id))
            group.complete_join(member, JoinGroupResponse(error))
        for member_id in group.pending_join_members:
            self.cancel(("heartbeat", group.group_id, member_id))

    # ------------------------------------------------------------------ the timers
    def schedule(self, key: tuple, delay_ms: int, fn: Callable[[], None]) -> None:
        """Run ``fn`` after ``delay_ms`` unless rescheduled, cancelled or the partition unloaded first."""
        self._ctx.schedule(key, delay_ms, fn)

    def cancel(self, key: tuple) -> None:
        self._ctx.cancel(key)

    # ------------------------------------------------------------------ the records out
    def persist(self, group: ClassicGroup, assignment: dict[str, bytes], on_done: WriteCallback) -> None:
        """Write ``group`` with ``assignment`` as a GroupMetadata record; ``on_done(error)`` once settled."""
        record = group_metadata_record(group.group_id, group_metadata_value(group, assignment))
        self._ctx.write([record], on_done)

    def write(self, records: list[Record], on_done: WriteCallback) -> None:
        self._ctx.write(records, on_done)
