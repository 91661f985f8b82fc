"""OffsetDelete: remove some committed offsets of a group (``kafka-consumer-groups.sh --delete-offsets``).

Theory of operation
-------------------
An admin client asks the group's coordinator to forget the group's committed
offsets of some partitions.  Before the coordinator sees the request the
broker sorts out the partitions its metadata does not know: every partition
of an unknown topic, and each unknown partition of a known topic, is answered
UNKNOWN_TOPIC_OR_PARTITION by the broker itself.  The coordinator gets the
rest -- possibly nothing at all, and it is asked all the same, so that a
group-level error (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, NOT_COORDINATOR...)
still reaches the client.

The two answers are then merged as Kafka's ``OffsetDeleteResponse.Builder``
does: a group-level error from the coordinator replaces everything (the
response then has the error and no topics); otherwise the broker's answers
come first, in request order, and the coordinator's partitions join the
broker's entry of the same topic or follow as new topics.

OffsetDelete has one version (v0), neither flexible nor carrying a message.

Mirrors ``KafkaApis.handleOffsetDeleteRequest`` and ``OffsetDeleteResponse.Builder``
(Kafka 4.3.1).  Simplified: no authorization (GROUP_AUTHORIZATION_FAILED and
TOPIC_AUTHORIZATION_FAILED are never answered).
"""

from __future__ import annotations

from typing import Any

from minikafka.common.errors import Errors
from minikafka.coordinator import requests as group
from minikafka.network.codec import response_class
from minikafka.server.apis.group_offsets import GroupOffsetsBroker
from minikafka.server.apis.groups import call_coordinator
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import OFFSET_DELETE


OffsetDeleteResponse = response_class(OFFSET_DELETE)

TopicAnswers = dict[str, list[tuple[int, Errors]]]      # topic -> [(partition, error)], first-seen order


def handle_offset_delete(ctx: RequestContext, request: Any, broker: GroupOffsetsBroker) -> Any:
    answered: TopicAnswers = {}
    kept: list[group.OffsetDeleteRequestTopic] = []
    for topic in request.topics:
        known = broker.get_topic(topic.name)
        valid = []
        for p in topic.partitions:
            if known is not None and p.partition_index in known.partitions:
                valid.append(p.partition_index)
            else:
                answered.setdefault(topic.name, []).append((p.partition_index, Errors.UNKNOWN_TOPIC_OR_PARTITION))
        if valid:
            kept.append(group.OffsetDeleteRequestTopic(topic.name, tuple(valid)))
    domain = group.OffsetDeleteRequest(request.group_id, tuple(kept))
    return call_coordinator(broker.group_coordinator.handle_offset_delete, domain,
                            lambda answer: encode_offset_delete(merge(answered, answer)),
                            f"OffsetDelete {request.group_id}")


def merge(answered: TopicAnswers, answer: group.OffsetDeleteResponse) -> group.OffsetDeleteResponse:
    """``OffsetDeleteResponse.Builder.merge``: the broker's own answers with the coordinator's."""
    if answer.error_code is not Errors.NONE or not answered:
        return answer
    topics = {name: list(parts) for name, parts in answered.items()}
    for topic in answer.topics:
        topics.setdefault(topic.name, []).extend((p.partition_index, p.error_code) for p in topic.partitions)
    return group.OffsetDeleteResponse(topics=tuple(
        group.OffsetDeleteResponseTopic(name, tuple(group.OffsetDeleteResponsePartition(i, e) for i, e in parts))
        for name, parts in topics.items()))


def encode_offset_delete(answer: group.OffsetDeleteResponse) -> Any:
    Topic = OffsetDeleteResponse.OffsetDeleteResponseTopic
    return OffsetDeleteResponse(error_code=answer.error_code.code, throttle_time_ms=0, topics=[
        Topic(name=t.name, partitions=[
            Topic.OffsetDeleteResponsePartition(partition_index=p.partition_index, error_code=p.error_code.code)
            for p in t.partitions])
        for t in answer.topics])
