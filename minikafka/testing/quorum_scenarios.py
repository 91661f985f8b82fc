"""Recipes for the KRaft election stepper: the lesson's four scenarios, a few controls each.

Every recipe takes a fresh `QuorumStepper`, drives it only with its public
controls (so ``stepper.history`` tells the whole story and ``stepper.back()``
walks back through it), and returns the facts a lesson checks, as plain data
computed from the stepper -- never hard-coded.

* `first_election(stepper)`: run until a controller wins, then until every
  controller follows it and the leader's LeaderChange record is committed.
* `split_vote(stepper)`: two controllers time out together and both become
  candidates in the same epoch, and neither gets a majority.  With 3 voters
  that needs a lost vote (the Vote requests to the third controller are
  dropped); with 4 voters the two remaining votes can simply split 2-2 (one
  Vote request overtakes another), which is why 4 voters are no better than 3.
  Then a later epoch elects a leader.
* `prevote_stops_disruptive_candidate(stepper)`: an isolated follower times
  out again and again but, asking only for pre-votes (KIP-996), never raises
  its epoch; after ``heal()`` the leader keeps leading in the same epoch.
* `isolated_leader_cannot_commit(stepper)`: the leader is cut off and given a
  record; its high watermark does not move while the majority elects a new
  leader in a higher epoch; after ``heal()`` the old leader follows the new
  one and truncates its uncommitted record.

`settle(stepper)` runs until every reachable controller follows one leader
and has everything committed (or a time limit passes).
`one_follower_cut_off(stepper)` reaches the state a lesson's cell needs after
the learner's buttons may have changed things: a leader and exactly one
other controller cut off; it keeps the learner's cut when there is one.
"""

from __future__ import annotations

from typing import Any

from minikafka.testing.quorum_stepper import QuorumStepper

SETTLE_LIMIT_MS = 10_000


def settle(stepper: QuorumStepper, limit_ms: int = SETTLE_LIMIT_MS) -> bool:
    """Step until the controllers that can reach the leader follow it with its whole log
    committed; False if that did not happen within ``limit_ms`` of virtual time."""
    deadline = stepper.time_ms + limit_ms
    while stepper.time_ms <= deadline:
        if _settled(stepper):
            return True
        stepper.step()
    return _settled(stepper)


def _settled(stepper: QuorumStepper) -> bool:
    leader = stepper.leader()
    if leader is None:
        return False
    state, isolated = stepper.state(), set(stepper.isolated)
    top = state[leader]
    if leader in isolated or top["high_watermark"] != top["log_end_offset"] \
            or "append linger" in stepper.timers()[leader]:
        return False                              # records still waiting to be written
    return all(row["leader"] == leader and row["epoch"] == top["epoch"]
               and row["high_watermark"] == top["log_end_offset"]
               for node_id, row in state.items() if node_id not in isolated)


def one_follower_cut_off(stepper: QuorumStepper) -> tuple[int, int]:
    """(leader, cut-off controller): a leader a majority follows, and exactly one other
    controller cut off from the rest.  When exactly one controller is cut off already it stays
    so (if it was the leader, the others elect a new one); otherwise the network is healed and
    the highest-numbered follower is cut off, and one printed line says so."""
    if len(stepper.isolated) == 1:
        leader = stepper.run_until_leader()
        if leader is not None and leader != stepper.isolated[0]:
            return leader, stepper.isolated[0]
    stepper.heal()
    leader = stepper.run_until_leader()
    if leader is None:
        raise RuntimeError("no leader was elected with every controller reachable")
    cut_off = max(n for n in stepper.node_ids if n != leader)
    stepper.isolate(cut_off)
    print(f"(The stepper was no longer one follower cut off: healed, leader {leader}, "
          f"controller {cut_off} cut off again.)")
    return leader, cut_off


def first_election(stepper: QuorumStepper) -> dict[str, Any]:
    """A first election without any interference; returns leader, epoch and votes."""
    leader = stepper.run_until_leader()
    settled = settle(stepper)
    state = stepper.state()
    return {"leader": leader, "epoch": state[leader]["epoch"], "settled": settled,
            "voted_for_leader": sorted(n for n, row in state.items()
                                       if row["voted_for"] == leader)}


def _votes_in_flight(stepper: QuorumStepper, epoch: int) -> list[dict[str, Any]]:
    """Binding Vote requests and responses of ``epoch`` still travelling."""
    return [e for e in stepper.queue() if e["kind"] == "message" and e["api"] == "Vote"
            and not e["pre_vote"] and e["epoch"] == epoch]


