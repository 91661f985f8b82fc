"""The state of one partition in the metadata image, and how a PartitionChangeRecord moves it.

Theory of operation
-------------------
A `PartitionRecord` sets a partition's whole state: its replicas (in
preferred order; the first is the *preferred leader*), the in-sync replicas,
the leader, the leader epoch and the partition epoch, the log directory of
each replica, replicas being added or removed by a reassignment, and the
eligible leader replicas (ELR, KIP-966).

After that the controller only writes `PartitionChangeRecord` deltas, and
`PartitionRegistration.merge` applies one:

* a field left at its "no change" value (None, leader -2, recovery state -1)
  keeps the old value;
* **any** leader value other than -2 bumps the leader epoch by one, even when
  it names the same leader (that is how the controller forces a new epoch);
* **every** change bumps the partition epoch by one;
* when the replicas change and no directories are given, a replica that
  stays keeps its directory and a new one gets ``DirectoryId.UNASSIGNED``.

Mirrors ``org.apache.kafka.metadata.PartitionRegistration``,
``LeaderRecoveryState`` and ``org.apache.kafka.common.DirectoryId``.
Simplified: Kafka's IllegalArgumentException is Python's ValueError here,
with Kafka's message.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.uuid import Uuid
from minikafka.metadata.records import (NO_LEADER, NO_LEADER_CHANGE, PartitionChangeRecord,
                                        PartitionRecord)


class DirectoryId:
    """Reserved log-directory ids (the first 100 ids are reserved)."""

    MIGRATING = Uuid(0, 0)    # the replica's directory is not known (records from before JBOD tracking)
    UNASSIGNED = Uuid(0, 1)   # a new replica the broker has not placed in a directory yet
    LOST = Uuid(0, 2)         # the replica's directory went offline


class LeaderRecoveryState:
    """Whether the leader came from an unclean election and is still recovering."""

    RECOVERED = 0
    RECOVERING = 1
    NO_CHANGE = -1            # PartitionChangeRecord: "unchanged"

    @staticmethod
    def of(value: int) -> int:
        if value not in (LeaderRecoveryState.RECOVERED, LeaderRecoveryState.RECOVERING):
            raise ValueError(f"Value {value} is not a valid leader recovery state")
        return value

    @staticmethod
    def name(value: int) -> str:
        return "RECOVERED" if value == LeaderRecoveryState.RECOVERED else "RECOVERING"


@dataclass(frozen=True, slots=True)
class PartitionRegistration:
    replicas: tuple[int, ...]             # assigned replicas, preferred leader first
    directories: tuple[Uuid, ...]         # log directory of each replica, same order as replicas
    isr: tuple[int, ...]                  # in-sync replicas, in the order the controller wrote them
    removing_replicas: tuple[int, ...]    # replicas a reassignment is removing
    adding_replicas: tuple[int, ...]      # replicas a reassignment is adding
    leader: int                           # broker id of the leader, -1 if none
    leader_recovery_state: int            # LeaderRecoveryState.RECOVERED / RECOVERING
    leader_epoch: int                     # bumped on every leader election
    partition_epoch: int                  # bumped on every change of this partition
    elr: tuple[int, ...] = ()             # eligible leader replicas (KIP-966)
    last_known_elr: tuple[int, ...] = ()  # last known ELR members

    def __post_init__(self) -> None:
        if self.directories and len(self.directories) != len(self.replicas):
            raise ValueError("The lengths for replicas and directories do not match.")

    @classmethod
    def from_record(cls, record: PartitionRecord) -> "PartitionRegistration":
        if record.directories and len(record.directories) != len(record.replicas):
            raise ValueError(f"The lengths for replicas and directories do not match: {record}")
        return cls(
            replicas=record.replicas,
            directories=record.directories or (DirectoryId.MIGRATING,) * len(record.replicas),
            isr=record.isr, removing_replicas=record.removing_replicas,
            adding_replicas=record.adding_replicas, leader=record.leader,
            leader_recovery_state=LeaderRecoveryState.of(record.leader_recovery_state),
            leader_epoch=record.leader_epoch, partition_epoch=record.partition_epoch,
            elr=record.eligible_leader_replicas or (), last_known_elr=record.last_known_elr or ())

    def merge(self, change: PartitionChangeRecord) -> "PartitionRegistration":
        """The registration after ``change`` (see the module docstring for the rules)."""
        replicas = self.replicas if change.replicas is None else change.replicas
        if change.directories:
            if change.replicas is not None and len(change.directories) != len(change.replicas):
                raise ValueError(f"The lengths for replicas and directories do not match: {change}")
            directories = change.directories
        elif change.replicas is not None:
            directories = self._directories_for(change.replicas)
        else:
            directories = self.directories
        if change.leader == NO_LEADER_CHANGE:
            leader, leader_epoch = self.leader, self.leader_epoch
        else:
            leader, leader_epoch = change.leader, self.leader_epoch + 1
        recovery = self.leader_recovery_state
        if change.leader_recovery_state != LeaderRecoveryState.NO_CHANGE:
            recovery = LeaderRecoveryState.of(change.leader_recovery_state)
        return PartitionRegistration(
            replicas=replicas,
            directories=directories or (DirectoryId.MIGRATING,) * len(replicas),
            isr=self.isr if change.isr is None else change.isr,
            removing_replicas=self._or(change.removing_replicas, self.removing_replicas),
            adding_replicas=self._or(change.adding_replicas, self.adding_replicas),
            leader=leader, leader_recovery_state=recovery, leader_epoch=leader_epoch,
            partition_epoch=self.partition_epoch + 1,
            elr=self._or(change.eligible_leader_replicas, self.elr),
            last_known_elr=self._or(change.last_known_elr, self.last_known_elr))

    @staticmethod
    def _or(new: tuple[int, ...] | None, old: tuple[int, ...]) -> tuple[int, ...]:
        return old if new is None else new

    def _directories_for(self, new_replicas: tuple[int, ...]) -> tuple[Uuid, ...]:
        # DirectoryId.createDirectoriesFrom: replicas that stay keep their directory.
        known = dict(zip(self.replicas, self.directories))
        return tuple(known.get(replica, DirectoryId.UNASSIGNED) for replica in new_replicas)

    # ------------------------------------------------------------------ queries
    def has_leader(self) -> bool:
        return self.leader != NO_LEADER

    def preferred_replica(self) -> int:
        return self.replicas[0] if self.replicas else NO_LEADER

    def has_preferred_leader(self) -> bool:
        return self.leader == self.preferred_replica()

    def is_replica(self, broker_id: int) -> bool:
        return broker_id in self.replicas

    def directory(self, replica: int) -> Uuid:
        for broker_id, directory in zip(self.replicas, self.directories):
            if broker_id == replica:
                return directory
        raise ValueError(f"Replica {replica} is not assigned to this partition.")

    def is_reassigning(self) -> bool:
        return bool(self.adding_replicas or self.removing_replicas)

    def to_record(self, topic_id: Uuid, partition_id: int) -> PartitionRecord:
        """The PartitionRecord that recreates this state (as a snapshot writes it)."""
        return PartitionRecord(
            partition_id=partition_id, topic_id=topic_id, replicas=self.replicas, isr=self.isr,
            removing_replicas=self.removing_replicas, adding_replicas=self.adding_replicas,
            leader=self.leader, leader_recovery_state=self.leader_recovery_state,
            leader_epoch=self.leader_epoch, partition_epoch=self.partition_epoch,
            directories=self.directories,
            eligible_leader_replicas=self.elr or None, last_known_elr=self.last_known_elr or None)
