"""The stepper's words (minikafka/testing/quorum_stepper_text.py): one line per RPC, change and control."""

from __future__ import annotations

import pytest

from minikafka.common.errors import Errors
from minikafka.raft.messages import (BeginQuorumEpochRequest, BeginQuorumEpochResponse,
                                     EndQuorumEpochRequest, EpochEndOffset, FetchRequest,
                                     FetchResponse, LeaderIdAndEpoch, VoteRequest, VoteResponse)
from minikafka.raft.replicated_log import Batch, LeaderChangeMessage
from minikafka.runtime.node import Envelope
from minikafka.testing.quorum_stepper_text import (change_line, describe_body, describe_message,
                                         message_facts, seconds)

PRE_VOTE = VoteRequest("c", 0, 1002, 0, 0, pre_vote=True, voter_id=1001)
VOTE = VoteRequest("c", 2, 1002, 1, 5, voter_id=1001)


@pytest.mark.parametrize("body, request_, text", [
    (PRE_VOTE, None, "Vote request (pre-vote): epoch 0, log end offset 0, last epoch 0"),
    (VOTE, None, "Vote request: epoch 2, log end offset 5, last epoch 1"),
    (VoteResponse(0, -1, 0, True), PRE_VOTE, "Vote response (pre-vote): granted, epoch 0, "
                                             "leader none"),
    (VoteResponse(0, 1003, 2, False), VOTE, "Vote response: not granted, epoch 2, leader 1003"),
    (VoteResponse(Errors.FENCED_LEADER_EPOCH.code, 1003, 3, False), VOTE,
     "Vote response: FENCED_LEADER_EPOCH, not granted, epoch 3, leader 1003"),
    (BeginQuorumEpochRequest("c", 1002, 1, 1001), None,
     "BeginQuorumEpoch request: leader 1002, epoch 1"),
    (BeginQuorumEpochResponse(0, 1002, 1), None,
     "BeginQuorumEpoch response: NONE, epoch 1, leader 1002"),
    (EndQuorumEpochRequest("c", 1002, 1, (1003, 1001)), None,
     "EndQuorumEpoch request: leader 1002, epoch 1, preferred successors 1003,1001"),
    (FetchRequest("c", 1001, 500, 1, 3, 1), None,
     "Fetch request: epoch 1, fetch offset 3, last fetched epoch 1"),
    (FetchResponse(Errors.NOT_LEADER_OR_FOLLOWER.code, -1, 0, LeaderIdAndEpoch(-1, 0)), None,
     "Fetch response: NOT_LEADER_OR_FOLLOWER, leader none, epoch 0"),
    (FetchResponse(0, 2, 0, LeaderIdAndEpoch(1002, 1), EpochEndOffset(1, 2)), None,
     "Fetch response: diverging epoch 1 ends at offset 2 (truncate there), leader 1002, "
     "epoch 1"),
    (FetchResponse(0, -1, 0, LeaderIdAndEpoch(1002, 1),
                   records=(Batch(0, 1, 0, (LeaderChangeMessage(1002, (1001, 1002, 1003),
                                                                (1001, 1002)),), True),
                            Batch(1, 1, 0, ("x", "y")))), None,
     "Fetch response: 3 records at offsets 0-2 [LeaderChange(leader 1002, votes 1001,1002), "
     "'x', 'y'], high watermark unknown, leader 1002, epoch 1"),
    (FetchResponse(0, 3, 0, LeaderIdAndEpoch(1002, 1)), None,
     "Fetch response: no records, high watermark 3, leader 1002, epoch 1"),
])
def test_each_rpc_in_one_line(body, request_, text):
    assert describe_body(body, request_) == text


def test_a_message_names_its_ends_and_its_facts():
    envelope = Envelope(1002, 1001, PRE_VOTE, correlation_id=3)
    assert describe_message(envelope) == "1002 -> 1001  Vote request (pre-vote): epoch 0, " \
                                         "log end offset 0, last epoch 0"
    assert message_facts(PRE_VOTE) == {"api": "Vote", "response": False, "pre_vote": True,
                                       "epoch": 0}
    assert message_facts(VoteResponse(0, -1, 0, True), PRE_VOTE)["pre_vote"] is True
    assert message_facts(FetchResponse(0, 1, 0, LeaderIdAndEpoch(1002, 4)))["epoch"] == 4


def test_change_lines():
    before = {"role": "Prospective", "epoch": 0, "voted_for": None, "leader": None,
              "log_end_offset": 0, "high_watermark": 0}
    after = dict(before, role="Candidate", epoch=1, voted_for=1002)
    assert change_line(1002, before, after) == \
        "1002: Prospective -> Candidate; epoch 0 -> 1; voted for - -> 1002"
    assert change_line(1002, before, dict(before)) is None


@pytest.mark.parametrize("ms, text", [(0, "t=0.000s"), (1, "t=0.001s"), (1234, "t=1.234s"),
                                      (61005, "t=61.005s")])
def test_seconds(ms, text):
    assert seconds(ms) == text
