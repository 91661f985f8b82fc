"""Where scores go and how a line looks (minikafka/drills/scoreboard.py)."""

import json

import pytest

from minikafka.drills import scoreboard
from minikafka.drills.question import DrillError
from tests.drills.drill_harness import start


def test_a_folder_in_the_environment_gets_one_file_per_learner(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path))
    assert scoreboard.scoreboard_path("ada") == tmp_path / "ada.jsonl"
    assert scoreboard.scoreboard_path("Ada Lovelace/../x") == tmp_path / "Ada_Lovelace_.._x.jsonl"
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path / "new-class") + "/")
    assert scoreboard.scoreboard_path("bob") == tmp_path / "new-class" / "bob.jsonl"


def test_a_file_in_the_environment_takes_every_line(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path / "all.jsonl"))
    assert scoreboard.scoreboard_path("ada") == scoreboard.scoreboard_path("bob") == tmp_path / "all.jsonl"


def test_the_per_user_default(tmp_path, monkeypatch):
    monkeypatch.delenv("MINIKAFKA_SCOREBOARD", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert scoreboard.scoreboard_path("ada") == tmp_path / "minikafka" / "scores.jsonl"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert scoreboard.scoreboard_path("ada") == tmp_path / ".local" / "share" / "minikafka" / "scores.jsonl"


def test_the_learner_is_the_hub_user_when_there_is_one(monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "grace")
    assert scoreboard.default_learner() == "grace"
    monkeypatch.delenv("JUPYTERHUB_USER")
    assert scoreboard.default_learner()


def test_each_graded_drill_appends_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path))
    for answer in (2, 3):
        with start("leader-crash", 2, record=True, learner="ada") as drill:
            drill.answer("new-leader", answer)
            drill.run()
            drill.grade()
    lines = [json.loads(line) for line in (tmp_path / "ada.jsonl").read_text().splitlines()]
    assert [line["answers"]["new-leader"] for line in lines] == [2, 3]
    first = lines[0]
    assert list(first) == ["learner", "drill", "kind", "seed", "answers", "correct", "score", "max",
                           "hints", "time_s", "at"]
    assert (first["learner"], first["drill"], first["kind"], first["seed"]) == ("ada", "leader-crash",
                                                                               "predict", 2)
    assert first["correct"]["new-leader"] is True and first["score"] == 2 and first["max"] == 6
    assert first["at"].endswith("Z")


def test_record_false_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path))
    with start("leader-crash", 2, record=False) as drill:
        drill.run()
        drill.grade()
    assert list(tmp_path.iterdir()) == []


def test_a_folder_where_the_file_should_be_is_refused(tmp_path):
    (tmp_path / "scores.jsonl").mkdir()
    with pytest.raises(DrillError, match="it is a folder"):
        scoreboard.check_writable(tmp_path / "scores.jsonl")


# ---------------------------------------------------------------- the class's score service (issue 28)
def test_an_unreachable_service_falls_back_to_the_file_and_says_so(tmp_path, monkeypatch, capsys):
    from minikafka.classroom import ScoreServiceClient

    target = tmp_path / "scores.jsonl"
    went = scoreboard.record_score(target, {"learner": "ada", "drill": "d"},
                                   ScoreServiceClient("http://127.0.0.1:9/", "token", timeout=2))
    assert went == str(target) and json.loads(target.read_text())["drill"] == "d"
    note = capsys.readouterr().err.strip()
    assert "Cannot reach the score service" in note and f"kept in {target} instead" in note
    assert "\n" not in note


def test_no_service_on_a_hub_is_said_once_per_line_and_nothing_is_said_elsewhere(tmp_path, monkeypatch, capsys):
    target = tmp_path / "scores.jsonl"
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    scoreboard.record_score(target, {"drill": "d"}, None)
    assert capsys.readouterr().err == ""                     # a laptop: the file, silently
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    scoreboard.record_score(target, {"drill": "e"}, None)
    assert "MINIKAFKA_SCORE_SERVICE is not set" in capsys.readouterr().err
    assert len(target.read_text().splitlines()) == 2


def test_a_service_address_that_is_not_one_is_said_and_the_file_is_used(monkeypatch, capsys):
    monkeypatch.setenv("MINIKAFKA_SCORE_SERVICE", "/srv/class/scores/")
    assert scoreboard.score_service() is None
    assert "must be an http:// or https:// address" in capsys.readouterr().err


def test_a_drill_without_a_service_still_keeps_its_score_locally(tmp_path, monkeypatch):
    monkeypatch.delenv("MINIKAFKA_SCORE_SERVICE", raising=False)
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path))
    with start("leader-crash", 2, record=True, learner="ada") as drill:
        drill.answer("new-leader", 2)
        drill.run()
        drill.grade()
        assert drill.scores_went == str(tmp_path / "ada.jsonl")
    assert len((tmp_path / "ada.jsonl").read_text().splitlines()) == 1


def test_a_planted_link_is_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    (tmp_path / "ada.jsonl").symlink_to(victim)
    with pytest.raises(DrillError, match="Cannot write scores"):
        scoreboard.append_score(tmp_path / "ada.jsonl", {"drill": "d"})
    assert victim.read_text() == "keep\n"
