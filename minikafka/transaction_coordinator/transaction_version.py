"""``transaction.version``: the feature level that decides how transactions end (KIP-890).

Theory of operation
-------------------
The cluster's finalized ``transaction.version`` feature and the version of
each client request together decide which protocol a transaction follows:

* TV 0 and 1: the classic protocol.  The producer adds each partition with
  AddPartitionsToTxn before writing to it, and its epoch changes only when
  InitProducerId is called again (or the coordinator fences it).
* TV 2 (KIP-890 part 2): the producer no longer adds partitions itself: the
  partition leader asks the coordinator on its behalf (AddPartitionsToTxn v5,
  server-side verification), and every EndTxn bumps the producer epoch, so
  a late write of the finished transaction is refused (no "hanging"
  transaction).  A client speaks TV 2 by sending EndTxn v5+; an
  AddPartitionsToTxn of v4+ (the brokers' batch form) counts as TV 2; an
  older request version means TV 0.

Kafka 4.3.1 formats a new cluster at ``transaction.version=2``
(``TransactionVersion.LATEST_PRODUCTION`` is TV_2, bootstrapped by metadata
version 4.0-IV2 and later; checked with ``javap`` on
kafka-server-common-4.3.1.jar; ``controller.feature_control_manager`` of
this sandbox finalizes the same level).  The coordinator uses the cluster's
level for what it does on its own (aborting a timed-out transaction) and the
client's for what a client asked.

Mirrors ``org.apache.kafka.server.common.TransactionVersion``
(``supportsEpochBump``, ``transactionVersionForEndTxn``,
``transactionVersionForAddPartitionsToTxn``).  Simplified: kept beside the
coordinator, as it is its only user here.
"""

from __future__ import annotations

import enum


class TransactionVersion(enum.IntEnum):
    TV_0 = 0
    TV_1 = 1
    TV_2 = 2

    @property
    def feature_level(self) -> int:
        return int(self)

    def supports_epoch_bump(self) -> bool:
        """Does EndTxn bump the producer epoch (KIP-890 part 2)?"""
        return self >= TransactionVersion.TV_2

    @classmethod
    def from_feature_level(cls, level: int) -> "TransactionVersion":
        return cls(level)

    @classmethod
    def for_end_txn(cls, end_txn_version: int) -> "TransactionVersion":
        """The version a client speaks when it sends EndTxn at ``end_txn_version``."""
        return cls.TV_2 if end_txn_version > 4 else cls.TV_0

    @classmethod
    def for_add_partitions_to_txn(cls, add_partitions_version: int) -> "TransactionVersion":
        """The version a client speaks when it sends AddPartitionsToTxn at ``add_partitions_version``."""
        return cls.TV_2 if add_partitions_version > 3 else cls.TV_0


LATEST_PRODUCTION = TransactionVersion.TV_2   # what a new 4.3.1 cluster finalizes

__all__ = ["LATEST_PRODUCTION", "TransactionVersion"]
