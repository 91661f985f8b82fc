"""Replica bookkeeping of a partition reassignment (KIP-455), and how to revert one.

Theory of operation
-------------------
A reassignment moves a partition from its current replicas to a target list.
While it runs, the partition's ``replicas`` is the *union*: the target list
followed by the replicas being removed; ``adding_replicas`` and
``removing_replicas`` say which is which::

    current [1,2,3], target [1,2,4]
      -> replicas [1,2,4,3], adding [4], removing [3]

New replicas start as followers and copy the log.  The reassignment
*completes* as soon as the ISR contains every replica of the target list
(after dropping the removing ones from the ISR, at least one replica must be
left): then ``replicas`` becomes the target, the removing replicas leave the
ISR, and adding/removing are cleared.

Cancelling (`PartitionReassignmentRevert`) goes back to the original replicas
(the union minus the adding ones) and drops the adding replicas from the ISR.
If that would leave the ISR empty, the first original replica is put back in
the ISR, which is an unclean election: only allowed when the topic has
``unclean.leader.election.enable=true``.

Mirrors ``org.apache.kafka.controller.PartitionReassignmentReplicas`` and
``PartitionReassignmentRevert`` (Kafka 4.x), including the error text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from minikafka.common.errors import InvalidReplicaAssignmentException
from minikafka.metadata.partition_registration import PartitionRegistration


@dataclass(frozen=True, slots=True)
class CompletedReassignment:
    replicas: list[int]
    isr: list[int]


@dataclass(frozen=True, slots=True)
class PartitionReassignmentReplicas:
    removing: list[int]
    adding: list[int]
    replicas: list[int]

    @classmethod
    def between(cls, current: Sequence[int], target: Sequence[int]) -> "PartitionReassignmentReplicas":
        """The union assignment that moves ``current`` to ``target``."""
        removing = sorted(set(current) - set(target))
        adding = sorted(set(target) - set(current))
        return cls(removing, adding, list(target) + removing)

    @staticmethod
    def in_progress(removing: Sequence[int], adding: Sequence[int]) -> bool:
        return bool(removing) or bool(adding)

    def is_reassignment_in_progress(self) -> bool:
        return self.in_progress(self.removing, self.adding)

    def maybe_complete_reassignment(self, target_isr: Sequence[int]) -> CompletedReassignment | None:
        """The final replicas and ISR if ``target_isr`` lets the reassignment finish."""
        if not self.is_reassignment_in_progress():
            return None
        new_isr = list(target_isr)
        new_replicas = list(self.replicas)
        if self.removing:
            new_isr = [r for r in target_isr if r not in self.removing]
            if not new_isr:
                return None
            new_replicas = [r for r in self.replicas if r not in self.removing]
            if not new_replicas:
                return None
        if not set(new_replicas) <= set(new_isr):
            return None
        return CompletedReassignment(new_replicas, new_isr)

    def original_replicas(self) -> list[int]:
        return [r for r in self.replicas if r not in self.adding]


@dataclass(frozen=True, slots=True)
class PartitionReassignmentRevert:
    replicas: list[int]
    isr: list[int]
    unclean: bool

    @classmethod
    def of(cls, partition: PartitionRegistration) -> "PartitionReassignmentRevert":
        """How to undo the reassignment running on ``partition`` (a PartitionRegistration)."""
        ongoing = PartitionReassignmentReplicas(list(partition.removing_replicas),
                                                list(partition.adding_replicas),
                                                list(partition.replicas))
        replicas = ongoing.original_replicas()
        isr = [r for r in partition.isr if r not in ongoing.adding]
        if isr:
            return cls(replicas, isr, False)
        if not replicas:
            raise InvalidReplicaAssignmentException(
                "Invalid replica assignment: addingReplicas contains all replicas.")
        return cls(replicas, [replicas[0]], True)
