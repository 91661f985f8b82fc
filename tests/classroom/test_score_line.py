"""What the score service stores (minikafka/classroom/score_line.py, score_store.py, score_client.py)."""

from __future__ import annotations

import json
import os

import pytest

from minikafka.classroom import (MAX_LINE_BYTES, ScoreLineError, ScoreServiceClient, ScoreServiceError, ScoreStore,
                                 checked_score_line, client_from_environment)
from minikafka.classroom.score_line import checked_learner_name


def body(**fields) -> bytes:
    line = {"drill": "leader-crash", "correct": {"a": True}, "score": 2, "max": 2}
    line.update(fields)
    return json.dumps({k: v for k, v in line.items() if v is not None}).encode()


def test_the_stored_line_names_the_authenticated_learner_first():
    stored = checked_score_line(body(learner="bob", seed="s", hints=1, time_s=3.5), "ada")
    assert list(stored)[0] == "learner" and stored["learner"] == "ada" and stored["seed"] == "s"


@pytest.mark.parametrize("fields, says", [
    ({"drill": None}, "'drill' must be a drill id"),
    ({"drill": "Leader Crash"}, "'drill' must be a drill id"),
    ({"score": True}, "whole numbers"),
    ({"score": -1}, "not between 0 and max"),
    ({"correct": {"a": 1}}, "object of true/false"),
    ({"seed": 1.5}, "'seed' must be int or str"),
    ({"hints": -2}, "'hints' must not be negative"),
    ({"time_s": -1}, "'time_s' must be a number of seconds"),
    ({"who": "x"}, "unknown field(s) 'who'"),
])
def test_malformed_lines_are_refused_in_one_line(fields, says):
    with pytest.raises(ScoreLineError) as refused:
        checked_score_line(body(**fields), "ada")
    assert says in str(refused.value) and refused.value.status == 400 and "\n" not in str(refused.value)


def test_an_oversized_body_is_413():
    with pytest.raises(ScoreLineError) as refused:
        checked_score_line(b" " * (MAX_LINE_BYTES + 1), "ada")
    assert refused.value.status == 413


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", "", "a\\b", "x" * 129, "a b", "ada\n", "a%b"])
def test_learner_names_with_path_characters_are_refused(name):
    with pytest.raises(ScoreLineError):
        checked_learner_name(name)


def test_ordinary_hub_names_pass():
    for name in ("ada", "ada.lovelace", "ada@example.org", "x-1_2+3"):
        assert checked_learner_name(name) == name


def test_the_store_keeps_lines_in_a_private_file_across_reopening(tmp_path):
    store = ScoreStore(tmp_path / "class" / "scores.sqlite")
    store.add("ada", {"learner": "ada", "drill": "d", "score": 1})
    store.add("bob", {"learner": "bob", "drill": "d", "score": 2})
    store.add("ada", {"learner": "ada", "drill": "e", "score": 3})
    store.close()
    assert os.stat(tmp_path / "class" / "scores.sqlite").st_mode & 0o777 == 0o600
    again = ScoreStore(tmp_path / "class" / "scores.sqlite")
    assert [x["drill"] for x in again.lines_of("ada")] == ["d", "e"]
    assert [x["learner"] for x in again.all_lines()] == ["ada", "bob", "ada"]
    assert again.learners() == ["ada", "bob"]
    again.close()


def test_the_client_is_built_only_when_the_service_is_named():
    assert client_from_environment({}) is None
    made = client_from_environment({"MINIKAFKA_SCORE_SERVICE": "http://hub:10101/services/s",
                                    "JUPYTERHUB_API_TOKEN": "t"})
    assert made is not None and made.url == "http://hub:10101/services/s/" and made.token == "t"
    with pytest.raises(ScoreServiceError, match="must be an http"):
        client_from_environment({"MINIKAFKA_SCORE_SERVICE": "/srv/class/scores/"})


def test_no_token_and_no_answer_are_one_sentence_each():
    with pytest.raises(ScoreServiceError, match="No hub token"):
        ScoreServiceClient("http://127.0.0.1:9/", "").post({})
    with pytest.raises(ScoreServiceError, match="Cannot reach the score service") as unreachable:
        ScoreServiceClient("http://127.0.0.1:9/", "t", timeout=2).post({})
    assert unreachable.value.status is None


def test_names_in_any_script_pass_and_the_authenticated_name_is_stored_as_the_hub_said():
    assert checked_learner_name("josé") == "josé"
    assert checked_score_line(body(), "Zoë Two")["learner"] == "Zoë Two"
