"""Lesson 04's harness (`minikafka.course.lesson04`): what the lesson's reveals and task checks read."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from minikafka import Cluster
from minikafka.course import lesson04
from minikafka.course.task import Outcome
from widgets import QuorumStepper, quorum_scenarios


# --------------------------------------------------------------------- readings

def test_closest_choice_picks_the_nearest_label_and_otherwise_when_nothing_was_measured():
    choices = {"0 ms": 0, "about 400 ms": 400, "about 1800 ms": 1800}
    assert lesson04.closest_choice(0, choices) == "0 ms"
    assert lesson04.closest_choice(1760, choices) == "about 1800 ms"
    assert lesson04.closest_choice(350, choices) == "about 400 ms"
    assert lesson04.closest_choice(None, choices, otherwise="never") == "never"


@dataclass
class Event:
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def test_the_first_registration_answer_is_the_first_refusal_or_acceptance_of_that_broker():
    refused_then_registered = [
        Event("broker_registration_refused", {"broker": 1, "error": "STALE_BROKER_EPOCH"}),
        Event("node_restarted", {}),
        Event("broker_registration_refused", {"broker": 2, "error": "DUPLICATE_BROKER_REGISTRATION"}),
        Event("broker_registered", {"broker": 2, "epoch": 80})]
    assert lesson04.first_registration_answer(refused_then_registered, 2) == \
        "DUPLICATE_BROKER_REGISTRATION"
    assert lesson04.first_registration_answer([Event("broker_registered", {"broker": 2})], 2) == \
        lesson04.ACCEPTED
    assert lesson04.first_registration_answer([Event("node_restarted", {})], 2) is None
    assert lesson04.ACCEPTED in lesson04.REGISTRATION_ANSWERS


# --------------------------------------------------------------------- section 2 and 3 on clusters

@pytest.fixture
def sim():
    cluster = Cluster(brokers=3, controllers=3, seed=4, simulated=True).start()
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    yield cluster
    cluster.stop()


def test_a_clean_stop_leaves_the_partition_led_and_a_crash_does_not(sim, capsys):
    session_ms = sim.timing["broker.session.timeout.ms"]
    first_leader = sim.leader("orders", 0)
    assert lesson04.leaderless_ms(sim, sim.shutdown) == 0
    assert f"broker {first_leader} stopped (clean shutdown)" in capsys.readouterr().out
    crashed = sim.leader("orders", 0)
    crash_ms = lesson04.leaderless_ms(sim, sim.kill)
    assert session_ms // 2 < crash_ms <= session_ms
    assert f"broker {crashed} killed" in capsys.readouterr().out
    assert all(crashed in sim.isr("orders", p) for p in range(3))      # restarted and caught up


def test_the_kill_check_wants_the_controller_that_was_active(sim):
    active = sim.active_controller
    assert lesson04.controller_killed(sim, active) == \
        Outcome(False, "every controller is still running")
    follower = next(c for c in sim.controller_ids if c != active)
    sim.kill(follower)
    outcome = lesson04.controller_killed(sim, active)
    assert not outcome.done and f"controller {follower} is dead" in outcome.detail
    sim.restart(follower)
    sim.kill(active)
    assert lesson04.controller_killed(sim, active).done


class FakeFuture:
    def add_callback(self, callback):
        callback("metadata")


class FakeProducer:
    def __init__(self):
        self.sent, self.flushed = [], False

    def send(self, topic, key, value):
        self.sent.append((topic, key, value))
        return FakeFuture()

    def flush(self):
        self.flushed = True


class FakeDriver:
    def __init__(self):
        self.clock = 1000

    def now(self):
        self.clock += 10
        return self.clock


@dataclass
class FakeCluster:
    driver: FakeDriver = field(default_factory=FakeDriver)


def test_the_background_producer_notes_the_cluster_time_of_each_acknowledgement():
    producer = FakeProducer()
    writer = lesson04.BackgroundProducer(FakeCluster(), producer, "orders", interval_s=0.001)
    assert writer.start() is writer and writer.acknowledged        # returns once one is back
    with pytest.raises(RuntimeError):
        writer.start()
    deadline = time.monotonic() + 5
    while len(writer.acknowledged) < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    writer.stop()
    assert producer.flushed and producer.sent[0] == ("orders", b"0", b"order")
    assert len(writer.acknowledged) == writer.sent == len(producer.sent)
    assert writer.acknowledged == sorted(writer.acknowledged)
    assert writer.acknowledged_between(writer.acknowledged[0], writer.acknowledged[1]) == 2
    assert writer.acknowledged_between(0, 999) == 0


def test_the_background_producer_stops_by_itself_after_its_limit():
    writer = lesson04.BackgroundProducer(FakeCluster(), FakeProducer(), "orders", interval_s=0.001,
                                         limit_s=0.05).start()
    writer._thread.join(timeout=5)
    assert not writer._thread.is_alive()
    writer.stop()


# --------------------------------------------------------------------- section 7 on the stepper

def test_the_stepper_checks_follow_an_election_and_an_isolation():
    stepper = QuorumStepper(controllers=3, seed=7)
    try:
        assert not lesson04.has_leader(stepper).done
        assert lesson04.stepper_leader_is(stepper, 1002).detail == "no controller leads yet"
        leader = stepper.run_until_leader()
        assert lesson04.has_leader(stepper) == Outcome(True, f"controller {leader} leads epoch 1")
        assert not lesson04.stepper_leader_is(stepper, next(n for n in stepper.node_ids if n != leader)).done
        quorum_scenarios.settle(stepper)
        assert not lesson04.one_follower_isolated(stepper).done
        stepper.isolate(leader)
        assert "it is the leader" in lesson04.one_follower_isolated(stepper).detail
        stepper.heal()
        followers = [n for n in stepper.node_ids if n != leader]
        stepper.isolate(followers[0])
        assert lesson04.one_follower_isolated(stepper).done
        stepper.isolate(followers[1])
        assert "heal()" in lesson04.one_follower_isolated(stepper).detail
    finally:
        stepper.close()


def test_a_timed_out_controller_wins_the_first_election_as_the_exercise_solution_says():
    stepper = QuorumStepper(controllers=3, seed=7)
    try:
        stepper.timeout(1002)
        stepper.run_until_leader()
        assert lesson04.stepper_leader_is(stepper, 1002).done
    finally:
        stepper.close()


def test_record_committed_sees_the_isolated_leaders_record_never_committed():
    stepper = QuorumStepper(controllers=3, seed=7)
    try:
        facts = quorum_scenarios.isolated_leader_cannot_commit(stepper)
        written_at = facts["old_log_end_offset_isolated"] - 1
        assert not lesson04.record_committed(stepper, written_at, facts["old_epoch"])
        assert lesson04.record_committed(stepper, written_at - 1, facts["old_epoch"])   # "committed"
        assert lesson04.record_committed(stepper, written_at, facts["new_epoch"])       # its replacement
    finally:
        stepper.close()
