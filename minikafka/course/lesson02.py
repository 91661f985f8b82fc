"""Plumbing for lesson 02 (sizing a cluster); a learner need not read this module.

Theory of operation
-------------------
The lesson's cells keep the Kafka verbs (create a topic, kill and add
brokers, subscribe consumers); what they need around those lives here:

* `read_all(cluster, topic)`: every record of a topic, read from the
  beginning by a consumer without a group (``assign`` + ``seek_to_beginning``);
* `load_by_broker(cluster)` and `load_text(cluster)`: per broker, the
  partition replicas it holds and the records in them (internal topics left
  out), from ``cluster.snapshot()``;
* `partition_dirs(cluster, broker)`: the directories in a broker's data
  directory (one per partition replica, plus ``__cluster_metadata-0``);
* `broker_count(cluster, count)`: a task check, the cluster has that many
  registered, unfenced brokers;
* `Worker(consumer)`: an application's poll loop, one thread per group
  member; ``partitions`` is what the member owns after its last poll, and
  ``leave()`` stops polling and closes the consumer (a LeaveGroup);
* `wait_for_group(cluster, group, topic, workers)`: waits until the group
  coordinator's last word on the group is *Stable* with every worker as a
  member, and the workers together own every partition of the topic, and
  that has held for half a second (a group that settles and at once
  rebalances again is not read mid-way); if it never does, it says so.

Not a Kafka concept: the course's plumbing around Kafka's clients.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from minikafka.course.task import Outcome

DEFAULT_WAIT_MS = 30_000
HOLD_MS = 500          # how long a settled group must stay settled before a cell reads it


def read_all(cluster: Any, topic: str, timeout_ms: int = 1500) -> list[str]:
    """Every record value of ``topic`` (decoded), read from the beginning without a group."""
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers,
                             consumer_timeout_ms=timeout_ms)
    try:
        partitions = len(cluster.snapshot().topic(topic).partitions)
        consumer.assign([TopicPartition(topic, p) for p in range(partitions)])
        consumer.seek_to_beginning()
        return [record.value.decode() for record in consumer]
    finally:
        consumer.close()


def load_by_broker(cluster: Any) -> tuple[dict[int, int], dict[int, int]]:
    """Per broker: partition replicas held and records stored, over the topics (no internal ones)."""
    replicas = {b: 0 for b in cluster.broker_ids}
    records = {b: 0 for b in cluster.broker_ids}
    for topic in cluster.snapshot().topics:
        if topic.internal:
            continue
        for partition in topic.partitions:
            for state in partition.replica_states:
                replicas[state.broker] = replicas.get(state.broker, 0) + 1
                records[state.broker] = records.get(state.broker, 0) + state.log_end_offset
    return replicas, records


def load_text(cluster: Any) -> str:
    """One line per broker: ``broker 1:   7 partition replicas,  1004 records``."""
    replicas, records = load_by_broker(cluster)
    return "\n".join(f"broker {b}: {replicas[b]:3} partition replicas, {records[b]:5} records"
                     for b in cluster.broker_ids)


def partition_dirs(cluster: Any, broker: int) -> list[Path]:
    """The directories in ``broker``'s data directory, sorted by name."""
    return sorted((p for p in cluster.broker_data_dir(broker).iterdir() if p.is_dir()),
                  key=lambda p: p.name)


def broker_count(cluster: Any, count: int) -> Outcome:
    """Task check: the cluster has ``count`` brokers, each registered and unfenced."""
    snapshot = cluster.snapshot()
    brokers = [n for n in snapshot.nodes if n.is_broker]
    if len(brokers) != count:
        return Outcome(False, f"the cluster has {len(brokers)} brokers, not {count}")
    waiting = [n.node_id for n in brokers if n.state != "alive"]
    if waiting:
        return Outcome(False, f"broker {waiting[0]} is {snapshot.node(waiting[0]).state}, "
                              f"not registered and unfenced yet")
    return Outcome(True, f"brokers {', '.join(str(n.node_id) for n in brokers)} are alive")


class Worker:
    """One member of a consumer group, polling in its own thread as an application would."""

    def __init__(self, consumer: Any, poll_ms: int = 200):
        self.consumer = consumer
        self.name = consumer.config.get("client_id") or "worker"
        self.partitions: tuple[int, ...] = ()
        self._poll_ms = poll_ms
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self.consumer.poll(timeout_ms=self._poll_ms)
                self.partitions = tuple(sorted(tp.partition for tp in self.consumer.assignment()))
        finally:
            self.consumer.close()

    def leave(self, timeout_s: float = 30) -> None:
        """Stop polling and close the consumer, which leaves the group."""
        self._stop.set()
        self._thread.join(timeout=timeout_s)

    def __repr__(self) -> str:
        return f"Worker({self.name!r}, partitions={list(self.partitions)})"


def group_settled(cluster: Any, group: str, topic: str, workers: list[Worker]) -> bool:
    """The coordinator's last word on ``group`` is Stable with every worker a member, and the
    workers together own each partition of ``topic`` exactly once."""
    steps = [e for e in cluster.events.since(0, {"group_join_completed", "group_stable"})
             if e.data.get("group") == group]
    joined = [e for e in steps if e.kind == "group_join_completed"]
    if not steps or steps[-1].kind != "group_stable" or not joined:
        return False
    if len(joined[-1].data.get("members", ())) != len(workers):
        return False
    owned = sorted(p for w in workers for p in w.partitions)
    return owned == list(range(len(cluster.snapshot().topic(topic).partitions)))


def wait_for_group(cluster: Any, group: str, topic: str, workers: list[Worker],
                   timeout_ms: int = DEFAULT_WAIT_MS, hold_ms: int = HOLD_MS) -> bool:
    """Wait until `group_settled` has held for ``hold_ms`` of cluster time (a group that
    settles and at once rebalances again, e.g. a member late with its heartbeats on a busy
    machine, is not settled yet); False, with one printed line, if not within ``timeout_ms``."""
    since: list[int | None] = [None]

    def held() -> bool:
        if not group_settled(cluster, group, topic, workers):
            since[0] = None
            return False
        now = cluster.now()
        if since[0] is None:
            since[0] = now
        return now - since[0] >= hold_ms

    if cluster.wait_until(held, timeout_ms=timeout_ms):
        return True
    print(f"(the group {group} had not settled after {timeout_ms // 1000} s: the numbers below "
          f"are from the middle of a rebalance)")
    return False
