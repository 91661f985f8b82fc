"""The durability drills (minikafka/drills/durability_drills.py), played headless."""

import pytest

from tests.drills.drill_harness import check_answers_are_graded, check_variants, start

DRILLS = ["isr-not-enough-replicas", "acks1-data-loss", "unclean-election", "power-loss"]


@pytest.mark.parametrize("drill_id", DRILLS)
def test_right_answers_full_marks_wrong_or_missing_less_same_seed_same_drill(drill_id):
    check_answers_are_graded(drill_id)


@pytest.mark.parametrize("drill_id", DRILLS)
def test_another_seed_gives_a_variant(drill_id):
    check_variants(drill_id)


@pytest.mark.parametrize("seed, min_isr, cut", [(1, 2, 2), (3, 3, 1), (8, 2, 1)])
def test_not_enough_replicas_depends_on_min_insync_and_the_followers_left(seed, min_isr, cut):
    with start("isr-not-enough-replicas", seed) as drill:
        assert (drill.scenario.min_isr, drill.scenario.cut) == (min_isr, cut)
        drill.run()
        expected = drill.scenario.expected
        left = 3 - cut
        assert expected["isr-after"] == left
        # under min ISR the high watermark stays below the record: the write waits out its timeout
        assert expected["first-produce"] == ("NONE" if left >= min_isr else "REQUEST_TIMED_OUT")
        assert expected["second-produce"] == ("NONE" if left >= min_isr else "NOT_ENOUGH_REPLICAS")
        assert expected["first-readable"] is (left >= min_isr)    # appended either way, committed only then
        assert ("REQUEST_TIMED_OUT" in drill.scenario.explain()) is (left < min_isr)
        # the answer waited for the leader to drop the cut-off followers
        assert drill.scenario.facts["waited"] >= drill.cluster.timing.ms("replica.lag.time.max.ms")


def test_acks1_records_are_lost_and_truncated_by_the_returning_leader():
    with start("acks1-data-loss", 2) as drill:
        drill.run()
        expected, scenario = drill.scenario.expected, drill.scenario
        assert expected["survivors"] == 0
        assert expected["truncated"] == scenario.unreplicated
        assert expected["new-leader"] in scenario.followers


def test_unclean_election_is_offline_first_then_loses_what_only_the_old_leader_had():
    with start("unclean-election", 1) as drill:
        drill.run()
        expected, scenario = drill.scenario.expected, drill.scenario
        assert expected["leader-after-restart"] == "none: the partition is offline"
        assert expected["lost"] == scenario.alone
        replicas = drill.cluster.replicas("clicks", 0)
        assert expected["unclean-leader"] == next(b for b in replicas if b != scenario.leader)


def _flushed_prefix(written, flush_every):
    """What each replica flushed, computed independently of the run: one record per append, a flush
    whenever flush.messages records are unflushed (none without the setting, and no roll here)."""
    return 0 if flush_every is None else written - written % flush_every


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_a_crash_keeps_every_acknowledged_record_a_power_cut_keeps_what_was_flushed(seed):
    with start("power-loss", seed) as drill:
        drill.run()
        scenario, expected = drill.scenario, drill.scenario.expected
        assert expected["after-crash"] == scenario.written
        assert expected["after-power-loss"] == _flushed_prefix(scenario.written, scenario.flush_every)
        assert ("every acknowledged record was lost" in scenario.explain()) is (scenario.flush_every is None)
        # a real kernel writes dirty pages back by itself after about 30 s; the sandbox does not, so
        # the drill is true of a real machine only if the power fails sooner than that
        assert scenario.facts["gap_s"] < 30


def test_power_loss_seeds_cover_the_default_and_a_flush_setting():
    settings = set()
    for seed in range(1, 9):
        with start("power-loss", seed) as drill:
            settings.add(drill.scenario.flush_every is None)
    assert settings == {True, False}
