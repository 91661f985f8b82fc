"""The Raft RPC dataclasses: errors by code, endpoints, immutability."""

import dataclasses

import pytest

from minikafka.common.errors import Errors, KafkaException
from minikafka.raft.messages import (RAFT_REQUESTS, DescribeQuorumResponse, Listener, VoteRequest,
                                     VoteResponse)


def test_error_codes_map_to_kafka_errors():
    assert VoteResponse(74, 1, 3, False).error is Errors.FENCED_LEADER_EPOCH
    assert DescribeQuorumResponse(6).error is Errors.NOT_LEADER_OR_FOLLOWER


def test_messages_are_frozen():
    request = VoteRequest("c", 2, 1, 1, 10, pre_vote=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.replica_epoch = 3


@pytest.mark.parametrize("text, name, host, port", [
    ("CONTROLLER://localhost:9093", "CONTROLLER", "localhost", 9093),
    ("CONTROLLER://[::1]:9093", "CONTROLLER", "::1", 9093),
])
def test_listener_round_trip(text, name, host, port):
    listener = Listener.parse(text)
    assert (listener.name, listener.host, listener.port) == (name, host, port)
    assert str(listener) == text


@pytest.mark.parametrize("bad", ["localhost:9093", "CONTROLLER://localhost", "CONTROLLER://h:x"])
def test_bad_endpoints_are_refused(bad):
    with pytest.raises(KafkaException, match=f"^Unable to parse {bad} to a broker endpoint$"):
        Listener.parse(bad)


def test_request_types_listed():
    assert {t.__name__ for t in RAFT_REQUESTS} == {
        "VoteRequest", "BeginQuorumEpochRequest", "EndQuorumEpochRequest", "FetchRequest",
        "DescribeQuorumRequest"}
