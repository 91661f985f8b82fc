"""The operator's view as HTML and as a live widget, alone and in the Dashboard."""

from __future__ import annotations

import dataclasses
import re
import threading

import pytest

from _widget_helpers import FakeCluster, three_brokers
from test_operator_text import KC, broker_metrics, healthy, with_metrics
from widgets import render
from widgets.dashboard import Dashboard
from widgets.operator_html import BAD, GOOD, WARN, operator_html
from widgets.operator_view import OperatorView


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())


def tile(fragment: str, title: str) -> tuple[str, str]:
    """(background colour, value) of the tile called ``title``."""
    found = re.search(r'background:(#\w+);color:white"><div[^>]*>' + re.escape(title)
                      + r'</div><div[^>]*>([^<]*)</div>', fragment)
    assert found, title
    return found.group(1), found.group(2)


def test_tiles_are_green_when_healthy_and_amber_or_red_when_not():
    fragment = operator_html(healthy())
    assert tile(fragment, "Active controller") == (GOOD, "1001")
    assert tile(fragment, "Offline partitions") == (GOOD, "0")
    assert tile(fragment, "Under-replicated") == (WARN, "1")
    assert tile(fragment, "Brokers alive") == (GOOD, "3 / 3")
    broken = with_metrics(three_brokers(), {
        1: broker_metrics(3, 3), 1001: {KC + "ActiveControllerCount": {"Value": 0},
                                        KC + "OfflinePartitionsCount": {"Value": 2}}},
        {2: {"process": "dead"}, 3: {"process": "dead"}})
    fragment = operator_html(broken)
    assert tile(fragment, "Active controller")[0] == BAD
    assert tile(fragment, "Offline partitions") == (BAD, "2")
    assert tile(fragment, "Brokers alive") == (BAD, "1 / 3")


def test_balance_bars_are_scaled_to_the_busiest_broker():
    snapshot = with_metrics(three_brokers(), {1: broker_metrics(4, 4), 2: broker_metrics(2, 1),
                                              3: broker_metrics(2, 0)})
    widths = re.findall(r"width:(\d+)%;height:100%", operator_html(snapshot))
    # per broker: log bytes, partitions, leaders
    assert widths[1::3] == ["100", "50", "50"]
    assert widths[2::3] == ["100", "25", "0"]


def test_the_view_redraws_on_events_and_on_its_ticker(no_dot):
    cluster = FakeCluster(healthy())
    view = OperatorView(cluster, refresh_s=0.05, min_interval_s=0)
    try:
        assert "Under-replicated" in view.board.value
        event = cluster.emit("broker_fenced", "broker 2 fenced", 2)
        cluster.replace_node(2, registration="fenced")
        assert view.wait_drawn(event.seq, 10)
        ticks = threading.Event()
        cluster.snapshot_hook = ticks.set            # a snapshot without any event: the ticker
        assert ticks.wait(10)
        assert view.wait_idle(10)
        assert "fenced" in view.board.value
        assert view.text(rates=False).splitlines()[0].startswith("controller: active 1001")
    finally:
        view.close()
    assert cluster.events._listeners == []
    assert not view._ticker.is_alive()


def test_no_ticker_when_refresh_is_off_and_a_bad_refresh_is_refused(no_dot):
    view = OperatorView(FakeCluster(healthy()), refresh_s=None)
    try:
        assert view._ticker is None and repr(view) == "OperatorView(refresh_s=None)"
    finally:
        view.close()
    with pytest.raises(ValueError, match="refresh_s must be a positive number of seconds or None, got 0"):
        OperatorView(FakeCluster(healthy()), refresh_s=0)


def test_dashboard_with_the_operator_view_collapsed_under_the_diagram(no_dot):
    cluster = FakeCluster(healthy())
    dashboard = Dashboard(cluster, min_interval_s=0, operator=True, refresh_s=None)
    try:
        row, section = dashboard.row, dashboard.children[1]
        assert row.children == (dashboard.view, dashboard.panel)
        assert section is dashboard.operator_section and section.children == (dashboard.operator,)
        assert section.selected_index is None                     # closed until opened
        assert repr(dashboard) == "Dashboard(nodes=[1, 2, 3, 1001], operator=True)"
        assert "brokers alive: 3 of 3" in dashboard.operator_text(rates=False)
    finally:
        dashboard.close()
    assert cluster.events._listeners == []
    opened = Dashboard(FakeCluster(healthy()), operator=True, refresh_s=None, operator_open=True)
    try:
        assert opened.operator_section.selected_index == 0
    finally:
        opened.close()


def test_the_default_dashboard_is_unchanged(no_dot):
    dashboard = Dashboard(FakeCluster(three_brokers()))
    try:
        assert dashboard.operator is None and dashboard.operator_section is None
        assert dashboard.row.children == (dashboard.view, dashboard.panel)
        assert repr(dashboard) == "Dashboard(nodes=[1, 2, 3, 1001])"
    finally:
        dashboard.close()


def cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def test_a_killed_broker_on_a_simulated_cluster(no_dot):
    from minikafka.cluster import Cluster
    from widgets.operator_text import operator_text

    cluster = Cluster(brokers=3, controllers=1, seed=5, simulated=True).start()
    try:
        cluster.create_topic("orders", partitions=6, replication_factor=3)
        before = operator_text(cluster.snapshot(), rates=False, legend=False).splitlines()
        assert before[1] == "partitions: 6, offline 0, under-replicated 0; brokers alive: 3 of 3"
        assert [cells(line)[3:5] for line in before[4:]] == [["6", "2"]] * 3
        cluster.kill_broker(3)
        assert cluster.wait_until(lambda: all(3 not in cluster.isr("orders", p) for p in range(6)),
                                  20_000)
        cluster.run_for(1_000)
        after = operator_text(cluster.snapshot(), rates=False, legend=False).splitlines()
        assert after[1] == "partitions: 6, offline 0, under-replicated 6; brokers alive: 2 of 3"
        assert cells(after[-1])[:2] == ["3", "dead"] and cells(after[-1])[3:] == ["-"] * 4
        assert sum(int(cells(line)[4]) for line in after[4:6]) == 6          # leaders moved
    finally:
        cluster.stop()
