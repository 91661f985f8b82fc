"""OffsetCommit and OffsetFetch: a group's committed positions, stored in ``__consumer_offsets``.

Theory of operation
-------------------
A consumer commits "the next offset I will read" per partition to its group
coordinator, which writes them as records to the group's
``__consumer_offsets`` partition and answers once the ISR has them; after a
restart or a rebalance, OffsetFetch reads them back.

OffsetCommit: before the coordinator sees the request, the broker answers
UNKNOWN_TOPIC_OR_PARTITION itself for every partition of a topic its
metadata does not know, and for unknown partitions of known topics; only
the rest goes to the coordinator.  The answers are then merged the way
Kafka's ``OffsetCommitResponse.Builder`` does: the broker's own answers
first (in request order), the coordinator's appended, partitions of a topic
already answered joining that topic's entry.  ``retention_time_ms`` exists
in v2-4 only.

OffsetFetch: v1-7 ask for one group (``topics`` null from v2 means "every
committed partition"), v8+ for a list of groups.  A group-level failure
(NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS...) is reported as Kafka's
``OffsetFetchResponse.groupError`` does: a group error code from v2 on, and
in v1, which has no such field, as that error on every requested partition
(offset -1, empty metadata).  For v1-7 the single group's answer is then
folded into the top-level ``topics``/``error_code`` fields.

Mirrors ``KafkaApis.handleOffsetCommitRequest`` and
``handleOffsetFetchRequest`` (Kafka 4.1) with ``OffsetFetchResponse.Builder``.
Simplified: no authorization; OffsetCommit/OffsetFetch v10 (topic ids) are
not advertised, so topics are always named.
"""

from __future__ import annotations

from typing import Any

from minikafka.common.errors import Errors
from minikafka.coordinator import requests as group
from minikafka.network.codec import response_class
from minikafka.network.handlers.groups import call_coordinator
from minikafka.network.request_context import RequestContext

OFFSET_COMMIT, OFFSET_FETCH = 8, 9
OFFSET_FETCH_BATCH_VERSION = 8          # first version with a list of groups
OFFSET_FETCH_TOP_LEVEL_ERROR_VERSION = 2

OffsetCommitResponse = response_class(OFFSET_COMMIT)
OffsetFetchResponse = response_class(OFFSET_FETCH)

_UNKNOWN = Errors.UNKNOWN_TOPIC_OR_PARTITION


# ---------------------------------------------------------------------------- OffsetCommit
def handle_offset_commit(ctx: RequestContext, request: Any, broker: Any) -> Any:
    version = ctx.api_version
    refused: dict[str, list[tuple[int, Errors]]] = {}     # the broker's own answers, by topic
    kept: list[group.OffsetCommitRequestTopic] = []
    for topic in request.topics:
        known = broker.image.topics.get_topic(topic.name)
        valid = []
        for p in topic.partitions:
            if known is not None and p.partition_index in known.partitions:
                valid.append(group.OffsetCommitRequestPartition(
                    p.partition_index, p.committed_offset,
                    p.committed_leader_epoch if version >= 6 else -1, p.committed_metadata))
            else:
                refused.setdefault(topic.name, []).append((p.partition_index, _UNKNOWN))
        if valid:
            kept.append(group.OffsetCommitRequestTopic(topic.name, tuple(valid)))
    if not kept:
        return encode_offset_commit(refused, None)
    domain = group.OffsetCommitRequest(
        group_id=request.group_id, topics=tuple(kept),
        generation_id_or_member_epoch=request.generation_id_or_member_epoch,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id if version >= 7 else None,
        retention_time_ms=request.retention_time_ms if 2 <= version <= 4 else -1,
        api_version=version)
    return call_coordinator(broker, "handle_offset_commit", domain,
                            lambda answer: encode_offset_commit(refused, answer),
                            f"OffsetCommit {request.group_id}")


def encode_offset_commit(refused: dict[str, list[tuple[int, Errors]]],
                         answer: group.OffsetCommitResponse | None) -> Any:
    merged = {name: list(parts) for name, parts in refused.items()}
    for topic in answer.topics if answer is not None else ():
        merged.setdefault(topic.name, []).extend((p.partition_index, p.error_code) for p in topic.partitions)
    return OffsetCommitResponse(throttle_time_ms=0, topics=[
        OffsetCommitResponse.OffsetCommitResponseTopic(name=name, partitions=[
            OffsetCommitResponse.OffsetCommitResponseTopic.OffsetCommitResponsePartition(
                partition_index=index, error_code=error.code)
            for index, error in parts])
        for name, parts in merged.items()])


# ---------------------------------------------------------------------------- OffsetFetch
def handle_offset_fetch(ctx: RequestContext, request: Any, broker: Any) -> Any:
    version = ctx.api_version
    if version < OFFSET_FETCH_BATCH_VERSION:
        groups = (group.OffsetFetchRequestGroup(request.group_id, _wanted(request.topics)),)
    else:
        groups = tuple(group.OffsetFetchRequestGroup(
            g.group_id, _wanted(g.topics),
            g.member_id if version >= 9 else None, g.member_epoch if version >= 9 else -1)
            for g in request.groups)
    domain = group.OffsetFetchRequest(groups, request.require_stable if version >= 7 else False, version)
    return call_coordinator(broker, "handle_offset_fetch", domain,
                            lambda answer: encode_offset_fetch(domain, answer, version),
                            "OffsetFetch " + ",".join(g.group_id for g in groups))


def _wanted(topics: Any) -> tuple[group.OffsetFetchRequestTopics, ...] | None:
    if topics is None:
        return None
    return tuple(group.OffsetFetchRequestTopics(t.name, tuple(t.partition_indexes)) for t in topics)


def group_error(requested: group.OffsetFetchRequestGroup, error: Errors,
                version: int) -> group.OffsetFetchResponseGroup:
    """``OffsetFetchResponse.groupError``: a failed group, in the form its version can carry."""
    if version >= OFFSET_FETCH_TOP_LEVEL_ERROR_VERSION:
        return group.OffsetFetchResponseGroup(requested.group_id, error_code=error)
    return group.OffsetFetchResponseGroup(requested.group_id, tuple(
        group.OffsetFetchResponseTopics(t.name, tuple(
            group.OffsetFetchResponsePartitions(p, -1, -1, "", error) for p in t.partition_indexes))
        for t in requested.topics or ()))


def encode_offset_fetch(domain: group.OffsetFetchRequest, answer: group.OffsetFetchResponse,
                        version: int) -> Any:
    answers = [a if a.error_code is Errors.NONE else group_error(requested, a.error_code, version)
               for requested, a in zip(domain.groups, answer.groups)]
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
            Group.OffsetFetchResponseTopics(name=t.name, partitions=[
                Group.OffsetFetchResponseTopics.OffsetFetchResponsePartitions(
                    partition_index=p.partition_index, committed_offset=p.committed_offset,
                    committed_leader_epoch=p.committed_leader_epoch, metadata=p.metadata,
                    error_code=p.error_code.code)
                for p in t.partitions])
            for t in g.topics])
        for g in answers])


HANDLERS = {OFFSET_COMMIT: handle_offset_commit, OFFSET_FETCH: handle_offset_fetch}
