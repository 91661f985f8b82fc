"""The metadata log as a lesson sees it: `Cluster.metadata_records()` and `replay_metadata()`.

In KRaft the cluster's state *is* the metadata log: the active controller
decides by appending records (TopicRecord, PartitionRecord,
PartitionChangeRecord, RegisterBrokerRecord, ...) to ``__cluster_metadata``,
and every node rebuilds its view by replaying them in order.  These helpers
let a learner read that log, committed records only, and rebuild the state
from it with the very replay code the nodes use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from minikafka.metadata.delta import replay_all
from minikafka.metadata.describe import describe
from minikafka.metadata.image import MetadataImage


@dataclass(frozen=True, slots=True)
class MetadataRecordEntry:
    offset: int           # position in __cluster_metadata-0
    leader_epoch: int     # the controller epoch that wrote it
    record: Any           # a metadata record dataclass (TopicRecord, PartitionRecord, ...)

    @property
    def type_name(self) -> str:
        """Kafka's record type name, e.g. ``TOPIC_RECORD`` (as kafka-dump-log prints it)."""
        return self.record.type_name()

    def to_json(self) -> str:
        """The payload as ``kafka-dump-log.sh --cluster-metadata-decoder`` prints it."""
        return self.record.to_json()

    def describe(self) -> str:
        return describe(self.record)


def replay_metadata(records: Iterable[Any]) -> MetadataImage:
    """Rebuild the metadata state from records (or `MetadataRecordEntry`s), as every node does."""
    return replay_all(entry.record if isinstance(entry, MetadataRecordEntry) else entry
                      for entry in records)


def metadata_records(processes, include_noops: bool = False) -> list[MetadataRecordEntry]:
    """Every committed record of the metadata log, oldest first.

    Read from the active controller (else from any running node).  NoOpRecords,
    which the active controller writes every ``metadata.max.idle.interval.ms``
    only to keep the log moving, are left out unless asked for.
    """
    def collect() -> list[MetadataRecordEntry]:
        node = processes.metadata_node()
        if node is None:
            raise RuntimeError("No node of the cluster is running")
        committed = node.raft.high_watermark or 0
        entries = []
        for batch in node.metadata_log.read(0, 10**9):
            if batch.is_control:
                continue
            for index, record in enumerate(batch.records):
                offset = batch.base_offset + index
                if offset >= committed:
                    return entries
                if include_noops or type(record).__name__ != "NoOpRecord":
                    entries.append(MetadataRecordEntry(offset, batch.epoch, record))
        return entries
    return processes.call(collect)
