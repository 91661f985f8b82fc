"""`TaskState`: a task checked by asking the cluster, with a hint and a solution on request."""

from __future__ import annotations

from minikafka.course.task import Outcome, TaskState, run_check


def test_a_task_checked_before_it_is_attempted_says_what_to_do():
    state = {"topics": set()}
    task = TaskState("Create the topic payments.",
                     check=lambda: Outcome("payments" in state["topics"], "there is no topic 'payments' yet"),
                     hint="cluster.create_topic(...)", solution='cluster.create_topic("payments")')
    verdict = task.check()
    assert not verdict.done and not task.done
    assert verdict.headline() == ("Not done yet: there is no topic 'payments' yet. "
                                  "To do: Create the topic payments.")
    assert "run that cell, then check again" in verdict.text()


def test_done_when_the_cluster_shows_it_and_done_stays_done():
    state = {"topics": set()}
    task = TaskState("Create the topic payments.", check=lambda: "payments" in state["topics"])
    assert not task.check().done
    state["topics"].add("payments")
    verdict = task.check()
    assert verdict.done and verdict.headline() == "Done: the cluster shows it."
    assert verdict.checks == 2
    state["topics"].clear()
    assert not task.check().done and task.done          # once done, the task counts as done


def test_a_check_that_raises_is_not_done_with_one_line():
    def check():
        raise KeyError("payments")
    outcome = run_check(check)
    assert outcome == Outcome(False, "KeyError: 'payments'")
    assert run_check(lambda: 1 / 0).detail == "ZeroDivisionError: division by zero"


def test_hint_and_solution_on_request():
    task = TaskState("Kill the leader.", check=lambda: False, hint="ask cluster.leader",
                     solution="cluster.kill_broker(cluster.leader('orders', 1))")
    assert task.hint() == "ask cluster.leader"
    assert not task.solution_shown
    assert task.solution() == "cluster.kill_broker(cluster.leader('orders', 1))"
    assert task.solution_shown
    assert TaskState("x", check=lambda: True).hint().startswith("No hint for this one")


def test_check_must_be_callable():
    import pytest
    with pytest.raises(TypeError, match="function of no arguments"):
        TaskState("x", check=True)
