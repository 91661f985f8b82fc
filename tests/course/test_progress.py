"""The progress file: where it is, what a line holds, and the summary per lesson."""

from __future__ import annotations

import json

from minikafka.course.progress import (ENV_VAR, UNKNOWN_LESSON, ProgressLog, current_lesson,
                                       lesson_summary, progress_path)


def test_where_the_file_is(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert progress_path("ada") == tmp_path / "data" / "minikafka" / "progress.jsonl"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "class") + "/")
    assert progress_path("ada") == tmp_path / "class" / "ada.jsonl"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "one.jsonl"))
    assert progress_path("bob") == tmp_path / "one.jsonl"


def test_the_lesson_is_the_notebooks_name(monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "/home/ada/my-lessons/03_replication_and_durability.ipynb")
    assert current_lesson() == "03_replication_and_durability"
    monkeypatch.delenv("JPY_SESSION_NAME")
    assert current_lesson() == UNKNOWN_LESSON


def test_lines_and_the_summary(tmp_path):
    log = ProgressLog(tmp_path / "p.jsonl", learner="ada")
    log.record("01", "prediction", "a", answered=True, correct=False)
    log.record("01", "prediction", "a", answered=True, correct=True)     # a re-run replaces
    log.record("01", "prediction", "b", answered=False, correct=False)
    log.record("01", "task", "t1", done=False, solution_ran=False)
    log.record("01", "task", "t1", done=True, solution_ran=False)
    log.record("01", "task", "t1", done=False, solution_ran=False)        # done stays done
    log.record("01", "task", "t2", done=True, solution_ran=True)          # the lesson did it
    log.record("02", "prediction", "c", answered=True, correct=True)
    (tmp_path / "p.jsonl").open("a").write("not json\n[1]\n")
    first = json.loads((tmp_path / "p.jsonl").read_text().splitlines()[0])
    assert first["learner"] == "ada" and first["kind"] == "prediction" and first["at"].endswith("Z")
    summary = lesson_summary(log.read())
    one = summary["01"]
    assert (one.predictions_revealed, one.predictions_made, one.predictions_right) == (2, 1, 1)
    assert (one.tasks_checked, one.tasks_done) == (2, 1)
    assert summary["02"].predictions_right == 1


def test_a_file_that_cannot_be_written_never_fails_the_lesson(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    log = ProgressLog(blocker / "p.jsonl", learner="ada")
    assert log.record("01", "task", "t", done=True) is False
    assert log.problem.startswith(f"Cannot write progress to {blocker / 'p.jsonl'}:")
    assert "MINIKAFKA_PROGRESS" in log.problem


def test_a_teacher_reads_the_class_from_a_folder(tmp_path, monkeypatch):
    from minikafka.course.progress import ClassProgress
    folder = tmp_path / "class"
    monkeypatch.setenv(ENV_VAR, str(folder) + "/")
    for learner, correct in (("ada", True), ("bob", False)):
        log = ProgressLog(learner=learner)
        log.record("01_a", "prediction", "p1", answered=True, correct=correct)
        log.record("01_a", "task", "t1", done=correct, solution_ran=False)
    (folder / "broken.jsonl").write_text("{oops\n")
    report = ClassProgress.load()                            # MINIKAFKA_PROGRESS's folder
    assert [(r["learner"], r["predictions_right"], r["tasks_done"]) for r in report.rows] == [
        ("ada", 1, 1), ("bob", 0, 0)]
    assert report.text().splitlines()[1].split() == ["ada", "01_a", "1", "1", "1"]
    assert ClassProgress.load(tmp_path / "none").text().endswith("(no progress lines yet)")


def test_a_link_planted_under_a_learner_s_name_is_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    (tmp_path / "ada.jsonl").symlink_to(victim)
    log = ProgressLog(tmp_path / "ada.jsonl", learner="ada")
    assert log.record("01_brokers_and_topics", "prediction", "p1", answered=True) is False
    assert log.problem and log.problem.startswith("Cannot write progress to")
    assert victim.read_text() == "keep\n"
