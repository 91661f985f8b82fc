"""The broker-failure drills (minikafka/drills/broker_failure_drills.py), played headless."""

import pytest

from tests.drills.drill_harness import (check_answers_are_graded, check_variants, learn, play,
                                        repair_offline_partition, start)

DRILLS = ["leader-crash", "follower-out-of-sync", "offline-partition"]


@pytest.mark.parametrize("drill_id", DRILLS)
def test_right_answers_full_marks_wrong_or_missing_less_same_seed_same_drill(drill_id):
    check_answers_are_graded(drill_id)


@pytest.mark.parametrize("drill_id", DRILLS)
def test_another_seed_gives_a_variant(drill_id):
    check_variants(drill_id)


def test_leader_crash_answers_follow_kafkas_rules():
    # The new leader is the first surviving replica of the assignment; the partition waits for
    # the session timeout; nothing committed is lost.
    for seed in (1, 2, 3):
        with start("leader-crash", seed) as drill:
            scenario = drill.scenario
            replicas = list(scenario.replicas)
            drill.run()
            expected = scenario.expected
            assert expected["new-leader"] == next(b for b in replicas if b != scenario.victim)
            assert "broker.session.timeout.ms" in expected["failover-time"]
            assert expected["readable"] == scenario.records


def test_follower_out_of_sync_covers_the_three_faults_and_counts_under_replicated_partitions():
    seen = set()
    for seed in range(1, 12):
        with start("follower-out-of-sync", seed) as drill:
            drill.run()
            snapshot = drill.cluster.snapshot()
            expected = drill.scenario.expected
            assert expected["under-replicated"] == sum(p.under_replicated
                                                       for p in snapshot.topic("orders").partitions) > 0
            process = snapshot.node(drill.scenario.victim).process
            assert process == {"crashed": "dead", "paused": "paused", "cut": "running"}[drill.scenario.fault]
            seen.add(drill.scenario.fault)
    assert seen == {"crashed", "paused", "cut"}


def test_the_hidden_fault_is_not_announced_but_the_nodes_reports_are():
    with start("follower-out-of-sync", 3) as drill:          # seed 3: a crash
        seq = drill.cluster.events.last_seq
        drill.run()
        kinds = {e.kind for e in drill.cluster.events.since(seq)}
        assert "node_killed" not in kinds and "broker_fenced" in kinds
        drill.cluster.restart(drill.scenario.victim)          # the learner's own verbs are announced
        assert drill.cluster.events.since(seq, {"node_restarted"})


def test_offline_partition_graded_before_and_after_the_repair():
    _, _, before = learn("offline-partition", 2)
    assert before["score"] == 0
    assert before["answers"]["online"]["given"] == "none"
    after, _ = play("offline-partition", 2, {}, repair=repair_offline_partition)
    assert after["score"] == after["max"] == 6


def test_an_unclean_election_repairs_availability_but_loses_records():
    def unclean(drill):
        drill.cluster.alter_topic_config("ledger", set={"unclean.leader.election.enable": "true"})
        drill.cluster.elect_leaders("unclean", [("ledger", 0)])
    result, _ = play("offline-partition", 2, {}, repair=unclean)
    assert result["answers"]["online"]["correct"]
    assert not result["answers"]["no-loss"]["correct"]
    assert result["answers"]["no-loss"]["given"] < result["answers"]["no-loss"]["expected"]
    assert result["score"] < result["max"]
