"""``TxnTransitMetadata``: what a transactional id's metadata will be once a record is written.

Theory of operation
-------------------
The coordinator never changes a transaction's metadata in place.  It first
*prepares* a transition: `TransactionMetadata` checks the move against the
state table, marks itself with a pending state (so that any other request for
the same id is answered CONCURRENT_TRANSACTIONS meanwhile) and returns a
`TxnTransitMetadata`, the complete new picture.  That picture is what is
encoded into the ``__transaction_state`` record; only once the record is
written does `TransactionMetadata.complete_transition_to` copy it over.

Mirrors ``org.apache.kafka.coordinator.transaction.TxnTransitMetadata``.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_state import TransactionState
from minikafka.transaction_coordinator.transaction_version import TransactionVersion


@dataclass(frozen=True, slots=True)
class TxnTransitMetadata:
    producer_id: int                           # the id the producer uses after the move
    prev_producer_id: int                      # the id before it (-1: none), kept for retries across an id rotation
    next_producer_id: int                      # TV 2: the id the next transaction gets when the epoch ran out (-1)
    producer_epoch: int
    last_producer_epoch: int                   # the epoch before the last bump (-1: none), for retries
    txn_timeout_ms: int
    txn_state: TransactionState
    topic_partitions: frozenset[TopicPartition]
    txn_start_timestamp: int                   # ms; -1 when no transaction is open
    txn_last_update_timestamp: int             # ms
    client_transaction_version: TransactionVersion


__all__ = ["TxnTransitMetadata"]
