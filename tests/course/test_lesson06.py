"""Lesson 06's harness (minikafka.course.lesson06): the drain plan, the share in words and the
task checks and the throttle experiment, on simulated clusters (virtual time, the same engine)."""

from __future__ import annotations

import pytest

from minikafka import Cluster
from minikafka.course.lesson06 import (SHARES, MoveRun, decommissioned, drain_plan, leads_none, led_by_preferred,
                                       move_table, per_second, replicas_on, replicated_onto, share_in_words,
                                       simulated_move)


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


def test_simulated_move_is_deterministic_and_the_throttle_sets_its_pace():
    free = simulated_move(None, megabytes=3, watch_ms=4_000)
    assert simulated_move(None, megabytes=3, watch_ms=4_000) == free
    throttled = simulated_move(1_000_000, megabytes=3, watch_ms=4_000)
    for run in (free, throttled):
        assert run.copied[-1] == run.size > 3_000_000          # the whole log, copied once
        assert run.acked == run.sent == 40                       # the traffic went on
        assert run.leader != run.new_broker
    assert free.move_ms < 500 and free.throttle_configs == {}
    # 3 MB at 1 MB/s: fetches of up to 1 MiB, the last one unthrottled once the copy is caught up
    assert 1_500 < throttled.move_ms < 3_500
    assert max(per_second(throttled)) <= 1_100_000 < max(per_second(free))
    configs = throttled.throttle_configs
    assert configs[f"broker {throttled.leader}: leader.replication.throttled.rate"] == "1000000"
    assert configs[f"broker {throttled.new_broker}: follower.replication.throttled.rate"] == "1000000"
    assert throttled.throttle_configs["topic events: follower.replication.throttled.replicas"] == \
        f"0:{throttled.new_broker}"


def test_move_arithmetic_and_table():
    run = MoveRun(throttle=500_000, size=1_500_000, leader=1, new_broker=4, move_ms=3_000,
                  times_ms=tuple(range(500, 4_500, 500)),
                  copied=(0, 500_000, 500_000, 1_000_000, 1_000_000, 1_500_000, 1_500_000, 1_500_000),
                  produced=tuple(50_000 * i for i in range(1, 9)), sent=8, acked=7, throttle_configs={})
    assert run.copy_rate() == 500_000
    assert run.traffic_rate() == 100_000
    assert run.busiest() == 500_000 and run.busiest(2_000) == 1_000_000
    assert per_second(run) == [500_000, 500_000, 500_000, 0]
    assert per_second(run, "produced") == [100_000] * 4
    table = move_table([run, MoveRun(None, 1, 1, 4, None, (1000,), (0,), (0,), 1, 1, {})])
    assert table.splitlines()[1].split() == ["0.5", "MB/s", "3.00", "s", "0.50", "0.50", "MB", "0.10", "7/8"]
    assert table.splitlines()[2].split()[:3] == ["none", "-", "-"]
