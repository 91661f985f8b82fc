"""A class's scores on screen (widgets/teacher_view.py)."""

import json

from widgets.teacher_view import TeacherView, teacher_html


def write_scores(folder, learner, drill, score, correct, time_s):
    line = {"learner": learner, "drill": drill, "kind": "fix", "seed": 1, "answers": {},
            "correct": correct, "score": score, "max": 6, "hints": 0, "time_s": time_s,
            "at": "2026-01-05T10:00:00Z"}
    with open(folder / f"{learner}.jsonl", "a") as scores:
        scores.write(json.dumps(line) + "\n")


def test_the_tables_reload_and_export(tmp_path, monkeypatch):
    scores = tmp_path / "scores"
    scores.mkdir()
    write_scores(scores, "ada", "unbalanced-leaders", 6, {"a": True, "b": True, "c": True}, 240)
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(scores))
    view = TeacherView(export_dir=tmp_path / "export")
    try:
        assert repr(view) == "TeacherView(attempts=1)"
        assert "<td style='padding:2px 8px'>unbalanced-leaders</td>" in view.tables.value
        assert "3 / 3" in view.tables.value
        write_scores(scores, "bob", "unbalanced-leaders", 2, {"a": True, "b": False, "c": False}, 600)
        view.buttons["reload"].click()
        assert view.status.value == "2 attempts read" and "4 / 6" in view.tables.value
        view.buttons["export"].click()
        assert view.status.value.startswith("wrote ")
        assert (tmp_path / "export" / "drills.csv").read_text().splitlines()[1] == \
            "unbalanced-leaders,2,2,4,6,67,420.0"
        assert len((tmp_path / "export" / "attempts.csv").read_text().splitlines()) == 3
    finally:
        view.close()


def test_an_export_that_fails_is_shown_not_raised(tmp_path):
    (tmp_path / "ada.jsonl").write_text("")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the export folder should be")
    view = TeacherView(tmp_path, export_dir=blocker)
    try:
        view.buttons["export"].click()
        assert "color:#d93b3b" in view.status.value
    finally:
        view.close()


def test_no_scores_yet_and_skipped_lines_are_said(tmp_path):
    (tmp_path / "ada.jsonl").write_text("{broken\n")
    from minikafka.drills import ClassReport
    fragment = teacher_html(ClassReport.load(tmp_path))
    assert fragment.count("no scores yet") == 2
    assert "1 line(s) skipped" in fragment and "not JSON" in fragment
