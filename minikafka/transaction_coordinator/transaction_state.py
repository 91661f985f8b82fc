"""The states of a transaction, and which state may follow which, as one table.

Theory of operation
-------------------
A transactional id's metadata is always in one of eight states.  A producer
starts in ``Empty`` (after InitProducerId), moves to ``Ongoing`` when it adds
its first partition or its group's offsets, and ends its transaction with
EndTxn: ``PrepareCommit`` or ``PrepareAbort`` is written to
``__transaction_state`` first (the decision, which survives a coordinator
failover), then the markers are written into every partition of the
transaction, and then ``CompleteCommit`` or ``CompleteAbort``.  The other
three states are side roads: ``PrepareEpochFence`` is the coordinator's
intent to abort a transaction on its own (a new producer with the same id,
or the transaction timed out) with a bumped epoch, so that the old producer
is fenced; it is never written to the log: the coordinator moves on to
``PrepareAbort`` at once.  ``Dead`` is a transactional id being expired
after ``transactional.id.expiration.ms``, written as a tombstone.

The rules live in `VALID_PREVIOUS_STATES`, read from Kafka's own table: a
state lists the states it may be entered from.  `check_transition` is the one
place that consults it; an illegal move raises `IllegalStateException` with
Kafka's words.  The ids are the bytes Kafka writes in ``TransactionStatus`` of
``TransactionLogValue``; the names are the ones DescribeTransactions and
``kafka-transactions.sh`` show.

Under transaction version 2 (KIP-890) ``PrepareAbort`` may also follow
``Empty``, ``CompleteCommit`` and ``CompleteAbort``: a client that is unsure
whether its transaction is still open may always send an abort.

Mirrors ``org.apache.kafka.coordinator.transaction.TransactionState`` (Kafka
4.3.1: ids, names, valid previous states, ``isExpirationAllowed``).
"""

from __future__ import annotations

import enum


class IllegalStateException(Exception):
    """Kafka's ``java.lang.IllegalStateException``: the coordinator was asked for an impossible move.

    A bug in the caller, never an answer to a client: Kafka logs it as fatal.
    """

    java_class = "java.lang.IllegalStateException"


class TransactionState(enum.Enum):
    """One member per state: ``NAME = (id written in the log, name shown by tools, expiration allowed)``."""

    id: int                   # TransactionLogValue.TransactionStatus
    state_name: str           # what DescribeTransactions / kafka-transactions.sh show
    expiration_allowed: bool  # may transactional.id.expiration.ms remove an id in this state?

    EMPTY = (0, "Empty", True)
    ONGOING = (1, "Ongoing", False)
    PREPARE_COMMIT = (2, "PrepareCommit", False)
    PREPARE_ABORT = (3, "PrepareAbort", False)
    COMPLETE_COMMIT = (4, "CompleteCommit", True)
    COMPLETE_ABORT = (5, "CompleteAbort", True)
    DEAD = (6, "Dead", False)
    PREPARE_EPOCH_FENCE = (7, "PrepareEpochFence", False)

    def __new__(cls, state_id: int, state_name: str, expiration_allowed: bool) -> "TransactionState":
        member = object.__new__(cls)
        member._value_ = state_id
        member.id = state_id
        member.state_name = state_name
        member.expiration_allowed = expiration_allowed
        return member

    def __str__(self) -> str:
        return self.name   # Kafka's enum prints its constant name (PREPARE_COMMIT) in exception texts

    @classmethod
    def from_id(cls, state_id: int) -> "TransactionState":
        """The state a log record's ``TransactionStatus`` byte names."""
        for state in cls:
            if state.id == state_id:
                return state
        raise IllegalArgumentException(f"Unknown transaction state id {state_id} from the transaction status message")

    @classmethod
    def from_name(cls, name: str) -> "TransactionState | None":
        """The state a tool's name (``Ongoing``...) stands for, or None (ListTransactions' filter)."""
        return next((s for s in cls if s.state_name == name), None)

    @property
    def valid_previous_states(self) -> frozenset["TransactionState"]:
        return VALID_PREVIOUS_STATES[self]


class IllegalArgumentException(ValueError):
    """Kafka's ``java.lang.IllegalArgumentException`` (an unknown state id, an illegal epoch)."""

    java_class = "java.lang.IllegalArgumentException"


_S = TransactionState

# state -> the states it may be entered from (TransactionState's static block in 4.3.1).
VALID_PREVIOUS_STATES: dict[TransactionState, frozenset[TransactionState]] = {
    _S.EMPTY: frozenset({_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.ONGOING: frozenset({_S.ONGOING, _S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.PREPARE_COMMIT: frozenset({_S.ONGOING}),
    _S.PREPARE_ABORT: frozenset({_S.ONGOING, _S.PREPARE_EPOCH_FENCE, _S.EMPTY, _S.COMPLETE_COMMIT,
                                 _S.COMPLETE_ABORT}),
    _S.COMPLETE_COMMIT: frozenset({_S.PREPARE_COMMIT}),
    _S.COMPLETE_ABORT: frozenset({_S.PREPARE_ABORT}),
    _S.DEAD: frozenset({_S.EMPTY, _S.COMPLETE_ABORT, _S.COMPLETE_COMMIT}),
    _S.PREPARE_EPOCH_FENCE: frozenset({_S.ONGOING}),
}


def is_valid_transition(current: TransactionState, target: TransactionState) -> bool:
    """May a transaction in ``current`` be moved to ``target``?"""
    return current in VALID_PREVIOUS_STATES[target]


def check_transition(current: TransactionState, target: TransactionState) -> None:
    """Raise `IllegalStateException` with Kafka's words unless ``current -> target`` is in the table."""
    if not is_valid_transition(current, target):
        raise IllegalStateException(
            f"Preparing transaction state transition to {target} failed since the target state {target} "
            f"is not a valid previous state of the current state {current}")


__all__ = ["IllegalArgumentException", "IllegalStateException", "TransactionState", "VALID_PREVIOUS_STATES",
           "check_transition", "is_valid_transition"]
