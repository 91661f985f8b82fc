"""QuorumStepper (minikafka/testing/quorum_stepper.py): determinism, exact back(), controls, bad input."""

from __future__ import annotations

import json

import pytest

import minikafka.testing.quorum_stepper as quorum_stepper
from widgets import QuorumStepper, QuorumStepperError
from minikafka.testing import History
from minikafka.testing.quorum_stepper_text import seconds


def snapshot(stepper: QuorumStepper):
    return stepper.state(), tuple(stepper.history), stepper.queue(), stepper.timers()


def elected(stepper: QuorumStepper) -> QuorumStepper:
    assert stepper.run_until_leader() is not None
    stepper.run_for(1000)
    return stepper


def test_a_new_quorum_is_three_unattached_controllers_with_kafkas_timeouts():
    stepper = QuorumStepper()
    assert stepper.node_ids == (1001, 1002, 1003)
    assert stepper.state() == {n: {"role": "Unattached", "epoch": 0, "voted_for": None,
                                   "leader": None, "log_end_offset": 0, "high_watermark": 0}
                               for n in (1001, 1002, 1003)}
    json.dumps(stepper.state())                                  # plain data
    timers = stepper.timers()
    assert all(1000 <= t["election timeout"] < 2000 for t in timers.values())
    assert "controller.quorum.election.timeout.ms=1000 + random" in stepper.history[0]
    assert stepper.events == 0 and stepper.time_ms == 0


@pytest.mark.parametrize("controllers", [1, 2, 4, 5])
def test_one_to_five_controllers(controllers):
    stepper = QuorumStepper(controllers, seed=2)
    assert stepper.node_ids == tuple(range(1001, 1001 + controllers))
    if controllers == 1:
        assert stepper.leader() == 1001                         # a lone voter elects itself
    else:
        assert stepper.run_until_leader() in stepper.node_ids


def test_same_seed_same_history_other_seed_other_history():
    runs = []
    for seed in (7, 7, 8):
        stepper = QuorumStepper(3, seed=seed)
        stepper.timeout(1002)
        stepper.step(40)
        stepper.drop_next()
        stepper.run_until_leader()
        runs.append(snapshot(stepper))
    assert runs[0] == runs[1]
    assert runs[0][1] != runs[2][1]


def test_step_k_then_back_k_returns_exactly_the_earlier_state():
    stepper = elected(QuorumStepper(3, seed=7))
    for k in (1, 7, 60):
        before = snapshot(stepper)
        events = stepper.events
        stepper.step(k)
        assert stepper.events == events + k
        stepper.back(k)
        assert snapshot(stepper) == before
        for _ in range(k):                                       # one at a time too
            stepper.step()
        for _ in range(k):
            stepper.back()
        assert snapshot(stepper) == before


def test_back_undoes_any_control_not_only_steps():
    stepper = elected(QuorumStepper(3, seed=4))
    leader = stepper.leader()
    follower = min(n for n in stepper.node_ids if n != leader)
    before = snapshot(stepper)
    stepper.isolate(follower)
    stepper.timeout(follower)
    stepper.append("a")
    stepper.drop_next()
    stepper.heal()
    stepper.back(5)
    assert snapshot(stepper) == before


def test_first_election_shows_pre_votes_votes_and_begin_quorum_epoch():
    stepper = QuorumStepper(3, seed=7)
    stepper.timeout(1002)
    leader = stepper.run_until_leader()
    assert leader == 1002
    text = str(stepper.history)
    assert "timeout(1002): the election timeout of controller 1002 runs out now" in text
    assert "1002: Unattached -> Prospective" in text
    assert "1002 -> 1001  Vote request (pre-vote): epoch 0" in text
    assert "Vote response (pre-vote): granted, epoch 0" in text
    assert "1002: Prospective -> Candidate; epoch 0 -> 1; voted for - -> 1002" in text
    assert "1002 -> 1003  Vote request: epoch 1" in text
    assert "controller 1002 elected in epoch 1 with votes from" in text
    stepper.run_for(100)
    assert "1002 -> 1001  BeginQuorumEpoch request: leader 1002, epoch 1" in str(stepper.history)
    assert {row["leader"] for row in stepper.state().values()} == {1002}


