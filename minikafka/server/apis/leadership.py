"""ElectLeaders, AlterPartitionReassignments and ListPartitionReassignments.

Theory of operation
-------------------
Who leads a partition and which brokers hold its replicas is metadata, so
these requests are forwarded to the active controller (see `forwarding`):

* ElectLeaders (``kafka-leader-election.sh``): a *preferred* election moves
  leadership back to the first replica when it is in the ISR; an *unclean*
  one picks a live replica outside the ISR when no ISR member is alive.
  ``topic_partitions`` null means every partition.  v0 has no election type
  (always preferred) and no top-level error code;
* AlterPartitionReassignments (``kafka-reassign-partitions.sh --execute``):
  for each partition a new replica list (or null to cancel an ongoing move).
  The controller adds the new replicas first; once they have caught up and
  joined the ISR it removes the old ones, and the reassignment is complete.
  v1 adds ``allow_replication_factor_change`` (KIP-860);
* ListPartitionReassignments (``--verify``/``--list``): the reassignments in
  progress, with their adding and removing replicas.

If no controller answers within the request's ``timeout_ms``, the client gets
the API's whole-request error response with REQUEST_TIMED_OUT (top-level
and, where the API lists partitions, on each requested partition).

Mirrors ``KafkaApis.forwardToController`` for these APIs,
``ControllerApis.handleElectLeaders``/``handleAlterPartitionReassignments``/
``handleListPartitionReassignments`` and the ``getErrorResponse`` of each
request class (Kafka 4.3.1).
"""

from __future__ import annotations

from typing import Any

from minikafka.common.errors import Errors
from minikafka.controller import requests as ctl
from minikafka.network.codec import response_class
from minikafka.server.apis.forwarding import ForwardingBroker, forward
from minikafka.network.request_context import RequestContext
from minikafka.network.api_keys import ELECT_LEADERS, ALTER_PARTITION_REASSIGNMENTS, LIST_PARTITION_REASSIGNMENTS


ElectLeadersResponse = response_class(ELECT_LEADERS)
AlterPartitionReassignmentsResponse = response_class(ALTER_PARTITION_REASSIGNMENTS)
ListPartitionReassignmentsResponse = response_class(LIST_PARTITION_REASSIGNMENTS)

TIMED_OUT = Errors.REQUEST_TIMED_OUT


# ---------------------------------------------------------------------------- ElectLeaders
def handle_elect_leaders(ctx: RequestContext, request: Any, broker: ForwardingBroker) -> Any:
    wanted = None if request.topic_partitions is None else tuple(
        ctl.TopicPartitions(t.topic, tuple(t.partitions)) for t in request.topic_partitions)
    election_type = request.election_type if ctx.api_version >= 1 else ctl.ElectionType.PREFERRED
    domain = ctl.ElectLeadersRequest(election_type, wanted, request.timeout_ms)
    timed_out = ctl.ElectLeadersResponse(tuple(
        ctl.ReplicaElectionResult(t.topic, tuple(ctl.PartitionResult(p, TIMED_OUT) for p in t.partitions))
        for t in wanted or ()), TIMED_OUT)
    return forward(broker, domain, request.timeout_ms, encode_elect_leaders,
                   lambda: encode_elect_leaders(timed_out), "ElectLeaders")


def encode_elect_leaders(answer: ctl.ElectLeadersResponse) -> Any:
    Result = ElectLeadersResponse.ReplicaElectionResult
    return ElectLeadersResponse(throttle_time_ms=0, error_code=answer.error_code.code, replica_election_results=[
        Result(topic=r.topic, partition_result=[
            Result.PartitionResult(partition_id=p.partition_id, error_code=p.error_code.code,
                                   error_message=p.error_message)
            for p in r.partition_result])
        for r in answer.replica_election_results])


# ---------------------------------------------------------------------------- AlterPartitionReassignments
def handle_alter_partition_reassignments(ctx: RequestContext, request: Any, broker: ForwardingBroker) -> Any:
    allow_change = bool(request.allow_replication_factor_change) if ctx.api_version >= 1 else True
    topics = tuple(ctl.ReassignableTopic(t.name, tuple(
        ctl.ReassignablePartition(p.partition_index, None if p.replicas is None else tuple(p.replicas))
        for p in t.partitions)) for t in request.topics)
    domain = ctl.AlterPartitionReassignmentsRequest(topics, request.timeout_ms, allow_change)
    timed_out = ctl.AlterPartitionReassignmentsResponse(tuple(
        ctl.ReassignableTopicResponse(t.name, tuple(ctl.ReassignablePartitionResponse(p.partition_index, TIMED_OUT)
                                                    for p in t.partitions))
        for t in topics), TIMED_OUT)
    return forward(broker, domain, request.timeout_ms, encode_alter_reassignments,
                   lambda: encode_alter_reassignments(timed_out), "AlterPartitionReassignments")


def encode_alter_reassignments(answer: ctl.AlterPartitionReassignmentsResponse) -> Any:
    Topic = AlterPartitionReassignmentsResponse.ReassignableTopicResponse
    return AlterPartitionReassignmentsResponse(
        throttle_time_ms=0, allow_replication_factor_change=answer.allow_replication_factor_change,
        error_code=answer.error_code.code, error_message=answer.error_message, responses=[
            Topic(name=t.name, partitions=[
                Topic.ReassignablePartitionResponse(partition_index=p.partition_index,
                                                    error_code=p.error_code.code, error_message=p.error_message)
                for p in t.partitions])
            for t in answer.responses])


# ---------------------------------------------------------------------------- ListPartitionReassignments
def handle_list_partition_reassignments(ctx: RequestContext, request: Any, broker: ForwardingBroker) -> Any:
    wanted = None if request.topics is None else tuple(
        ctl.ListPartitionReassignmentsTopics(t.name, tuple(t.partition_indexes)) for t in request.topics)
    domain = ctl.ListPartitionReassignmentsRequest(wanted, request.timeout_ms)
    timed_out = ctl.ListPartitionReassignmentsResponse(tuple(
        ctl.OngoingTopicReassignment(t.name, tuple(ctl.OngoingPartitionReassignment(p, (), (), ())
                                                   for p in t.partition_indexes))
        for t in wanted or ()), TIMED_OUT)
    return forward(broker, domain, request.timeout_ms, encode_list_reassignments,
                   lambda: encode_list_reassignments(timed_out), "ListPartitionReassignments")


def encode_list_reassignments(answer: ctl.ListPartitionReassignmentsResponse) -> Any:
    Topic = ListPartitionReassignmentsResponse.OngoingTopicReassignment
    return ListPartitionReassignmentsResponse(
        throttle_time_ms=0, error_code=answer.error_code.code, error_message=answer.error_message, topics=[
            Topic(name=t.name, partitions=[
                Topic.OngoingPartitionReassignment(partition_index=p.partition_index, replicas=list(p.replicas),
                                                   adding_replicas=list(p.adding_replicas),
                                                   removing_replicas=list(p.removing_replicas))
                for p in t.partitions])
            for t in answer.topics])
