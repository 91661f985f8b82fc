"""Drills a class can trust (issue 23): a diagnose drill's views show symptoms, never the cause;
a fix drill left unrepaired scores 0; a choice is answered by its letter or number too; a graded
range is the range the drill's own output falls in; bad input gets one line."""

from __future__ import annotations

import re

import pytest

from minikafka.drills.answer_types import LETTERS
from minikafka.drills.question import DrillError
from tests.drills.drill_harness import learn, play, start
from widgets.operator_html import operator_html
from widgets.operator_model import build_operator_summary
from widgets.operator_text import operator_text, probe_text

# Words that name a fault the sandbox injected (a learner must find it, not read it).
CAUSES = re.compile(r"paused|pause\b|frozen|freez|kill|STOP|crash|\bcut\b|isolat|advertised\.listeners",
                    re.IGNORECASE)


def _follower_seeds() -> dict[str, int]:
    """One seed of follower-out-of-sync per fault (crashed, paused, cut)."""
    import random
    from minikafka.drills.broker_failure_drills import FollowerOutOfSync
    found = {}
    for seed in range(1, 40):
        rng = random.Random(f"minikafka-drill:follower-out-of-sync:{seed}")
        brokers = rng.choice([3, 4])
        rng.choice(list(range(1, brokers + 1)))
        found.setdefault(rng.choice(sorted(FollowerOutOfSync.FAULTS)), seed)
    return found


@pytest.mark.parametrize("fault", ["crashed", "paused", "cut"])
def test_a_diagnose_drills_views_never_name_the_injected_fault(fault):
    seed = _follower_seeds()[fault]
    with start("follower-out-of-sync", seed) as drill:
        assert drill.scenario.fault == fault
        story = drill.run()
        snapshot = drill.cluster.snapshot()
        views = {"story": story, "operator_text": operator_text(snapshot, rates=False),
                 "operator_html": operator_html(snapshot), "probe_text": probe_text(snapshot),
                 "events": "\n".join(e.text for e in drill.cluster.events.since(0))}
        for name, text in views.items():
            assert not CAUSES.search(text), (name, CAUSES.search(text), text)
        states = {row.broker: row.state for row in build_operator_summary(snapshot).brokers}
        victim = drill.scenario.victim
        assert states[victim] == {"crashed": "dead", "paused": "fenced, not responding",
                                  "cut": "alive"}[fault]


def test_the_hints_of_a_diagnose_drill_are_the_same_whatever_the_fault():
    hints = set()
    for seed in _follower_seeds().values():
        with start("follower-out-of-sync", seed) as drill:
            hints.add(tuple(drill.scenario.hints()))
    assert len(hints) == 1


def test_the_quorum_diagnose_drill_shows_processes_and_requests_not_causes():
    with start("controller-majority-lost", 1) as drill:
        story = drill.run()
        probed = probe_text(drill.cluster.snapshot(), controllers=True)
        assert not CAUSES.search(story) and not CAUSES.search(probed)
        refused = [int(line.split()[0]) for line in probed.splitlines()[1:] if "refused" in line]
        assert refused == drill.scenario.expected["down"]


@pytest.mark.parametrize("drill_id", ["offline-partition", "empty-new-broker", "unbalanced-leaders",
                                      "lagging-group"])
def test_a_fix_drill_left_unrepaired_scores_0(drill_id):
    with start(drill_id, 1) as drill:
        drill.run()
        result = drill.grade()
        assert result["score"] == 0, drill.report()
        report = drill.report()
        for check_id in drill.unearned:                 # a guard that held is not a point
            assert f"[no points] {check_id}:" in report
        assert f"Score: 0 of {result['max']}" in report


def test_a_guard_counts_once_something_is_repaired():
    from tests.drills.drill_harness import repair_unbalanced_leaders
    result, _ = play("unbalanced-leaders", 1, {}, repair=repair_unbalanced_leaders)
    assert result["score"] == result["max"] and result["answers"]["in-sync"]["correct"]


def _letter(question, text):
    return LETTERS[question[3].index(text)]


@pytest.mark.parametrize("drill_id", ["leader-crash", "throttled-reassignment"])
def test_choice_answers_are_accepted_as_letters_and_numbers(drill_id):
    questions, expected, _ = learn(drill_id, 1)
    choices = [q for q in questions if q[2] == "choice"]
    assert choices
    by_letter = {q[0]: _letter(q, expected[q[0]]) if q[2] == "choice" else expected[q[0]]
                 for q in questions}
    by_number = {q[0]: q[3].index(expected[q[0]]) + 1 if q[2] == "choice" else expected[q[0]]
                 for q in questions}
    for answers in (by_letter, by_number):
        result, _ = play(drill_id, 1, answers)
        assert result["score"] == result["max"], result
        for q in choices:        # the learner's line stores the text, whatever named it
            assert result["answers"][q[0]]["given"] == expected[q[0]]


def test_the_controller_crash_epoch_question_grades_kraft_rule():
    questions, expected, _ = learn("controller-crash", 1)
    new_epoch = next(q for q in questions if q[0] == "new-epoch")
    assert new_epoch[2] == "choice" and expected["new-epoch"] == new_epoch[3][1]
    assert "higher than" in expected["new-epoch"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_throttled_reassignments_graded_range_holds_the_duration_it_prints(seed):
    with start("throttled-reassignment", seed) as drill:
        story = drill.run()
        seconds = float(re.search(r"the move took ([\d.]+) s", story).group(1))
        low, high = drill.scenario.bounds
        answer = drill.scenario.expected["move-time"]
        ranges = {drill.scenario.durations[0]: (0, low), drill.scenario.durations[1]: (low, high),
                  drill.scenario.durations[2]: (high, float("inf"))}
        lo, hi = ranges[answer]
        assert lo <= seconds < hi, (seconds, answer)
        assert f"{low:g} s" in drill.scenario.durations[1] and f"{high:g} s" in drill.scenario.durations[1]


@pytest.mark.parametrize("question_id, value, words", [
    ("failover-time", "z", "'z' is not a letter offered: the letters are a to d"),
    ("failover-time", 9, "9 is not offered: the choices are numbered 1 to 4"),
    ("failover-time", 1.5, "expects one of its choices"),
    ("failover-time", "about a minute", "is not one of the choices: answer with a letter (a to d)"),
    ("readable", "three", "expects a whole number, but the answer is a text (str)"),
    ("new-leader", [1], "expects a node id (a whole number)"),
    ("nothing-such", 1, "has no question 'nothing-such'"),
])
def test_bad_input_gets_one_clear_line(question_id, value, words):
    with start("leader-crash", 1) as drill:
        with pytest.raises(DrillError) as refused:
            drill.answer(question_id, value)
        message = str(refused.value)
        assert words in message and "\n" not in message and "Traceback" not in message
        assert drill.answers == {}


def test_in_a_notebook_a_refusal_shows_one_line_and_no_traceback():
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shown = []
    original = shell._showtraceback
    shell._showtraceback = lambda etype, value, stb: shown.append(stb)
    try:
        with start("leader-crash", 1) as drill:
            shell.user_ns["drill"] = drill
            shell.run_cell('drill.answer("failover-time", "z")')
    finally:
        shell._showtraceback = original
        shell.user_ns.pop("drill", None)
    assert shown == [["DrillError: Question 'failover-time': 'z' is not a letter offered: the "
                      "letters are a to d"]]
