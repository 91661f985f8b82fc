"""OffsetCommit and OffsetFetch: a group's committed positions, stored in ``__consumer_offsets``.

Theory of operation
-------------------
A consumer commits "the next offset I will read" per partition to its group
coordinator, which writes them as records to the group's
``__consumer_offsets`` partition and answers once the ISR has them; after a
restart or a rebalance, OffsetFetch reads them back.

Topics are named up to v9 and identified by topic id from v10 (KIP-848, a
stable version since 4.2): the broker turns each id into a name with its
metadata before the coordinator sees the request (the coordinator keeps
offsets by name), and answers an id it does not know itself, with
UNKNOWN_TOPIC_ID for every partition of that topic.  Answers carry the id
back in v10 and the name before.

OffsetCommit: before the coordinator sees the request, the broker answers
UNKNOWN_TOPIC_OR_PARTITION itself for every partition of a topic its
metadata does not know, and for unknown partitions of known topics; only
the rest goes to the coordinator.  The answers are then merged the way
Kafka's ``OffsetCommitResponse.Builder`` does: the broker's own answers
first (in request order), the coordinator's appended, partitions of a topic
already answered joining that topic's entry (a topic is one entry per id in
v10, per name before).  ``retention_time_ms`` exists in v2-4 only.

OffsetFetch: v1-7 ask for one group (``topics`` null from v2 means "every
committed partition"), v8+ for a list of groups.  A group-level failure
(NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS...) is reported as Kafka's
``OffsetFetchResponse.groupError`` does: a group error code from v2 on, and
in v1, which has no such field, as that error on every requested partition
(offset -1, empty metadata).  For v1-7 the single group's answer is then
folded into the top-level ``topics``/``error_code`` fields.  In v10 the
topics of unknown ids follow the coordinator's answer, and "every committed
partition" leaves out topics that no longer exist (they have no id).

Mirrors ``KafkaApis.handleOffsetCommitRequest``, ``handleOffsetFetchRequest``,
``fetchOffsetsForGroup`` and ``fetchAllOffsetsForGroup`` (Kafka 4.3) with
``OffsetCommitResponse.Builder`` and ``OffsetFetchResponse.Builder``.
Simplified: no authorization.
"""

from __future__ import annotations

from typing import Any, Protocol

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.coordinator import requests as group
from minikafka.network.codec import from_wire_uuid, response_class, to_wire_uuid
from minikafka.server.apis.groups import GroupsBroker, call_coordinator
from minikafka.server.apis.metadata import TopicLookup
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import OFFSET_COMMIT, OFFSET_FETCH

OFFSET_FETCH_BATCH_VERSION = 8          # first version with a list of groups
OFFSET_FETCH_TOP_LEVEL_ERROR_VERSION = 2
TOPIC_ID_VERSION = 10                   # OffsetCommit and OffsetFetch name topics by id (KIP-848)

OffsetCommitResponse = response_class(OFFSET_COMMIT)
OffsetFetchResponse = response_class(OFFSET_FETCH)

_UNKNOWN = Errors.UNKNOWN_TOPIC_OR_PARTITION


class GroupOffsetsBroker(GroupsBroker, TopicLookup, Protocol):
    """What the offset APIs of groups use of the broker: its group coordinator and its topics."""


class CommitAnswers:
    """``OffsetCommitResponse.Builder``: answered partitions grouped by topic, topics in first-seen order.

    A topic is keyed by its id when the request used ids, else by its name.
    """

    def __init__(self, by_id: bool):
        self.by_id = by_id
        self.topics: dict[Uuid | str, tuple[Uuid, str, list[tuple[int, Errors]]]] = {}

    def add(self, topic_id: Uuid, name: str, index: int, error: Errors) -> None:
        key = topic_id if self.by_id else name
        self.topics.setdefault(key, (topic_id, name, []))[2].append((index, error))


def resolve_topic(broker: TopicLookup, topic: Any, by_id: bool) -> tuple[Uuid, str]:
    """The (id, name) a request's topic stands for; the name is "" for an id the metadata lacks.

    By name, the id is the metadata's (the zero id for an unknown topic)."""
    if by_id:
        topic_id = from_wire_uuid(topic.topic_id)
        known = broker.get_topic(topic_id) if topic_id != Uuid.ZERO else None
        return topic_id, known.name if known is not None else ""
    known = broker.get_topic(topic.name)
    return (known.topic_id if known is not None else Uuid.ZERO), topic.name


