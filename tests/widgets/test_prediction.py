"""`widgets.Prediction`: the widget and the code form commit the same answer; the reveal grades it."""

from __future__ import annotations

import json

import pytest

from minikafka.course.progress import ProgressLog
from widgets import Prediction


@pytest.fixture
def log(tmp_path) -> ProgressLog:
    return ProgressLog(tmp_path / "progress.jsonl", learner="ada")


def broker_prediction(log, **kwargs) -> Prediction:
    return Prediction("Which broker leads orders-1 once broker 3 is dead?", kind="broker",
                      choices=[1, 2, 3], progress=log, lesson="01_brokers_and_topics", **kwargs)


def test_the_code_form(log, capsys):
    p = broker_prediction(log)
    p.answer(...)
    p.answer("3")
    p.answer(9)
    p.answer(2)
    assert capsys.readouterr().out.splitlines() == [
        "No answer yet: replace ... with a broker id (1, 2 or 3), or use the widget above.",
        "Expected a broker id (1, 2 or 3), but the answer is a text (str): '3'",
        "Expected a broker id (1, 2 or 3); there is no broker 9",
        "Committed: 2. You can change it until the reveal."]
    assert p._control.value == 2                       # the widget shows the code's answer
    verdict = p.reveal(1, why="broker 1 is the next in-sync replica")
    assert not verdict.correct and verdict.answered
    p.answer(1)
    assert capsys.readouterr().out == ("This prediction has been revealed; answers are closed "
                                       "(yours stays: 2).\n")
    assert p._control.disabled and p.commit_button.disabled
    assert "Not this time" in p.status.value


def test_the_widget_form_and_the_progress_line(log):
    p = broker_prediction(log)
    p.commit_button.click()                              # nothing picked yet
    assert "Pick a broker id" in p.status.value and not p.answered
    p._control.value = 1
    p.commit_button.click()
    assert p.answered and "Committed: 1" in p.status.value
    assert p.reveal(1).correct
    line = json.loads(log.path.read_text())
    assert {k: line[k] for k in ("learner", "lesson", "kind", "id", "answered", "correct")} == {
        "learner": "ada", "lesson": "01_brokers_and_topics", "kind": "prediction",
        "id": "which-broker-leads-orders-1-once-broker-3-is-dea", "answered": True, "correct": True}
    p.reveal(1)
    assert len(log.path.read_text().splitlines()) == 1  # a re-run reveal records nothing new


def test_a_placeholder_after_a_widget_answer_keeps_it(log, capsys):
    p = broker_prediction(log)
    p._control.value = 3
    p.commit_button.click()
    p.answer(...)
    assert capsys.readouterr().out.startswith("Your answer from the widget stands: 3")
    assert p.reveal(3).correct


def test_an_unanswered_prediction_is_reported_and_shows_the_value(log):
    verdict = broker_prediction(log).reveal(3)
    assert verdict.headline() == "No prediction was committed. The cluster says: 3."
    assert json.loads(log.path.read_text())["answered"] is False


def test_sets_and_numbers_through_the_widget(log):
    brokers = Prediction("Which brokers hold orders-0?", kind="brokers", choices=[1, 2, 3],
                         progress=log, lesson="x")
    brokers._control.children[0].value = True
    brokers._control.children[2].value = True
    brokers.commit_button.click()
    assert brokers.reveal((3, 1)).correct
    numbers = Prediction("Which partitions?", kind="numbers", progress=log, lesson="x")
    numbers._control.value = "2, 0"
    numbers.commit_button.click()
    assert numbers.reveal({0, 2}).correct
    count = Prediction("How many?", kind="number", progress=log, lesson="x")
    count._control.value = "three"
    count.commit_button.click()
    assert "Expected a whole number, but the answer is a text (str): &#x27;three&#x27;" in count.status.value
    assert not count.answered


def test_the_repr_is_deterministic_and_says_how_to_answer(log):
    p = broker_prediction(log)
    assert repr(p) == ("Prediction('Which broker leads orders-1 once broker 3 is dead?', "
                       "kind='broker'): answer with a broker id (1, 2 or 3)")
    assert p._repr_mimebundle_()["text/plain"] == repr(p)
