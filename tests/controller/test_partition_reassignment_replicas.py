import pytest

from minikafka.common.errors import InvalidReplicaAssignmentException
from minikafka.common.uuid import Uuid
from minikafka.controller.partition_reassignment_replicas import (PartitionReassignmentReplicas,
                                                                  PartitionReassignmentRevert)
from minikafka.metadata.partition_registration import PartitionRegistration


def test_union_puts_target_first_then_removed_replicas():
    r = PartitionReassignmentReplicas.between([1, 2, 3], [1, 2, 4])
    assert (r.replicas, r.adding, r.removing) == ([1, 2, 4, 3], [4], [3])
    assert r.original_replicas() == [1, 2, 3]


def test_reordering_is_not_a_reassignment_in_progress():
    r = PartitionReassignmentReplicas.between([1, 2, 3], [3, 2, 1])
    assert not r.is_reassignment_in_progress()
    assert r.maybe_complete_reassignment([1, 2, 3]) is None


def test_completion_requires_every_target_replica_in_isr():
    r = PartitionReassignmentReplicas([3], [4], [1, 2, 4, 3])
    assert r.maybe_complete_reassignment([1, 2, 3]) is None
    done = r.maybe_complete_reassignment([3, 1, 2, 4])
    assert (done.replicas, done.isr) == ([1, 2, 4], [1, 2, 4])


def test_completion_needs_a_surviving_isr_member():
    r = PartitionReassignmentReplicas([1, 2], [], [3, 1, 2])
    assert r.maybe_complete_reassignment([1, 2]) is None


def registration(replicas, isr, adding, removing):
    return PartitionRegistration(tuple(replicas), tuple(Uuid(0, 1) for _ in replicas), tuple(isr),
                                 tuple(removing), tuple(adding), isr[0] if isr else -1, 0, 3, 5)


def test_revert_drops_adding_replicas_from_replicas_and_isr():
    revert = PartitionReassignmentRevert.of(registration([1, 2, 4, 3], [1, 4, 3], [4], [3]))
    assert (revert.replicas, revert.isr, revert.unclean) == ([1, 2, 3], [1, 3], False)


def test_revert_that_empties_the_isr_is_unclean():
    revert = PartitionReassignmentRevert.of(registration([4, 5, 1], [4, 5], [4, 5], [1]))
    assert (revert.replicas, revert.isr, revert.unclean) == ([1], [1], True)


def test_revert_with_only_adding_replicas_is_refused():
    with pytest.raises(InvalidReplicaAssignmentException,
                       match="Invalid replica assignment: addingReplicas contains all replicas."):
        PartitionReassignmentRevert.of(registration([4], [4], [4], []))
