"""One-line English descriptions of metadata records, for lessons that print the metadata log.

Theory of operation
-------------------
``kafka-dump-log.sh`` prints each record as JSON (`MetadataRecord.to_json`).
That is the truth, but a learner reading a log of a few hundred records also
wants the gist: ``orders-0 changed: leader -> 2, isr -> [2,3]``.  `describe`
gives that sentence for one record; `describe_log` walks a log in order and
remembers topic names from the TopicRecords it meets, so later records that
carry only a topic id are named too.

These sentences are the sandbox's own (Kafka has no such format); the JSON
form is the one to show when fidelity matters.  Mirrors nothing in Kafka.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from minikafka.common.uuid import Uuid
from minikafka.metadata.records import (AbortTransactionRecord, ApiMessageAndVersion, BeginTransactionRecord,
                                        BrokerEndpoint,
                                        BrokerRegistrationChangeRecord, ClearElrRecord, ConfigRecord,
                                        EndTransactionRecord, FeatureLevelRecord, MetadataRecord, NoOpRecord,
                                        PartitionChangeRecord, PartitionRecord, ProducerIdsRecord,
                                        RegisterBrokerRecord, RegisterControllerRecord, RemoveTopicRecord,
                                        TopicRecord, UnregisterBrokerRecord)

_RESOURCE_TYPES = {2: "topic", 4: "broker", 8: "broker logger", 16: "client metrics", 32: "group"}
_FENCING = {-1: "unfenced", 1: "fenced"}


def describe(record: MetadataRecord | ApiMessageAndVersion,
             topic_names: Mapping[Uuid, str] | None = None) -> str:
    """``TypeName: sentence`` for one record; ``topic_names`` maps topic ids to names."""
    if isinstance(record, ApiMessageAndVersion):
        record = record.message
    names = topic_names or {}
    return f"{type(record).__name__}: {_sentence(record, names)}"


def describe_log(records: Iterable[MetadataRecord | ApiMessageAndVersion]) -> list[str]:
    """Describe a metadata log in order, naming topics from the TopicRecords seen so far."""
    names: dict[Uuid, str] = {}
    lines = []
    for record in records:
        message = record.message if isinstance(record, ApiMessageAndVersion) else record
        if isinstance(message, TopicRecord):
            names[message.topic_id] = message.name
        lines.append(describe(message, names))
    return lines


def _ids(values: Iterable[int]) -> str:
    return "[" + ",".join(str(v) for v in values) + "]"


def _listeners(endpoints: Iterable[BrokerEndpoint]) -> str:
    return ", ".join(f"{e.name}://{e.host}:{e.port}" for e in endpoints) or "none"


def _partition(names: Mapping[Uuid, str], topic_id: Uuid, index: int) -> str:
    return f"{names[topic_id]}-{index}" if topic_id in names else f"partition {index} of topic id {topic_id}"


def _sentence(record: MetadataRecord, names: Mapping[Uuid, str]) -> str:
    describer = _DESCRIBERS.get(type(record))
    return describer(record, names) if describer else record.to_json()


def _register_broker(r: RegisterBrokerRecord, _: Mapping[Uuid, str]) -> str:
    rack = f", rack {r.rack}" if r.rack is not None else ""
    return (f"broker {r.broker_id} registered with broker epoch {r.broker_epoch}"
            f"{', fenced' if r.fenced else ''}{rack}; listeners {_listeners(r.end_points)}")


def _broker_change(r: BrokerRegistrationChangeRecord, _: Mapping[Uuid, str]) -> str:
    changes = []
    if r.fenced in _FENCING:
        changes.append(_FENCING[r.fenced])
    if r.in_controlled_shutdown:
        changes.append("in controlled shutdown")
    if r.log_dirs:
        changes.append(f"online log dirs -> [{', '.join(map(str, r.log_dirs))}]")
    if r.cordoned_log_dirs is not None:
        changes.append(f"cordoned log dirs -> [{', '.join(map(str, r.cordoned_log_dirs))}]")
    return f"broker {r.broker_id} (epoch {r.broker_epoch}) {', '.join(changes) or 'unchanged'}"


def _partition_record(r: PartitionRecord, names: Mapping[Uuid, str]) -> str:
    return (f"{_partition(names, r.topic_id, r.partition_id)} created: replicas {_ids(r.replicas)}, "
            f"leader {r.leader}, isr {_ids(r.isr)}, leader epoch {r.leader_epoch}, "
            f"partition epoch {r.partition_epoch}")


def _partition_change(r: PartitionChangeRecord, names: Mapping[Uuid, str]) -> str:
    changes = []
    if r.leader != -2:
        changes.append(f"leader -> {r.leader if r.leader != -1 else 'none'} (new leader epoch)")
    for label, value in (("isr", r.isr), ("replicas", r.replicas), ("adding", r.adding_replicas),
                         ("removing", r.removing_replicas), ("elr", r.eligible_leader_replicas),
                         ("last known elr", r.last_known_elr)):
        if value is not None:
            changes.append(f"{label} -> {_ids(value)}")
    if r.leader_recovery_state != -1:
        changes.append("leader recovering (unclean election)" if r.leader_recovery_state
                       else "leader recovered")
    if r.directories is not None:
        changes.append("directories updated")
    what = ", ".join(changes) or "epoch bump only"
    return f"{_partition(names, r.topic_id, r.partition_id)} changed: {what}"


def _config(r: ConfigRecord, _: Mapping[Uuid, str]) -> str:
    kind = _RESOURCE_TYPES.get(r.resource_type, f"resource type {r.resource_type}")
    target = "cluster-wide broker default" if kind == "broker" and not r.resource_name \
        else f"{kind} {r.resource_name}"
    return f"{target}: {r.name} deleted" if r.value is None else f"{target}: {r.name}={r.value}"


def _elr_scope(r: ClearElrRecord) -> str:
    return f"topic {r.topic_name}" if r.topic_name else "all topics"


_DESCRIBERS: dict[type[MetadataRecord], Callable[[Any, Mapping[Uuid, str]], str]] = {
    RegisterBrokerRecord: _register_broker,
    UnregisterBrokerRecord: lambda r, _: f"broker {r.broker_id} (epoch {r.broker_epoch}) unregistered",
    BrokerRegistrationChangeRecord: _broker_change,
    RegisterControllerRecord: lambda r, _: (f"controller {r.controller_id} registered; "
                                            f"listeners {_listeners(r.end_points)}"),
    TopicRecord: lambda r, _: f"topic {r.name} created with id {r.topic_id}",
    PartitionRecord: _partition_record,
    PartitionChangeRecord: _partition_change,
    RemoveTopicRecord: lambda r, names: f"topic {names.get(r.topic_id, f'with id {r.topic_id}')} deleted",
    ClearElrRecord: lambda r, _: f"ELR cleared for {_elr_scope(r)}",
    ConfigRecord: _config,
    FeatureLevelRecord: lambda r, _: (f"{r.name} finalized at level {r.feature_level}" if r.feature_level
                                      else f"{r.name} disabled"),
    ProducerIdsRecord: lambda r, _: (f"producer id block given to broker {r.broker_id}; "
                                     f"next block starts at {r.next_producer_id}"),
    NoOpRecord: lambda r, _: "no-op (keeps the metadata high watermark moving)",
    BeginTransactionRecord: lambda r, _: f"metadata transaction begins{': ' + r.name if r.name else ''}",
    EndTransactionRecord: lambda r, _: "metadata transaction ends",
    AbortTransactionRecord: lambda r, _: f"metadata transaction aborted{': ' + r.reason if r.reason else ''}",
}