def _became_candidate(stepper: QuorumStepper, node_id: int, epoch: int) -> bool:
    return any(line.strip().startswith(f"{node_id}: Prospective -> Candidate; epoch {epoch - 1} "
                                       f"-> {epoch}") for line in stepper.history)


def split_vote(stepper: QuorumStepper, limit: int = 2000) -> dict[str, Any]:
    """Two candidates in one epoch, no majority for either; then a later epoch elects."""
    if stepper.controllers < 3:
        raise ValueError("a split vote needs at least 3 controllers")
    first, second, *others = stepper.node_ids
    stepper.timeout(first)
    stepper.timeout(second)
    split_epoch = None
    for _ in range(limit):
        state = stepper.state()
        if split_epoch is None and state[first]["role"] == state[second]["role"] == "Candidate":
            split_epoch = state[first]["epoch"]
        if split_epoch is not None and not _votes_in_flight(stepper, split_epoch):
            break                                  # every vote of the split epoch is counted
        _steer_split(stepper, first, second, others, split_epoch)
    else:
        raise RuntimeError(f"no split vote after {limit} events")
    granted = {n: 1 + sum(1 for line in stepper.history
                          if f"-> {n}  Vote response: granted, epoch {split_epoch}" in line)
               for n in (first, second)}
    leader = stepper.run_until_leader()
    return {"split_epoch": split_epoch, "majority": stepper.controllers // 2 + 1,
            "candidates": [n for n in (first, second)
                           if _became_candidate(stepper, n, split_epoch)],
            "votes": granted,
            "leaders_in_split_epoch": [n for n in stepper.node_ids if any(
                f"controller {n} elected in epoch {split_epoch} " in line
                for line in stepper.history)],
            "leader": leader, "leader_epoch": stepper.state()[leader]["epoch"] if leader else None}


def _steer_split(stepper: QuorumStepper, first: int, second: int, others: list[int],
                 epoch: int | None) -> None:
    """One control of the split: lose or reorder Vote requests so no candidate wins."""
    if epoch is not None:
        votes = [e for e in _votes_in_flight(stepper, epoch) if not e["response"]]
        if len(others) % 2 == 1:                  # odd quorum: the lone tie-breaker loses them
            for entry in votes:
                if entry["dst"] == others[0]:
                    stepper.drop(entry["index"])
                    return
        else:                                     # even: second's request reaches the last first
            for entry in votes:
                if entry["src"] == second and entry["dst"] == others[-1] and any(
                        e["src"] == first and e["dst"] == others[-1] for e in votes):
                    stepper.deliver(entry["index"])
                    return
    stepper.step()


def prevote_stops_disruptive_candidate(stepper: QuorumStepper,
                                       isolated_ms: int = 10_000) -> dict[str, Any]:
    """An isolated follower keeps timing out without raising its epoch; heal changes nothing."""
    first_election(stepper)
    leader = stepper.leader()
    epoch = stepper.state()[leader]["epoch"]
    follower = max(n for n in stepper.node_ids if n != leader)
    stepper.isolate(follower)
    stepper.timeout(follower)
    stepper.run_for(isolated_ms)
    prospective_rounds = sum(1 for line in stepper.history
                             if line.strip().startswith(f"{follower}: Follower -> Prospective"))
    during = stepper.state()[follower]
    stepper.heal()
    settled = settle(stepper)
    after = stepper.state()
    return {"leader": leader, "epoch": epoch, "follower": follower,
            "prospective_rounds": prospective_rounds, "follower_epoch_isolated": during["epoch"],
            "leader_after_heal": stepper.leader(), "epoch_after_heal": after[leader]["epoch"],
            "settled": settled}


def isolated_leader_cannot_commit(stepper: QuorumStepper) -> dict[str, Any]:
    """The old leader's record stays uncommitted and is truncated after heal."""
    first_election(stepper)
    stepper.append("committed")
    settle(stepper)
    old = stepper.leader()
    before = stepper.state()[old]
    stepper.isolate(old)
    stepper.append("never committed", old)
    new = stepper.run_until_leader()
    during = stepper.state()
    stepper.append("after the failover", new)
    settle(stepper)
    stepper.heal()
    settled = settle(stepper)
    after = stepper.state()
    return {"old_leader": old, "old_epoch": before["epoch"],
            "old_high_watermark_before": before["high_watermark"],
            "old_high_watermark_isolated": during[old]["high_watermark"],
            "old_log_end_offset_isolated": during[old]["log_end_offset"],
            "new_leader": new, "new_epoch": during[new]["epoch"] if new else None,
            "old_leader_role_after_heal": after[old]["role"],
            "old_log_after_heal": [e["record"] for e in stepper.log(old)],
            "truncated": any("truncated" in line for line in stepper.history),
            "settled": settled}