# ---------------------------------------------------------------------------- OffsetCommit
def handle_offset_commit(ctx: RequestContext, request: Any, broker: GroupOffsetsBroker) -> Any:
    version = ctx.api_version
    answers = CommitAnswers(by_id=version >= TOPIC_ID_VERSION)
    ids: dict[str, Uuid] = {}                                # name -> id of the topics sent on
    kept: list[group.OffsetCommitRequestTopic] = []
    for topic in request.topics:
        topic_id, name = resolve_topic(broker, topic, answers.by_id)
        known = broker.get_topic(name) if name else None
        if answers.by_id and not name:
            for p in topic.partitions:
                answers.add(topic_id, name, p.partition_index, Errors.UNKNOWN_TOPIC_ID)
            continue
        valid = []
        for p in topic.partitions:
            if known is not None and p.partition_index in known.partitions:
                valid.append(group.OffsetCommitRequestPartition(
                    p.partition_index, p.committed_offset,
                    p.committed_leader_epoch if version >= 6 else -1, p.committed_metadata))
            else:
                answers.add(topic_id, name, p.partition_index, _UNKNOWN)
        if valid:
            ids[name] = topic_id
            kept.append(group.OffsetCommitRequestTopic(name, tuple(valid)))
    if not kept:
        return encode_offset_commit(answers, None, ids)
    domain = group.OffsetCommitRequest(
        group_id=request.group_id, topics=tuple(kept),
        generation_id_or_member_epoch=request.generation_id_or_member_epoch,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id if version >= 7 else None,
        retention_time_ms=request.retention_time_ms if 2 <= version <= 4 else -1,
        api_version=version)
    return call_coordinator(broker.group_coordinator.handle_offset_commit, domain,
                            lambda answer: encode_offset_commit(answers, answer, ids),
                            f"OffsetCommit {request.group_id}")


def encode_offset_commit(answers: CommitAnswers, answer: group.OffsetCommitResponse | None,
                         ids: dict[str, Uuid]) -> Any:
    for topic in answer.topics if answer is not None else ():
        for p in topic.partitions:
            answers.add(ids.get(topic.name, Uuid.ZERO), topic.name, p.partition_index, p.error_code)
    Topic = OffsetCommitResponse.OffsetCommitResponseTopic
    return OffsetCommitResponse(throttle_time_ms=0, topics=[
        Topic(name=name, topic_id=to_wire_uuid(topic_id), partitions=[
            Topic.OffsetCommitResponsePartition(partition_index=index, error_code=error.code)
            for index, error in parts])
        for topic_id, name, parts in answers.topics.values()])


# ---------------------------------------------------------------------------- OffsetFetch
def handle_offset_fetch(ctx: RequestContext, request: Any, broker: GroupOffsetsBroker) -> Any:
    version = ctx.api_version
    by_id = version >= TOPIC_ID_VERSION
    unknown: list[tuple[group.OffsetFetchResponseTopics, ...]] = []   # per group: topics of unknown ids
    ids: dict[str, Uuid] = {}
    groups: tuple[group.OffsetFetchRequestGroup, ...]
    if version < OFFSET_FETCH_BATCH_VERSION:
        groups = (group.OffsetFetchRequestGroup(request.group_id, _wanted(request.topics)),)
        unknown.append(())
    else:
        built = []
        for g in request.groups:
            wanted, missing = _wanted_by_id(broker, g.topics, ids) if by_id else (_wanted(g.topics), ())
            built.append(group.OffsetFetchRequestGroup(
                g.group_id, wanted, g.member_id if version >= 9 else None, g.member_epoch if version >= 9 else -1))
            unknown.append(missing)
        groups = tuple(built)
    domain = group.OffsetFetchRequest(groups, request.require_stable if version >= 7 else False, version)
    return call_coordinator(broker.group_coordinator.handle_offset_fetch, domain,
                            lambda answer: encode_offset_fetch(domain, answer, version,
                                                               _IdsOf(broker, ids), unknown),
                            "OffsetFetch " + ",".join(g.group_id for g in groups))


def _wanted(topics: Any) -> tuple[group.OffsetFetchRequestTopics, ...] | None:
    if topics is None:
        return None
    return tuple(group.OffsetFetchRequestTopics(t.name, tuple(t.partition_indexes)) for t in topics)


