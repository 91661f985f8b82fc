"""The event-log lines the controller writes for committed metadata changes.

Theory of operation
-------------------
A learner watches the cluster through its event log (``runtime/events.py``).
The active controller adds a line when a batch of its records is committed,
describing what the records changed.  The lines are computed when the records
are generated, by comparing the controller's working image before and after
them, because only then are both states at hand:

* ``topic_created`` / ``partitions_added`` / ``topic_deleted`` for
  TopicRecord, PartitionRecord and RemoveTopicRecord;
* ``config_changed`` for the ConfigRecords of one resource;
* ``partition_changed`` when a PartitionChangeRecord moves the leader, the
  leader epoch or the ISR, in the form
  ``orders-1 leader 2 -> 3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]`` (leader
  ``none`` when there is none), flagging an unclean election -- a leader
  from outside the ISR, which can lose acknowledged records; with eligible
  leader replicas (KIP-966) the line adds ``ELR [2] -> []`` and
  ``LastKnownElr [..] -> [..]`` when they move, a leader taken from the ELR
  is a clean election, and a record (or a ClearElrRecord) that only moves
  the ELR gets ``orders-1 ELR [2] -> [] (leader 3, epoch 2)``;
* ``reassignment_started`` / ``reassignment_completed`` when a partition's
  adding/removing replicas appear or are cleared.

Broker lifecycle lines (registered, fenced with the reason, unfenced,
shutdown) come from the control managers, which know why they wrote the
records.  This module is the sandbox's own: Kafka has no event log, only
log4j lines; the texts use Kafka's terms.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from minikafka.common.uuid import Uuid
from minikafka.controller.controller_result import ControllerEvent
from minikafka.metadata.image import ConfigResource, MetadataImage
from minikafka.metadata.partition_registration import PartitionRegistration
from minikafka.metadata.records import (ClearElrRecord, ConfigRecord, MetadataRecord, PartitionChangeRecord,
                                        PartitionRecord, RemoveTopicRecord, TopicRecord)


def format_replicas(replicas: Iterable[int]) -> str:
    """``[2,3,1]``: Kafka-style list without spaces, as the sandbox prints ISRs."""
    return "[" + ",".join(str(r) for r in replicas) + "]"


def format_leader(leader: int) -> str:
    return "none" if leader < 0 else str(leader)


def events_for_records(before: MetadataImage, after: MetadataImage,
                       records: Sequence[MetadataRecord]) -> list[ControllerEvent]:
    """The generic events for ``records`` applied on ``before`` giving ``after``."""
    events: list[ControllerEvent] = []
    created = {r.topic_id for r in records if isinstance(r, TopicRecord)}
    added: dict[Uuid, list[int]] = {}
    configs: dict[ConfigResource, list[ConfigRecord]] = {}
    for record in records:
        if isinstance(record, TopicRecord):
            events.append(_topic_created(after, record, records))
        elif isinstance(record, PartitionRecord) and record.topic_id not in created:
            added.setdefault(record.topic_id, []).append(record.partition_id)
        elif isinstance(record, RemoveTopicRecord):
            events.append(_topic_deleted(before, record))
        elif isinstance(record, ConfigRecord):
            configs.setdefault(ConfigResource(record.resource_type, record.resource_name), []).append(record)
        elif isinstance(record, PartitionChangeRecord):
            events.extend(_partition_changed(before, after, record))
        elif isinstance(record, ClearElrRecord):
            events.extend(_elr_cleared(before, after, record))
    for topic_id, indexes in added.items():
        events.append(_partitions_added(after, topic_id, indexes))
    for resource, changes in configs.items():
        if not (resource.type == ConfigResource.TOPIC and _created_in(records, resource.name)):
            events.append(_config_changed(resource, changes))
    return events


def _created_in(records: Sequence[MetadataRecord], topic_name: str) -> bool:
    return any(isinstance(r, TopicRecord) and r.name == topic_name for r in records)


def _topic_created(after: MetadataImage, record: TopicRecord, records: Sequence[MetadataRecord]) -> ControllerEvent:
    partitions = [r for r in records if isinstance(r, PartitionRecord) and r.topic_id == record.topic_id]
    configs = {r.name: r.value for r in records if isinstance(r, ConfigRecord)
               and r.resource_type == ConfigResource.TOPIC and r.resource_name == record.name}
    rf = len(partitions[0].replicas) if partitions else 0
    text = (f"topic {record.name} created with topic ID {record.topic_id}: {len(partitions)} partition(s), "
            f"replication factor {rf}")
    if configs:
        text += ", configs " + ",".join(f"{k}={v}" for k, v in sorted(configs.items()))
    return ControllerEvent("topic_created", text, {
        "topic": record.name, "topic_id": str(record.topic_id), "configs": configs,
        "assignments": {p.partition_id: list(p.replicas) for p in partitions}})


def _topic_deleted(before: MetadataImage, record: RemoveTopicRecord) -> ControllerEvent:
    topic = before.topic(record.topic_id)
    name = topic.name if topic is not None else str(record.topic_id)
    return ControllerEvent("topic_deleted", f"topic {name} (topic ID {record.topic_id}) deleted",
                           {"topic": name, "topic_id": str(record.topic_id)})


def _partitions_added(after: MetadataImage, topic_id: Uuid, indexes: list[int]) -> ControllerEvent:
    topic = after.topics.topics_by_id[topic_id]
    total = len(topic.partitions)
    span = str(indexes[0]) if len(indexes) == 1 else f"{min(indexes)}..{max(indexes)}"
    return ControllerEvent("partitions_added",
                           f"topic {topic.name}: partition(s) {span} added, now {total} partition(s)",
                           {"topic": topic.name, "partitions": sorted(indexes), "total": total,
                            "assignments": {i: list(topic.partitions[i].replicas) for i in sorted(indexes)}})


def _config_changed(resource: ConfigResource, changes: list[ConfigRecord]) -> ControllerEvent:
    if resource.type == ConfigResource.TOPIC:
        subject = f"topic {resource.name}"
    elif resource.name == "":
        subject = "cluster-wide broker default"
    else:
        subject = f"broker {resource.name}"
    parts = [f"{r.name}={r.value}" if r.value is not None else f"{r.name} deleted" for r in changes]
    return ControllerEvent("config_changed", f"{subject} configs: " + ", ".join(parts), {
        "resource_type": resource.type, "resource_name": resource.name,
        "changes": {r.name: r.value for r in changes}})


def _partition_changed(before: MetadataImage, after: MetadataImage,
                       record: PartitionChangeRecord) -> list[ControllerEvent]:
    topic = after.topics.topics_by_id[record.topic_id]          # a change is to a partition that exists
    old = before.topics.topics_by_id[record.topic_id].partitions[record.partition_id]
    new = topic.partitions[record.partition_id]
    name = f"{topic.name}-{record.partition_id}"
    events: list[ControllerEvent] = []
    if not old.is_reassigning() and new.is_reassigning():
        events.append(ControllerEvent(
            "reassignment_started",
            f"{name} reassignment started: replicas {format_replicas(old.replicas)} -> "
            f"{format_replicas(new.replicas)}, adding {format_replicas(new.adding_replicas)}, "
            f"removing {format_replicas(new.removing_replicas)}",
            {"topic": topic.name, "partition": record.partition_id, "replicas": list(new.replicas),
             "adding": list(new.adding_replicas), "removing": list(new.removing_replicas)}))
    if (old.leader, old.leader_epoch, old.isr) != (new.leader, new.leader_epoch, new.isr):
        events.append(_leader_and_isr_event(name, topic.name, record.partition_id, old, new))
    elif (old.elr, old.last_known_elr) != (new.elr, new.last_known_elr):
        events.append(_elr_event(name, topic.name, record.partition_id, old, new))
    if old.is_reassigning() and not new.is_reassigning():
        cancelled = list(new.replicas) == [r for r in old.replicas if r not in old.adding_replicas]
        verb = "cancelled" if cancelled and old.adding_replicas else "completed"
        events.append(ControllerEvent(
            "reassignment_completed",
            f"{name} reassignment {verb}: replicas {format_replicas(old.replicas)} -> "
            f"{format_replicas(new.replicas)}",
            {"topic": topic.name, "partition": record.partition_id, "replicas": list(new.replicas),
             "cancelled": verb == "cancelled"}))
    return events


def _elr_text(old: PartitionRegistration, new: PartitionRegistration) -> str:
    text = ""
    if old.elr != new.elr:
        text += f", ELR {format_replicas(old.elr)} -> {format_replicas(new.elr)}"
    if old.last_known_elr != new.last_known_elr:
        text += (f", LastKnownElr {format_replicas(old.last_known_elr)} -> "
                 f"{format_replicas(new.last_known_elr)}")
    return text


def _elr_data(old: PartitionRegistration, new: PartitionRegistration) -> dict[str, list[int]]:
    return {"elr_before": list(old.elr), "elr": list(new.elr),
            "last_known_elr_before": list(old.last_known_elr), "last_known_elr": list(new.last_known_elr)}


def _elr_event(name: str, topic: str, index: int, old: PartitionRegistration,
               new: PartitionRegistration) -> ControllerEvent:
    text = (f"{name} {_elr_text(old, new)[2:]} (leader {format_leader(new.leader)}, "
            f"epoch {new.leader_epoch})")
    return ControllerEvent("partition_changed", text, {
        "topic": topic, "partition": index, "leader_before": old.leader, "leader": new.leader,
        "leader_epoch_before": old.leader_epoch, "leader_epoch": new.leader_epoch,
        "isr_before": list(old.isr), "isr": list(new.isr), "partition_epoch": new.partition_epoch,
        "unclean": False, **_elr_data(old, new)})


def _elr_cleared(before: MetadataImage, after: MetadataImage, record: ClearElrRecord) -> list[ControllerEvent]:
    events: list[ControllerEvent] = []
    for name in ([record.topic_name] if record.topic_name else sorted(after.topics.topics_by_name)):
        topic, old_topic = after.topic(name), before.topic(name)
        if topic is None or old_topic is None:
            continue
        for index in sorted(topic.partitions):
            old, new = old_topic.partition(index), topic.partitions[index]
            if old is not None and (old.elr, old.last_known_elr) != (new.elr, new.last_known_elr):
                events.append(_elr_event(f"{name}-{index}", name, index, old, new))
    return events


def _leader_and_isr_event(name: str, topic: str, index: int, old: PartitionRegistration,
                          new: PartitionRegistration) -> ControllerEvent:
    # A leader from the ELR is a clean election (KIP-966): it has every committed record.
    unclean = (new.leader >= 0 and new.leader != old.leader and new.leader not in old.isr
               and new.leader not in old.elr)
    if old.leader == new.leader and old.leader_epoch == new.leader_epoch:
        # only the ISR moved: say so without a "leader 1 -> 1" that reads like an election
        text = (f"{name} ISR {format_replicas(old.isr)} -> {format_replicas(new.isr)} "
                f"(leader {format_leader(new.leader)}, epoch {new.leader_epoch})")
    elif old.leader == new.leader:
        # the same leader in a new epoch (e.g. a reassignment removed replicas): no election
        text = (f"{name} leader epoch {old.leader_epoch} -> {new.leader_epoch} (leader "
                f"{format_leader(new.leader)} unchanged), ISR {format_replicas(old.isr)} -> "
                f"{format_replicas(new.isr)}")
    else:
        text = (f"{name} leader {format_leader(old.leader)} -> {format_leader(new.leader)}, "
                f"epoch {old.leader_epoch} -> {new.leader_epoch}, "
                f"ISR {format_replicas(old.isr)} -> {format_replicas(new.isr)}")
    text += _elr_text(old, new)
    if unclean:
        text += (f" (unclean leader election: broker {new.leader} was not in the ISR, "
                 f"so records acknowledged by the old ISR may be lost)")
    return ControllerEvent("partition_changed", text, {
        "topic": topic, "partition": index, "leader_before": old.leader, "leader": new.leader,
        "leader_epoch_before": old.leader_epoch, "leader_epoch": new.leader_epoch,
        "isr_before": list(old.isr), "isr": list(new.isr), "partition_epoch": new.partition_epoch,
        "unclean": unclean, **_elr_data(old, new)})