def test_append_is_committed_once_a_majority_has_it():
    stepper = elected(QuorumStepper(3, seed=5))
    leader = stepper.leader()
    end = stepper.state()[leader]["log_end_offset"]
    assert stepper.append("x") == end
    stepper.run_for(600)
    entries = stepper.log(leader)
    assert entries[-1] == {"offset": end, "epoch": stepper.state()[leader]["epoch"],
                           "record": "x", "committed": True}
    assert all(row["high_watermark"] == end + 1 for row in stepper.state().values())
    assert entries[0]["record"].startswith("LeaderChange(leader ")


def test_queue_entries_are_plain_data_in_kafkas_terms():
    stepper = QuorumStepper(3, seed=7)
    stepper.timeout(1001)
    queue = stepper.queue()
    assert [e["index"] for e in queue] == list(range(len(queue)))
    assert [e["at_ms"] for e in queue] == sorted(e["at_ms"] for e in queue)
    pre_votes = [e for e in queue if e["kind"] == "message" and e["pre_vote"]]
    assert sorted(e["dst"] for e in pre_votes) == [1002, 1003]
    assert all(e["api"] == "Vote" and not e["response"] and e["epoch"] == 0 and e["src"] == 1001
               for e in pre_votes)
    timers = [e for e in queue if e["kind"] == "timer"]
    assert {e["node"] for e in timers} == {1001, 1002, 1003}
    assert any(e["timer"] == "election timeout" for e in timers)
    json.dumps(queue)


def test_deliver_reorders_and_keeps_one_connections_order():
    stepper = QuorumStepper(4, seed=7)
    stepper.timeout(1001)
    queue = stepper.queue()
    last = max(e["index"] for e in queue if e["kind"] == "message")
    message = queue[last]
    stepper.deliver(last)
    headline = [line for line in stepper.history if line.startswith("t=")][-1]
    assert headline == f"t=0.000s  deliver({last}): {message['text']} (arrives ahead of its turn)"
    assert message["text"] not in [e["text"] for e in stepper.queue()]

    stepper = QuorumStepper(4, seed=7)
    stepper.timeout(1001)            # its start-up Fetch and now a pre-vote share a connection
    pairs: dict = {}
    for entry in stepper.queue():
        if entry["kind"] == "message":
            pairs.setdefault((entry["src"], entry["dst"]), []).append(entry["index"])
    second = [ixs[1] for ixs in pairs.values() if len(ixs) > 1]
    assert second
    with pytest.raises(QuorumStepperError, match="arrive in the order they were sent: "
                                                 "1001 -> 100[234]  Fetch request"):
        stepper.deliver(second[0])


def test_text_form_is_stable_and_complete():
    first, second = QuorumStepper(3, seed=7), QuorumStepper(3, seed=7)
    for stepper in (first, second):
        stepper.timeout(1003)
        stepper.step(5)
    assert str(first) == first.text() == second.text()
    lines = first.text().splitlines()
    assert lines[0] == f"KRaft quorum, 3 controllers (seed 7), {seconds(first.time_ms)}, 6 events"
    assert lines[1].split() == ["controller", "role", "epoch", "voted", "for", "leader", "log",
                                "end", "offset", "high", "watermark", "timer"]
    assert lines[2].startswith("1001") and lines[4].startswith("1003")
    assert any(line.startswith("next (") for line in lines)
    assert lines[-1] == "  " + first.history[-1]
    assert "QuorumStepper(controllers=3, seed=7, events=6" in repr(first)


def test_history_is_text_and_slices_stay_history():
    stepper = QuorumStepper(3, seed=7)
    stepper.step(3)
    history = stepper.history
    assert isinstance(history, History) and isinstance(history[-2:], History)
    assert str(history) == "\n".join(history) == repr(history)
    assert history[1].startswith("t=0.001s  ")


