"""The scaling drills (minikafka/drills/scaling_drills.py), played headless."""

import pytest

from minikafka.drills.drill_client import partition_for_key
from tests.drills.drill_harness import (check_answers_are_graded, check_variants, learn, play,
                                        repair_empty_new_broker, repair_unbalanced_leaders, start)

DRILLS = ["keyed-partitions-added", "throttled-reassignment", "empty-new-broker", "unbalanced-leaders"]


@pytest.mark.parametrize("drill_id", DRILLS)
def test_right_answers_full_marks_wrong_or_missing_less_same_seed_same_drill(drill_id):
    check_answers_are_graded(drill_id)


@pytest.mark.parametrize("drill_id", DRILLS)
def test_another_seed_gives_a_variant(drill_id):
    check_variants(drill_id)


def test_keys_land_where_murmur2_says_before_and_after_growing():
    with start("keyed-partitions-added", 2) as drill:
        scenario = drill.scenario
        customer = scenario.customer.encode()
        assert scenario.first == partition_for_key(customer, scenario.before)
        drill.run()
        assert scenario.expected["new-partition"] == partition_for_key(customer, scenario.after)
        moved = sum(partition_for_key(f"customer-{i}".encode(), scenario.before)
                    != partition_for_key(f"customer-{i}".encode(), scenario.after) for i in range(100))
        assert scenario.facts["moved"] == moved


def test_a_throttled_move_takes_about_size_over_throttle_and_leaves_the_throttle_behind():
    for seed in (1, 2):
        with start("throttled-reassignment", seed) as drill:
            drill.run()
            scenario = drill.scenario
            assert scenario.expected["move-time"] == scenario.durations[1]
            # the first fetch (replica.fetch.max.bytes, 1 MiB) leaves before the quota has measured
            # anything, and the last leaves the follower in sync, unthrottled: as in Kafka
            unthrottled = scenario.megabytes * 1_000_000 - 1_048_576
            assert unthrottled / scenario.throttle <= scenario.facts["seconds"] <= 1.5 * scenario.expected_s
            assert scenario.expected["traffic-acked"] is True
            assert scenario.expected["throttle-left"] is True
            assert scenario.expected["final-replicas"] == sorted(scenario.target)


@pytest.mark.parametrize("drill_id, repair", [("empty-new-broker", repair_empty_new_broker),
                                              ("unbalanced-leaders", repair_unbalanced_leaders)])
def test_fix_drills_graded_before_and_after_a_correct_repair(drill_id, repair):
    for seed in (1, 2):
        _, _, before = learn(drill_id, seed)
        after, _ = play(drill_id, seed, {}, repair=repair)
        assert before["score"] < before["max"]
        assert after["score"] == after["max"]


def test_a_check_shows_progress_without_grading():
    with start("unbalanced-leaders", 1) as drill:
        drill.run()
        assert "[not yet] preferred-leaders" in drill.check()
        drill.cluster.elect_leaders("preferred")
        assert "[ok] preferred-leaders" in drill.check()
        assert drill.state == "ran"
        assert drill.grade()["score"] == 6
