"""`PredictionState`: committed, graded against the cluster's value, frozen after the reveal."""

from __future__ import annotations

import pytest

from minikafka.course.answer_kinds import AnswerKind, AnswerRefused
from minikafka.course.prediction import AnswerLocked, PredictionState, slug


def leader_prediction() -> PredictionState:
    return PredictionState("Which broker leads orders-1 once broker 3 is dead?",
                           AnswerKind("broker", [1, 2, 3]))


def test_a_right_answer_scores():
    p = leader_prediction()
    p.answer(1)
    verdict = p.reveal(1, why="the next in-sync replica")
    assert verdict.correct and verdict.answered and verdict.answer == 1 and verdict.actual == 1
    assert "Right: you predicted 1, and the cluster says 1." in verdict.text()
    assert "Why: the next in-sync replica" in verdict.text()


def test_a_wrong_answer_does_not_score_and_shows_both_values():
    p = leader_prediction()
    p.answer(2)
    verdict = p.reveal(1)
    assert not verdict.correct and verdict.answered
    assert verdict.headline() == "Not this time: you predicted 2; the cluster says 1."


def test_a_missing_answer_is_reported_and_the_value_still_shown():
    p = leader_prediction()
    p.answer(...)                            # the lesson's placeholder commits nothing
    verdict = p.reveal(3)
    assert not verdict.answered and not verdict.correct
    assert verdict.headline() == "No prediction was committed. The cluster says: 3."


def test_an_answer_can_change_until_the_reveal_and_never_after():
    p = leader_prediction()
    p.answer(2)
    p.answer(1)
    first = p.reveal(1)
    with pytest.raises(AnswerLocked) as caught:
        p.answer(3)
    assert str(caught.value) == ("This prediction has been revealed; answers are closed "
                                 "(yours stays: 1).")
    assert p.reveal(2) is first and p.current_answer == 1       # a second reveal changes nothing


def test_a_refused_answer_keeps_the_earlier_one():
    p = leader_prediction()
    p.answer(2)
    with pytest.raises(AnswerRefused):
        p.answer("3")
    assert p.reveal(2).correct


def test_the_revealed_value_is_the_clusters_normalised():
    p = PredictionState("Which brokers hold orders-0?", AnswerKind("brokers", [1, 2, 3]))
    p.answer([3, 1, 2])
    verdict = p.reveal((2, 3, 1))
    assert verdict.correct and verdict.actual == [1, 2, 3]
    assert "{1, 2, 3}" in verdict.text()


def test_a_value_the_kind_cannot_hold_is_shown_and_matches_nothing():
    p = leader_prediction()
    p.answer(1)
    verdict = p.reveal(None)
    assert not verdict.correct and verdict.actual is None
    assert verdict.headline() == "Not this time: you predicted 1; the cluster says none."


def test_the_html_form_escapes_and_marks_the_verdict():
    p = PredictionState("Is <b> safe?", AnswerKind("bool"))
    p.answer(True)
    html = p.reveal(False, why="a & b").html()
    assert "&lt;b&gt;" in html and "a &amp; b" in html and "✘" in html


def test_ids_are_stable_slugs_of_the_question():
    assert slug("Which broker leads orders-1 once broker 3 is dead?") == \
        "which-broker-leads-orders-1-once-broker-3-is-dea"
    assert leader_prediction().id == slug(leader_prediction().question)
    assert PredictionState("?", AnswerKind("bool"), id="q1").id == "q1"
