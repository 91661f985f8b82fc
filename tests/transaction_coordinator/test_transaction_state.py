"""The state table of a transaction, against Kafka 4.3.1's TransactionState."""

from __future__ import annotations

import itertools

import pytest

from minikafka.transaction_coordinator.transaction_state import (
    VALID_PREVIOUS_STATES, IllegalArgumentException, IllegalStateException, TransactionState, check_transition,
    is_valid_transition,
)

S = TransactionState

# (state, id written in the log, name shown by the tools, expiration allowed)
KAFKA_STATES = [
    (S.EMPTY, 0, "Empty", True), (S.ONGOING, 1, "Ongoing", False), (S.PREPARE_COMMIT, 2, "PrepareCommit", False),
    (S.PREPARE_ABORT, 3, "PrepareAbort", False), (S.COMPLETE_COMMIT, 4, "CompleteCommit", True),
    (S.COMPLETE_ABORT, 5, "CompleteAbort", True), (S.DEAD, 6, "Dead", False),
    (S.PREPARE_EPOCH_FENCE, 7, "PrepareEpochFence", False),
]

LEGAL = {
    (S.EMPTY, S.EMPTY), (S.COMPLETE_COMMIT, S.EMPTY), (S.COMPLETE_ABORT, S.EMPTY),
    (S.ONGOING, S.ONGOING), (S.EMPTY, S.ONGOING), (S.COMPLETE_COMMIT, S.ONGOING), (S.COMPLETE_ABORT, S.ONGOING),
    (S.ONGOING, S.PREPARE_COMMIT),
    (S.ONGOING, S.PREPARE_ABORT), (S.PREPARE_EPOCH_FENCE, S.PREPARE_ABORT), (S.EMPTY, S.PREPARE_ABORT),
    (S.COMPLETE_COMMIT, S.PREPARE_ABORT), (S.COMPLETE_ABORT, S.PREPARE_ABORT),
    (S.PREPARE_COMMIT, S.COMPLETE_COMMIT), (S.PREPARE_ABORT, S.COMPLETE_ABORT),
    (S.EMPTY, S.DEAD), (S.COMPLETE_ABORT, S.DEAD), (S.COMPLETE_COMMIT, S.DEAD),
    (S.ONGOING, S.PREPARE_EPOCH_FENCE),
}


@pytest.mark.parametrize("state, state_id, name, expiration", KAFKA_STATES)
def test_ids_names_and_expiration_are_kafkas(state, state_id, name, expiration):
    assert (state.id, state.state_name, state.expiration_allowed) == (state_id, name, expiration)
    assert TransactionState.from_id(state_id) is state
    assert TransactionState.from_name(name) is state


def test_an_unknown_id_is_refused_with_kafkas_words():
    with pytest.raises(IllegalArgumentException, match="Unknown transaction state id 8 from the transaction "
                                                       "status message"):
        TransactionState.from_id(8)
    assert TransactionState.from_name("Nope") is None


def test_the_table_lists_every_state():
    assert set(VALID_PREVIOUS_STATES) == set(TransactionState)
    assert {(a, b) for b, previous in VALID_PREVIOUS_STATES.items() for a in previous} == LEGAL


@pytest.mark.parametrize("current, target", list(itertools.product(TransactionState, TransactionState)),
                         ids=lambda s: s.state_name)
def test_each_transition_is_legal_or_refused_with_kafkas_words(current, target):
    assert is_valid_transition(current, target) == ((current, target) in LEGAL)
    if (current, target) in LEGAL:
        check_transition(current, target)
    else:
        with pytest.raises(IllegalStateException) as raised:
            check_transition(current, target)
        assert str(raised.value) == (
            f"Preparing transaction state transition to {target.name} failed since the target state "
            f"{target.name} is not a valid previous state of the current state {current.name}")
