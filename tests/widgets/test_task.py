"""`widgets.Task`: checked by asking the cluster; catch-up runs the solution for the lesson to go on."""

from __future__ import annotations

import json

import pytest

from minikafka.course.progress import ProgressLog
from widgets import Task


@pytest.fixture
def log(tmp_path) -> ProgressLog:
    return ProgressLog(tmp_path / "progress.jsonl", learner="ada")


TOPICS: set[str] = set()


def make_task(log, **kwargs) -> Task:
    TOPICS.clear()
    return Task("Create the topic payments.", check=lambda: "payments" in TOPICS,
                hint="create_topic", solution='TOPICS.add("payments")', progress=log,
                lesson="01_brokers_and_topics", **kwargs)


def test_checked_before_it_is_attempted_it_says_what_to_do(log):
    verdict = make_task(log).check()
    assert not verdict.done
    assert verdict.text().startswith("Not done yet. To do: Create the topic payments.")


def test_done_when_the_cluster_shows_it(log):
    task = make_task(log)
    TOPICS.add("payments")
    verdict = task.check()
    assert verdict.done and not verdict.solution_ran and task.done
    line = json.loads(log.path.read_text())
    assert (line["kind"], line["done"], line["solution_ran"]) == ("task", True, False)


def test_catch_up_runs_the_solution_in_the_callers_namespace(log):
    task = make_task(log, catch_up=True)
    verdict = task.check()
    assert verdict.done and verdict.solution_ran and "payments" in TOPICS
    assert verdict.text() == ("Done by the solution, not by your code.\n"
                              "  So that the lesson can go on, it ran:\n"
                              '    TOPICS.add("payments")')
    assert json.loads(log.path.read_text())["solution_ran"] is True


def test_the_widgets_check_never_runs_the_solution(log):
    task = make_task(log, catch_up=True)
    task.buttons["check"].click()
    assert "payments" not in TOPICS and "Not done yet" in task.output.value
    task.buttons["hint"].click()
    assert "Hint: create_topic" in task.output.value
    task.buttons["solution"].click()
    assert "TOPICS.add(&quot;payments&quot;)" in task.output.value
    TOPICS.add("payments")
    task.buttons["check"].click()
    assert "Done: the cluster shows it" in task.output.value
    lines = [json.loads(line) for line in log.path.read_text().splitlines()]
    assert [line["done"] for line in lines] == [False, True] and lines[1]["solution_shown"]


def test_hint_and_solution_in_code(log, capsys):
    task = make_task(log)
    task.hint()
    task.solution()
    assert capsys.readouterr().out == 'Hint: create_topic\nTOPICS.add("payments")\n'


def test_catch_up_needs_a_solution():
    with pytest.raises(ValueError, match="needs the solution"):
        Task("x", check=lambda: True, catch_up=True)
