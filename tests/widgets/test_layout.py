"""Issue 24's presentation: themed diagrams, the compact fault column, briefs, verdict words."""

from __future__ import annotations

import re
import threading

import pytest

from _widget_helpers import FakeCluster, three_brokers
from minikafka.course.answer_kinds import AnswerKind
from minikafka.course.prediction import PredictionState
from widgets import render
from widgets.dashboard import Dashboard
from widgets.drill_panel import brief_html, report_html
from widgets.failure_panel import VERBS, FailurePanel, button_class
from widgets.prediction import ShownVerdict, verdict_html, verdict_word
from widgets.render import TEXT_SCALE, legend_html, themed_svg, topology_html
from widgets.theme import VERDICT_COLOURS, verdict_badge


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())


GRAPHVIZ_SVG = (
    '<svg width="100pt" height="50pt" viewBox="0 0 100 50">'
    '<g id="graph0" class="graph"><polygon fill="white" stroke="transparent" points="0,0"/>'
    '<polygon fill="#ffffff" stroke="none" points="1,1"/><path fill="#ffffff" d="M0"/>'
    '<polygon fill="#c8e6c9" stroke="none" points="2,2"/>'
    '<text text-anchor="start" x="1" y="2" font-size="10.00">orders-0</text>'
    '<text text-anchor="start" x="1" y="2" font-size="10.00" fill="#212121">alive</text>'
    '<text text-anchor="start" x="1" y="2" font-size="10.00" fill="#ffffff">L</text>'
    "</g></svg>")


def test_themed_svg_has_no_white_page_and_default_text_follows_the_page():
    svg = themed_svg(GRAPHVIZ_SVG)
    assert 'fill="white"' not in svg and svg.count('fill="transparent"') == 3
    assert '<polygon fill="#c8e6c9"' in svg                      # pastel fills stay
    assert '<text fill="currentColor" text-anchor="start" x="1" y="2"' in svg
    assert 'fill="#212121">alive' in svg and 'fill="#ffffff">L' in svg   # explicit colours stay
    assert svg.count(f'font-size="{10 * TEXT_SCALE:.2f}"') == 3


@pytest.mark.graphviz
def test_compact_diagram_collapses_its_legend_and_every_text_has_a_colour():
    page = topology_html(three_brokers(), compact=True)
    assert "<summary>Legend</summary>" in page and "Legend</TD>" not in page
    svg = page[page.index("<svg"):page.index("</svg>")]
    assert not re.search(r"<text (?![^>]*fill=)", svg)
    assert 'fill="white"' not in svg
    full = topology_html(three_brokers())
    assert "<summary>Legend</summary>" not in full and ">Legend</text>" in full


def test_the_legend_table_names_every_state_and_mark():
    legend = legend_html()
    for word in ("alive", "fenced", "paused", "isolated", "dead", "partition leader",
                 "follower not in the ISR", "active controller (quorum leader)"):
        assert word in legend


def test_the_compact_panel_has_short_buttons_that_keep_their_long_names(no_dot):
    cluster = FakeCluster(three_brokers())
    panel = FailurePanel(cluster, compact=True)
    try:
        kill = panel.buttons[("kill", 2)]
        assert kill.description == "Kill"
        assert kill.tooltip.startswith("Kill broker 2: ") and "kill -9" in kill.tooltip
        assert {"minikafka-fault", button_class("kill", 2)} <= set(kill._dom_classes)
        assert button_class("kill", 2) == "minikafka-kill-2"
        assert button_class("heal", None) in panel.buttons[("heal", None)]._dom_classes
        assert [panel.buttons[(verb, 1001)].description for verb in VERBS] == \
            ["Kill", "Restart", "Pause", "Resume", "Isolate"]
        kill.click()
        assert panel.status.value == "Kill broker 2: done"
        panel._update_buttons()
        assert kill.disabled and kill.tooltip == "Kill broker 2: broker 2 is already dead"
        assert "newest first · times: " in panel.children[2].value
    finally:
        panel.close()


