"""A live cluster beside the learner's own load in the same process stays calm (issue 15).

A notebook runs its cells in the same interpreter as the live cluster's
thread.  kafka-python clients running flat out there (a producer in a loop,
a consumer group polling) used to starve that thread for longer than the
teaching profile's quorum timeouts: controllers resigned and were elected
again, followers truncated, although nothing had failed.  These tests put
that load next to a 3-broker, 3-controller cluster for 30 s (and a dashboard
redrawn flat out beside the producer for 10 s) and require the event log to
show no Kafka reaction at all; then they kill a partition
leader under the same load and require the failover to take the profile's
session timeout (measured on the cluster's clock, in the events it wrote).

Slow: each load runs for ``LOAD_S`` seconds.
"""

from __future__ import annotations

import threading
import time

import pytest
from kafka import KafkaConsumer, KafkaProducer

from minikafka import Cluster
from tests.waiting import eventually

pytestmark = [pytest.mark.live, pytest.mark.slow]

LOAD_S = 30
KAFKA_REACTIONS = {"controller_elected", "controller_resigned", "broker_fenced", "broker_unfenced",
                   "isr_shrink", "isr_expand", "partition_changed", "log_truncated"}
GROUP_REACTIONS = {"group_rebalance", "group_member_removed", "group_empty"}


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=15).start()
    c.create_topic("load", partitions=3, replication_factor=3)
    c.create_topic("failover", partitions=1, replication_factor=3)
    for topic, partitions in (("load", 3), ("failover", 1)):
        for p in range(partitions):
            eventually(lambda: len(c.isr(topic, p)) == 3, what=f"{topic}-{p} fully in sync")
    yield c
    c.stop()


def committed_records(cluster: Cluster, topic: str = "load") -> int:
    """The sum of ``topic``'s high watermarks, from its partitions' leaders' logs."""
    return sum(next(r.high_watermark or 0 for r in partition.replica_states if r.is_leader)
               for partition in cluster.snapshot().topic(topic).partitions)