def _wanted_by_id(broker: TopicLookup, topics: Any, ids: dict[str, Uuid]) -> tuple[
        tuple[group.OffsetFetchRequestTopics, ...] | None, tuple[group.OffsetFetchResponseTopics, ...]]:
    """v10: the named topics to ask the coordinator for, and the answers for unknown ids."""
    if topics is None:
        return None, ()
    wanted, missing = [], []
    for t in topics:
        topic_id, name = resolve_topic(broker, t, by_id=True)
        if name:
            ids[name] = topic_id
            wanted.append(group.OffsetFetchRequestTopics(name, tuple(t.partition_indexes)))
        else:
            missing.append(group.OffsetFetchResponseTopics("", tuple(
                group.OffsetFetchResponsePartitions(p, error_code=Errors.UNKNOWN_TOPIC_ID)
                for p in t.partition_indexes), topic_id=topic_id))
    return tuple(wanted), tuple(missing)


class _IdsOf:
    """Topic ids for a v10 answer: the ids the request named, else the metadata's (None: no such topic)."""

    def __init__(self, broker: TopicLookup, requested: dict[str, Uuid]):
        self.broker, self.requested = broker, requested

    def __call__(self, name: str) -> Uuid | None:
        if name in self.requested:
            return self.requested[name]
        known = self.broker.get_topic(name)
        return known.topic_id if known is not None else None


def group_error(requested: group.OffsetFetchRequestGroup, error: Errors,
                version: int) -> group.OffsetFetchResponseGroup:
    """``OffsetFetchResponse.groupError``: a failed group, in the form its version can carry."""
    if version >= OFFSET_FETCH_TOP_LEVEL_ERROR_VERSION:
        return group.OffsetFetchResponseGroup(requested.group_id, error_code=error)
    return group.OffsetFetchResponseGroup(requested.group_id, tuple(
        group.OffsetFetchResponseTopics(t.name, tuple(
            group.OffsetFetchResponsePartitions(p, -1, -1, "", error) for p in t.partition_indexes))
        for t in requested.topics or ()))


def _with_ids(answer: group.OffsetFetchResponseGroup, ids: _IdsOf,
              missing: tuple[group.OffsetFetchResponseTopics, ...]) -> group.OffsetFetchResponseGroup:
    """v10: each answered topic with its id (a topic without one is gone: left out), unknown ids last."""
    topics = [group.OffsetFetchResponseTopics(t.name, t.partitions, topic_id=ids(t.name))
              for t in answer.topics if ids(t.name) is not None]
    return group.OffsetFetchResponseGroup(answer.group_id, tuple(topics) + missing, answer.error_code)


def encode_offset_fetch(domain: group.OffsetFetchRequest, answer: group.OffsetFetchResponse,
                        version: int, ids: _IdsOf | None = None,
                        unknown: list[tuple[group.OffsetFetchResponseTopics, ...]] | None = None) -> Any:
    answers = []
    for i, (requested, a) in enumerate(zip(domain.groups, answer.groups)):
        if a.error_code is not Errors.NONE:
            answers.append(group_error(requested, a.error_code, version))
        elif version >= TOPIC_ID_VERSION and ids is not None:
            answers.append(_with_ids(a, ids, unknown[i] if unknown else ()))
        else:
            answers.append(a)
    if version < OFFSET_FETCH_BATCH_VERSION:
        (only,) = answers
        return OffsetFetchResponse(throttle_time_ms=0, error_code=only.error_code.code, topics=[
            OffsetFetchResponse.OffsetFetchResponseTopic(name=t.name, partitions=[
                OffsetFetchResponse.OffsetFetchResponseTopic.OffsetFetchResponsePartition(
                    partition_index=p.partition_index, committed_offset=p.committed_offset,
                    committed_leader_epoch=p.committed_leader_epoch, metadata=p.metadata,
                    error_code=p.error_code.code)
                for p in t.partitions])
            for t in only.topics])
    Group = OffsetFetchResponse.OffsetFetchResponseGroup
    return OffsetFetchResponse(throttle_time_ms=0, groups=[
        Group(group_id=g.group_id, error_code=g.error_code.code, topics=[
            Group.OffsetFetchResponseTopics(name=t.name, topic_id=to_wire_uuid(t.topic_id), partitions=[
                Group.OffsetFetchResponseTopics.OffsetFetchResponsePartitions(
                    partition_index=p.partition_index, committed_offset=p.committed_offset,
                    committed_leader_epoch=p.committed_leader_epoch, metadata=p.metadata,
                    error_code=p.error_code.code)
                for p in t.partitions])
            for t in g.topics])
        for g in answers])
