"""`Scenario`: what a drill does to its cluster, and the helpers scenarios share.

Theory of operation
-------------------
A scenario is the story of one drill, written against the `Cluster`
facade like a lesson: ``cluster_options`` (how many brokers and
controllers), ``setup`` (the scene: topics, records), ``scene`` (the scene
as the learner reads it), ``questions``, ``run`` (the fault; it fills
``expected`` with what the run itself produced, for every question) and
``explain``.  A fix drill adds ``task`` and ``checks`` (health checks
computed from the cluster when graded).  Variation comes from ``rng``,
seeded by the drill id and the seed: the same seed picks the same victim
and the same numbers, another seed picks others.

Helpers:

* `unannounced`: a diagnose drill's fault is not announced.  The sandbox
  normally notes its own faults in the event log ("broker 2 killed"); real
  Kafka has no such line, and a learner who must find the fault should see
  only what the nodes themselves report (fencing, ISR shrinks, elections).
  Inside ``with unannounced(cluster):`` the driver's notes of fault kinds
  are dropped; the drill's brief says so.
* `wait_for`: wait for a condition the story needs, or fail the drill in
  one line (the engine then stops the cluster and removes its files).
* `settle`: let a repair settle, checking an expensive condition every 250 ms of
  cluster time instead of after every event.
* `band`: the label of the range a measured number falls in.

Not a Kafka concept: the teaching layer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, ContextManager

from minikafka.drills.question import Question, shown

# The driver's own notes of the faults it injects (not written by any Kafka node).
SANDBOX_FAULT_KINDS = frozenset({
    "node_killed", "node_stopped", "node_restarted", "node_paused", "node_resumed", "node_lost_power",
    "network_isolated", "network_link_cut", "network_healed", "latency_changed"})

UNANNOUNCED_NOTE = ("The sandbox does not announce this fault in the event log: as on a real "
                    "cluster, you see only what the brokers and controllers report.")


@dataclass(frozen=True, slots=True)
class Check:
    """One health check of a fix drill, as measured now.

    A *guard* checks that a repair kept something (records, committed offsets, the replication
    factor) that already holds when the fault has struck: left alone, the cluster passes it.
    A guard's points are earned only together with a repair: when at least one check that is
    not a guard passes too.  A fix drill left unrepaired scores 0."""

    id: str
    text: str              # what must hold, in Kafka's terms
    given: Any             # what the cluster shows
    expected: Any          # what it should show
    passed: bool
    points: int = 2
    guard: bool = False    # holds before any repair; counts only along with a repair

    def line(self) -> str:
        kept = " (kept; it counts only along with a repair)" if self.guard and self.passed else ""
        return f"[{'ok' if self.passed else 'not yet'}] {self.id}: {self.text} " \
               f"(now {shown(self.given)}){kept}"


class Scenario:
    def __init__(self, info, seed: int | str, rng: random.Random):
        self.info = info
        self.seed = seed
        self.rng = rng
        self.facts: dict[str, Any] = {}       # what setup and run found (for texts)
        self.expected: dict[str, Any] = {}    # question id -> the run's answer

    def cluster_options(self) -> dict[str, Any]:
        return {"brokers": 3, "controllers": 1}

    def setup(self, cluster) -> None:
        raise NotImplementedError

    def scene(self) -> str:
        raise NotImplementedError

    def questions(self) -> list[Question]:
        return []

    def run(self, cluster) -> list[str]:
        raise NotImplementedError

    def hints(self) -> list[str]:
        return []

    def explain(self) -> str:
        raise NotImplementedError

    def task(self) -> str:
        return ""

    def checks(self, cluster) -> list[Check]:
        return []


def unannounced(cluster) -> ContextManager[None]:
    """Within the block, the driver's notes of its own faults stay out of the event log."""
    return cluster.driver.muted(SANDBOX_FAULT_KINDS)


def wait_for(cluster, condition: Callable[[], bool], timeout_ms: int, what: str) -> None:
    """Wait (run virtual time) until ``condition``; fail the drill if it never holds."""
    if not cluster.wait_until(condition, timeout_ms):
        raise RuntimeError(f"the cluster did not reach this state within {timeout_ms} ms: {what}")


def settle(cluster, condition: Callable[[], bool], timeout_ms: int, step_ms: int = 250) -> bool:
    """Let cluster time pass in steps of ``step_ms`` until ``condition`` holds (checked between
    steps, not after every event: for conditions that read snapshots or metrics)."""
    waited = 0
    while not condition():
        if waited >= timeout_ms:
            return False
        cluster.run_for(step_ms)
        waited += step_ms
    return True


def band(value: float, bands: list[tuple[float, str]]) -> str:
    """The label of the first band whose upper bound exceeds ``value`` (the last otherwise)."""
    for upper, label in bands:
        if value < upper:
            return label
    return bands[-1][1]


def events_text(cluster, since_seq: int, kinds: set[str], start_ms: int | None = None,
                keep: Callable[[Any], bool] = lambda event: True) -> list[str]:
    """Event lines of ``kinds`` after ``since_seq``, with "+N ms" from ``start_ms`` if given."""
    lines = []
    for event in cluster.events.since(since_seq, kinds):
        if keep(event):
            prefix = "" if start_ms is None else f"+{event.time_ms - start_ms:>5} ms  "
            lines.append(prefix + event.text)
    return lines


def expect_ok(outcome) -> Any:
    """A produce the story relies on must succeed; otherwise the drill fails (and cleans up)."""
    if not outcome.ok:
        raise RuntimeError(f"a produce the scenario needs was answered {outcome.error}")
    return outcome


def now(cluster) -> int:
    return cluster.now_ms


def leader_alone_then_dead(cluster, client, topic: str, leader: int, followers: list[int],
                           writes: int, label: str) -> None:
    """The story of an unclean election: the followers of ``topic``-0 die, the leader alone
    acknowledges ``writes`` records with acks=1 (``"<label> <i>"``), the leader dies, and the
    followers come back out of sync."""
    for follower in followers:
        cluster.kill(follower)
    wait_for(cluster, lambda: cluster.isr(topic, 0) == [leader], 15_000, "the ISR shrinks to the leader")
    for i in range(writes):
        expect_ok(client.produce(topic, 0, [f"{label} {i}".encode()], acks=1))
    cluster.kill(leader)
    for follower in followers:
        cluster.restart(follower)
    if not settle(cluster, lambda: all(cluster.snapshot().node(b).state == "alive" for b in followers),
                  20_000):
        raise RuntimeError("the restarted followers did not come back")
