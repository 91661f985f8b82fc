"""The KRaft quorum drills (minikafka/drills/quorum_drills.py), played headless."""

import pytest

from tests.drills.drill_harness import check_answers_are_graded, check_variants, start

DRILLS = ["controller-crash", "controller-majority-lost", "quick-restart"]


@pytest.mark.parametrize("drill_id", DRILLS)
def test_right_answers_full_marks_wrong_or_missing_less_same_seed_same_drill(drill_id):
    check_answers_are_graded(drill_id)


@pytest.mark.parametrize("drill_id", DRILLS)
def test_another_seed_gives_a_variant(drill_id):
    check_variants(drill_id)


def test_the_data_keeps_flowing_while_the_controllers_elect():
    with start("controller-crash", 1) as drill:
        old_epoch = drill.scenario.old_epoch
        drill.run()
        expected = drill.scenario.expected
        assert expected["produce-during-election"] is True
        assert expected["leaders-changed"] == 0
        assert expected["votes-needed"] == drill.scenario.controllers // 2 + 1
        assert drill.scenario.facts["epoch"] > old_epoch
        assert expected["new-epoch"] == drill.scenario.epoch_choices[1]


def test_the_new_epoch_is_graded_by_kraft_rule_not_by_the_seeds_split_vote():
    """Seed 1 splits the first vote (the epoch rises by 2): the rule, "higher than the old
    epoch", is still the right answer, given as its letter."""
    with start("controller-crash", 1) as drill:
        old_epoch = drill.scenario.old_epoch
        assert "b) " in drill.brief and f"higher than {old_epoch}" in drill.brief
        drill.answer("new-epoch", "b")
        drill.run()
        result = drill.grade()
        assert result["answers"]["new-epoch"]["correct"], result
        assert drill.scenario.facts["epoch"] >= old_epoch + 1


def test_a_lost_majority_stops_topic_creation_but_not_writes():
    for seed in (1, 2):
        with start("controller-majority-lost", seed) as drill:
            drill.run()
            expected, scenario = drill.scenario.expected, drill.scenario
            dead = [n.node_id for n in drill.cluster.snapshot().controllers if n.process == "dead"]
            assert expected["down"] == dead and len(dead) > scenario.controllers // 2
            assert expected["writes-ok"] is True
            assert "Timed out waiting for a node assignment. Call: createTopics" in scenario.facts["created"]
            assert drill.cluster.active_controller is None
            for controller in dead[:expected["restarts-needed"]]:
                drill.cluster.restart(controller)
            assert drill.cluster.wait_until(lambda: drill.cluster.active_controller is not None, 20_000)


def test_a_quick_restart_waits_for_the_old_session_and_gets_a_new_epoch():
    answers = {}
    for seed in (1, 2, 3):
        with start("quick-restart", seed) as drill:
            scenario, cluster = drill.scenario, drill.cluster
            broker, old_epoch = scenario.broker, scenario.epoch
            replicas = cluster.replicas("orders", scenario.partition)
            drill.run()
            expected = scenario.expected
            assert expected["registered-quickly"] is False
            assert expected["first-answer"] == "DUPLICATE_BROKER_REGISTRATION"
            assert expected["fence-records"] == 2
            assert expected["same-epoch"] is False
            fences, register = scenario.facts["fences"], scenario.facts["register"]
            assert {(f.record.broker_epoch, f.record.fenced) for f in fences} == {(old_epoch, 1)}
            assert register.record.broker_epoch == register.offset > old_epoch
            assert scenario.facts["waited"] >= cluster.timing.ms("broker.session.timeout.ms")
            if scenario.led:
                assert expected["leader-meanwhile"] == next(r for r in replicas if r != broker)
            events = cluster.events.since(0, {"broker_fenced"})
            assert any(e.data.get("already_fenced") and e.data.get("broker") == broker for e in events)
            drill.grade()
            assert "Another broker is registered with that broker id." in drill.explanation
            assert f"Fencing broker {broker} at epoch {old_epoch} because its session has timed out." \
                in drill.explanation
            answers[seed] = (scenario.brokers, broker, expected["leader-meanwhile"])
    assert len(set(answers.values())) > 1, answers
