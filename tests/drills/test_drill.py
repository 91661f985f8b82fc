"""A drill's life: questions, answers and locks, hints, time limit, grading, closing (minikafka/drills/drill.py)."""

import json
from pathlib import Path

import pytest

from minikafka import drills
from minikafka.drills.drill import Drill
from tests.drills.drill_harness import start

DrillError = drills.DrillError


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def drill():
    with start("leader-crash", 2) as playing:
        yield playing


def test_the_issues_headless_api(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path) + "/")
    assert all({"predict", "diagnose", "fix"} >= {d.kind} for d in drills.catalogue())
    drill = drills.start("leader-crash", seed=3, learner="ada")
    root = drill.cluster.data_dir
    assert [q.id for q in drill.questions] == ["new-leader", "failover-time", "readable"]
    assert drill.questions[1].choices and drill.questions[2].choices is None
    drill.answer("new-leader", 2)
    story = drill.run()
    assert "killed" in story
    result = drill.grade()
    assert set(result) >= {"score", "max", "answers"}
    assert set(result["answers"]["new-leader"]) == {"given", "expected", "correct"}
    assert result["answers"]["new-leader"]["given"] == 2
    drill.close()
    assert drill.cluster is None and not root.exists()
    [line] = (tmp_path / "ada.jsonl").read_text().splitlines()
    assert json.loads(line)["drill"] == "leader-crash"


def test_the_brief_lists_the_scene_and_every_question(drill):
    brief = drill.brief
    assert brief.startswith("Drill leader-crash · A partition leader crashes\npredict, after lesson 01, seed 2")
    for question in drill.questions:
        assert f"{question.id}: {question.text}" in brief
    assert "Predict (answer before drill.run()):" in brief


def test_predictions_lock_when_the_scenario_runs(drill):
    drill.answer("new-leader", 3)
    drill.answer("new-leader", 2)             # changing one's mind before the run is fine
    drill.answer("readable", None)            # None withdraws
    drill.run()
    with pytest.raises(DrillError, match=r"The predictions of 'leader-crash' are locked \(the "
                                         r"scenario has run\); 'new-leader' stays 2"):
        drill.answer("new-leader", 3)
    assert drill.answers == {"new-leader": 2}


def test_an_explicit_lock_before_the_run(drill):
    drill.answer("readable", 5)
    drill.lock()
    with pytest.raises(DrillError, match="are locked"):
        drill.answer("readable", 6)


def test_diagnoses_wait_for_the_run_and_lock_at_grading():
    with start("follower-out-of-sync", 1) as drill:
        with pytest.raises(DrillError, match=r"'culprit' is a diagnosis: run the drill first"):
            drill.answer("culprit", 2)
        drill.run()
        drill.answer("culprit", 2)
        drill.lock()
        with pytest.raises(DrillError, match=r"The answers of 'follower-out-of-sync' are locked; "
                                             r"'culprit' stays 2"):
            drill.answer("culprit", 3)
        drill.grade()
        with pytest.raises(DrillError, match="it is graded already"):
            drill.answer("fault", "its process crashed")


def test_bad_answers_change_nothing(drill):
    drill.answer("new-leader", 2)
    with pytest.raises(DrillError, match="Question 'new-leader' expects a node id"):
        drill.answer("new-leader", "3")
    with pytest.raises(DrillError, match=r"Drill 'leader-crash' has no question 'leader'; its "
                                         r"questions are new-leader, failover-time, readable"):
        drill.answer("leader", 2)
    with pytest.raises(DrillError, match="is about nodes 1, 2, 3; 9 is not one of them"):
        drill.answer("new-leader", 9)
    assert drill.answers == {"new-leader": 2}


def test_order_of_the_steps_is_enforced(drill):
    with pytest.raises(DrillError, match=r"Cannot grade drill 'leader-crash': it has not run yet"):
        drill.grade()
    with pytest.raises(DrillError, match="Cannot read the explanation of drill 'leader-crash'"):
        drill.explanation
    drill.run()
    with pytest.raises(DrillError, match="Cannot run drill 'leader-crash': it has run already"):
        drill.run()
    first = drill.grade()
    assert drill.grade() is first                         # grading again changes nothing
    drill.close()
    with pytest.raises(DrillError, match="it is closed"):
        drill.answer("readable", 1)
    drill.close()                                         # closing twice is harmless


def test_hints_cost_a_point_each_and_run_out(drill):
    first, second = drill.hint(), drill.hint()
    assert first != second and "in-sync replicas" in first
    with pytest.raises(DrillError, match="No more hints for 'leader-crash' \\(2 given\\)"):
        drill.hint()
    drill.run()
    result = drill.grade()
    assert result["hints"] == 2 and result["score"] == 0    # nothing right, and never below zero
    assert "(2 hints taken)" in drill.report()


