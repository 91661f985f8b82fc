"""QuorumStepper.next_event (minikafka/testing/quorum_stepper.py, table in quorum_stepper_next.py)."""

from __future__ import annotations

import pytest

import minikafka.raft.messages as messages
import minikafka.testing.quorum_stepper as quorum_stepper
from widgets import QuorumStepper, QuorumStepperError
from minikafka.testing.quorum_stepper_next import (ALWAYS, IF_CHANGED, MATTERS, NEXT_EVENT_LIMIT_MS,
                                         NextEvent, rule)

SEEDS = (1, 2, 7, 11, 23)


def entry_after(stepper: QuorumStepper, lines_before: int) -> list[tuple[str, ...]]:
    """The timeline entries (a step's line and its indented effects) added since then."""
    entries: list[list[str]] = []
    for line in stepper.history[lines_before:]:
        if line.startswith(" ") and entries:
            entries[-1].append(line.strip())
        else:
            entries.append([line])
    return [tuple(entry) for entry in entries]


def changed(entry: tuple[str, ...]) -> bool:
    return any(not effect.startswith("lost:") for effect in entry[1:])


def always(entry: tuple[str, ...]) -> bool:
    head = entry[0]
    return any(f"timer: {name}" in head for kind, name, when in MATTERS
               if kind == "timer" and when == ALWAYS) or \
        any(f"  {name} " in head for kind, name, when in MATTERS
            if kind == "message" and when == ALWAYS)


@pytest.mark.parametrize("seed", SEEDS)
def test_from_the_start_one_call_reaches_the_first_election_timeout(seed):
    stepper = QuorumStepper(3, seed=seed)
    first = min(stepper.timers().items(), key=lambda item: item[1]["election timeout"])[0]
    landed = stepper.next_event()
    assert isinstance(landed, NextEvent) and landed.found
    assert f"{first} timer: election timeout" in landed
    assert stepper.state()[first]["role"] == "Prospective"
    assert landed.skipped > 100 and landed.steps == landed.skipped + 1 == stepper.events
    assert f"(after {landed.skipped} routine steps)" in landed
    assert "Vote request (pre-vote)" in stepper.next_event()       # and the next: a pre-vote


@pytest.mark.parametrize("seed", SEEDS)
def test_every_call_lands_on_an_event_that_matters_and_skips_only_routine(seed):
    stepper = QuorumStepper(3, seed=seed)
    found = 0
    while True:
        lines = len(stepper.history)
        landed = stepper.next_event()
        entries = entry_after(stepper, lines)
        skipped = entries[:-1] if landed.found else entries
        assert len(skipped) == landed.skipped
        for entry in skipped:
            assert not changed(entry) and not always(entry), entry
            assert "Vote" not in entry[0] and "election timeout" not in entry[0]
        if not landed.found:                                         # settled: the bound
            break
        assert changed(entries[-1]) or always(entries[-1]), entries[-1]
        assert str(landed).startswith(entries[-1][0])
        found += 1
    assert found >= 12                                               # a whole first election
    assert stepper.settled_leader() is not None
    assert all(row["high_watermark"] == row["log_end_offset"] >= 1
               for row in stepper.state().values())


def test_it_stops_at_its_bound_on_a_quiet_quorum_and_says_so():
    stepper = QuorumStepper(3, seed=7)
    stepper.run_until_leader()
    while stepper.next_event().found:                                # settle: commits, followers
        pass
    start = stepper.time_ms
    landed = stepper.next_event()
    assert not landed.found and landed.skipped > 0
    assert landed.startswith(f"Nothing that matters within {NEXT_EVENT_LIMIT_MS // 1000} s of "
                             f"virtual time: stepped {landed.skipped} routine steps")
    assert stepper.time_ms - start <= NEXT_EVENT_LIMIT_MS


def test_it_stops_at_its_step_bound(monkeypatch):
    monkeypatch.setattr(quorum_stepper, "NEXT_EVENT_MAX_STEPS", 50)
    stepper = QuorumStepper(3, seed=7)
    landed = stepper.next_event()
    assert not landed.found and landed.skipped == 50 == stepper.events
    assert "Nothing that matters within 50 steps" in landed
    assert stepper.state()[1003]["role"] == "Unattached"
    monkeypatch.setattr(quorum_stepper, "MAX_EVENTS", 60)           # a full stepper stops too
    landed = stepper.next_event()
    assert not landed.found and stepper.events == 60 and "is finished" in landed
    with pytest.raises(QuorumStepperError, match="is finished"):
        stepper.next_event()


def test_after_a_fault_it_lands_on_the_consequence():
    stepper = QuorumStepper(3, seed=7)
    leader = stepper.run_until_leader()
    stepper.run_for(1000)
    stepper.isolate(leader)
    landed = stepper.next_event()
    assert landed.found and "timer: fetch timeout" in landed and "Follower -> Prospective" in landed


def test_back_after_next_event_undoes_the_event_it_landed_on():
    stepper = QuorumStepper(3, seed=7)
    landed = stepper.next_event()
    before = (stepper.state(), stepper.queue(), tuple(stepper.history))
    stepper.back()
    assert stepper.events == landed.steps - 1
    assert stepper.state()[1003]["role"] == "Unattached"
    assert stepper.queue()[0]["text"] == "1003 timer: election timeout"
    again = stepper.next_event()                                     # the same event again
    assert again.found and again.steps == 1 and str(again) == str(landed).split(" (after")[0]
    assert (stepper.state(), stepper.queue(), tuple(stepper.history)) == before


def test_the_table_names_real_timers_and_apis_and_decides_in_order():
    from minikafka.raft import raft_node
    timers = {value for name, value in vars(raft_node).items() if name.isupper()
              and isinstance(value, str)}
    for kind, name, when in MATTERS:
        assert when in (ALWAYS, IF_CHANGED)
        if kind == "timer" and name != "*":
            assert name in timers
        if kind == "message":
            assert hasattr(messages, f"{name}Request") and hasattr(messages, f"{name}Response")
    assert rule("timer", "election timeout") == ALWAYS
    assert rule("message", "Vote") == ALWAYS
    assert rule("message", "Fetch") == IF_CHANGED
    assert rule("timer", "request timeout of Fetch") == IF_CHANGED
    assert rule("callback", "refused") == IF_CHANGED


def test_next_event_on_a_closed_stepper_is_refused():
    stepper = QuorumStepper(3, seed=7)
    stepper.close()
    with pytest.raises(QuorumStepperError, match="closed"):
        stepper.next_event()