def test_history_without_hides_only_entries_that_changed_nothing():
    history = History(["t=1  a Fetch request", "t=2  a Fetch response", "           1001: epoch 0 -> 1",
                       "t=3  a Vote request", "t=4  retry backoff"])
    assert list(history.without("Fetch", "retry backoff")) == [
        "t=2  a Fetch response", "           1001: epoch 0 -> 1", "t=3  a Vote request"]
    assert isinstance(history.without("Fetch"), History)
    assert history.without() == history


def test_history_starting_at_skips_to_the_first_matching_control():
    stepper = QuorumStepper(3, seed=7)
    stepper.run_until_leader()
    stepper.isolate(1001)
    stepper.step(2)
    excerpt = stepper.history.starting_at("isolate(")
    assert excerpt[0].startswith("t=") and "isolate(1001)" in excerpt[0]
    assert excerpt == stepper.history[len(stepper.history) - len(excerpt):]
    assert stepper.history.starting_at("no such control") == History()


def test_history_until_stops_after_the_first_entry_that_mentions_it():
    history = History(["t=1  a", "t=2  b", "           1001: Leader -> Resigned", "t=3  c"])
    assert list(history.until("Resigned")) == list(history[:3])
    assert list(history.starting_at("Resigned").until("c")) == list(history[1:])
    assert history.until("nothing like it") == history


# ---------------------------------------------------------------------------- bad input
def _leader_and_follower(stepper):
    leader = stepper.leader()
    return leader, min(n for n in stepper.node_ids if n != leader)


