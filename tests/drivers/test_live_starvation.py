"""The live driver when its thread is starved: a frozen loop is a sandbox stall, not a Kafka failure.

Blocking the cluster's own thread for 1.5 s freezes every node at once, as a
busy kernel (a C call holding the GIL, a long garbage collection) does.  The
teaching profile's quorum timeouts are 400 ms (fetch) and 600 ms (check
quorum), so a clock that counted the freeze would make followers give up on
their leader and the leader resign.
"""

from __future__ import annotations

import sys
import time

import pytest

from minikafka import Cluster
from minikafka.drivers import live
from minikafka.drivers.live import SWITCH_INTERVAL_S, LiveDriver
from minikafka.runtime.events import EventLog
from tests.waiting import eventually

pytestmark = pytest.mark.live

KAFKA_REACTIONS = {"controller_elected", "controller_resigned", "broker_fenced", "broker_unfenced",
                   "isr_shrink", "isr_expand", "partition_changed", "log_truncated"}


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=71).start()
    c.create_topic("frozen", partitions=1, replication_factor=3)
    eventually(lambda: len(c.isr("frozen", 0)) == 3, what="a full ISR")
    yield c
    c.stop()


def test_the_switch_interval_is_lowered_while_live_drivers_run_and_restored_after():
    if live._switch_users:
        pytest.skip("another live cluster of this process is still running")
    before = sys.getswitchinterval()
    first = LiveDriver(lambda *a: None, EventLog())
    second = LiveDriver(lambda *a: None, EventLog())
    try:
        assert sys.getswitchinterval() == pytest.approx(min(before, SWITCH_INTERVAL_S))
        first.close()
        assert sys.getswitchinterval() == pytest.approx(min(before, SWITCH_INTERVAL_S))
    finally:
        first.close()
        second.close()
    assert sys.getswitchinterval() == pytest.approx(before)


def freeze_cluster_thread(cluster: Cluster, seconds: float) -> None:
    cluster.driver.submit(lambda: time.sleep(seconds))


def compute_on_cluster_thread(cluster: Cluster, seconds: float) -> None:
    """Keep the cluster's thread busy in Python for ``seconds`` of its own CPU time, as a long
    facade call or a slow piece of client work would: busy, not waiting, so the clock sees work."""
    def spin() -> None:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
    cluster.driver.submit(spin)


def stalls_and_reactions(cluster, disrupt) -> tuple[list, list[str]]:
    """Run ``disrupt()``, wait for its ``sandbox_stalled`` event and a second more (any late
    reaction shows up by then): the stall events and the Kafka reactions since it began."""
    mark = cluster.events.last_seq
    disrupt()
    stalls = eventually(lambda: cluster.events.since(mark, {"sandbox_stalled"}),
                        what="a sandbox_stalled event")
    time.sleep(1.0)
    return stalls, [e.text for e in cluster.events.since(mark) if e.kind in KAFKA_REACTIONS]


def test_a_frozen_cluster_thread_is_a_stall_not_an_election(cluster):
    leader = cluster.active_controller
    stalls, reactions = stalls_and_reactions(cluster, lambda: freeze_cluster_thread(cluster, 1.5))
    assert reactions == []
    assert cluster.active_controller == leader
    assert stalls[0].node is None and stalls[0].data["stalled_ms"] >= 1000
    assert stalls[0].text.startswith("sandbox (not a Kafka event): the cluster's thread was starved")


def test_the_cluster_clock_left_the_freeze_out_and_catches_up_while_idle(cluster):
    clock = cluster.driver.clock
    before = clock.total_stalled_ms
    freeze_cluster_thread(cluster, 0.8)
    # The clock learns of the stall when the thread next reads it, a moment after the freeze.
    eventually(lambda: clock.total_stalled_ms - before >= 600, timeout_s=5, what="the freeze left out")
    eventually(lambda: clock.stalled_ms == 0, timeout_s=20, what="the clock to catch up")
    before = time.time() * 1000
    cluster_now = cluster.driver.submit(cluster.driver.now)
    after = time.time() * 1000
    assert before - 5 <= cluster_now <= after + 5      # back on the wall clock


def test_a_killed_broker_is_still_fenced_after_a_freeze(cluster):
    mark = cluster.events.last_seq
    freeze_cluster_thread(cluster, 1.0)
    cluster.kill(3)
    fenced = eventually(lambda: cluster.events.since(mark, {"broker_fenced"}), what="broker 3 fenced")
    assert fenced[0].data["broker"] == 3
    session_ms = cluster.timing.ms("broker.session.timeout.ms")
    heartbeat_ms = cluster.timing.ms("broker.heartbeat.interval.ms")
    # The controller measured the silence on the cluster's clock: the session timeout, not
    # the session timeout plus the freeze.
    assert session_ms <= fenced[0].data["ms_without_heartbeat"] < session_ms + heartbeat_ms
    cluster.restart(3)
    eventually(lambda: len(cluster.isr("frozen", 0)) == 3, what="broker 3 back in the ISR")




def test_a_long_computation_on_the_cluster_thread_is_a_stall_not_an_election(cluster):
    leader = cluster.active_controller
    # One second of the thread's own CPU time, during which no quorum fetch or timer can run:
    # counted as the cluster's time, it would outlast the 400 ms fetch timeout.
    stalls, reactions = stalls_and_reactions(cluster, lambda: compute_on_cluster_thread(cluster, 1.0))
    assert reactions == []
    assert cluster.active_controller == leader
    assert stalls[0].data["stalled_ms"] >= 500
