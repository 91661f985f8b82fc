"""`RequestManager`: one outstanding Raft request per peer, with backoff after failures.

Theory of operation
-------------------
A KRaft replica keeps at most one request in flight to each peer.  After a
failure (timeout, unreachable peer, error answer) it waits
``controller.quorum.retry.backoff.ms`` before trying that peer again.  When
the replica changes state, everything in flight becomes irrelevant: `reset_all`
forgets it, and late answers are then ignored (`on_response` says they were
not expected).

When a replica does not know the leader (Unattached, or an observer whose
fetches stopped working) it sends Fetch to a *bootstrap server* -- any voter,
chosen at random, one at a time -- and follows the leader hint in the answer.

Mirrors ``org.apache.kafka.raft.RequestManager``.  Simplified: time-outs are
reported by the host `Node` (its request deadline), and an answer carrying an
error also backs off, so a replica without a leader polls the voters at most
once per backoff instead of in a tight loop.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class _Connection:
    in_flight: int | None = None     # correlation id of the outstanding request
    backoff_until: int = 0           # no new request before this time (ms)


class RequestManager:
    def __init__(self, bootstrap_servers: list[int], retry_backoff_ms: int, rng: random.Random):
        self.bootstrap_servers = list(bootstrap_servers)   # the voters, in configuration order
        self.retry_backoff_ms = retry_backoff_ms
        self.rng = rng
        self._connections: dict[int, _Connection] = {}

    def _get(self, node_id: int) -> _Connection:
        connection = self._connections.get(node_id)
        if connection is None:
            connection = self._connections[node_id] = _Connection()
        return connection

    def is_ready(self, node_id: int, now: int) -> bool:
        connection = self._get(node_id)
        return connection.in_flight is None and now >= connection.backoff_until

    def is_backing_off(self, node_id: int, now: int) -> bool:
        connection = self._get(node_id)
        return connection.in_flight is None and now < connection.backoff_until

    def has_in_flight(self, node_id: int) -> bool:
        return self._get(node_id).in_flight is not None

    def ready_time(self, node_id: int) -> int | None:
        """When a request to ``node_id`` may next be sent; None while one is in flight."""
        connection = self._get(node_id)
        return None if connection.in_flight is not None else connection.backoff_until

    def is_expected(self, node_id: int, correlation_id: int) -> bool:
        """True if ``correlation_id`` is the request still awaited from ``node_id``."""
        return self._get(node_id).in_flight == correlation_id

    def on_request_sent(self, node_id: int, correlation_id: int) -> None:
        self._get(node_id).in_flight = correlation_id

    def on_response(self, node_id: int, correlation_id: int, success: bool, now: int) -> bool:
        """Close the request; False (and no change) if it is no longer the expected one."""
        connection = self._get(node_id)
        if connection.in_flight != correlation_id:
            return False
        connection.in_flight = None
        if not success:
            connection.backoff_until = now + self.retry_backoff_ms
        return True

    def reset_all(self) -> None:
        """Forget in-flight requests and backoffs (called on every state change)."""
        self._connections.clear()

    def find_ready_bootstrap_server(self, now: int, exclude: int | None = None) -> int | None:
        """A random ready voter, or None while a bootstrap request is already in flight."""
        candidates = [n for n in self.bootstrap_servers if n != exclude]
        if any(self.has_in_flight(n) for n in candidates):
            return None
        ready = [n for n in candidates if self.is_ready(n, now)]
        return self.rng.choice(ready) if ready else None

    def next_bootstrap_ready_time(self, exclude: int | None = None) -> int | None:
        """The earliest time a bootstrap server frees up (None if one is in flight)."""
        candidates = [n for n in self.bootstrap_servers if n != exclude]
        if not candidates or any(self.has_in_flight(n) for n in candidates):
            return None
        return min(self._get(n).backoff_until for n in candidates)


def earliest(*deadlines: int | None) -> int | None:
    """The first of the deadlines that are set; None if none is (when a poll next needs to run,
    given the peers' ready times and the state's timers)."""
    present = [d for d in deadlines if d is not None]
    return min(present) if present else None
