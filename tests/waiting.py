"""Shared by the tests that drive a live cluster: waiting for a condition, and client timeouts.

A live cluster settles asynchronously (elections, fencing, metadata
propagation), so a test polls for the state it expects instead of sleeping
for a guessed time.
"""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")

# Short enough that a test fails within its timeout, long enough to ride out a failover.
CLIENT_TIMEOUTS = {"request_timeout_ms": 10_000}


def eventually(probe: Callable[[], T], timeout_s: float = 20.0, interval_s: float = 0.05,
               what: str = "condition") -> T:
    """The first truthy ``probe()`` result; fails after ``timeout_s`` (exceptions count as "not yet")."""
    deadline = time.monotonic() + timeout_s
    last: object = None
    while True:
        try:
            value = probe()
            if value:
                return value
            last = value
        except Exception as exc:                # the cluster may still be settling
            last = exc
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} did not happen within {timeout_s}s (last: {last!r})")
        time.sleep(interval_s)
