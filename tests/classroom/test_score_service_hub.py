"""The score service on a real JupyterHub: authentication, isolation, the teacher's view, restart, bad input.

One hub and one service for the module (`real_hub.RealHub`: dummy
authenticator, users and tokens made through the hub's REST API); the tests
read as one class in file order: an empty class, two learners post, a forged
name, isolation, the teacher, bad input, a deleted user, a restart.  The
hub and the service are killed (process groups) whatever happens.
"""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("jupyterhub", reason="JupyterHub is not installed (pip install -e '.[test]')")

from minikafka.classroom import MAX_LINE_BYTES, ScoreServiceClient, ScoreServiceError  # noqa: E402
from minikafka.drills import ClassReport, scoreboard  # noqa: E402
from tests.classroom.real_hub import RealHub, call  # noqa: E402

pytestmark = pytest.mark.slow


def line(drill: str = "leader-crash", score: int = 4, **extra) -> dict:
    return {"drill": drill, "kind": "predict", "seed": 3, "answers": {"new-leader": 2},
            "correct": {"new-leader": True, "isr": False}, "score": score, "max": 6, "hints": 0,
            "time_s": 61.5, "at": "2026-11-29T10:00:00Z", **extra}


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    running = RealHub.start(tmp_path_factory.mktemp("hub"))
    try:
        running.tokens = {"ada": running.add_user("ada"), "bob": running.add_user("bob"),
                          "tess": running.add_user("tess", teacher=True)}
        yield running
    finally:
        running.stop()


def client(hub, who: str) -> ScoreServiceClient:
    return ScoreServiceClient(hub.service_url, hub.tokens[who])


def test_the_teacher_view_of_an_empty_class_is_a_one_line_404(hub):
    status, answer = call(hub.service_url + "api/class", hub.tokens["tess"])
    assert status == 404 and answer["error"] == "The class is empty: no learner has posted a score line yet"
    assert client(hub, "tess").class_lines() == []
    assert ClassReport.from_service(client(hub, "tess")).attempts == []


def test_two_learners_post_and_read_their_own_lines(hub):
    stored = client(hub, "ada").post(line(score=4))
    assert stored["learner"] == "ada" and stored["score"] == 4
    client(hub, "bob").post(line("acks1-data-loss", score=6))
    assert [(x["learner"], x["drill"]) for x in client(hub, "ada").mine()] == [("ada", "leader-crash")]
    assert [(x["learner"], x["drill"]) for x in client(hub, "bob").mine()] == [("bob", "acks1-data-loss")]


def test_a_forged_name_is_ignored(hub):
    stored = client(hub, "ada").post(line("unbalanced-leaders", learner="bob"))
    assert stored["learner"] == "ada"
    assert [x["drill"] for x in client(hub, "bob").mine()] == ["acks1-data-loss"]  # bob's lines unchanged
    assert len(client(hub, "ada").mine()) == 2


def test_a_learner_reads_neither_a_neighbour_nor_the_class(hub):
    status, answer = call(hub.service_url + "api/scores/bob", hub.tokens["ada"])
    assert status == 403 and "Only a teacher" in answer["error"]
    with pytest.raises(ScoreServiceError) as refused:
        client(hub, "ada").class_lines()
    assert refused.value.status == 403 and "Only a teacher reads the class" in str(refused.value)
    status, answer = call(hub.service_url + "api/scores/ada", hub.tokens["ada"])  # their own, by name
    assert status == 200 and len(answer["lines"]) == 2


def test_the_teacher_reads_both(hub):
    lines = client(hub, "tess").class_lines()
    assert [(x["learner"], x["drill"]) for x in lines] == [
        ("ada", "leader-crash"), ("bob", "acks1-data-loss"), ("ada", "unbalanced-leaders")]
    status, answer = call(hub.service_url + "api/scores/bob", hub.tokens["tess"])
    assert status == 200 and [x["drill"] for x in answer["lines"]] == ["acks1-data-loss"]
    report = ClassReport.from_service(client(hub, "tess"))
    assert {row["learner"]: row["attempts"] for row in report.by_learner()} == {"ada": 2, "bob": 1}


