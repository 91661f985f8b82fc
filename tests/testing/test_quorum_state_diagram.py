"""The epoch-state diagram is drawn from the transition table the raft code consults."""

from __future__ import annotations

import pytest

from minikafka.raft.quorum_state import OBSERVER_TRANSITIONS, TRANSITIONS, QuorumEvent
from minikafka.testing import QuorumStepper, QuorumStepperError, transition_dot, transition_edges


def test_one_edge_per_legal_pair_of_the_table():
    edges = transition_edges()
    assert {(e.source, e.event): e.target for e in edges} == TRANSITIONS
    assert len(edges) == len(TRANSITIONS)
    assert {(e.source, e.event): e.target for e in transition_edges(observer=True)} == \
        OBSERVER_TRANSITIONS


def test_the_dot_text_has_one_arrow_per_pair_of_states_labelled_with_its_events():
    dot = transition_dot()
    assert dot.startswith("digraph kraft_voter {") and dot.endswith("}\n")
    pairs = {(e.source, e.target) for e in transition_edges()}
    assert dot.count(" -> ") == len(pairs)
    assert '"Prospective" -> "Candidate" [label="PRE_VOTE_WON"];' in dot
    assert '"Leader" -> "Resigned" [label="SHUTDOWN\\nRESIGN_REQUESTED\\nCHECK_QUORUM_FAILED"];' \
        in dot
    assert all(event.name in dot for event in QuorumEvent)
    observer = transition_dot(observer=True)
    assert "Candidate" not in observer and "Prospective" not in observer


def test_the_stepper_fills_a_controllers_current_state():
    stepper = QuorumStepper(3, seed=7)
    leader = stepper.run_until_leader()
    assert leader is not None
    assert '"Leader" [label="Leader", style="rounded,filled"' in stepper.state_diagram(leader)
    other = next(n for n in stepper.node_ids if n != leader)
    role = stepper.state()[other]["role"]
    diagram = stepper.state_diagram(other)
    assert f'"{role}" [label="{role}", style="rounded,filled"' in diagram
    assert diagram.count("filled") == 1
    with pytest.raises(QuorumStepperError, match="Unknown controller"):
        stepper.state_diagram(7)
    stepper.close()
