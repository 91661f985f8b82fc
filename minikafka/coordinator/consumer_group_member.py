"""``ConsumerGroupMember``: one member of a KIP-848 consumer group, and its ``MemberState``.

Theory of operation
-------------------
In the consumer protocol a member never computes an assignment; it
heartbeats, and the coordinator answers with the partitions it may own.  The
member carries two epochs:

* **member epoch** -- the group epoch whose target assignment the member has
  reached (0 while joining; -1 after leaving; -2 for a static member that
  left temporarily and may come back with the same ``group.instance.id``);
* **previous member epoch** -- the epoch before the last bump, accepted once
  in a heartbeat in case the response carrying the bump was lost.

and a reconciliation state (Kafka's ``MemberState``, value as written in the
``ConsumerGroupCurrentMemberAssignment`` record):

=====================  =====  ==============================================
state                  value  meaning
=====================  =====  ==============================================
STABLE                 0      owns exactly what it was given for its epoch
UNREVOKED_PARTITIONS   1      must first give up ``partitions_pending_revocation``
UNRELEASED_PARTITIONS  2      waits for partitions another member still owns
UNKNOWN                127    read from a newer Kafka; the member is fenced
=====================  =====  ==============================================

Assigned partitions are kept with the epoch at which each was assigned
(``{topic_id: {partition: assignment_epoch}}``), as 4.3.1 records them.  The
member is an immutable value: every change makes a new one
(`dataclasses.replace`), so "did the heartbeat change the member?" is an
equality test, as in Kafka.

A member that speaks the classic protocol (it joined with JoinGroup, or was
a member of a classic group converted online) also carries its
``classic_member_metadata``: its session timeout and the protocols (name and
subscription bytes) it sent in JoinGroup.

Mirrors ``modern.consumer.ConsumerGroupMember``, ``modern.ModernGroupMember``
and ``modern.MemberState``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

from minikafka.common.uuid import Uuid
from minikafka.coordinator.consumer_group_records import ClassicMemberMetadata

JOIN_GROUP_MEMBER_EPOCH = 0
LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2

# {topic id: {partition: epoch at which it was assigned}}
PartitionEpochs = dict[Uuid, dict[int, int]]
# {topic id: partitions}
Assignment = dict[Uuid, frozenset[int]]


class MemberState(enum.Enum):
    STABLE = 0
    UNREVOKED_PARTITIONS = 1
    UNRELEASED_PARTITIONS = 2
    UNKNOWN = 127

    @classmethod
    def from_value(cls, value: int) -> "MemberState":
        for state in cls:
            if state.value == value:
                return state
        return cls.UNKNOWN


@dataclass(frozen=True)
class ConsumerGroupMember:
    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: MemberState = MemberState.STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str = ""                     # "" means none, as Kafka stores it
    server_assignor_name: str | None = None
    assigned_partitions: PartitionEpochs = field(default_factory=dict)
    partitions_pending_revocation: PartitionEpochs = field(default_factory=dict)
    classic_member_metadata: ClassicMemberMetadata | None = None   # set: it joined with JoinGroup

    @property
    def uses_classic_protocol(self) -> bool:
        return self.classic_member_metadata is not None

    def with_epoch(self, member_epoch: int) -> "ConsumerGroupMember":
        """Kafka's ``Builder.updateMemberEpoch``: the old epoch becomes the previous one."""
        return replace(self, previous_member_epoch=self.member_epoch, member_epoch=member_epoch)

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        return self.state is MemberState.STABLE and self.member_epoch == target_assignment_epoch

    def owned_partitions(self) -> set[tuple[Uuid, int]]:
        """Every partition the member may still be consuming: assigned plus pending revocation."""
        owned = {(t, p) for t, ps in self.assigned_partitions.items() for p in ps}
        owned |= {(t, p) for t, ps in self.partitions_pending_revocation.items() for p in ps}
        return owned
