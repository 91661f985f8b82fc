"""Lesson 02's plumbing: load per broker, the broker-count check, a group member's poll loop, and
when a group counts as settled."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

from kafka import TopicPartition

from minikafka import Cluster
from minikafka.course.lesson02 import (Worker, broker_count, group_settled, load_by_broker,
                                       load_text, partition_dirs, wait_for_group)
from minikafka.runtime.events import ClusterEvent, EventLog


def test_load_partition_dirs_and_the_broker_count_check():
    with Cluster(brokers=3, controllers=1, simulated=True, seed=4) as cluster:
        cluster.create_topic("orders", partitions=6, replication_factor=3)
        cluster.create_topic("clicks", partitions=3, replication_factor=1)
        replicas, records = load_by_broker(cluster)
        assert replicas == {1: 7, 2: 7, 3: 7} and records == {1: 0, 2: 0, 3: 0}
        assert load_text(cluster).splitlines()[0] == "broker 1:   7 partition replicas,     0 records"
        names = [p.name for p in partition_dirs(cluster, 1)]
        assert "__cluster_metadata-0" in names and sum(n.startswith("orders-") for n in names) == 6
        assert names == sorted(names)

        assert broker_count(cluster, 3).detail == "brokers 1, 2, 3 are alive"
        assert broker_count(cluster, 4).detail == "the cluster has 3 brokers, not 4"
        cluster.kill_broker(2)
        outcome = broker_count(cluster, 3)
        assert not outcome.done and outcome.detail == "broker 2 is dead, not registered and unfenced yet"


class FakeConsumer:
    """Polls return nothing; the assignment is whatever the test sets."""

    def __init__(self, name: str):
        self.config = {"client_id": name}
        self.assigned: set = set()
        self.closed = threading.Event()
        self.polls = 0

    def poll(self, timeout_ms: int):
        self.polls += 1
        time.sleep(timeout_ms / 1000)
        return {}

    def assignment(self):
        return set(self.assigned)

    def close(self):
        self.closed.set()


def test_a_worker_polls_until_it_leaves_and_then_closes_its_consumer():
    consumer = FakeConsumer("worker-1")
    worker = Worker(consumer, poll_ms=5)
    assert worker.name == "worker-1"
    consumer.assigned = {TopicPartition("tasks", 1), TopicPartition("tasks", 0)}
    deadline = time.monotonic() + 10
    while worker.partitions != (0, 1) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert worker.partitions == (0, 1)
    assert repr(worker) == "Worker('worker-1', partitions=[0, 1])"
    worker.leave(timeout_s=10)
    assert consumer.closed.is_set() and consumer.polls > 0


class FakeCluster:
    """What group_settled reads: the event log and the topic's partition count."""

    def __init__(self, partitions: int):
        self.events = EventLog()
        self.partitions = partitions

    def snapshot(self):
        topic = SimpleNamespace(partitions=[object()] * self.partitions)
        return SimpleNamespace(topic=lambda name: topic)

    def emit(self, kind: str, **data):
        self.events.append(ClusterEvent(0, kind, 1001, kind, data))


def test_a_group_is_settled_when_stable_with_every_worker_owning_every_partition():
    cluster = FakeCluster(partitions=2)
    workers = [SimpleNamespace(partitions=()) for _ in range(3)]
    assert not group_settled(cluster, "workers", "tasks", workers)
    cluster.emit("group_join_completed", group="workers", members=["a", "b"])
    cluster.emit("group_stable", group="workers")
    workers[0].partitions, workers[1].partitions = (0,), (1,)
    assert not group_settled(cluster, "workers", "tasks", workers)     # two members, three workers
    cluster.emit("group_join_completed", group="workers", members=["a", "b", "c"])
    assert not group_settled(cluster, "workers", "tasks", workers)     # not Stable yet
    cluster.emit("group_stable", group="workers")
    cluster.emit("group_stable", group="others")
    assert group_settled(cluster, "workers", "tasks", workers)
    cluster.partitions = 4                                               # grown: 2 and 3 are unowned
    assert not group_settled(cluster, "workers", "tasks", workers)
    workers[2].partitions, workers[0].partitions = (3,), (0, 2)
    assert group_settled(cluster, "workers", "tasks", workers)


class ClockedCluster(FakeCluster):
    """A FakeCluster with a cluster clock that `wait_until` moves 100 ms per poll, and a hook
    that may change the group between polls."""

    def __init__(self, partitions: int, between_polls=None):
        super().__init__(partitions)
        self.clock = 0
        self.between_polls = between_polls or (lambda now: None)

    def now(self) -> int:
        return self.clock

    def wait_until(self, condition, timeout_ms: int) -> bool:
        while self.clock <= timeout_ms:
            if condition():
                return True
            self.clock += 100
            self.between_polls(self.clock)
        return False


def test_wait_for_group_reads_a_group_only_once_it_has_stayed_settled(capsys):
    workers = [SimpleNamespace(partitions=(0,)), SimpleNamespace(partitions=(1,))]

    def rebalance_once(now):          # settled at first, then a rebalance at 200 ms
        if now == 200:
            cluster.emit("group_join_completed", group="workers", members=["a", "b"])
        if now == 400:
            cluster.emit("group_stable", group="workers")

    cluster = ClockedCluster(partitions=2, between_polls=rebalance_once)
    cluster.emit("group_join_completed", group="workers", members=["a", "b"])
    cluster.emit("group_stable", group="workers")
    assert wait_for_group(cluster, "workers", "tasks", workers, hold_ms=500)
    assert cluster.clock == 900        # settled again at 400, held until 900: not read at 0
    assert capsys.readouterr().out == ""


def test_wait_for_group_says_so_when_the_group_never_settles(capsys):
    cluster = ClockedCluster(partitions=2)
    workers = [SimpleNamespace(partitions=(0,))]
    assert not wait_for_group(cluster, "workers", "tasks", workers, timeout_ms=1000)
    assert "had not settled after 1 s" in capsys.readouterr().out
