"""A per-process pool of idle Kafka clients, so Spark's tasks reuse connections.

Theory of operation
-------------------
Spark runs one task per Kafka partition in every micro-batch.  Opening a
fresh consumer for each task costs a bootstrap connection and a first
metadata round trip (the client waits ``retry.backoff.ms`` before asking for
topic metadata right after bootstrapping), which takes longer than reading
a small batch.  Spark therefore keeps consumers in a pool on each executor
and producers in a cache.  Here the executor is a Python worker process,
which Spark reuses for task after task, and each keeps its own pool:

* `borrow(key, create)` hands out an idle client made with the settings
  ``key``, or creates one; a borrowed client serves one task at a time;
* `give_back(key, client)` returns it when the task is done with it.  A task
  that failed closes its client instead: its state is unknown;
* an idle client is closed once it has been idle for ``idle_timeout_s``
  (Spark: ``spark.kafka.consumer.cache.timeout``, 5 minutes), or when more
  than ``capacity`` clients are idle (the oldest goes first).

Expiry is checked whenever the pool is used, so a worker that gets no more
tasks keeps its idle clients until Spark stops the worker.

Mirrors ``org.apache.spark.sql.kafka010.consumer.InternalKafkaConsumerPool``;
a second instance plays ``InternalKafkaProducerPool`` (keyed by the producer
configuration, idle timeout ``spark.kafka.producer.cache.timeout``, 10
minutes).  Simplified: consumers are keyed by the client settings, not by
group id and partition (a kafka-python consumer is simply re-assigned); no
pool metrics; a client is never shared by two tasks at once (Spark shares a
producer between concurrent tasks).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

IDLE_TIMEOUT_S = 300.0  # spark.kafka.consumer.cache.timeout's default (5m)
CAPACITY = 8  # idle clients kept per process; Spark's default capacity is 64 per executor


class InternalKafkaConsumerPool:
    """Idle clients by settings; anything with a ``close()`` method can be pooled."""

    def __init__(self, idle_timeout_s: float = IDLE_TIMEOUT_S, capacity: int = CAPACITY,
                 clock: Callable[[], float] = time.monotonic):
        self.idle_timeout_s = idle_timeout_s  # an idle client older than this is closed
        self.capacity = capacity  # at most this many idle clients are kept
        self._clock = clock  # seconds; injectable for tests
        self._idle: list[tuple[Hashable, Any, float]] = []  # (key, client, idle since), oldest first
        self._lock = threading.Lock()  # a worker may run Spark's helper threads too

    def borrow(self, key: Hashable, create: Callable[[], Any]) -> Any:
        """An idle client for ``key`` (the most recently returned), or a new one from ``create()``."""
        with self._lock:
            self._close_expired()
            for index in range(len(self._idle) - 1, -1, -1):
                if self._idle[index][0] == key:
                    return self._idle.pop(index)[1]
        return create()

    def give_back(self, key: Hashable, client: Any) -> None:
        with self._lock:
            self._idle.append((key, client, self._clock()))
            self._close_expired()

    def idle_count(self) -> int:
        with self._lock:
            return len(self._idle)

    def close_all(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for _, client, _ in idle:
            _close_quietly(client)

    def _close_expired(self) -> None:
        deadline = self._clock() - self.idle_timeout_s
        keep = [entry for entry in self._idle if entry[2] > deadline]
        expired = [entry for entry in self._idle if entry[2] <= deadline]
        while len(keep) > self.capacity:
            expired.append(keep.pop(0))
        self._idle = keep
        for _, client, _ in expired:
            _close_quietly(client)


def _close_quietly(client: Any) -> None:
    try:
        client.close()
    except Exception:  # a client whose broker died may fail to close cleanly; it is gone either way
        pass
