"""Shared helpers for the live consumer-group and admin tests: polling with deadlines, producing.

Nothing here sleeps to make an assertion true: ``eventually`` polls a
condition until a deadline and the test fails if it never holds.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer

from tests.waiting import CLIENT_TIMEOUTS, eventually  # noqa: F401 (re-exported to the tests)




def admin_client(cluster) -> KafkaAdminClient:
    return KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers, **CLIENT_TIMEOUTS)


def produce_values(cluster, topic: str, values: list[bytes], partition: int | None = None) -> None:
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all", linger_ms=0)
    try:
        for value in values:
            producer.send(topic, value=value, partition=partition)
        producer.flush(timeout=20)
    finally:
        producer.close()


def group_consumer(cluster, group_id: str, *topics: str, **overrides) -> KafkaConsumer:
    """A kafka-python group member tuned to notice rebalances quickly (heartbeats every 200 ms)."""
    options = {"bootstrap_servers": cluster.bootstrap_servers, "group_id": group_id,
               "auto_offset_reset": "earliest", "heartbeat_interval_ms": 200, "session_timeout_ms": 6000,
               "fetch_max_wait_ms": 100, **CLIENT_TIMEOUTS, **overrides}
    return KafkaConsumer(*topics, **options)


def drain(consumer: KafkaConsumer, count: int, timeout_s: float = 20.0) -> list:
    """Poll until ``count`` records arrived (fails after ``timeout_s``)."""
    records: list = []
    deadline = time.monotonic() + timeout_s
    while len(records) < count:
        if time.monotonic() >= deadline:
            raise AssertionError(f"only {len(records)} of {count} records arrived within {timeout_s}s")
        for batch in consumer.poll(timeout_ms=200).values():
            records.extend(batch)
    return records


class GroupMember:
    """A consumer that polls in its own thread, as an application would.

    KafkaConsumer is not thread-safe, so everything else it does (commit,
    close) runs in that thread too, between two polls, through ``call``.
    Several members polled in turn from one thread would starve each other's
    rebalance round trips; separate threads behave like separate processes.
    A longer ``poll_timeout_ms`` narrows the gap between two polls in which
    kafka-python 3.0.12 can drop a JoinGroup/SyncGroup round trip that just
    finished and send JoinGroup again (see test_groups_one_by_one.py).
    """

    def __init__(self, consumer: KafkaConsumer, poll_timeout_ms: int = 100):
        self.consumer = consumer
        self.poll_timeout_ms = poll_timeout_ms           # how long one poll() may wait for records
        self.records: list = []                          # every record polled so far
        self._assignment: frozenset = frozenset()        # as of the last poll
        self._commands: queue.Queue = queue.Queue()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="group-member", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.is_set():
            while not self._commands.empty():
                command, reply = self._commands.get()
                try:
                    reply.put((True, command(self.consumer)))
                except Exception as exc:                # handed back to the caller
                    reply.put((False, exc))
            if self._stopped.is_set():
                break
            for batch in self.consumer.poll(timeout_ms=self.poll_timeout_ms).values():
                self.records.extend(batch)
            self._assignment = frozenset(self.consumer.assignment())

    def call(self, command: Callable[[KafkaConsumer], Any], timeout_s: float = 30.0) -> Any:
        reply: queue.Queue = queue.Queue()
        self._commands.put((command, reply))
        ok, value = reply.get(timeout=timeout_s)
        if not ok:
            raise value
        return value

    def assignment(self) -> frozenset:
        return self._assignment

    def close(self, autocommit: bool = False) -> None:
        def shut(consumer: KafkaConsumer) -> None:
            consumer.close(autocommit=autocommit)
            self._stopped.set()
        self.call(shut)
        self._thread.join(timeout=10)
