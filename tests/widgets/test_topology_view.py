"""The live diagram widget (widgets/topology_view.py), headless with a fake cluster."""

from __future__ import annotations

import threading

import pytest

from _widget_helpers import FakeCluster, big_cluster, three_brokers
from widgets import render
from widgets.topology_view import TopologyView

WAIT = 10.0


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """Render as text so these tests run with or without Graphviz."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())


@pytest.fixture
def cluster():
    return FakeCluster(three_brokers())


def test_first_picture_is_drawn_before_the_view_is_shown(no_dot, cluster):
    view = TopologyView(cluster)
    try:
        assert "broker 3: alive" in view.diagram.value
        assert view.drawn_seq == 0 and view.redraws == 0
    finally:
        view.close()


def test_an_event_from_another_thread_redraws_the_picture(no_dot, cluster):
    view = TopologyView(cluster, min_interval_s=0)
    try:
        cluster.replace_node(2, process="dead")
        emitted = []
        thread = threading.Thread(target=lambda: emitted.append(
            cluster.emit("node_killed", "broker 2 killed", 2)))
        thread.start()
        thread.join(WAIT)
        assert view.wait_drawn(emitted[0].seq, WAIT)
        assert "broker 2: dead · unfenced" in view.diagram.value
    finally:
        view.close()


@pytest.mark.graphviz
def test_the_redrawn_picture_is_svg_with_dot(cluster):
    view = TopologyView(cluster, min_interval_s=0)
    try:
        event = cluster.emit("broker_fenced", "broker 2 fenced", 2)
        assert view.wait_drawn(event.seq, WAIT)
        assert "<svg" in view.diagram.value
    finally:
        view.close()


def test_a_burst_of_events_is_coalesced(no_dot):
    cluster = FakeCluster(big_cluster())
    started, release = threading.Event(), threading.Event()
    view = TopologyView(cluster, min_interval_s=0)     # first draw done, hook not yet set

    def hold_first_background_snapshot():
        if not started.is_set():
            started.set()
            assert release.wait(WAIT)
    cluster.snapshot_hook = hold_first_background_snapshot
    try:
        cluster.emit("partition_changed", "orders-0 leader 1 -> 2")
        assert started.wait(WAIT)
        for index in range(1, 40):                     # a fencing burst
            last = cluster.emit("partition_changed", f"orders-{index % 20} ISR shrank")
        release.set()
        assert view.wait_idle(WAIT)
        assert view.redraws == 2                        # the held one, then one for the burst
        assert view.drawn_seq == last.seq
    finally:
        view.close()


def test_a_failed_redraw_is_shown_and_cleared_by_the_next_one(no_dot, cluster):
    view = TopologyView(cluster, min_interval_s=0)
    failing = [True]

    def maybe_fail():
        if failing[0]:
            raise RuntimeError("node 1 is not running")
    cluster.snapshot_hook = maybe_fail
    try:
        cluster.emit("node_killed", "broker 1 killed", 1)
        assert view.wait_idle(WAIT)
        assert view.last_error == "RuntimeError: node 1 is not running"
        assert "could not be redrawn" in view.status.value
        failing[0] = False
        event = cluster.emit("node_restarted", "broker 1 restarted", 1)
        assert view.wait_drawn(event.seq, WAIT)
        assert view.last_error is None and view.status.value == ""
    finally:
        view.close()


def test_stop_unsubscribes(no_dot, cluster):
    view = TopologyView(cluster, min_interval_s=0)
    view.stop()
    before = view.redraws
    cluster.emit("node_killed", "broker 1 killed", 1)
    assert view.redraws == before and view.drawn_seq == 0
    assert cluster.events._listeners == []
    view.close()


def test_repr_depends_only_on_the_configuration(no_dot, cluster):
    view = TopologyView(cluster, topics="orders", min_interval_s=0)
    try:
        text = view._repr_mimebundle_()["text/plain"]
        assert text == "TopologyView(topics=['orders'], show_internal=False, offsets=False)"
        event = cluster.emit("node_killed", "broker 1 killed", 1)
        assert view.wait_drawn(event.seq, WAIT)
        assert view._repr_mimebundle_()["text/plain"] == text
    finally:
        view.close()


def test_bad_options_fail_at_once_and_leave_nothing_running(no_dot, cluster):
    with pytest.raises(ValueError, match="max_partitions must be a positive integer"):
        TopologyView(cluster, max_partitions=0)
    assert cluster.events._listeners == []
    assert not any(t.name == "minikafka-topology-view" and t.is_alive()
                   for t in threading.enumerate())
