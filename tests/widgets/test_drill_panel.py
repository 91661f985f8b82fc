"""A drill on screen (widgets/drill_panel.py), driven headless like a learner's clicks."""

from __future__ import annotations

import threading

import pytest

from minikafka import drills
from widgets import render
from widgets.drill_panel import NO_ANSWER, DrillPanel, parse_numbers
from widgets.theme import ERROR_COLOUR


class Clock:
    def __init__(self):
        self.now = 500.0

    def __call__(self):
        return self.now


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())


def start(drill_id, seed=2, **options):
    return drills.start(drill_id, seed=seed, record=False, learner="panel", **options)


def test_one_control_per_question_in_the_type_it_takes():
    with start("throttled-reassignment") as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            kinds = {qid: type(c).__name__ for qid, c in panel.controls.items()}
            assert kinds == {"move-time": "Dropdown", "traffic-acked": "Dropdown",
                             "final-replicas": "SelectMultiple", "throttle-left": "Dropdown"}
            assert panel.controls["traffic-acked"].options[0] == (NO_ANSWER, None)
            assert repr(panel) == "DrillPanel(drill='throttled-reassignment', seed=2, questions=4)"
            assert [b.description for b in panel.buttons.values()] == [
                "Lock and run", "Hint (-1 point)", "Lock and grade"]
        finally:
            panel.close()


def test_a_predict_drill_from_the_first_answer_to_the_explanation():
    with start("leader-crash") as first:
        first.run()
        expected = first.scenario.expected
    with start("leader-crash") as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            assert panel.buttons["grade"].disabled and not panel.buttons["run"].disabled
            panel.controls["new-leader"].value = expected["new-leader"]
            panel.controls["failover-time"].value = expected["failover-time"]
            panel.controls["readable"].value = str(expected["readable"])
            assert drill.answers == expected
            panel.buttons["hint"].click()
            assert "Hint 1:" in panel.hints.value
            panel.buttons["run"].click()
            assert drill.state == "ran" and "killed" in panel.story.value
            assert all(c.disabled for c in panel.controls.values())      # the predictions are locked
            assert panel.buttons["run"].disabled and not panel.buttons["grade"].disabled
            panel.buttons["grade"].click()
            assert drill.result["score"] == drill.result["max"] - 1      # one hint taken
            assert "Score: 5 of 6 (1 hint taken)" in panel.verdict.value
            assert "broker.session.timeout.ms" in panel.verdict.value  # the explanation
            assert panel.buttons["hint"].disabled and panel.buttons["grade"].disabled
        finally:
            panel.close()


def test_a_refused_answer_is_one_line_in_the_panel_never_an_exception():
    with start("leader-crash") as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            panel.controls["readable"].value = "many"
            assert panel.last_error == ("Question 'readable' expects a whole number, but the answer "
                                        "is a text (str): 'many'")
            assert f"color:{ERROR_COLOUR}" in panel.status.value
            panel.controls["readable"].value = "7"
            assert panel.last_error is None and drill.answers["readable"] == 7
            panel.controls["readable"].value = ""                       # blank withdraws
            assert "readable" not in drill.answers
        finally:
            panel.close()


def test_a_diagnose_drill_opens_its_questions_after_the_run():
    with start("follower-out-of-sync", 1) as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            assert panel.buttons["run"].description == "Run the drill"
            assert all(c.disabled for c in panel.controls.values())
            panel.buttons["run"].click()
            assert not any(c.disabled for c in panel.controls.values())
            panel.controls["culprit"].value = drill.scenario.victim
            panel.buttons["grade"].click()
            assert drill.result["answers"]["culprit"]["correct"]
            assert all(c.disabled for c in panel.controls.values())
        finally:
            panel.close()


def test_a_fix_drill_checks_health_before_grading():
    with start("unbalanced-leaders", 1) as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            assert "check" in panel.buttons and panel.buttons["check"].disabled
            panel.buttons["run"].click()
            panel.buttons["check"].click()
            assert "[not yet] preferred-leaders" in panel.verdict.value
            drill.cluster.elect_leaders("preferred")
            panel.buttons["grade"].click()
            assert "Score: 6 of 6" in panel.verdict.value
        finally:
            panel.close()


def test_the_clock_counts_down_and_locks_the_answers():
    clock = Clock()
    with start("leader-crash", time_limit_s=90, _clock=clock) as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            assert panel.clock.value == "Time left: 1:30"
            clock.now += 80
            panel.tick()
            assert panel.clock.value == "Time left: 0:10"
            clock.now += 10
            panel.tick()
            assert "Time is up" in panel.clock.value
            assert all(c.disabled for c in panel.controls.values())
            panel.controls["readable"].disabled = False                 # even if forced open
            panel.controls["readable"].value = "3"
            assert panel.last_error.startswith("Time is up")
        finally:
            panel.close()