def test_full_marks_minus_the_hints_taken():
    with start("leader-crash", 2) as first:
        first.run()
        expected = first.scenario.expected
    with start("leader-crash", 2) as drill:
        drill.hint()
        for qid, value in expected.items():
            drill.answer(qid, value)
        drill.run()
        assert drill.grade()["score"] == drill.result["max"] - 1


def test_a_time_limit_locks_the_answers():
    clock = Clock()
    with start("leader-crash", 2, time_limit_s=60, _clock=clock) as drill:
        assert drill.remaining_s() == 60
        clock.now += 45
        drill.answer("readable", 3)
        assert drill.remaining_s() == 15
        clock.now += 20
        assert drill.remaining_s() == 0
        with pytest.raises(DrillError, match="Time is up: the answers of 'leader-crash' were locked after 60 s"):
            drill.answer("readable", 4)
        drill.run()
        result = drill.grade()
        assert result["answers"]["readable"]["given"] == 3 and result["time_s"] == 65.0


def test_the_report_marks_each_answer_and_explains(drill):
    drill.answer("new-leader", drill.scenario.replicas[1])
    drill.run()
    drill.grade()
    report = drill.report()
    assert report.splitlines()[0].startswith("[right] new-leader:")
    assert "[wrong] readable: no answer; the run says" in report
    assert "Score: 2 of 6" in report
    assert report.endswith(drill.explanation)


@pytest.mark.parametrize("options, words", [
    ({"seed": 1.5}, "A drill's seed is a whole number or a text, not float: 1.5"),
    ({"seed": True}, "A drill's seed is a whole number or a text"),
    ({"learner": ""}, "learner must be a non-empty name"),
    ({"time_limit_s": 0}, "time_limit_s must be a positive number of seconds"),
])
def test_bad_start_options_are_refused_before_any_cluster_starts(options, words, monkeypatch):
    monkeypatch.setattr(Drill, "_start", lambda self: pytest.fail("a cluster was started"))
    options = {"seed": 1, **options}
    with pytest.raises(DrillError, match=words):
        drills.start("leader-crash", record=False, **options)


def test_an_unknown_drill_is_refused_in_one_line():
    with pytest.raises(DrillError, match=r"^No drill 'leader_crash'; the catalogue has leader-crash, .*"):
        drills.start("leader_crash")


def test_an_unwritable_scores_path_is_refused_before_any_cluster_starts(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file")
    monkeypatch.setattr(Drill, "_start", lambda self: pytest.fail("a cluster was started"))
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(blocker / "scores.jsonl"))
    with pytest.raises(DrillError, match=r"Cannot write scores to .*scores.jsonl: "
                                         r".*not-a-folder is a file, not a folder; set MINIKAFKA_SCOREBOARD"):
        drills.start("leader-crash")
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path))
    (tmp_path / "ada.jsonl").mkdir()
    with pytest.raises(DrillError, match="it is a folder"):
        drills.start("leader-crash", learner="ada")


def test_a_drill_that_fails_midway_stops_its_cluster_and_removes_its_files(monkeypatch):
    drill = start("leader-crash", 2)
    cluster, root = drill.cluster, drill.cluster.data_dir

    def broken(_cluster):
        raise RuntimeError("the disk caught fire")
    monkeypatch.setattr(drill.scenario, "run", broken)
    with pytest.raises(DrillError, match=r"Drill 'leader-crash' failed while running \(RuntimeError: "
                                         r"the disk caught fire\); its cluster was stopped and its "
                                         r"files removed"):
        drill.run()
    assert drill.state == "closed" and drill.cluster is None
    assert not root.exists() and not cluster.processes.started


def test_a_drill_that_fails_while_setting_up_leaves_nothing_behind(monkeypatch, tmp_path):
    from minikafka.drills.broker_failure_drills import LeaderCrash
    made = []
    original = LeaderCrash.setup

    def setup(self, cluster):
        made.append(cluster.data_dir)
        original(self, cluster)
        raise RuntimeError("no more disk")
    monkeypatch.setattr(LeaderCrash, "setup", setup)
    with pytest.raises(DrillError, match="failed while setting up"):
        start("leader-crash", 2)
    assert made and not Path(made[0]).exists()


def test_a_failed_scoreboard_write_keeps_the_grade(tmp_path):
    path = tmp_path / "scores.jsonl"
    with start("leader-crash", 2, record=True, scoreboard_path=path) as drill:
        drill.run()
        path.mkdir()                  # the file became a folder meanwhile: appending fails
        with pytest.raises(DrillError, match="Cannot write scores to .*the grade itself is in drill.result"):
            drill.grade()
        assert drill.result["max"] == 6
