"""The fault buttons (widgets/failure_panel.py), clicked headlessly."""

from __future__ import annotations

import threading

import pytest

from _widget_helpers import FakeCluster, make_snapshot, node, three_brokers
from widgets.failure_panel import HEAL_DESCRIPTION, VERBS, FailurePanel, node_name
from widgets.theme import ERROR_COLOUR


@pytest.fixture
def cluster():
    return FakeCluster(three_brokers())


def test_one_button_per_verb_and_node_plus_heal(cluster):
    panel = FailurePanel(cluster)
    assert set(panel.buttons) == {(verb, n) for verb in VERBS for n in (1, 2, 3, 1001)} | {
        ("heal", None)}
    assert panel.node_ids == [1, 2, 3, 1001]
    assert panel.buttons[("kill", 2)].description == "Kill broker 2"
    assert panel.buttons[("isolate", 1001)].description == "Isolate controller 1001"
    assert panel.buttons[("heal", None)].description == HEAL_DESCRIPTION == "Heal network"
    assert "kill -9" in panel.buttons[("kill", 2)].tooltip
    assert all(button.tooltip for button in panel.buttons.values())
    panel.close()


def test_descriptions_are_unique_for_browser_tests(cluster):
    panel = FailurePanel(cluster)
    descriptions = [button.description for button in panel.buttons.values()]
    assert len(descriptions) == len(set(descriptions))
    panel.close()


@pytest.mark.parametrize("verb", VERBS)
def test_click_calls_the_facade_verb(cluster, verb):
    if verb == "restart":
        cluster.replace_node(3, process="dead")
    if verb == "resume":
        cluster.replace_node(3, process="paused")
    panel = FailurePanel(cluster)
    panel.buttons[(verb, 3)].click()
    assert cluster.calls == [(verb, 3)]
    assert panel.last_error is None
    assert panel.status.value == f"{verb.capitalize()} broker 3: done"
    panel.close()


def test_heal_calls_heal(cluster):
    panel = FailurePanel(cluster)
    panel.buttons[("isolate", 1)].click()
    panel.buttons[("heal", None)].click()
    assert cluster.calls == [("isolate", 1), ("heal", None)]
    assert not cluster.snapshot().node(1).isolated
    panel.close()


def test_a_failing_verb_is_shown_not_raised(cluster):
    panel = FailurePanel(cluster)
    panel.buttons[("kill", 2)].click()
    panel.buttons[("kill", 2)].click()              # already dead: the driver refuses
    assert panel.last_error == "Kill broker 2 failed: node 2 is not running"
    assert "node 2 is not running" in panel.status.value and ERROR_COLOUR in panel.status.value
    panel.buttons[("restart", 2)].click()
    assert panel.last_error is None and panel.status.value == "Restart broker 2: done"
    panel.close()


def test_the_log_shows_what_the_buttons_caused_and_events_from_threads(cluster):
    panel = FailurePanel(cluster)
    panel.buttons[("pause", 1)].click()
    thread = threading.Thread(target=cluster.emit,
                              args=("broker_fenced", "broker 1 fenced after its session timed out",
                                    1))
    thread.start()
    thread.join(10)
    assert [line.split("  ", 1)[1] for line in panel.event_log.lines] == [
        "broker 1 paused", "broker 1 fenced after its session timed out"]
    panel.close()


def test_panel_without_log(cluster):
    panel = FailurePanel(cluster, show_log=False)
    assert panel.event_log is None
    panel.close()


def test_combined_nodes_are_named_node(cluster):
    combined = FakeCluster(make_snapshot(
        [node(1, ("broker", "controller"), raft_role="leader", raft_epoch=1), node(2)], [],
        voters=(1,), leader=1))
    panel = FailurePanel(combined)
    assert panel.node_ids == [1, 2]
    assert panel.buttons[("kill", 1)].description == "Kill node 1"
    assert panel.buttons[("kill", 2)].description == "Kill broker 2"
    assert node_name(1001, {1}, {1001}) == "controller 1001"
    panel.close()


