"""Shared helpers for the live data-plane client tests (produce, fetch, offsets, raw sockets).

Nothing here sleeps to make an assertion true: ``eventually`` polls with a
deadline, and reading a broker's files happens on the cluster's own thread.
"""

from __future__ import annotations

import os
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from minikafka import Cluster
from tests.waiting import CLIENT_TIMEOUTS, eventually  # noqa: F401 (re-exported to the tests)


def live_cluster(seed: int, **kwargs) -> Cluster:
    return Cluster(brokers=3, controllers=1, seed=seed, timing="teaching", **kwargs).start()




def producer(cluster: Cluster, **overrides) -> KafkaProducer:
    return KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, **{**CLIENT_TIMEOUTS, **overrides})


def consumer(cluster: Cluster, *partitions: tuple[str, int], **overrides) -> KafkaConsumer:
    """A group-less consumer assigned to ``partitions``, reading from the beginning."""
    options = {"bootstrap_servers": cluster.bootstrap_servers, "group_id": None,
               "auto_offset_reset": "earliest", "fetch_max_wait_ms": 100, "enable_auto_commit": False,
               **CLIENT_TIMEOUTS, **overrides}
    c = KafkaConsumer(**options)
    if partitions:
        c.assign([TopicPartition(t, p) for t, p in partitions])
    return c


def drain(c: KafkaConsumer, count: int, timeout_s: float = 20.0) -> list:
    """Poll until at least ``count`` records arrived (fails after ``timeout_s``)."""
    records: list = []
    deadline = time.monotonic() + timeout_s
    while len(records) < count:
        if time.monotonic() >= deadline:
            raise AssertionError(f"only {len(records)} of {count} records arrived within {timeout_s}s")
        for batch in c.poll(timeout_ms=200).values():
            records.extend(batch)
    return records


def wait_for_leaders(cluster: Cluster, topic: str, partitions: int) -> None:
    eventually(lambda: all(cluster.leader(topic, p) not in (None, -1) for p in range(partitions)),
               what=f"leaders for {topic}")


def stored_log(cluster: Cluster, broker_id: int, topic: str, partition: int) -> bytes:
    """The bytes of every segment of a replica's log, read on the cluster thread."""
    def read() -> bytes:
        log = cluster.processes.node(broker_id).broker.log_manager.get_log((topic, partition))
        out = b""
        for segment in log.log_segments():
            with open(segment.log.path, "rb") as handle:
                out += handle.read()
        return out
    return cluster.processes.call(read)


def segment_files(cluster: Cluster, broker_id: int) -> dict[str, bytes]:
    """``{relative path: bytes}`` of every partition's ``.log`` file on a broker (not the metadata log)."""
    def read() -> dict[str, bytes]:
        root = str(cluster.broker_data_dir(broker_id))
        files = {}
        for dirpath, _, names in os.walk(root):
            if "__cluster_metadata" in dirpath:
                continue
            for name in names:
                if name.endswith(".log"):
                    path = os.path.join(dirpath, name)
                    with open(path, "rb") as handle:
                        files[os.path.relpath(path, root)] = handle.read()
        return files
    return cluster.processes.call(read)