BAD_CALLS = {
    "unknown controller": (lambda s: s.timeout(1004), "Unknown controller 1004: the voters are "
                                                      "1001, 1002, 1003"),
    "id as text": (lambda s: s.isolate("1001"), "named by its node id"),
    "id as bool": (lambda s: s.timeout(True), "named by its node id"),
    "queue index out of range": (lambda s: s.deliver(999), "There is no entry 999 in the queue"),
    "queue index as text": (lambda s: s.drop("0"), "There is no entry '0' in the queue"),
    "timer is not a message": (lambda s: s.deliver(next(e["index"] for e in s.queue()
                                                        if e["kind"] == "timer")),
                               "is a timer, not a message"),
    "zero steps": (lambda s: s.step(0), "at least 1"),
    "back zero": (lambda s: s.back(0), "at least 1"),
    "run_for nonsense": (lambda s: s.run_for(-5), "milliseconds of virtual time"),
    "record of a wrong type": (lambda s: s.append(3.5), "a string or a whole number"),
    "append at a follower": (lambda s: s.append("x", _leader_and_follower(s)[1]),
                             "is not a leader: Append failed because the replica is not the "
                             "current leader"),
    "timeout of the leader": (lambda s: s.timeout(s.leader()), "a leader has no election or "
                                                               "fetch timer"),
    "log of a stranger": (lambda s: s.log(7), "Unknown controller 7"),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_input_gets_one_clear_line_and_changes_nothing(name):
    call, message = BAD_CALLS[name]
    stepper = elected(QuorumStepper(3, seed=7))
    before = snapshot(stepper)
    with pytest.raises(QuorumStepperError, match=message.replace("(", r"\(").replace(")", r"\)")) \
            as caught:
        call(stepper)
    assert snapshot(stepper) == before
    rendered = caught.value._render_traceback_()
    assert len(rendered) == 1 and "\n" not in rendered[0]
    assert rendered[0].startswith("QuorumStepperError: ")


def test_append_without_a_leader_is_refused():
    stepper = QuorumStepper(3, seed=7)
    with pytest.raises(QuorumStepperError, match="No controller is the leader: Append failed"):
        stepper.append("x")


def test_isolate_and_heal_reach_a_state_and_say_what_they_did():
    stepper = elected(QuorumStepper(3, seed=7))
    assert stepper.heal() == "The network is not partitioned: nothing to heal"
    said = stepper.isolate(1001)
    assert said == "isolate(1001): controller 1001 is cut off from 1002, 1003"
    assert repr(said) == str(said)                               # displays as its line
    before = snapshot(stepper)
    assert stepper.isolate(1001) == "Controller 1001 is already isolated: nothing changed"
    assert snapshot(stepper) == before and stepper.isolated == (1001,)
    assert stepper.heal() == "heal(): every controller can reach every other again"
    assert stepper.isolated == ()


def test_run_until_leader_returns_a_leader_already_there_without_stepping():
    stepper = elected(QuorumStepper(3, seed=7))
    leader, events = stepper.leader(), stepper.events
    assert stepper.run_until_leader() == leader and stepper.events == events
    stepper.isolate(leader)                                      # a leader cut off is no leader
    new = stepper.run_until_leader()
    assert new not in (None, leader) and stepper.events > events
    assert stepper.state()[new]["epoch"] > stepper.state()[leader]["epoch"]
    stepper.isolate(next(n for n in stepper.node_ids if n not in (leader, new)))
    assert stepper.settled_leader() is None                      # 1 of 3 reachable: no majority


@pytest.mark.parametrize("controllers, seed", [(0, 7), (6, 7), ("3", 7), (True, 7), (3, "7"),
                                               (3, 1.5)])
def test_bad_construction(controllers, seed):
    with pytest.raises(QuorumStepperError, match="must be a whole number"):
        QuorumStepper(controllers, seed=seed)


def test_back_at_the_start_is_refused():
    with pytest.raises(QuorumStepperError, match="Nothing to go back to"):
        QuorumStepper().back()


def test_a_finished_stepper_refuses_more_events(monkeypatch):
    monkeypatch.setattr(quorum_stepper, "MAX_EVENTS", 5)
    stepper = QuorumStepper(3, seed=7)
    stepper.step(10)
    assert stepper.events == 5
    before = snapshot(stepper)
    with pytest.raises(QuorumStepperError, match="is finished: it holds 5 events"):
        stepper.step()
    with pytest.raises(QuorumStepperError, match="is finished"):
        stepper.timeout(1001)
    assert snapshot(stepper) == before
    stepper.back()                                               # going back is still allowed
    assert stepper.events == 4


def test_close_releases_everything_and_later_calls_say_so():
    stepper = QuorumStepper(3, seed=7)
    view = stepper.view()
    stepper.close()
    stepper.close()                                              # twice is fine
    assert stepper.closed and repr(stepper) == "QuorumStepper(closed)"
    assert str(stepper) == "QuorumStepper (closed)"
    # the view froze: it keeps its last picture, with a caption, and nothing can be pressed
    assert view.picture.comm is not None and "KRaft quorum" in view.picture.value
    assert view.still.frozen and "stepper was closed" in view.status.value
    assert all(button.disabled for button in view.buttons.values())
    for call in (lambda: stepper.step(), lambda: stepper.back(), lambda: stepper.state(),
                 lambda: stepper.history, lambda: stepper.timeout(1001), lambda: stepper.view()):
        with pytest.raises(QuorumStepperError, match="This QuorumStepper is closed"):
            call()


def test_leader_and_follower_timers_use_kafkas_defaults():
    stepper = QuorumStepper(3, seed=7)
    leader = stepper.run_until_leader()
    elected_at = stepper.time_ms
    timers = stepper.timers()[leader]
    assert timers["check quorum"] == elected_at + 3000           # 1.5 x fetch.timeout.ms
    assert timers["BeginQuorumEpoch resend"] == elected_at + 1000   # fetch.timeout.ms / 2
    while not any(e["kind"] == "timer" and e["timer"] == "Fetch long-poll wait"
                  for e in stepper.queue()):
        stepper.step()
    parked_at = stepper.time_ms                                  # a caught-up Fetch waits ...
    assert stepper.timers()[leader]["Fetch long-poll wait"] == parked_at + 500   # ... 500 ms
    follower = next(n for n, row in stepper.state().items() if row["role"] == "Follower")
    fetched = max(int(line[2:line.index("s")].replace(".", "")) for line in stepper.history
                  if line.startswith("t=") and f"-> {follower}  Fetch response" in line)
    assert stepper.timers()[follower] == {"fetch timeout": fetched + 2000}   # fetch.timeout.ms
