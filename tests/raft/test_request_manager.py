"""RequestManager: one request in flight per peer, backoff after failures, stale answers ignored."""

import random

from minikafka.raft.request_manager import RequestManager


def manager():
    return RequestManager([1, 2, 3], retry_backoff_ms=20, rng=random.Random(1))


def test_one_request_in_flight_per_peer():
    requests = manager()
    assert requests.is_ready(1, now=0)
    requests.on_request_sent(1, correlation_id=7)
    assert not requests.is_ready(1, now=0) and requests.ready_time(1) is None
    assert not requests.on_response(1, 8, True, now=1)      # not the awaited request
    assert requests.on_response(1, 7, True, now=1)
    assert requests.is_ready(1, now=1)


def test_failure_backs_off():
    requests = manager()
    requests.on_request_sent(2, 5)
    requests.on_response(2, 5, False, now=100)
    assert requests.is_backing_off(2, 110) and requests.ready_time(2) == 120
    assert requests.is_ready(2, 120)


def test_reset_all_makes_late_answers_unexpected():
    requests = manager()
    requests.on_request_sent(3, 9)
    requests.reset_all()
    assert not requests.is_expected(3, 9)
    assert not requests.on_response(3, 9, False, now=0)
    assert requests.is_ready(3, 0)


def test_bootstrap_servers_one_at_a_time():
    requests = manager()
    first = requests.find_ready_bootstrap_server(now=0)
    assert first in (1, 2, 3)
    requests.on_request_sent(first, 1)
    assert requests.find_ready_bootstrap_server(now=0) is None
    assert requests.next_bootstrap_ready_time() is None
    requests.on_response(first, 1, False, now=50)
    chosen = {requests.find_ready_bootstrap_server(now=60) for _ in range(50)}
    assert chosen == set({1, 2, 3} - {first})               # the failed one backs off
    assert requests.find_ready_bootstrap_server(now=60, exclude=2) != 2
