"""The consumer-group drill (minikafka/drills/consumer_group_drills.py), played headless on a
live cluster with kafka-python."""

import pytest
from kafka import KafkaConsumer

from minikafka.drills.consumer_group_drills import group_offsets, read_and_commit
from tests.drills.drill_harness import (check_answers_are_graded, check_variants, learn, play,
                                        repair_lagging_group, start)

pytestmark = pytest.mark.live

DRILL = "lagging-group"


def test_right_answers_full_marks_wrong_or_missing_less_same_seed_same_drill():
    check_answers_are_graded(DRILL)


def test_another_seed_gives_a_variant():
    check_variants(DRILL, seeds=range(2, 5))


def test_the_lag_asked_is_the_backlog_and_the_describe_tool_shows_it():
    with start(DRILL, 2) as drill:
        drill.run()
        scenario = drill.scenario
        assert scenario.expected["lag"] == sum(scenario.backlog) > 0
        described = drill.cluster.run_tool("kafka-consumer-groups.sh --describe --group billing")
        rows = [line.split() for line in described.splitlines() if line.startswith("billing ")]
        assert sorted((int(r[2]), int(r[5])) for r in rows) == list(enumerate(scenario.backlog))
        assert "has no active members" in described


def test_graded_before_and_after_a_reset_to_latest():
    for seed in (1, 2):
        _, _, before = learn(DRILL, seed)
        assert not before["answers"]["no-lag"]["correct"]
        # the offsets are kept, but a guard earns nothing while nothing is repaired
        assert before["answers"]["offsets-kept"]["given"] == before["answers"]["offsets-kept"]["expected"]
        assert not before["answers"]["offsets-kept"]["correct"] and before["score"] == 0
        after, _ = play(DRILL, seed, {}, repair=repair_lagging_group)
        assert all(after["answers"][c]["correct"] for c in ("offsets-kept", "no-lag", "records-kept"))


def test_a_consumer_of_the_group_that_processes_the_backlog_and_commits_repairs_it_too():
    def catch_up(drill):
        read_and_commit(drill.cluster.bootstrap_servers, "billing", "orders",
                        sum(drill.scenario.backlog))
    result, _ = play(DRILL, 1, {}, repair=catch_up)
    assert result["answers"]["no-lag"]["correct"] and result["answers"]["records-kept"]["correct"]


def test_wrong_repairs_are_not_graded_fixed():
    def other_group(drill):
        repair_lagging_group(drill, group="audit")

    def read_without_commit(drill):          # like a reset without --execute: nothing committed
        consumer = KafkaConsumer("orders", bootstrap_servers=drill.cluster.bootstrap_servers,
                                 group_id="billing", enable_auto_commit=False)
        read = 0
        for _ in range(100):
            read += sum(len(b) for b in consumer.poll(timeout_ms=200).values())
            if read >= sum(drill.scenario.backlog):
                break
        consumer.close()
        assert read >= sum(drill.scenario.backlog)

    def delete_the_group(drill):
        drill.cluster.run_tool("kafka-consumer-groups.sh --delete --group billing")
    for repair in (other_group, read_without_commit, delete_the_group):
        result, _ = play(DRILL, 1, {}, repair=repair)
        assert not result["answers"]["no-lag"]["correct"], repair.__name__
        assert result["score"] < result["max"]
    with start(DRILL, 1) as drill:
        drill.run()
        before = group_offsets(drill.cluster.bootstrap_servers, "billing", "orders",
                               drill.scenario.partitions)
        delete_the_group(drill)
        gone = group_offsets(drill.cluster.bootstrap_servers, "billing", "orders",
                             drill.scenario.partitions)
        assert all(c is not None for c, _ in before.values())
        assert all(c is None for c, _ in gone.values())
        assert "[not yet] offsets-kept" in drill.check()


def test_kafkas_reset_offsets_command_repairs_it_and_its_dry_run_does_not():
    def reset(*action):
        def repair(drill):
            printed = drill.cluster.run_tool("kafka-consumer-groups.sh --group billing --topic orders "
                                             "--reset-offsets --to-latest " + " ".join(action))
            assert printed.split()[:4] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"], printed
        return repair
    dry, _ = play(DRILL, 1, {}, repair=reset("--dry-run"))
    assert not dry["answers"]["no-lag"]["correct"]
    executed, _ = play(DRILL, 1, {}, repair=reset("--execute"))
    assert all(executed["answers"][c]["correct"] for c in ("offsets-kept", "no-lag", "records-kept"))
