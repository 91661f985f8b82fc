"""Side effects of state changes: events, parked fetches, pending appends, connection resets."""

import pytest

from minikafka.common.errors import Errors
from minikafka.raft.errors import NotLeaderException
from minikafka.raft.messages import BeginQuorumEpochRequest, FetchRequest, VoteRequest
from minikafka.runtime.node import Envelope
from tests.raft.harness import CLUSTER_ID, START_MS, answer_to, single_node


def leader_of_three():
    """Node 1 elected by node 2's pre-vote and vote, driven by hand."""
    from minikafka.raft.messages import VoteResponse
    node = single_node()
    node.poll(START_MS + 1000)
    for _ in range(2):                      # pre-vote, then vote
        request = [e for e in node.drain()[0] if isinstance(e.body, VoteRequest) and e.dst == 2][0]
        node.deliver(Envelope(2, 1, VoteResponse(0, -1, request.body.replica_epoch, True),
                              request.correlation_id, is_response=True), START_MS + 1001)
    assert node.client.role == "Leader"
    node.drain()
    return node


def test_becoming_leader_writes_the_leader_change_first():
    node = leader_of_three()
    control = node.client.log.batches[0]
    assert control.is_control and control.epoch == 1
    message = control.records[0]
    assert (message.leader_id, message.voters, message.granting_voters) == (1, (1, 2, 3), (1, 2))


def test_stepping_down_answers_parked_fetches_and_drops_pending_appends():
    node = leader_of_three()
    fetch = Envelope(2, 1, FetchRequest(CLUSTER_ID, 2, 200, 1, 1, 1), correlation_id=77)
    node.deliver(fetch, START_MS + 1010)
    assert answer_to(node, fetch) is None                      # parked: nothing new
    node.client.append(["pending"], 1)
    begin = Envelope(3, 1, BeginQuorumEpochRequest(CLUSTER_ID, 3, 2, 1), correlation_id=78)
    node.deliver(begin, START_MS + 1012)                       # a newer leader appears
    out, events = node.drain()
    answer = [e.body for e in out if e.correlation_id == 77][0]
    assert answer.error is Errors.NOT_LEADER_OR_FOLLOWER
    assert (answer.current_leader.leader_id, answer.current_leader.leader_epoch) == (3, 2)
    resigned = [e for e in events if e.kind == "controller_resigned"][0]
    assert resigned.text == "controller 1 resigned in epoch 1: controller 3 leads epoch 2"
    assert node.client.log.end_offset == 1                     # "pending" was never written
    with pytest.raises(NotLeaderException):
        node.client.append(["late"], 1)


def test_check_quorum_resignation_event():
    node = leader_of_three()
    node.poll(START_MS + 1001 + 600)
    _, events = node.drain()
    assert node.client.role == "Resigned"
    assert [e.data["reason"] for e in events if e.kind == "controller_resigned"] == \
        ["did not receive fetch requests from a majority of the voters within 600 ms"]


def test_resigned_leader_starts_over_one_epoch_later():
    node = leader_of_three()
    node.client.resign(1)
    assert node.client.role == "Resigned"
    node.poll(START_MS + 10_000)
    assert node.client.epoch == 2 and node.client.role in ("Unattached", "Prospective")
    assert node.client.quorum.voted_id is None
