"""The broker-to-controller forwarding loop: NOT_CONTROLLER anywhere means "try again"."""

import random

import pytest

from minikafka.common.errors import Errors
from minikafka.controller.requests import (CreatableTopicResult, CreateTopicsRequest, CreateTopicsResponse,
                                           ElectLeadersResponse, PartitionResult, ReplicaElectionResult)
from minikafka.server.apis.forwarding import (FORWARDING_RETRY_TIMEOUT_MS, forward, forwarding_budget_ms,
                                                   has_not_controller_error)
from minikafka.network.request_channel import CloseConnectionResponse
from minikafka.runtime.node import Node, RequestTimedOut

NOT_CONTROLLER = CreateTopicsResponse((CreatableTopicResult("t", error_code=Errors.NOT_CONTROLLER),))
CREATED = CreateTopicsResponse((CreatableTopicResult("t"),))


class FakeBroker:
    """Answers ``forward_to_controller`` from a script, one answer per call."""

    def __init__(self, answers):
        self.node = Node(1, random.Random(1))
        self.node.now = 1000
        self.answers = list(answers)
        self.calls = []                         # (time, timeout_ms) of each attempt

    def now(self):
        return self.node.now

    def schedule(self, key, at_ms, fn):
        self.node.schedule(key, at_ms, fn)

    def forward_to_controller(self, request, respond, timeout_ms=None):
        self.calls.append((self.node.now, timeout_ms))
        respond(self.answers.pop(0))

    def advance(self, ms):
        self.node.poll(self.node.now + ms)


@pytest.mark.parametrize("response, expected", [
    (NOT_CONTROLLER, True), (CREATED, False),
    (ElectLeadersResponse((ReplicaElectionResult("t", (PartitionResult(0, Errors.NOT_CONTROLLER),)),)), True),
    (ElectLeadersResponse((), Errors.NOT_CONTROLLER), True),
    (ElectLeadersResponse((ReplicaElectionResult("t", (PartitionResult(0, Errors.NOT_LEADER_OR_FOLLOWER),)),)), False),
])
def test_not_controller_is_found_at_any_depth(response, expected):
    assert has_not_controller_error(response) is expected


@pytest.mark.parametrize("timeout_ms, budget", [(3000, 3000), (0, FORWARDING_RETRY_TIMEOUT_MS),
                                                (None, FORWARDING_RETRY_TIMEOUT_MS), (-1, FORWARDING_RETRY_TIMEOUT_MS),
                                                (600_000, FORWARDING_RETRY_TIMEOUT_MS)])
def test_budget_is_the_request_timeout_capped_at_the_channel_timeout(timeout_ms, budget):
    assert forwarding_budget_ms(timeout_ms) == budget


def test_a_not_controller_answer_is_retried_with_the_remaining_budget():
    broker = FakeBroker([NOT_CONTROLLER, CREATED])
    deferred = forward(broker, CreateTopicsRequest(()), 3000, lambda r: ("built", r), lambda: "timeout", "test")
    assert not deferred.done
    broker.advance(50)
    assert deferred.outcome == ("built", CREATED)
    assert broker.calls == [(1000, 3000), (1050, 2950)]


def test_not_controller_until_the_deadline_becomes_a_timeout():
    broker = FakeBroker([NOT_CONTROLLER] * 100)
    deferred = forward(broker, CreateTopicsRequest(()), 300, lambda r: "built", lambda: "timeout", "test")
    for _ in range(10):
        broker.advance(50)
    assert deferred.outcome == "timeout"
    # Attempts at 1000, 1050, ... 1250; a retry after the last answer would come too late for 1300.
    assert [at for at, _ in broker.calls] == [1000, 1050, 1100, 1150, 1200, 1250]


def test_a_timed_out_attempt_is_a_timeout_answer():
    broker = FakeBroker([RequestTimedOut(1001, None)])
    deferred = forward(broker, CreateTopicsRequest(()), 3000, lambda r: "built", lambda: "timeout", "test")
    assert deferred.outcome == "timeout"


def test_a_failing_builder_closes_the_connection_instead_of_raising():
    broker = FakeBroker([CREATED])
    deferred = forward(broker, CreateTopicsRequest(()), 3000, lambda r: 1 / 0, lambda: "timeout", "test")
    assert isinstance(deferred.outcome, CloseConnectionResponse)
    assert isinstance(deferred.outcome.reason, ZeroDivisionError)
