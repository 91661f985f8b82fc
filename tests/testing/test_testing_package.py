"""minikafka.testing: the stepper's model and Raft's invariant checker, driven without widgets."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import minikafka.testing as testing
from minikafka.testing import (QuorumStepper, QuorumStepperError, RaftInvariantChecker, SteppedQuorum,
                               quorum_scenarios)

PACKAGE = Path(testing.__file__).parent


def test_the_package_imports_nothing_from_widgets():
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "widgets" or n.startswith("widgets.") for n in names), path.name


def test_the_headless_stepper_elects_a_leader_and_goes_back_exactly():
    stepper = QuorumStepper(3, seed=7)
    assert not hasattr(stepper, "view")                  # the model has no widget
    leader = stepper.run_until_leader()
    assert leader in stepper.node_ids and stepper.leader() == leader
    state, events = stepper.state(), stepper.events
    stepper.step()
    stepper.back()
    assert stepper.state() == state and stepper.events == events
    assert stepper.check_invariants() == []


def test_the_widget_stepper_is_the_model_with_a_view():
    from widgets import QuorumStepper as WidgetStepper
    from widgets import QuorumStepperError as WidgetError
    assert issubclass(WidgetStepper, QuorumStepper) and WidgetError is QuorumStepperError
    a, b = QuorumStepper(3, seed=11), WidgetStepper(3, seed=11)
    a.run_until_leader(), b.run_until_leader()
    assert a.history == b.history and a.text() == b.text()


@pytest.mark.parametrize("seed", [1, 7, 23])
def test_every_lesson_scenario_keeps_raft_safe(seed):
    for recipe in (quorum_scenarios.first_election, quorum_scenarios.split_vote,
                   quorum_scenarios.prevote_stops_disruptive_candidate,
                   quorum_scenarios.isolated_leader_cannot_commit):
        stepper = QuorumStepper(3, seed=seed)
        recipe(stepper)
        assert stepper.check_invariants() == [], recipe.__name__


def stepper_driver(stepper):
    return stepper._driver          # the test reaches the nodes to tamper with a log


def test_the_checker_finds_a_committed_batch_that_differs():
    stepper = QuorumStepper(3, seed=7)
    quorum_scenarios.first_election(stepper)
    nodes = {n: SteppedQuorum(stepper_driver(stepper), stepper.node_ids).node(n) for n in stepper.node_ids}
    assert RaftInvariantChecker.audit(nodes) == []
    follower = next(n for n in stepper.node_ids if n != stepper.leader())
    log = nodes[follower].log
    first = log.batches[0]
    log._batches[0] = dataclasses.replace(first, records=("tampered",) * len(first.records))
    found = RaftInvariantChecker.audit(nodes)
    assert len(found) == 1 and str(first.base_offset) in found[0]


def test_a_closed_stepper_calls_its_subscribers_once_more_then_forgets_them():
    stepper = QuorumStepper(1, seed=7)
    seen = []
    stepper.subscribe(lambda: seen.append(stepper.closed))
    stepper.step()
    stepper.close()
    stepper.close()
    assert seen == [False, True]
    with pytest.raises(QuorumStepperError):
        stepper.state()
