"""Diagram above the failure panel (widgets/dashboard.py)."""

from __future__ import annotations

import threading

import pytest

from _widget_helpers import FakeCluster, three_brokers
from widgets import render
from widgets.dashboard import Dashboard


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())


def test_a_click_shows_up_in_the_log_and_the_diagram(no_dot):
    cluster = FakeCluster(three_brokers())
    dashboard = Dashboard(cluster, min_interval_s=0)
    try:
        row = dashboard.row
        assert row.children == (dashboard.view, dashboard.panel)     # side by side
        dashboard.buttons[("kill", 2)].click()
        assert dashboard.view.wait_drawn(cluster.events.last_seq, 10)
        assert "broker 2: dead" in dashboard.view.diagram.value
        assert dashboard.panel.event_log.lines[-1].endswith("broker 2 killed")
    finally:
        dashboard.close()


def test_close_stops_both_parts(no_dot):
    cluster = FakeCluster(three_brokers())
    dashboard = Dashboard(cluster, min_interval_s=0)
    dashboard.close()
    assert cluster.events._listeners == []


def test_repr_is_deterministic(no_dot):
    dashboard = Dashboard(FakeCluster(three_brokers()))
    try:
        assert repr(dashboard) == "Dashboard(nodes=[1, 2, 3, 1001])"
    finally:
        dashboard.close()


def test_with_a_real_simulated_cluster(no_dot):
    from minikafka.cluster import Cluster

    cluster = Cluster(brokers=3, controllers=1, seed=1, simulated=True)
    cluster.start()
    dashboard = None
    try:
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        dashboard = Dashboard(cluster, min_interval_s=0)
        dashboard.buttons[("kill", 2)].click()
        assert dashboard.panel.last_error is None
        cluster.run_for(12_000)                 # past broker.session.timeout.ms: fenced
        assert dashboard.view.wait_idle(10)
        dashboard.view.redraw()                 # the state after run_for, whatever the timing
        assert dashboard.view.wait_drawn(cluster.events.last_seq, 10)
        picture = dashboard.view.diagram.value
        assert "broker 2: dead · fenced" in picture
        assert picture.count("F (out of sync)") == 3
        assert any("fenced" in line for line in dashboard.panel.event_log.lines)
        dashboard.buttons[("kill", 2)].click()
        assert dashboard.panel.last_error == (
            "Kill broker 2 failed: Cannot kill broker 2: it is dead; restart it first")
    finally:
        if dashboard is not None:
            dashboard.close()
        cluster.stop(graceful=False)


def test_a_second_dashboard_of_a_cluster_freezes_the_first(no_dot):
    from widgets.dashboard import REPLACED
    cluster, other = FakeCluster(three_brokers()), FakeCluster(three_brokers())
    first = Dashboard(cluster, min_interval_s=0)
    elsewhere = Dashboard(other, min_interval_s=0)
    listening = len(cluster.events._listeners)
    second = Dashboard(cluster, min_interval_s=0)    # Shift+Enter on the dashboard's cell again
    try:
        assert first.still.frozen and REPLACED in first.still.bundle()["text/html"]
        assert all(b.disabled for b in first.buttons.values())
        # the first one let go of the cluster's events: only the second one's listeners remain
        assert len(cluster.events._listeners) == listening
        assert not second.still.frozen and not elsewhere.still.frozen   # another cluster: untouched
        seen_by_first = list(first.panel.event_log.lines)
        second.buttons[("kill", 2)].click()
        assert second.panel.last_error is None
        assert second.panel.event_log.lines[-1].endswith("broker 2 killed")
        assert first.panel.event_log.lines == seen_by_first
    finally:
        for dashboard in (first, second, elsewhere):
            dashboard.close()
    assert cluster.events._listeners == []
