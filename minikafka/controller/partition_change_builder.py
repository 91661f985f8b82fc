"""``PartitionChangeBuilder``: turn a wanted partition state into one PartitionChangeRecord.

Theory of operation
-------------------
Every change to a partition (a new ISR from its leader, a broker fenced or
unfenced, a preferred or unclean election, a reassignment step) goes through
this builder.  It starts from the partition's current registration, takes the
*targets* the caller sets (ISR, replicas, adding/removing replicas, election
type), and ``build()`` returns the single `PartitionChangeRecord` that gets
there, or None when nothing would change.  Steps, in Kafka's order:

1. **Complete a reassignment** if the target ISR now holds every target
   replica (see `partition_reassignment_replicas`).
2. **Elect a leader.**  ONLINE and UNCLEAN keep the current leader if it is
   still in the target ISR and acceptable (unfenced, not shutting down);
   otherwise the first replica, in assignment order, that is in the target ISR
   and acceptable; otherwise, for UNCLEAN only, the first acceptable replica
   even outside the ISR -- the ISR is then forced to that replica and the
   leader recovery state to RECOVERING: records the old leader had and the
   new one lacks are lost.  PREFERRED takes ``replicas[0]`` if it is valid,
   else behaves like ONLINE.  No candidate: leader -1 (offline).
3. **Bump the leader epoch for a reassignment** that removes replicas, by
   setting ``leader`` even if it is unchanged (the leader epoch goes up by one
   whenever the record's ``leader`` is not -2).
4. **Set the ISR** if it changed -- but never to an empty list: without ELR
   the last ISR member stays in the ISR when it is fenced, so it can become
   leader again as soon as it comes back.
5. **Set replicas / adding / removing / directories** if they changed.

Whenever a record is applied, the partition epoch goes up by one; the leader
epoch goes up by one when ``leader`` is set.  An ISR shrink does not bump the
leader epoch at ``metadata.version`` 3.6-IV0 and later (KAFKA-15021), which
includes every 4.x version.

Eligible leader replicas (KIP-966), when ``eligible.leader.replicas.version``
is 1 (``set_elr_enabled(True)``, with the topic's effective
``min.insync.replicas`` as ``min_isr``):

* **Keeping the ELR.**  While the target ISR holds at least ``min_isr``
  replicas the ELR and the LastKnownElr are empty.  Below it, the brokers
  leave the high watermark where it is, so every replica that was in the ISR
  still has every committed record: the ELR becomes (old ELR + old ISR) minus
  the target ISR minus replicas that restarted after an unclean shutdown.
  The ISR may now be written empty.
* **Electing from it.**  A replica of the ELR is a valid leader when the
  target ISR is empty; the election is clean, the new leader becomes the
  whole ISR and leaves the ELR.
* **The last known leader.**  When the ISR and the ELR are both empty, the
  partition remembers its last leader in ``LastKnownElr`` (written when the
  ISR first becomes empty).  Once that broker is back and acceptable it is
  elected -- counted as unclean (ISR forced to it, RECOVERING), even when
  ``unclean.leader.election.enable`` is false.  Any election that is unclean
  empties the ELR and the LastKnownElr; a partition with a leader again gets
  its LastKnownElr emptied.
* Sets (ELR, LastKnownElr) are written in ``java.util.HashSet`` order, as
  Kafka collects them.

Mirrors ``org.apache.kafka.controller.PartitionChangeBuilder`` (Kafka 4.3),
with ``useLastKnownLeaderInBalancedRecovery`` on, as its controller runs it,
and the 4.1 fix that a fenced last known leader is not elected (KAFKA-19522).
Simplified: offline log directories are not modelled, so a replica's
directory never makes it unacceptable as a leader.  Without ELR (the
sandbox's default for now, ``eligible.leader.replicas.version=0``) the last
ISR member stays in the ISR when it is fenced, as in Kafka.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Callable, Sequence

from minikafka.common.java_hashing import hashmap_order
from minikafka.common.uuid import Uuid
from minikafka.controller.partition_reassignment_replicas import PartitionReassignmentReplicas
from minikafka.metadata.partition_registration import PartitionRegistration

if TYPE_CHECKING:
    from minikafka.metadata.records import PartitionChangeRecord

NO_LEADER = -1
NO_LEADER_CHANGE = -2
RECOVERED = 0        # LeaderRecoveryState.RECOVERED
RECOVERING = 1       # LeaderRecoveryState.RECOVERING
NO_RECOVERY_CHANGE = -1

_Change = dict[str, Any]
"""The fields of the PartitionChangeRecord being built, by keyword (absent: unchanged)."""


class Election(enum.Enum):
    """``PartitionChangeBuilder.Election``."""

    PREFERRED = "PREFERRED"   # move leadership to replicas[0] if it is in the ISR
    ONLINE = "ONLINE"         # keep the partition online from the ISR
    UNCLEAN = "UNCLEAN"       # prefer the ISR, but go outside it rather than stay offline


class PartitionChangeBuilder:
    """Collects targets for one partition; ``build()`` gives the record (or None)."""

    def __init__(self, partition: PartitionRegistration, topic_id: Uuid, partition_id: int,
                 is_acceptable_leader: Callable[[int], bool],
                 default_dir: Callable[[int], Uuid] = lambda broker: Uuid.ZERO, min_isr: int = 1):
        self.partition = partition                              # current PartitionRegistration
        self.topic_id = topic_id
        self.partition_id = partition_id
        self.is_acceptable_leader = is_acceptable_leader       # unfenced and not shutting down
        self.default_dir = default_dir                         # directory for a newly added replica
        self.target_isr = list(partition.isr)
        self.target_replicas = list(partition.replicas)
        self.target_removing = list(partition.removing_replicas)
        self.target_adding = list(partition.adding_replicas)
        self.target_leader_recovery_state = partition.leader_recovery_state
        self.election = Election.ONLINE
        self.unclean = False                                   # set by build(): leader came from outside the ISR
        self.min_isr = min_isr                                 # the topic's effective min.insync.replicas
        self.elr_enabled = False                               # eligible.leader.replicas.version >= 1
        self.target_elr = list(partition.elr)
        self.target_last_known_elr = list(partition.last_known_elr)
        self.unclean_shutdown_replicas: list[int] = []         # restarted without a clean shutdown

    # ------------------------------------------------------------------ setters (chainable)
    def set_target_isr(self, isr: Sequence[int]) -> "PartitionChangeBuilder":
        self.target_isr = list(isr)
        return self

    def set_target_replicas(self, replicas: Sequence[int]) -> "PartitionChangeBuilder":
        self.target_replicas = list(replicas)
        return self

    def set_target_removing(self, removing: Sequence[int]) -> "PartitionChangeBuilder":
        self.target_removing = list(removing)
        return self

    def set_target_adding(self, adding: Sequence[int]) -> "PartitionChangeBuilder":
        self.target_adding = list(adding)
        return self

    def set_target_leader_recovery_state(self, state: int) -> "PartitionChangeBuilder":
        self.target_leader_recovery_state = state
        return self

    def set_election(self, election: Election) -> "PartitionChangeBuilder":
        self.election = election
        return self

    def set_elr_enabled(self, enabled: bool) -> "PartitionChangeBuilder":
        self.elr_enabled = enabled
        return self

    def set_unclean_shutdown_replicas(self, replicas: Sequence[int]) -> "PartitionChangeBuilder":
        self.unclean_shutdown_replicas = list(replicas)
        return self

    # ------------------------------------------------------------------ election
    def _is_valid_new_leader(self, replica: int) -> bool:
        # An ELR member may lead only when nobody is left in the ISR.
        eligible = replica in self.target_isr or (not self.target_isr and replica in self.target_elr)
        return eligible and self.is_acceptable_leader(replica)

    def _can_elect_last_known_leader(self) -> bool:
        if not self.elr_enabled or self.target_elr or self.target_isr:
            return False
        # LastKnownElr holds the last leader only while it has exactly one member.
        known = self.partition.last_known_elr
        return len(known) == 1 and self.is_acceptable_leader(known[0])

    def elect_leader(self) -> tuple[int, bool]:
        """(new leader or -1, whether the choice was unclean)."""
        if self.election is Election.PREFERRED:
            return self._elect_preferred_leader()
        return self._elect_any_leader()

    def _elect_preferred_leader(self) -> tuple[int, bool]:
        preferred = self.target_replicas[0]
        if self._is_valid_new_leader(preferred):
            return preferred, False
        if self._is_valid_new_leader(self.partition.leader):
            return self.partition.leader, False
        for replica in self.target_replicas[1:]:
            if self._is_valid_new_leader(replica):
                return replica, False
        if self._can_elect_last_known_leader():
            return self.partition.last_known_elr[0], True
        return NO_LEADER, False

    def _elect_any_leader(self) -> tuple[int, bool]:
        if self._is_valid_new_leader(self.partition.leader):
            return self.partition.leader, False     # a valid leader is never moved
        for replica in self.target_replicas:
            if self._is_valid_new_leader(replica):
                return replica, False
        if self._can_elect_last_known_leader():
            return self.partition.last_known_elr[0], True
        if self.election is Election.UNCLEAN:
            for replica in self.target_replicas:
                if self.is_acceptable_leader(replica):
                    return replica, True
        return NO_LEADER, False

    # ------------------------------------------------------------------ build
    def build(self) -> PartitionChangeRecord | None:
        """The PartitionChangeRecord that reaches the targets, or None if nothing changes."""
        from minikafka.metadata.records import PartitionChangeRecord

        self._complete_reassignment_if_needed()
        self._populate_target_elr()
        change: _Change = {}
        self._try_election(change)
        if "leader" not in change and not set(self.partition.replicas) <= set(self.target_replicas):
            # Replicas are being dropped: force a leader epoch bump so they stop following.
            change["leader"] = self.partition.leader
        self._update_record_elr(change)
        if ("isr" not in change and (self.target_isr or self.elr_enabled)
                and self.target_isr != list(self.partition.isr)):
            change["isr"] = list(self.target_isr)      # with ELR the ISR may become empty
        self._update_last_known_leader(change)
        self._set_assignment_changes(change)
        if self.target_leader_recovery_state != self.partition.leader_recovery_state:
            change["leader_recovery_state"] = self.target_leader_recovery_state
        if not change:
            return None
        return PartitionChangeRecord(topic_id=self.topic_id, partition_id=self.partition_id, **change)

    def _complete_reassignment_if_needed(self) -> None:
        completed = PartitionReassignmentReplicas(
            self.target_removing, self.target_adding, self.target_replicas,
        ).maybe_complete_reassignment(self.target_isr)
        if completed is not None:
            self.target_isr = completed.isr
            self.target_replicas = completed.replicas
            self.target_removing = []
            self.target_adding = []

    def _try_election(self, change: _Change) -> None:
        leader, unclean = self.elect_leader()
        if leader == self.partition.leader:
            return
        if leader in self.target_elr:
            # A clean election from the ELR: the new leader is the whole ISR.
            self.target_isr = [leader]
            self.target_elr = [r for r in self.target_elr if r != leader]
        change["leader"] = leader
        if unclean:
            # The new leader was not in sync: make it the whole ISR. Data can be lost.
            self.unclean = True
            change["isr"] = [leader]
            if self.partition.leader_recovery_state != RECOVERING:
                change["leader_recovery_state"] = RECOVERING

    # ------------------------------------------------------------------ ELR (KIP-966)
    def _populate_target_elr(self) -> None:
        if not self.elr_enabled:
            return
        if len(self.target_isr) >= self.min_isr:
            self.target_elr, self.target_last_known_elr = [], []
            return
        leaving = set(self.target_isr) | set(self.unclean_shutdown_replicas)
        candidates = hashmap_order(list(self.target_elr) + list(self.partition.isr))
        self.target_elr = [r for r in candidates if r not in leaving]
        known = hashmap_order(candidates + self.target_last_known_elr)
        self.target_last_known_elr = [r for r in known
                                      if r not in self.target_isr and r not in self.target_elr]

    def _update_record_elr(self, change: _Change) -> None:
        if "isr" in change or not self.elr_enabled:
            # An unclean election (it set the ISR) invalidates what the ELR promised.
            self.target_elr, self.target_last_known_elr = [], []
        if self.target_elr != list(self.partition.elr):
            change["eligible_leader_replicas"] = list(self.target_elr)
        # With the last known leader kept in LastKnownElr, that field is written only by
        # _update_last_known_leader, never from the set computed above.

    def _update_last_known_leader(self, change: _Change) -> None:
        if not self.elr_enabled:
            return
        known, leader = self.partition.last_known_elr, self.partition.leader
        new_leader = change.get("leader", NO_LEADER_CHANGE)
        if change.get("isr") == [] and (len(known) != 1 or known[0] != leader):
            change["last_known_elr"] = [leader]    # the partition just lost its last ISR member
        elif (new_leader >= 0 or (leader != NO_LEADER and new_leader != NO_LEADER)) and known:
            change["last_known_elr"] = []           # it has (or keeps) a leader: forget the old one

    def _set_assignment_changes(self, change: _Change) -> None:
        if self.target_replicas:
            current_dirs = dict(zip(self.partition.replicas, self.partition.directories))
            directories = [current_dirs[r] if r in current_dirs else self.default_dir(r)
                           for r in self.target_replicas]
            if directories != list(self.partition.directories):
                change["directories"] = directories
            if self.target_replicas != list(self.partition.replicas):
                change["replicas"] = list(self.target_replicas)
        if self.target_removing != list(self.partition.removing_replicas):
            change["removing_replicas"] = list(self.target_removing)
        if self.target_adding != list(self.partition.adding_replicas):
            change["adding_replicas"] = list(self.target_adding)
