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
        assert dashboard.children == (dashboard.view, dashboard.panel)
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
