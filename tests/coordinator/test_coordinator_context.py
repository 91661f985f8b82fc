import random

import pytest

from minikafka.common.errors import Errors
from minikafka.coordinator.coordinator_context import (
    CoordinatorContext, CoordinatorState, coordinator_error,
)
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.runtime.node import Node


@pytest.mark.parametrize("append_error,client_error", [
    (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.REQUEST_TIMED_OUT, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_COORDINATOR),
    (Errors.KAFKA_STORAGE_ERROR, Errors.NOT_COORDINATOR),
    (Errors.MESSAGE_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.NETWORK_EXCEPTION, Errors.COORDINATOR_LOAD_IN_PROGRESS),
    (Errors.NONE, Errors.NONE),
])
def test_append_errors_as_clients_see_them(append_error, client_error):
    assert coordinator_error(append_error) is client_error


def _context():
    node = Node(1, random.Random(1))
    node.start(1000)
    appends = []
    ctx = CoordinatorContext(7, 0, node, GroupCoordinatorConfig(offset_commit_timeout_ms=500),
                             lambda p, records, cb: appends.append(cb))
    ctx.state = CoordinatorState.ACTIVE
    return node, ctx, appends


def test_timers_fire_only_while_active():
    node, ctx, _ = _context()
    fired = []
    ctx.schedule(("x",), 100, lambda: fired.append(1))
    assert node.timer_deadline(("group", 7, "x")) == 1100
    ctx.close(CoordinatorState.CLOSED)
    node.poll(2000)
    assert fired == [] and node.next_deadline() is None


def test_write_times_out_and_ignores_a_late_answer():
    node, ctx, appends = _context()
    results = []
    ctx.write([(b"k", b"v")], results.append)
    node.poll(1500)
    appends[0](Errors.NONE)
    assert results == [Errors.REQUEST_TIMED_OUT]


def test_closing_fails_writes_in_flight_with_not_coordinator():
    node, ctx, appends = _context()
    results = []
    ctx.write([(b"k", b"v")], results.append)
    ctx.close(CoordinatorState.CLOSED)
    assert results == [Errors.NOT_COORDINATOR]
    ctx.write([(b"k", b"v")], results.append)
    assert results[-1] is Errors.NOT_COORDINATOR and len(appends) == 1


def test_stable_waiters_resume_after_earlier_writes_only():
    node, ctx, appends = _context()
    resumed = []
    ctx.write([], lambda e: None)
    ctx.when_writes_done(lambda: resumed.append("first"))
    ctx.write([], lambda e: None)
    appends[0](Errors.NONE)
    assert resumed == ["first"]                             # the later write does not hold it back
    ctx.when_writes_done(lambda: resumed.append("second"))
    assert resumed == ["first"]
    appends[1](Errors.NONE)
    assert resumed == ["first", "second"]
