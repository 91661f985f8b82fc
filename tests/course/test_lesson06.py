"""Lesson 06's harness (minikafka.course.lesson06): the drain plan, the share in words and the
task checks, on a simulated cluster (virtual time, the same engine)."""

from __future__ import annotations

import pytest

from minikafka import Cluster
from minikafka.course.lesson06 import (SHARES, decommissioned, drain_plan, leads_none, led_by_preferred,
                                       replicas_on, replicated_onto, share_in_words)


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=6, simulated=True).start()
    c.create_topic("events", partitions=3, replication_factor=2)
    yield c
    c.stop()


def test_share_in_words_picks_the_nearest_choice():
    assert share_in_words(0.5) == share_in_words(0.48) == "about half"
    assert share_in_words(0.74) == "about three quarters"
    assert share_in_words(0.02) == "about a tenth"
    assert share_in_words(0.97) == "nearly all"
    assert list(SHARES)[2] == "about half"


def test_replicas_on_and_drain_plan(cluster):
    cluster.create_topic("full", partitions=1, replication_factor=3)
    with pytest.raises(ValueError, match="no broker is free to take full-0's replica from broker 1"):
        drain_plan(cluster, 1)
    cluster.delete_topic("full")
    new = cluster.add_broker()
    assert replicas_on(cluster, new) == []
    cluster.reassign_partitions({("events", p): cluster.replicas("events", p) + [new] for p in range(3)})
    cluster.wait_until(lambda: not cluster.list_reassignments(), timeout_ms=30_000)
    assert replicas_on(cluster, new) == [("events", 0), ("events", 1), ("events", 2)]
    plan = drain_plan(cluster, new)
    assert set(plan) == {("events", 0), ("events", 1), ("events", 2)}
    for (topic, p), target in plan.items():
        before = cluster.replicas(topic, p)
        assert new not in target and len(set(target)) == len(target) == len(before)
        assert [b for b in target if b in before] == [b for b in before if b != new]   # the rest keep their places


def test_replicated_onto_reads_the_target_replicas(cluster):
    new = cluster.add_broker()
    outcome = replicated_onto(cluster, "events", new, 3)
    assert not outcome.done and "replica(s), not 3" in outcome.detail
    cluster.reassign_partitions({("events", 0): cluster.replicas("events", 0) + [new],
                                 ("events", 1): cluster.replicas("events", 1) + [new]})
    cluster.wait_until(lambda: not cluster.list_reassignments(), timeout_ms=30_000)
    outcome = replicated_onto(cluster, "events", new, 3)
    assert not outcome.done and outcome.detail.startswith("events-2 has 2")
    spare = next(b for b in cluster.broker_ids if b != new and b not in cluster.replicas("events", 2))
    cluster.reassign_partitions({("events", 2): cluster.replicas("events", 2) + [spare]})
    cluster.wait_until(lambda: not cluster.list_reassignments(), timeout_ms=30_000)
    outcome = replicated_onto(cluster, "events", new, 3)
    assert not outcome.done and outcome.detail == f"broker {new} holds no replica of events-2"


def test_decommissioned_wants_the_broker_drained_and_gone(cluster):
    new = cluster.add_broker()
    cluster.reassign_partitions({("events", 0): cluster.replicas("events", 0)[:1] + [new]})
    cluster.wait_until(lambda: not cluster.list_reassignments(), timeout_ms=30_000)
    assert decommissioned(cluster, new).detail == f"events-0 still list broker {new}"
    cluster.reassign_partitions(drain_plan(cluster, new))
    cluster.wait_until(lambda: not cluster.list_reassignments(), timeout_ms=30_000)
    assert "still part of the cluster" in decommissioned(cluster, new).detail
    cluster.decommission_broker(new)
    assert decommissioned(cluster, new).done


def test_leader_checks(cluster):
    assert led_by_preferred(cluster).done
    led = [p for p in range(3) if cluster.leader("events", p) == 1]
    assert led and not leads_none(cluster, "events", 1).done
    cluster.kill_broker(1)
    cluster.wait_until(lambda: all(cluster.leader("events", p) != 1 for p in range(3)), timeout_ms=30_000)
    cluster.restart_broker(1)
    cluster.wait_until(lambda: all(len(cluster.isr("events", p)) == 2 for p in range(3)), timeout_ms=30_000)
    assert leads_none(cluster, "events", 1).done
    outcome = led_by_preferred(cluster, wait_ms=0)
    assert not outcome.done and "not led by their preferred replica" in outcome.detail
    cluster.elect_leaders("preferred")
    assert led_by_preferred(cluster).done and led_by_preferred(cluster, ["events"]).done
