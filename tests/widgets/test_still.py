"""Still pictures (widgets/still.py): every widget leaves a static picture of itself, and the
views of a cluster keep their last picture, with a caption, once the cluster stops."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from minikafka import Cluster
from minikafka.runtime.events import EventLog
from widgets import Dashboard, Prediction, ReplicaView, Task, TopologyView
from widgets.still import (CLOSED, CLUSTER_STOPPED, LIVE_CAPTION, PICTURE_END, STILL_CLASS,
                           WIDGET_VIEW, StillPicture, still_html)

REPO = Path(__file__).resolve().parents[2]


def started():
    cluster = Cluster(brokers=2, controllers=1, seed=5, simulated=True).start()
    cluster.create_topic("orders", partitions=2, replication_factor=2)
    return cluster


# ---------------------------------------------------------------- the picture itself
def test_a_live_bundle_carries_the_view_the_still_and_the_repr():
    still = StillPicture(lambda: {WIDGET_VIEW: {"model_id": "m"}, "text/plain": "cut…"},
                         lambda: "<b>picture</b>", lambda: "Thing(1)")
    bundle = still.bundle()
    assert bundle[WIDGET_VIEW] == {"model_id": "m"}
    assert bundle["text/plain"] == "Thing(1)"                    # the whole repr, not ipywidgets'
    assert bundle["text/html"] == still_html("<b>picture</b>", LIVE_CAPTION)
    assert bundle["text/html"].startswith(f'<div class="{STILL_CLASS}"><b>picture</b>')
    assert bundle["text/html"].endswith(PICTURE_END)


def test_a_frozen_bundle_is_the_last_picture_alone_and_freezing_happens_once():
    pictures = iter(["<b>first</b>", "<b>last</b>", "<b>later</b>"])
    current = {"html": next(pictures)}
    still = StillPicture(lambda: {WIDGET_VIEW: {}}, lambda: current["html"], lambda: "Thing()")
    current["html"] = next(pictures)
    assert still.freeze("It stopped & went <away>.") is True
    assert still.freeze("again") is False and still.caption == "It stopped & went <away>."
    bundle = still.bundle()
    assert WIDGET_VIEW not in bundle and bundle["text/plain"] == "Thing()"
    assert "<b>last</b>" in bundle["text/html"]
    assert "It stopped &amp; went &lt;away&gt;." in bundle["text/html"]   # escaped caption


def test_prediction_and_task_pictures_show_the_question_not_an_answer():
    p = Prediction("Which broker leads orders-0?", kind="broker", choices=[1, 2, None], show=False)
    html = p.still.bundle()["text/html"]
    assert "Which broker leads orders-0?" in html and "(1, 2 or none)" in html
    q = Prediction("Which error?", kind="choice", choices=["NOT_LEADER", "TIMEOUT"], show=False)
    assert "one of &#x27;NOT_LEADER&#x27; or &#x27;TIMEOUT&#x27;" in q.still.bundle()["text/html"]
    t = Task("Kill broker 2.", check=lambda: True, hint="cluster.kill(2)",
             solution="cluster.kill(2)", show=False)
    html = t.still.bundle()["text/html"]
    assert "Kill broker 2." in html and "cluster.kill" not in html       # no hint, no solution
    assert p._repr_mimebundle_()["text/plain"] == repr(p)


# ---------------------------------------------------------------- views of a cluster
def test_views_freeze_with_their_last_picture_when_the_cluster_stops(capsys):
    cluster = started()
    view = TopologyView(cluster)
    replicas = ReplicaView(cluster, "orders", 0)
    dashboard = Dashboard(cluster, operator=True, refresh_s=None)
    for v in (view, replicas, dashboard.view):
        assert v.wait_idle(5)
    before = view.diagram.value
    assert "orders" in before
    cluster.stop()
    for v in (view, replicas, dashboard, dashboard.view, dashboard.panel, dashboard.operator):
        assert v.still.frozen and v.still.caption == CLUSTER_STOPPED
    # the picture is the one before the nodes went down, kept on the page with a caption
    assert view.diagram.value == before and CLUSTER_STOPPED in view.status.value
    assert all(button.disabled for button in dashboard.buttons.values())
    frozen = dashboard.still.bundle()
    assert WIDGET_VIEW not in frozen and dashboard.view.diagram.value in frozen["text/html"]
    assert "Cluster events" in frozen["text/html"]
    # asked to redraw, a frozen view says so in one line and changes nothing
    view.redraw()
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and "no longer follows its cluster" in said[0]
    assert view.diagram.value == before
    view.close()                                                 # closing after is harmless
    assert view.still.caption == CLUSTER_STOPPED


def test_closing_a_view_freezes_it_with_its_own_caption():
    cluster = started()
    try:
        view = TopologyView(cluster)
        view.close()
        assert view.still.caption == CLOSED
        assert cluster.events.announce_stop() == []               # it no longer listens
    finally:
        cluster.stop()


def test_a_failing_stop_listener_does_not_keep_the_cluster_running():
    log = EventLog()
    heard = []
    log.subscribe_stop(lambda: 1 / 0)
    log.subscribe_stop(lambda: heard.append("second"))
    errors = log.announce_stop()
    assert heard == ["second"] and [type(e) for e in errors] == [ZeroDivisionError]
    assert log.announce_stop() == []                              # each listener hears it once


# ---------------------------------------------------------------- in a real kernel
NOTEBOOK = [
    """
    from minikafka import Cluster
    from widgets import Dashboard, Prediction
    cluster = Cluster(brokers=2, controllers=1, seed=5, simulated=True).start()
    cluster.create_topic("orders", partitions=2, replication_factor=2)
    """,
    "dashboard = Dashboard(cluster, refresh_s=None)\ndashboard",
    'p = Prediction("Which broker leads orders-0?", kind="broker", choices=cluster.broker_ids)',
    "cluster.stop()",
]


@pytest.mark.timeout(180)
def test_a_run_notebook_saves_the_last_picture_of_each_widget(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(textwrap.dedent(src).strip())
                                         for src in NOTEBOOK])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(REPO)}},
                   ).execute()
    dashboard_out = [o for o in nb.cells[1].outputs if o.output_type == "display_data"]
    assert len(dashboard_out) == 1
    data = dashboard_out[0]["data"]
    assert WIDGET_VIEW not in data                                # the live view is gone...
    assert CLUSTER_STOPPED in data["text/html"] and "<svg" in data["text/html"]   # ...its picture stays
    assert data["text/plain"].startswith("Dashboard(nodes=[1, 2, 1001]")
    prediction_out = nb.cells[2].outputs[0]["data"]
    assert WIDGET_VIEW in prediction_out and LIVE_CAPTION in prediction_out["text/html"]
    json.dumps(nb)                                                # a plain, saveable notebook


def test_a_drill_panel_pictures_its_brief_and_view_and_freezes_with_its_cluster():
    from minikafka import drills
    from widgets import DrillPanel
    drill = drills.start("leader-crash", seed=1, record=False, learner="still")
    panel = DrillPanel(drill, tick_s=None)
    try:
        html = panel.still.bundle()["text/html"]
        assert drill.title in html and "<svg" in html              # the brief beside the diagram
        assert not panel.buttons["run"].disabled
    finally:
        drill.close()
    assert panel.still.frozen and all(b.disabled for b in panel.buttons.values())
    assert drill.title in panel.still.bundle()["text/html"]


def test_the_event_logs_picture_does_not_carry_the_machines_data_directory():
    from minikafka.runtime.events import ClusterEvent
    from widgets import EventLogView
    log = EventLog()
    view = EventLogView(log, data_dir="/tmp/minikafka-abc")
    log.append(ClusterEvent(1_767_225_600_000, "node_restarted", 2, "broker 2 restarted"))
    log.append(ClusterEvent(1_767_225_601_250, "recovery", 2, "Recovering 3 logs from "
                            "/tmp/minikafka-abc/broker-2 since no clean shutdown file was found"))
    assert "/tmp/minikafka-abc/broker-2" in view.text                  # the live pane: the real path
    assert "from &lt;data dir&gt;/broker-2 since" in view.still.picture()
    assert "/tmp/" not in view.still.picture()
    # times: seconds after the first event shown, not the hour the notebook ran
    assert "00:00:01.250" in view.text
    assert not re.search(r"\d\d:\d\d:\d\d", view.still.picture())
    assert "+   1.250 s  Recovering" in view.still.picture()
    assert "+   0.000 s  broker 2 restarted" in view.still.picture()
