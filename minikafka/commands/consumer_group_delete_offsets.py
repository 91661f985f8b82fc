"""``kafka-consumer-groups.sh --delete-offsets --group g --topic t[:p,...]``: forget some committed offsets.

Theory of operation
-------------------
Each ``--topic`` names either chosen partitions (``orders:0,2``) or a whole
topic (``orders``).  A whole topic is looked up first (DescribeTopics): a
topic that fails the lookup is not sent at all and gets a row of its own,
partition ``-1``, with the lookup's error.  Every partition found is then
sent in one OffsetDelete request to the group's coordinator.

The answer is judged the way Kafka's admin client does: a group-level error
fails every partition with that error; otherwise each partition carries its
own error, and the first failing partition (in the iteration order of the
``HashSet`` the tool built) is the call's error.  That error picks the first
line -- ``Request succeeded for deleting offsets from group g.``, the
error's own text for group errors, or "Encountered some partition-level
error" -- and a table of every partition's outcome follows (see
`consumer_group_command_output.delete_offsets_result`).  A lookup failure on
partition ``-1`` is not part of the call, so it can sit under a "succeeded"
line, as it does in Kafka.

A coordinator that answers COORDINATOR_LOAD_IN_PROGRESS is asked again, and
one that answers NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE is looked up
again, with Kafka's backoff, until ``--timeout`` runs out
(`minikafka.commands.coordinator_call`).  Then every partition fails with the
``TimeoutException``: the first line is ``Error: Encountered some unknown
error: REQUEST_TIMED_OUT`` and each row ``Error: org.apache.kafka.common.
errors.TimeoutException: Timed out waiting for a node assignment. Call:
offsetDelete(api=OFFSET_DELETE)``.  A whole call that fails (DescribeTopics
with no broker, say) fails each of its topics the same way, on its row
(``Error: ...TimeoutException: Timed out waiting for a node assignment.
Call: describeTopicPartitions``).

Mirrors ``ConsumerGroupCommand.ConsumerGroupService.deleteOffsets`` with
``Admin.deleteConsumerGroupOffsets`` (``DeleteConsumerGroupOffsetsHandler``,
``DeleteConsumerGroupOffsetsResult``), Kafka 4.3.1.
"""

from __future__ import annotations

from minikafka.commands.admin_client import AdminConnection, ExecutionException, error_for, execution, java_string
from minikafka.commands.coordinator_call import CoordinatorCall
from minikafka.commands.offsets_utils import parse_topic_with_partitions
from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools import consumer_group_command_output as output
from minikafka.tools.java_hash_codes import hash_set_capacity, string_order, topic_partition_order


def whole_topic_partitions(connection: AdminConnection, topics: list[str],
                           failures: dict[TopicPartition, str | None]) -> list[TopicPartition]:
    """Every partition of ``topics`` (DescribeTopics); a topic that fails goes to ``failures`` as ``t-(-1)``."""
    if not topics:
        return []
    try:
        # Kafka 4.3.1 describes topics by name with DescribeTopicPartitions: that is the call that times out.
        described = execution(lambda: connection.admin("describeTopicPartitions").describe_topics(topics))
    except ExecutionException as exc:          # the call failed as a whole: so did each topic's future
        failures.update({TopicPartition(t, -1): exc.message for t in topics})
        return []
    found = []
    for topic in described:
        if topic["error_code"]:
            # The row shows the ExecutionException's message: its cause as ``Throwable.toString()``.
            failures[TopicPartition(topic["name"], -1)] = java_string(error_for(topic["error_code"]))
            continue
        found += [TopicPartition(topic["name"], p["partition_index"]) for p in topic["partitions"]]
    return found


def send_offset_delete(connection: AdminConnection, group_id: str, partitions: list[TopicPartition]):
    """OffsetDelete v0 to the group's coordinator, retried until --timeout; the response, or the call's
    failure (`ExecutionException`)."""
    from kafka.protocol.consumer.group import OffsetDeleteRequest
    Topic = OffsetDeleteRequest.OffsetDeleteRequestTopic
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    request = OffsetDeleteRequest[0](group_id=group_id, topics=[
        Topic(name=t, partitions=[Topic.OffsetDeleteRequestPartition(partition_index=p) for p in ps])
        for t, ps in by_topic.items()])
    call = CoordinatorCall(connection, "offsetDelete", "OFFSET_DELETE")
    answer = call.run([group_id], lambda groups: request,
                      lambda response, groups: {group_id: (Errors.for_code(response.error_code), response)})[group_id]
    if isinstance(answer, KafkaException):
        raise ExecutionException(answer)
    return answer


def judge(response, partitions: list[TopicPartition]) -> tuple[Errors, dict[TopicPartition, str | None]]:
    """The call's error and each partition's outcome (None: deleted; else the failure's message)."""
    group_error = Errors.for_code(response.error_code)
    if group_error is not Errors.NONE:
        message = java_string(group_error.exception())
        return group_error, {tp: message for tp in partitions}
    answered = {TopicPartition(t.name, p.partition_index): Errors.for_code(p.error_code)
                for t in response.topics for p in t.partitions}
    outcomes: dict[TopicPartition, str | None] = {}
    first: Errors | None = None
    for tp in topic_partition_order(partitions, hash_set_capacity(len(partitions))):
        error = answered.get(tp)
        if error is None:
            outcomes[tp] = (f"java.lang.IllegalArgumentException: Offset deletion result for partition "
                            f"\"{tp}\" was not included in the response")
            first = first or Errors.UNKNOWN_SERVER_ERROR
        elif error is not Errors.NONE:
            outcomes[tp] = java_string(error.exception())
            first = first or error
        else:
            outcomes[tp] = None
    return first or Errors.NONE, outcomes


def delete_offsets(connection: AdminConnection, group_id: str, topic_args: list[str]) -> output.ToolOutput:
    """``--delete-offsets``: Kafka's verdict line and the table of partitions."""
    with_partitions = string_order(a for a in topic_args if ":" in a)
    whole_topics = string_order(a for a in topic_args if ":" not in a)
    named = [tp for arg in with_partitions for tp in parse_topic_with_partitions(arg)]  # bad args: usage, exit 1
    failures: dict[TopicPartition, str | None] = {}
    partitions = list(dict.fromkeys(named + whole_topic_partitions(connection, whole_topics, failures)))
    try:
        response = send_offset_delete(connection, group_id, partitions)
    except ExecutionException as exc:                      # the call failed as a whole (no broker...)
        error = getattr(exc.cause, "error", Errors.UNKNOWN_SERVER_ERROR)
        failures.update({tp: exc.message for tp in partitions})
        return output.delete_offsets_result(group_id, error, failures)
    error, outcomes = judge(response, partitions)
    failures.update(outcomes)
    return output.delete_offsets_result(group_id, error, failures)


__all__ = ["delete_offsets", "judge", "send_offset_delete", "whole_topic_partitions"]
