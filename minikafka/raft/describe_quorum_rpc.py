"""`DescribeQuorumRpc`: the DescribeQuorum RPC (KIP-595, KIP-836) -- the leader's replica table.

Theory of operation
-------------------
An admin client (``kafka-metadata-quorum``) asks the quorum who leads, in
which epoch, with which high watermark, and how far each voter and observer
has fetched.  Only the leader knows the fetch positions (`LeaderState`), so
anyone else answers NOT_LEADER_OR_FOLLOWER.  The quorum never sends this
request itself: there is no request building or response handling here,
only the answer (also offered to the host as `describe_quorum`).

Mirrors ``handleDescribeQuorumRequest`` of Kafka's ``KafkaRaftClient``.
Module named after the RPC (Kafka's ``DescribeQuorumRequest``).
Simplified: static voters, so the answer lists the configured endpoints.
"""

from __future__ import annotations

from typing import Mapping

from minikafka.common.errors import Errors
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.messages import DescribeQuorumNode, DescribeQuorumResponse, Listener
from minikafka.raft.quorum_state import QuorumState
from minikafka.runtime.node import Envelope


class DescribeQuorumRpc:
    """Answers DescribeQuorum from the leader's state."""

    def __init__(self, quorum: QuorumState, *, voter_endpoints: Mapping[int, Listener]):
        self.quorum = quorum
        self.voter_endpoints = voter_endpoints      # listed in the answer

    def handle_describe_quorum_request(self, envelope: Envelope,
                                       now: int) -> DescribeQuorumResponse:
        return self.describe_quorum(now)

    def describe_quorum(self, now: int) -> DescribeQuorumResponse:
        """The leader's view of voters and observers; NOT_LEADER_OR_FOLLOWER elsewhere."""
        state = self.quorum.state
        if not isinstance(state, LeaderState):
            error = Errors.NOT_LEADER_OR_FOLLOWER
            return DescribeQuorumResponse(error.code, error.message)
        voters, observers = state.describe(now)
        nodes = tuple(DescribeQuorumNode(v, (endpoint,))
                      for v, endpoint in self.voter_endpoints.items())
        return DescribeQuorumResponse(Errors.NONE.code, None, state.local_id, state.epoch,
                                      -1 if state.high_watermark is None else state.high_watermark,
                                      voters, observers, nodes)
