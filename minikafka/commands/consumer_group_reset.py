"""``kafka-consumer-groups.sh --reset-offsets``: plan new committed offsets for inactive groups, and commit them.

Theory of operation
-------------------
Offsets can only be rewritten while nobody consumes: a live member would
overwrite them with its next commit.  So the tool first describes each group
(``--group`` values, or every consumer group with ``--all-groups``):

* state ``Empty`` or ``Dead``, or a group the coordinator does not know
  (``GroupIdNotFoundException``): inactive, so it is planned;
* any other state: ``Error: Assignments can only be reset if the group 'g'
  is inactive, but the current state is Stable.`` and the group gets an
  empty plan (the table's header is still printed).

For an inactive group the *scope* is ``--all-topics`` (every partition the
group has a committed offset for), ``--topic t`` (every partition of t) or
``--topic t:0,1``; each partition must exist and have a leader.  The
*scenario* (`minikafka.commands.offsets_utils`) then gives each partition its
new offset.  With ``--execute`` the plan is committed through the
coordinator (OffsetCommit with no member and generation -1, as the admin
client's ``alterConsumerGroupOffsets`` sends it; a coordinator that is
loading, rebalancing or moved is asked again until ``--timeout`` runs out,
then the command fails with ``Timed out waiting for a node assignment.
Call: offsetCommit(api=OFFSET_COMMIT)``); with ``--dry-run``, or neither,
nothing changes.  The plan is printed as a table ``GROUP TOPIC
PARTITION NEW-OFFSET`` or, with ``--export``, as CSV lines.

Mirrors ``ConsumerGroupCommand.ConsumerGroupService.resetOffsets``,
``resetOffsetsForInactiveGroup``, ``getPartitionsToReset`` and
``prepareOffsetsToReset`` (4.3.1).  Simplified: groups of the KIP-848
consumer protocol are described through DescribeGroups, like the rest of
the tool; a partition named twice (``--topic t:0 --topic t``) is planned
once, where Kafka's tool fails with ``Duplicate key t-0 (attempted merging
values ...)`` (the values it names are Java objects' identity hashes).
"""

from __future__ import annotations

import time
from typing import Any

from minikafka.commands import offsets_utils as ou
from minikafka.commands.admin_client import AdminConnection, ExecutionException, error_for, java_string
from minikafka.commands.consumer_group_describe import committed_offsets, describe_consumer_groups
from minikafka.commands.coordinator_call import ASK_AGAIN, FIND_AGAIN, CoordinatorCall
from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.tools import consumer_group_command_output as output
from minikafka.tools.java_hash_codes import string_order, topic_partition_order

INACTIVE_STATES = ("Empty", "Dead")
# AlterConsumerGroupOffsetsHandler asks the same coordinator again after these, besides looking it up again.
RETRY_COMMIT = ASK_AGAIN | {Errors.REBALANCE_IN_PROGRESS}


def _state(answers: dict[str, Any], group_id: str) -> str | None:
    """The group's state; None for a group the coordinator does not know (Kafka resets it too)."""
    answer = answers[group_id]
    if not isinstance(answer, KafkaException):
        return answer.group_state
    if answer.error == Errors.GROUP_ID_NOT_FOUND:
        return None
    # describedGroups' future failed: Kafka wraps the ExecutionException in a RuntimeException.
    raise KafkaException(f"java.util.concurrent.ExecutionException: {java_string(answer)}")


def _committed(connection: AdminConnection, group_id: str) -> dict[TopicPartition, int]:
    found = committed_offsets(connection, group_id)
    return {TopicPartition(tp.topic, tp.partition): meta.offset for tp, meta in found.items()}


def _partitions_to_reset(connection: AdminConnection, group_id: str, o) -> list[TopicPartition]:
    """``getPartitionsToReset``: the scope."""
    if o.has("all-topics"):
        return list(_committed(connection, group_id))
    if o.has("topic"):
        return ou.parse_topic_partitions(connection.admin("describeTopics"), o.values_of("topic"))
    if not o.has("from-file"):
        raise ou.UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
    return []


