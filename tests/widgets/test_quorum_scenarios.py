"""The lesson's KRaft scenarios (minikafka/testing/quorum_scenarios.py), over several seeds."""

from __future__ import annotations

import re

import pytest

from widgets import QuorumStepper, quorum_scenarios

SEEDS = (1, 2, 3, 7, 11)


def elections(stepper: QuorumStepper) -> list[tuple[int, int]]:
    """(epoch, leader) of every election in the timeline, in order."""
    return [(int(m.group(2)), int(m.group(1))) for line in stepper.history
            if (m := re.search(r"controller (\d+) elected in epoch (\d+)", line))]


@pytest.mark.parametrize("seed", SEEDS)
def test_first_election(seed):
    stepper = QuorumStepper(3, seed=seed)
    facts = quorum_scenarios.first_election(stepper)
    assert facts["settled"] and facts["epoch"] == 1
    assert elections(stepper) == [(1, facts["leader"])]
    state = stepper.state()
    assert [n for n, row in state.items() if row["role"] == "Leader"] == [facts["leader"]]
    assert all(row["role"] == "Follower" for n, row in state.items() if n != facts["leader"])
    assert len(facts["voted_for_leader"]) >= 2                   # a majority of 3, itself included
    assert all(row["high_watermark"] == 1 for row in state.values())   # LeaderChange committed


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("controllers", [3, 4])
def test_split_vote(seed, controllers):
    stepper = QuorumStepper(controllers, seed=seed)
    facts = quorum_scenarios.split_vote(stepper)
    split = facts["split_epoch"]
    assert facts["candidates"] == [1001, 1002] and facts["leaders_in_split_epoch"] == []
    assert all(votes < facts["majority"] for votes in facts["votes"].values())
    if controllers == 4:
        assert facts["votes"] == {1001: 2, 1002: 2}
    else:
        assert facts["votes"] == {1001: 1, 1002: 1}
    assert split not in [epoch for epoch, _ in elections(stepper)]     # nobody won that epoch
    assert facts["leader"] is not None and facts["leader_epoch"] > split
    assert elections(stepper)[-1] == (facts["leader_epoch"], facts["leader"])
    if controllers == 4:                                          # a tie, with nothing lost
        assert not any("(lost)" in line or "lost:" in line for line in stepper.history)
    else:
        assert any(line.endswith("(lost)") and "-> 1003  Vote request: epoch" in line
                   for line in stepper.history)


@pytest.mark.parametrize("seed", SEEDS)
def test_prevote_stops_a_disruptive_candidate(seed):
    stepper = QuorumStepper(3, seed=seed)
    facts = quorum_scenarios.prevote_stops_disruptive_candidate(stepper)
    assert facts["prospective_rounds"] >= 2                       # it kept trying ...
    assert facts["follower_epoch_isolated"] == facts["epoch"]     # ... without raising its epoch
    assert facts["leader_after_heal"] == facts["leader"]
    assert facts["epoch_after_heal"] == facts["epoch"] and facts["settled"]
    assert len(elections(stepper)) == 1
    follower = facts["follower"]
    assert any(f"{follower} -> " in line and "Vote request (pre-vote)" in line and "lost" in line
               for line in stepper.history)
    assert not any(f"{follower}: Prospective -> Candidate" in line for line in stepper.history)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_isolated_old_leader_cannot_commit(seed):
    stepper = QuorumStepper(3, seed=seed)
    facts = quorum_scenarios.isolated_leader_cannot_commit(stepper)
    old, new = facts["old_leader"], facts["new_leader"]
    assert new is not None and new != old and facts["new_epoch"] > facts["old_epoch"]
    assert facts["old_log_end_offset_isolated"] > facts["old_high_watermark_isolated"]
    assert facts["old_high_watermark_isolated"] == facts["old_high_watermark_before"]
    assert facts["old_leader_role_after_heal"] == "Follower" and facts["settled"]
    assert "never committed" not in facts["old_log_after_heal"]
    assert facts["old_log_after_heal"][1] == "committed"
    assert facts["old_log_after_heal"][-1] == "after the failover"
    assert facts["truncated"]
    assert stepper.log(old) == stepper.log(new)                   # the same log again
    assert stepper.state()[old]["epoch"] == stepper.state()[new]["epoch"]