def test_the_dashboard_puts_the_column_beside_the_diagram(no_dot):
    dashboard = Dashboard(FakeCluster(three_brokers()))
    try:
        row = dashboard.row
        assert row.children == (dashboard.view, dashboard.panel)
        assert "minikafka-compact" in row._dom_classes and dashboard.panel.compact
        picture = dashboard.still.picture()
        assert picture.index("minikafka-topology") < picture.index("Cluster events")
        assert "display:flex" in picture
    finally:
        dashboard.close()


SCENE = ("Brokers 1, 2, 3, 4, one controller. Topic orders:\n"
         "Topic: orders\tTopicId: Sx4K\tPartitionCount: 4\tReplicationFactor: 3\tConfigs: \n"
         "\tTopic: orders\tPartition: 0\tLeader: 2\tReplicas: 2,3,4\tIsr: 2,3,4\tElr: \n"
         "\tTopic: orders\tPartition: 1\tLeader: 3\tReplicas: 3,4,1\tIsr: 3,4,1\tElr: \n"
         "\n"
         "orders-0 holds 11 records, all acknowledged with acks=all.")


def test_a_brief_keeps_its_table_a_table_and_wraps_prose_by_words():
    page = brief_html(SCENE)
    assert page.count("<table") == 1 and page.count("<tr>") == 2     # the partition lines
    assert ">Partition: 1</td>" in page and ">Leader: 2</td>" in page
    assert '<span style="white-space:nowrap">PartitionCount: 4</span>' in page   # the topic line
    assert "white-space:nowrap" in page and "overflow-x:auto" in page
    assert page.index("Topic orders:") < page.index("<table") < page.index("holds 11 records")
    assert "word-break:normal" in page and "break-all" not in page


def test_a_drill_report_shows_each_verdict_as_its_word_on_its_colour():
    report = ("[right] new_leader: 3; the run says 3\n"
              "[wrong] records: 5; the run says 11\n"
              "[wrong] failover_ms: no answer; the run says 1800\n"
              "Score: 1 of 3\n\nWhy: the leader ...")
    page = report_html(report)
    for word in ("right", "wrong", "no answer"):
        assert verdict_badge(word) in page
    assert page.count(verdict_badge("wrong")) == 1 and "Score: 1 of 3" in page
    assert "<b>failover_ms</b>: no answer; the run says 1800" in page


@pytest.mark.parametrize("answer, actual, word", [(2, 2, "right"), (3, 2, "wrong"),
                                                   (..., 2, "no answer")])
def test_a_prediction_verdict_says_its_word_in_colour(answer, actual, word):
    state = PredictionState("Which broker leads orders-1?", AnswerKind("broker", [1, 2, 3]))
    state.answer(answer)
    verdict = ShownVerdict.of(state.reveal(actual, "because"))
    assert verdict_word(verdict) == word
    page = verdict._repr_html_()
    assert page == verdict_html(verdict) and verdict_badge(word) in page
    assert VERDICT_COLOURS[word] in page and verdict.headline() in page.replace("&#x27;", "'")
    assert repr(verdict) == verdict.text()            # the text nbval compares is unchanged


@pytest.mark.graphviz
def test_compact_diagram_puts_four_brokers_in_one_row_when_that_shrinks_it_less():
    from _widget_helpers import big_cluster
    from widgets.render import _fit, dot_to_svg
    from widgets.topology import topology_dot
    snapshot = big_cluster(brokers=4, partitions=8)
    page = topology_html(snapshot, compact=True)
    svg = page[page.index("<svg"):page.index("</svg>") + 6]
    rows_of_3 = dot_to_svg(topology_dot(snapshot, legend=False))
    one_row = dot_to_svg(topology_dot(snapshot, legend=False, brokers_per_row=4))
    assert _fit(one_row) > _fit(rows_of_3)
    assert re.search(r'<svg style="[^"]*" width="([\d.]+)pt"', svg).group(1) == \
        re.search(r'<svg width="([\d.]+)pt"', one_row).group(1)
