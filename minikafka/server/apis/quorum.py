"""DescribeQuorum: the KRaft quorum as its leader sees it (``kafka-metadata-quorum.sh describe``).

Theory of operation
-------------------
Only the quorum leader (the active controller) knows how far every voter
and observer has replicated ``__cluster_metadata``, so a broker forwards
DescribeQuorum to it.  The leader's Raft client answers with its epoch and
high watermark and, for each voter and each observer (the brokers), the log
end offset it last reported and when it last fetched and last caught up;
the leader reports "now" for itself.  v1 adds those timestamps, v2 the
replica directory ids and the voters' endpoints (``nodes``).

The request must name exactly ``__cluster_metadata`` partition 0; anything
else gets UNKNOWN_TOPIC_OR_PARTITION on each requested partition.  A node
that is not the leader answers NOT_LEADER_OR_FOLLOWER for the partition.
When no leader answers in time (a quorum without a majority has none) the
broker answers REQUEST_TIMED_OUT at the top level, after the 60 s its
forwarding channel waits.

Mirrors ``KafkaApis`` forwarding of DESCRIBE_QUORUM, ``ControllerApis.
handleDescribeQuorum``, ``KafkaRaftClient.handleDescribeQuorumRequest`` and
``RaftUtil.singletonDescribeQuorumResponse`` (Kafka 4.3.1).  Simplified: the
topic/partition check runs on the broker before forwarding (same answer,
without waiting for a controller).
"""

from __future__ import annotations

from typing import Any

from minikafka.common.errors import Errors
from minikafka.network.codec import response_class
from minikafka.server.apis.forwarding import ForwardingBroker, forward
from minikafka.server.apis.topics_admin import wire_uuid
from minikafka.network.request_context import RequestContext
from minikafka.raft import messages as raft
from minikafka.network.api_keys import DESCRIBE_QUORUM

METADATA_TOPIC, METADATA_PARTITION = "__cluster_metadata", 0

DescribeQuorumResponse = response_class(DESCRIBE_QUORUM)
Topic = DescribeQuorumResponse.TopicData
Partition = Topic.PartitionData


def names_metadata_partition(request: Any) -> bool:
    """``RaftUtil.hasValidTopicPartition``: exactly one topic with exactly partition 0."""
    topics = request.topics
    return (len(topics) == 1 and topics[0].topic_name == METADATA_TOPIC
            and len(topics[0].partitions) == 1 and topics[0].partitions[0].partition_index == METADATA_PARTITION)


def handle_describe_quorum(ctx: RequestContext, request: Any, broker: ForwardingBroker) -> Any:
    version = ctx.api_version
    if not names_metadata_partition(request):
        error = Errors.UNKNOWN_TOPIC_OR_PARTITION
        return DescribeQuorumResponse(error_code=0, error_message="", nodes=[], topics=[
            Topic(topic_name=t.topic_name, partitions=[
                Partition(partition_index=p.partition_index, error_code=error.code, error_message=error.message,
                          leader_id=0, leader_epoch=0, high_watermark=0, current_voters=[], observers=[])
                for p in t.partitions])
            for t in request.topics])
    timed_out = Errors.REQUEST_TIMED_OUT
    return forward(broker, raft.DescribeQuorumRequest(), None,
                   lambda answer: encode_describe_quorum(answer, version),
                   lambda: DescribeQuorumResponse(error_code=timed_out.code, error_message=timed_out.message,
                                                  topics=[], nodes=[]),
                   "DescribeQuorum")


def encode_describe_quorum(answer: raft.DescribeQuorumResponse, version: int) -> Any:
    if answer.error_code != Errors.NONE.code:
        # DescribeQuorumResponse.singletonErrorResponse: the error on the one partition.
        error = Errors.for_code(answer.error_code)
        partition = Partition(partition_index=METADATA_PARTITION, error_code=error.code,
                              error_message=answer.error_message or error.message, leader_id=0,
                              leader_epoch=0, high_watermark=0, current_voters=[], observers=[])
        return DescribeQuorumResponse(error_code=0, error_message="", nodes=[],
                                      topics=[Topic(topic_name=METADATA_TOPIC, partitions=[partition])])
    partition = Partition(partition_index=METADATA_PARTITION, error_code=0, error_message="",
                          leader_id=answer.leader_id, leader_epoch=answer.leader_epoch,
                          high_watermark=answer.high_watermark,
                          current_voters=[replica_state(r) for r in answer.current_voters],
                          observers=[replica_state(r) for r in answer.observers])
    nodes = [DescribeQuorumResponse.Node(node_id=n.node_id, listeners=[
        DescribeQuorumResponse.Node.Listener(name=listener.name, host=listener.host, port=listener.port)
        for listener in n.listeners]) for n in answer.nodes] if version >= 2 else []
    return DescribeQuorumResponse(error_code=0, error_message="", nodes=nodes,
                                  topics=[Topic(topic_name=METADATA_TOPIC, partitions=[partition])])


def replica_state(state: raft.ReplicaState) -> Any:
    return Partition.ReplicaState(
        replica_id=state.replica_id, replica_directory_id=wire_uuid(state.replica_directory_id),
        log_end_offset=state.log_end_offset, last_fetch_timestamp=state.last_fetch_timestamp,
        last_caught_up_timestamp=state.last_caught_up_timestamp)