def _prepare(connection: AdminConnection, group_id: str, partitions: list[TopicPartition], o,
             console) -> dict[TopicPartition, int]:
    """``prepareOffsetsToReset``: the scenario's offsets for ``partitions``."""
    admin = connection.admin("describeTopics")
    ou.check_all_topic_partitions_valid(admin, partitions)
    if o.has("to-offset"):
        return ou.reset_to_offset(admin, partitions, o.value_of("to-offset"))
    if o.has("to-earliest") or o.has("to-latest"):
        return ou.reset_to_log_offset(admin, partitions, ou.EARLIEST if o.has("to-earliest") else ou.LATEST)
    if o.has("shift-by"):
        return ou.reset_by_shift_by(admin, partitions, _committed(connection, group_id), o.value_of("shift-by"))
    if o.has("to-datetime"):
        return ou.reset_to_timestamp(admin, partitions, ou.date_time_ms(o.value_of("to-datetime")), console.println)
    if o.has("by-duration"):
        instant = int(time.time() * 1000) - ou.duration_ms(o.value_of("by-duration"))
        return ou.reset_to_timestamp(admin, partitions, instant, console.println)
    if o.has("from-file"):
        plan = ou.reset_plan_from_file(o.value_of("from-file"), o.values_of("group"))
        if group_id not in plan:
            console.println(f"\nError: No reset plan for group {group_id} found")
            return {}
        return ou.check_offsets_range(admin, plan[group_id])
    if o.has("to-current"):
        return ou.reset_to_current(admin, partitions, _committed(connection, group_id))
    # Kafka formats a Set.of(...) of option specs, whose order changes from one JVM run to the next.
    raise ou.UsageError("Option '[reset-offsets]' requires one of the following scenarios: [[to-offset], "
                        "[to-datetime], [by-duration], [to-earliest], [to-latest], [shift-by], [from-file], "
                        "[to-current]]")


def _commit_answer(response, groups: list[str]) -> dict[str, tuple[Errors, Any]]:
    """An OffsetCommit answer: a partition's retriable error retries the whole group, as Kafka's handler does."""
    errors = {(t.name, p.partition_index): Errors.for_code(p.error_code) for t in response.topics for p in t.partitions}
    retry = [e for e in errors.values() if e in FIND_AGAIN] or [e for e in errors.values() if e in RETRY_COMMIT]
    return {groups[0]: (retry[0] if retry else Errors.NONE, errors)}


def _alter_offsets(connection: AdminConnection, group_id: str, plan: dict[TopicPartition, int]) -> None:
    """``alterConsumerGroupOffsets`` (retried until --timeout): commit the plan; a partition's error fails the
    command with its message."""
    from kafka import TopicPartition as KafkaTopicPartition
    from kafka.structs import OffsetAndMetadata
    offsets = {KafkaTopicPartition(tp.topic, tp.partition): OffsetAndMetadata(offset, "", None)
               for tp, offset in plan.items()}
    call = CoordinatorCall(connection, "offsetCommit", "OFFSET_COMMIT", ask_again=RETRY_COMMIT)
    answer = call.run([group_id], lambda groups: connection.offset_commit_request(group_id, offsets),
                      _commit_answer)[group_id]
    if isinstance(answer, KafkaException):
        raise ExecutionException(answer)
    for error in answer.values():
        if error is not Errors.NONE:
            raise error_for(error.code)


def _reset_inactive_group(connection: AdminConnection, group_id: str, o, console) -> dict[TopicPartition, int]:
    """``resetOffsetsForInactiveGroup``: a failed admin call fails the command with its cause's message."""
    try:
        partitions = _partitions_to_reset(connection, group_id, o)
        plan = _prepare(connection, group_id, partitions, o, console)
        if o.has("execute") and not o.has("dry-run"):
            _alter_offsets(connection, group_id, plan)
    except ExecutionException as exc:
        raise exc.cause from None
    return plan


def reset_offsets(connection: AdminConnection, group_ids: list[str], o) -> output.ToolOutput:
    """``--reset-offsets``: plan (and with ``--execute`` commit) each group's offsets, then print the plan."""
    console = output.Console()
    plans: dict[str, dict[TopicPartition, int]] = {}
    try:
        answers, _ = describe_consumer_groups(connection, group_ids)
        for group_id in string_order(dict.fromkeys(group_ids)):   # the order of Kafka's map of futures
            state = _state(answers, group_id)
            if state is None or state in INACTIVE_STATES:
                plans[group_id] = _reset_inactive_group(connection, group_id, o, console)
            else:
                console.println(f"\nError: Assignments can only be reset if the group '{group_id}' is inactive, "
                                f"but the current state is {state}.")
                plans[group_id] = {}
    except KafkaException as exc:
        return output.failed(console, exc.message)
    # Kafka keeps the plans in HashMaps: groups and partitions come out in their hash order.
    ordered = {g: {tp: plans[g][tp] for tp in topic_partition_order(plans[g])} for g in string_order(plans)}
    if o.has("export"):
        return output.export_offsets_to_csv(console, ordered, with_group=len(o.values_of("group")) != 1)
    return output.print_offsets_to_reset(console, ordered)


__all__ = ["reset_offsets", "INACTIVE_STATES"]
