"""A transaction coordinator with an in-memory ``__transaction_state`` that writes whatever it is given.

`TxnHarness.run` plays the host: it appends every record the coordinator
returns (or fails it with the error a test asks for), hands the outcome back,
and collects the answer and the marker intents; `write_markers` reports the
markers as written.  Time is the test's ``now``.
"""

from __future__ import annotations

from typing import Any

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_coordinator import CoordinatorResult, TransactionCoordinator
from minikafka.transaction_coordinator.transaction_log_config import TransactionLogConfig
from minikafka.transaction_coordinator.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager, TxnMarkerEntry,
)
from minikafka.transaction_coordinator.transaction_state_manager import TransactionStateManager, TxnLogAppend
from minikafka.transaction_coordinator.transaction_state_manager_config import TransactionStateManagerConfig
from minikafka.transaction_coordinator.transaction_version import TransactionVersion


class CountingProducerIdManager:
    def __init__(self, first: int = 1000):
        self.next = first

    def generate_producer_id(self) -> int:
        self.next += 1
        return self.next - 1


class TxnHarness:
    def __init__(self, level: TransactionVersion = TransactionVersion.TV_2, partitions: int = 50,
                 config: TransactionStateManagerConfig | None = None, coordinator_epoch: int = 1):
        self.level = level
        self.partitions = partitions
        self.config = config or TransactionStateManagerConfig()
        self.log: dict[int, list[tuple[bytes, bytes | None]]] = {p: [] for p in range(partitions)}
        self.ids = CountingProducerIdManager()
        self.markers: list[TxnMarkerEntry] = []     # written by nobody yet
        self.fail_next: list[Errors] = []            # errors for the next appends, in order
        self.coordinator = self.new_coordinator()
        self.load_all(coordinator_epoch)

    def new_coordinator(self) -> TransactionCoordinator:
        manager = TransactionStateManager(self.config, TransactionLogConfig(transaction_topic_partitions=self.partitions),
                                          lambda: self.level)
        return TransactionCoordinator(manager, TransactionMarkerChannelManager(self.partitions), self.ids)

    def load_all(self, coordinator_epoch: int, now: int = 0) -> None:
        for p in range(self.partitions):
            self.coordinator.on_election(p, coordinator_epoch)
            self.run(self.coordinator.load_partition(p, coordinator_epoch, list(self.log[p]), now), now)

    def failover(self, coordinator_epoch: int, now: int = 0) -> None:
        """A new coordinator (a new broker) loads every partition from the log."""
        self.markers = []
        self.coordinator = self.new_coordinator()
        self.load_all(coordinator_epoch, now)

    def run(self, result: CoordinatorResult[Any], now: int) -> Any:
        """Write every record (following up on each), collect the markers; the request's answer."""
        answer = result.response
        self.markers.extend(result.markers)
        for append in result.appends:
            follow = self._write(append, now)
            if answer is None:
                answer = follow
        return answer

    def _write(self, append: TxnLogAppend, now: int) -> Any:
        error = self.fail_next.pop(0) if self.fail_next else Errors.NONE
        if error == Errors.NONE:
            self.log[append.partition].append((append.key, append.value))
        return self.run(self.coordinator.on_append_done(append, error, now), now)

    def write_markers(self, now: int) -> list[TxnMarkerEntry]:
        """Write every marker intent collected so far; the ones written."""
        written, self.markers = self.markers, []
        for marker in written:
            self.run(self.coordinator.on_markers_written(marker.transactional_id, marker.partitions, now), now)
        return written

    def metadata(self, transactional_id: str):
        _, found = self.coordinator.txn_manager.get_transaction_state(transactional_id)
        return None if found is None else found.transaction_metadata


TP0 = TopicPartition("orders", 0)
TP1 = TopicPartition("orders", 1)