@pytest.mark.parametrize("body, status, says", [
    (b"{not json", 400, "Malformed score line: the body is not JSON"),
    (b"[1, 2]", 400, "expected a JSON object"),
    (json.dumps(line(score=7)).encode(), 400, "score 7 is not between 0 and max 6"),
    (json.dumps(line(drill="../etc/passwd")).encode(), 400, "'drill' must be a drill id"),
    (json.dumps(line(drill="leader-crash\n")).encode(), 400, "'drill' must be a drill id"),
    (json.dumps({**line(), "extra": 1}).encode(), 400, "unknown field(s) 'extra'"),
    (json.dumps(line(answers={"x": "y" * MAX_LINE_BYTES})).encode(), 413, "Score line too large"),
])
def test_bad_posts_get_one_line_and_change_nothing(hub, body, status, says):
    before = client(hub, "tess").class_lines()
    got, answer = call(hub.service_url + "api/scores", hub.tokens["bob"], "POST", raw=body)
    assert got == status and says in answer["error"] and "\n" not in answer["error"]
    assert set(answer) == {"error"}
    assert client(hub, "tess").class_lines() == before


@pytest.mark.parametrize("path, status, says", [
    ("api/scores/..%2F..%2Fetc", 400, "Invalid learner name '../../etc'"),
    ("api/scores/.hidden", 400, "Invalid learner name"),
    ("api/scores/a%2Fb", 400, "Invalid learner name 'a/b'"),
    ("api/scores/a%25b", 400, "Invalid learner name 'a%b'"),
    ("api/elsewhere", 404, "No such address"),
])
def test_names_with_path_characters_and_unknown_addresses(hub, path, status, says):
    got, answer = call(hub.service_url + path, hub.tokens["tess"])
    assert got == status and says in answer["error"]


def test_wrong_method_and_no_or_unknown_token(hub):
    got, answer = call(hub.service_url + "api/class", hub.tokens["tess"], "POST", body=line())
    assert got == 405 and answer["error"]
    for token in ("", "not-a-token-the-hub-made"):
        got, answer = call(hub.service_url + "api/scores", token, "POST", body=line())
        assert got == 401 and "one the hub does not know" in answer["error"]


def test_a_deleted_user_s_token_is_refused(hub):
    token = hub.add_user("gone")
    assert ScoreServiceClient(hub.service_url, token).post(line())["learner"] == "gone"
    hub.admin("DELETE", "users/gone")
    time.sleep(hub.token_cache_s + 0.2)          # the service remembers a token's owner this long
    got, answer = call(hub.service_url + "api/scores", token, "POST", body=line(score=0))
    assert got == 401 and "deleted" in answer["error"]
    assert [x["score"] for x in client(hub, "tess").class_lines() if x["learner"] == "gone"] == [4]


def test_a_token_without_the_service_s_access_scope_is_refused(hub):
    narrow = hub.admin("POST", "users/ada/tokens", {"scopes": ["read:users:name!user=ada"]})["token"]
    got, answer = call(hub.service_url + "api/scores", narrow)
    assert got == 403 and "access:services!service=minikafka-scores" in answer["error"]


def test_every_line_survives_a_restart_of_the_service(hub):
    before = client(hub, "tess").class_lines()
    hub.stop_service()
    with pytest.raises(ScoreServiceError) as down:
        client(hub, "ada").mine()
    assert down.value.status is None and "Cannot reach the score service" in str(down.value)
    hub.start_service()
    assert client(hub, "tess").class_lines() == before and len(before) == 4
    client(hub, "bob").post(line("leader-crash", score=5))
    assert [x["drill"] for x in client(hub, "bob").mine()] == ["acks1-data-loss", "leader-crash"]


def test_a_graded_line_goes_to_the_service_and_only_there(hub, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINIKAFKA_SCORE_SERVICE", hub.service_url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", hub.tokens["ada"])
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    fallback = tmp_path / "scores.jsonl"
    went = scoreboard.record_score(fallback, {"learner": "ada", **line("quorum-loss")}, scoreboard.score_service())
    assert went == "score service" and not fallback.exists() and capsys.readouterr().err == ""
    assert client(hub, "ada").mine()[-1]["drill"] == "quorum-loss"


def test_the_teacher_s_widget_reads_the_service(hub, monkeypatch):
    from widgets.teacher_view import TeacherView

    monkeypatch.setenv("MINIKAFKA_SCORE_SERVICE", hub.service_url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", hub.tokens["tess"])
    view = TeacherView()
    try:
        assert len(view.report.attempts) == 6 and "quorum-loss" in view.tables.value
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", hub.tokens["ada"])   # a learner's token
        view.reload()
        assert "Only a teacher reads the class" in view.status.value and view.report.attempts == []
    finally:
        view.close()