class FlatOutProducer:
    """A kafka-python producer sending 100-byte records as fast as ``send`` returns."""

    def __init__(self, cluster: Cluster):
        self.producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks=1,
                                      linger_ms=5)
        self.sent = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_for(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        value = b"x" * 100
        while time.monotonic() < deadline and not self._stop.is_set():
            self.producer.send("load", value)
            self.sent += 1

    def start_in_background(self) -> "FlatOutProducer":
        self._thread = threading.Thread(target=self.run_for, args=(3600,), daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.producer.close(timeout=120)     # what is buffered still goes out: more of the load


def reactions(cluster: Cluster, mark: int, kinds: set[str]) -> list[str]:
    return [f"{e.kind}: {e.text}" for e in cluster.events.since(mark, kinds)]


def timeline(cluster: Cluster, mark: int, kinds: set[str]) -> str:
    """What the cluster did from 2 s before its first reaction (every event kind, with the cluster's
    time), and how its clock fared: read in a failure to tell a starved thread from a sandbox bug."""
    events = cluster.events.since(mark)
    first = next((e for e in events if e.kind in kinds), None)
    if first is None:
        return ""
    clock = cluster.driver.clock
    lines = [f"{e.time_ms - first.time_ms:+6d} ms  {e.kind}: {e.text}" for e in events
             if first.time_ms - 2000 <= e.time_ms and e.kind not in ("client_connected",)][:60]
    return ("\n".join(lines) + f"\nclock: {clock.total_stalled_ms:.0f} ms left out as stalls so far, "
            f"{clock.stalled_ms:.0f} ms behind the wall clock now; scheduler rounds "
            f"{cluster.driver.scheduler.rounds}; internal errors {cluster.driver.internal_errors}")


# This test failed in 4 of 6 runs of CI's sequence on the CI machine until 2026-11-24.  The cause
# (benchmarks/calm_probe.py, docs/architecture.md): while the shared host made Python work costly,
# single produce or fetch items ran 70-230 ms of CPU on the cluster's thread, the clock counted that
# as cluster time, and a follower controller's 400 ms fetch timeout ran out while the answer waited
# in the control lane.  Since the clock stops 50 ms past control work not yet run
# (PlaneScheduler.ceiling) it passed in every clean-clone CI run (four, as a non-strict xfail).
def test_a_producer_flat_out_in_this_process_makes_no_kafka_event(cluster):
    before = committed_records(cluster)
    mark = cluster.events.last_seq
    load = FlatOutProducer(cluster)
    try:
        load.run_for(LOAD_S)                 # in the test's own thread, as in a notebook cell
    finally:
        load.close()
    time.sleep(1.0)                          # a late reaction to the load would show up by now
    assert reactions(cluster, mark, KAFKA_REACTIONS) == [], timeline(cluster, mark, KAFKA_REACTIONS)
    assert committed_records(cluster) - before > 10_000     # the load reached the brokers


def test_a_consumer_group_reading_flat_out_beside_it_makes_no_kafka_event(cluster):
    load = FlatOutProducer(cluster).start_in_background()
    reader = KafkaConsumer("load", bootstrap_servers=cluster.bootstrap_servers, group_id="readers",
                           auto_offset_reset="earliest")
    try:
        eventually(lambda: reader.poll(timeout_ms=100) and reader.assignment(),
                   what="the group's first records")
        mark = cluster.events.last_seq
        got = 0
        deadline = time.monotonic() + LOAD_S
        while time.monotonic() < deadline:
            got += sum(len(batch) for batch in reader.poll(timeout_ms=100).values())
        time.sleep(1.0)
        assert reactions(cluster, mark, KAFKA_REACTIONS | GROUP_REACTIONS) == [], \
            timeline(cluster, mark, KAFKA_REACTIONS | GROUP_REACTIONS)
        assert got > 10_000
    finally:
        reader.close()
        load.close()


def test_widgets_redrawn_flat_out_beside_it_make_no_kafka_event(cluster):
    # A dashboard redrawn as fast as a cell can (each redraw takes a snapshot on the cluster's thread
    # and renders the operator view and the topology), next to the producer.
    from widgets import Dashboard, topology_text
    dashboard = Dashboard(cluster, operator=True)
    load = FlatOutProducer(cluster).start_in_background()
    mark = cluster.events.last_seq
    redraws = 0
    try:
        deadline = time.monotonic() + LOAD_S / 3
        while time.monotonic() < deadline:
            dashboard.operator_text()
            topology_text(cluster.snapshot())
            redraws += 1
    finally:
        load.close()
        dashboard.close()
    time.sleep(1.0)
    assert reactions(cluster, mark, KAFKA_REACTIONS) == [], timeline(cluster, mark, KAFKA_REACTIONS)
    # how many redraws fit depends on the machine (each waits for a snapshot from the cluster's thread)
    assert redraws >= 1 and load.sent > 10_000


def test_a_leader_kill_under_that_load_fails_over_within_the_session_timeout(cluster):
    leader = cluster.leader("failover", 0)
    session_ms = cluster.timing.ms("broker.session.timeout.ms")
    heartbeat_ms = cluster.timing.ms("broker.heartbeat.interval.ms")
    load = FlatOutProducer(cluster).start_in_background()
    try:
        time.sleep(3.0)                      # the load is in full swing
        mark = cluster.events.last_seq
        cluster.kill(leader)
        eventually(lambda: cluster.leader("failover", 0) not in (None, -1, leader), timeout_s=30,
                   what="a new leader for failover-0")
        events = cluster.events.since(mark)
    finally:
        load.close()
    killed = next(e for e in events if e.kind == "node_killed")
    moved = next(e for e in events if e.kind == "partition_changed"
                 and e.data["topic"] == "failover" and e.data["leader_before"] == leader)
    # On the cluster's clock: the broker's last heartbeat came at most one interval before
    # the kill, the controller fenced it one session later and moved the leader at once.
    assert moved.time_ms - killed.time_ms <= session_ms + heartbeat_ms
    assert [e.text for e in events if e.kind in {"controller_elected", "controller_resigned",
                                                   "log_truncated"}] == []
    cluster.restart(leader)
    eventually(lambda: len(cluster.isr("failover", 0)) == 3, timeout_s=60,
               what=f"broker {leader} back in the ISR")