def test_repr_is_deterministic(cluster):
    panel = FailurePanel(cluster)
    before = panel._repr_mimebundle_()["text/plain"]
    panel.buttons[("kill", 1)].click()
    after = panel._repr_mimebundle_()["text/plain"]
    assert after == before == "FailurePanel(nodes=[1, 2, 3, 1001])"
    panel.close()


def test_buttons_that_cannot_act_are_disabled_and_say_why(cluster):
    panel = FailurePanel(cluster)
    try:
        enabled = {verb for verb in VERBS if not panel.buttons[(verb, 2)].disabled}
        assert enabled == {"kill", "pause", "isolate"}                 # broker 2 is running
        assert panel.buttons[("restart", 2)].tooltip == "broker 2 is running: kill it first"
        panel.buttons[("kill", 2)].click()
        assert panel._worker.wait_idle(5)
        enabled = {verb for verb in VERBS if not panel.buttons[(verb, 2)].disabled}
        assert enabled == {"restart", "isolate"}
        assert panel.buttons[("kill", 2)].tooltip == "broker 2 is already dead"
        panel.buttons[("pause", 1)].click()
        panel.buttons[("isolate", 3)].click()
        assert panel._worker.wait_idle(5)
        assert not panel.buttons[("resume", 1)].disabled and panel.buttons[("pause", 1)].disabled
        assert panel.buttons[("isolate", 3)].tooltip.startswith("broker 3 is already isolated")
    finally:
        panel.close()
    assert all(button.disabled for button in panel.buttons.values())     # frozen: nothing to press


@pytest.mark.parametrize("verb, process, reason", [
    ("kill", "dead", "broker 2 is already dead"),
    ("restart", "paused", "broker 2 is paused: resume it, or kill it first"),
    ("pause", "dead", "broker 2 is dead: restart it first"),
    ("resume", "running", "broker 2 is not paused"),
    ("kill", "paused", None), ("isolate", "dead", None)])
def test_why_not_is_a_table_of_process_states(verb, process, reason):
    from widgets.failure_panel import why_not
    assert why_not(verb, node(2, process=process), "broker 2") == reason


def test_presses_on_a_stopped_cluster_are_one_line(monkeypatch, tmp_path):
    from minikafka import Cluster
    from widgets import render
    monkeypatch.setenv("PATH", str(tmp_path))        # no Graphviz needed
    monkeypatch.setattr(render, "_reported", threading.Event())
    real = Cluster(brokers=2, controllers=1, seed=24, simulated=True).start()
    panel = FailurePanel(real, show_log=False)
    real.stop()                                       # the panel freezes
    panel.buttons[("kill", 1)].click()                # from code, past the disabled button
    panel.buttons[("kill", 1)].click()                # and twice in a row
    assert panel.last_error == ("Kill broker 1 not done: this panel is frozen. The cluster was "
                                "stopped: this is the last picture of it.")
    late = FailurePanel(real, show_log=False)         # a panel made after the stop
    try:
        late.buttons[("restart", 2)].click()
        assert late.last_error == ("Restart broker 2 failed: Cannot restart a node: the cluster "
                                   "is not running (it was stopped, or never started)")
        assert "\n" not in late.last_error
    finally:
        late.close()
        panel.close()


def test_a_gate_closes_every_button_until_it_opens(cluster):
    panel = FailurePanel(cluster)
    reason = ["Press Lock and run first"]
    try:
        panel.set_gate(lambda: reason[0])
        assert panel._worker.wait_idle(5)
        assert all(b.disabled and b.tooltip == reason[0] for b in panel.buttons.values())
        panel.buttons[("kill", 2)].click()
        assert panel.last_error == "Kill broker 2 failed: Press Lock and run first"
        assert cluster.calls == []                    # the verb was never called
        reason[0] = None
        panel.refresh()
        assert panel._worker.wait_idle(5)
        assert not panel.buttons[("kill", 2)].disabled and not panel.buttons[("heal", None)].disabled
        panel.buttons[("kill", 2)].click()
        assert panel.last_error is None and cluster.calls == [("kill", 2)]
    finally:
        panel.close()