def test_without_a_limit_the_clock_shows_the_time_spent():
    clock = Clock()
    with start("leader-crash", _clock=clock) as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            clock.now += 125
            panel.tick()
            assert panel.clock.value == "Time spent: 2:05"
        finally:
            panel.close()


def test_the_clock_thread_stops_when_the_panel_closes():
    with start("leader-crash") as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=0.01)
        thread = panel._thread
        panel.close()
        thread.join(5)
        assert not thread.is_alive()


def test_the_dashboard_sits_beside_the_drill(no_dot):
    with start("leader-crash") as drill:
        panel = DrillPanel(drill, tick_s=None)
        try:
            assert panel.dashboard is not None and panel.children[1] is panel.dashboard
            panel.buttons["run"].click()
            assert panel.dashboard.panel.event_log.lines                 # the fault's events
        finally:
            panel.close()


def test_numbers_typed_into_a_box():
    assert parse_numbers(" 3 ", many=False) == 3
    assert parse_numbers("0, 2", many=True) == [0, 2]
    assert parse_numbers("", many=True) is None
    assert parse_numbers("1, 2", many=False) == "1, 2"     # handed on: the drill explains
    assert parse_numbers("two", many=False) == "two"


def test_a_choice_drop_down_shows_letters_and_stores_the_text():
    with start("throttled-reassignment") as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            options = panel.controls["move-time"].options
            question = drill.question("move-time")
            assert [label for label, _ in options[1:]] == [f"{letter}) {text}" for letter, text in
                                                          zip("abcd", question.choices)]
            panel.controls["move-time"].value = question.choices[1]
            assert drill.answers["move-time"] == question.choices[1] and panel.last_error is None
        finally:
            panel.close()


def test_beside_a_diagnose_drill_the_operator_view_not_the_diagram(no_dot):
    from widgets.operator_view import OperatorView
    with drills.start("follower-out-of-sync", seed=1, record=False, learner="panel") as drill:
        panel = DrillPanel(drill, tick_s=None)
        try:
            assert isinstance(panel.dashboard, OperatorView)
            panel.buttons["run"].click()
            shown = panel.dashboard.text(rates=False)
            assert "paused" not in shown and "not responding" in shown
        finally:
            panel.close()


def test_fault_buttons_are_closed_until_the_run_and_an_early_press_is_one_line(no_dot):
    with start("leader-crash") as drill:
        panel = DrillPanel(drill, tick_s=None)
        try:
            faults = panel.dashboard.panel
            victim = drill.scenario.victim
            faults.refresh()
            assert faults._worker.wait_idle(10)
            kill = faults.buttons[("kill", victim)]
            assert kill.disabled and kill.tooltip.startswith("Press Lock and run first")
            kill.click()                    # a press that comes anyway (from code): refused
            assert faults.last_error == (f"Kill broker {victim} failed: Press Lock and run first: "
                                         f"the drill's fault must play on the cluster as the scene "
                                         f"left it")
            assert drill.cluster.snapshot().node(victim).process == "running"
            panel.buttons["run"].click()
            assert drill.state == "ran" and panel.last_error is None
            assert faults._worker.wait_idle(10)
            restart = faults.buttons[("restart", victim)]
            assert not restart.disabled                 # the gate is open; the victim is dead
            restart.click()
            assert faults.last_error is None
            assert drill.cluster.snapshot().node(victim).process == "running"
        finally:
            panel.close()


def test_a_run_that_fails_says_so_in_one_line_and_leaves_the_panel_finished(no_dot):
    with start("leader-crash") as drill:
        panel = DrillPanel(drill, tick_s=None)
        try:
            drill.cluster.kill(drill.scenario.victim)   # in code, around the panel: the run must fail
            panel.buttons["run"].click()
            assert drill.state == "closed"
            assert panel.last_error.startswith("Drill 'leader-crash' failed while running")
            assert "\n" not in panel.last_error
            assert "running..." not in panel.story.value and "The run failed" in panel.story.value
            assert panel.still.frozen and "failed while running" in panel.still.caption
            assert all(b.disabled for b in panel.buttons.values())
            panel.buttons["run"].click()                # twice in a row: nothing, no traceback
            assert panel.last_error == "This panel's drill is over: its controls no longer act"
        finally:
            panel.close()


def test_run_twice_in_a_row_is_refused_in_one_line():
    with start("leader-crash") as drill:
        panel = DrillPanel(drill, dashboard=False, tick_s=None)
        try:
            panel.buttons["run"].click()
            panel.buttons["run"].disabled = False       # a second press racing the first
            panel.buttons["run"].click()
            assert panel.last_error == "Cannot run drill 'leader-crash': it has run already"
            assert drill.state == "ran"
        finally:
            panel.close()
