"""The sizing drill (minikafka/drills/sizing_drills.py), played headless."""

from tests.drills.drill_harness import check_answers_are_graded, check_variants, learn, start

DRILL = "replication-factor-vs-brokers"


def test_right_answers_full_marks_wrong_or_missing_less_same_seed_same_drill():
    check_answers_are_graded(DRILL)


def test_another_seed_gives_a_variant():
    check_variants(DRILL)


def test_the_answers_follow_the_placers_rules():
    # Seed 5 asks for as many replicas as brokers (created), seed 1 for one more (refused);
    # seed 1 uses replication factor 1 for events, seed 3 uses 2.
    outcomes = {}
    for seed in (1, 3, 5):
        with start(DRILL, seed) as drill:
            scenario = drill.scenario
            drill.run()
            expected, brokers = scenario.expected, scenario.brokers
            created = "payments" in drill.cluster.topics()
            assert created == (scenario.payments_rf <= brokers)
            if created:
                assert all(len(drill.cluster.replicas("payments", p)) == brokers for p in range(3))
            outcomes[seed] = expected["payments"]
            assert expected["replicas-on-broker"] == \
                scenario.events_partitions * scenario.events_rf // brokers
            assert expected["leaderless"] == (expected["replicas-on-broker"]
                                              if scenario.events_rf == 1 else 0)
    assert outcomes[5].startswith("created: each of its 3 partitions has")
    assert outcomes[1].startswith("refused with InvalidReplicationFactorException")


def test_the_refusal_is_told_in_kafkas_words():
    _, expected, _ = learn(DRILL, 1)
    with start(DRILL, 1) as drill:
        story = drill.run()
        assert "Error while executing topic command : Unable to replicate the partition" in story
        assert f"{drill.scenario.brokers} broker(s) are registered" in story
        drill.grade()
        assert "nothing created" in drill.explanation or "not created at all" in drill.explanation
    assert expected["payments"] == drill.scenario.outcomes[3]
