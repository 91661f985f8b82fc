"""The fourth-member-joins drill: classic against consumer protocol, played headless with real clients."""

import pytest

from tests.drills.drill_harness import learn, play

# Real clients with timing of their own (four kafka-python and four librdkafka consumers per run): in the
# serial pass, where no other test competes for the 2 cores.
pytestmark = [pytest.mark.live, pytest.mark.slow]
pytest.importorskip("confluent_kafka")


def test_a_fourth_member_stops_the_whole_classic_group_but_only_the_moving_partitions_of_a_consumer_group():
    questions, expected, unanswered = learn("fourth-member-joins", 3)
    assert [q[0] for q in questions] == ["classic_given_up", "consumer_given_up", "consumer_moved"]
    assert unanswered["score"] == 0 < unanswered["max"]
    partitions = expected["classic_given_up"]          # every partition of clicks: 8 or 12 by the seed
    assert partitions in (8, 12)
    # what Kafka does, computed here independently of the run: eager classic gives up everything;
    # the uniform assignor moves only what the old members hold above the new share
    shares = [partitions // 3 + (1 if i < partitions % 3 else 0) for i in range(3)]
    above = sum(max(0, s - (partitions // 4 + (1 if i < partitions % 4 else 0)))
                for i, s in enumerate(sorted(shares, reverse=True)))
    assert expected == {"classic_given_up": partitions, "consumer_given_up": above, "consumer_moved": above}


def test_the_drill_grades_right_and_wrong_predictions_from_its_own_run():
    _, expected, _ = learn("fourth-member-joins", 3)
    right, _ = play("fourth-member-joins", 3, expected)
    assert right["score"] == right["max"]
    wrong, _ = play("fourth-member-joins", 3, {"classic_given_up": 3, "consumer_given_up": 12,
                                               "consumer_moved": 12})
    assert wrong["score"] == 0 and not any(a["correct"] for a in wrong["answers"].values())
