"""`progress_report`: the learner's progress per lesson, beside what each lesson offers."""

from __future__ import annotations

import json

from minikafka.course.progress import ProgressLog
from widgets import progress_report


def lesson(path, title, predictions, tasks):
    code = ["p = Prediction('q', kind='bool')\n"] * predictions + ["t = Task('x', check=f)\n"] * tasks
    path.write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "source": [f"# {title}\n", "text"]},
        {"cell_type": "code", "source": code}]}))


def test_the_report_counts_per_lesson(tmp_path):
    lesson(tmp_path / "01_a.ipynb", "Lesson 01 · Brokers", 4, 3)
    lesson(tmp_path / "02_b.ipynb", "Lesson 02 · Sizing", 5, 3)
    (tmp_path / "notes.ipynb").write_text("{}")              # not a lesson
    lesson(tmp_path / "00_index.ipynb", "Index", 0, 0)        # offers nothing: no row
    log = ProgressLog(tmp_path / "progress.jsonl", learner="ada")
    log.record("01_a", "prediction", "p1", answered=True, correct=True)
    log.record("01_a", "prediction", "p2", answered=True, correct=False)
    log.record("01_a", "prediction", "p3", answered=False, correct=False)
    log.record("01_a", "task", "t1", done=True, solution_ran=False)
    log.record("01_a", "task", "t2", done=True, solution_ran=True)
    report = progress_report(tmp_path, progress=log)
    assert report.text().splitlines()[1:] == [
        "  Lesson 01 · Brokers: predictions 2 made of 4, 1 right; tasks 1 done of 3",
        "  Lesson 02 · Sizing: predictions 0 made of 5, 0 right; tasks 0 done of 3"]
    html = report._repr_html_()
    assert "<td style='padding:2px 8px'>2 / 4</td>" in html and "Lesson 02 · Sizing" in html


def test_no_progress_yet_and_no_machine_paths(tmp_path, monkeypatch):
    lesson(tmp_path / "01_a.ipynb", "Lesson 01", 4, 3)
    monkeypatch.setenv("HOME", str(tmp_path))
    log = ProgressLog(tmp_path / ".local" / "share" / "minikafka" / "progress.jsonl", learner="ada")
    report = progress_report(tmp_path, progress=log)
    assert report.problem == "no progress recorded yet"
    assert report.source == "~/.local/share/minikafka/progress.jsonl"


def test_the_repositorys_lessons_offer_predictions_and_tasks():
    from pathlib import Path
    lessons = Path(__file__).resolve().parents[2] / "lessons"
    report = progress_report(lessons, progress=ProgressLog(lessons / "no-such-file.jsonl", "x"))
    assert [r.lesson[:2] for r in report.rows] == ["01", "02", "03", "04", "05", "06", "07"]
    for row in report.rows:          # issue 22: at least 4 graded predictions and 3 tasks a lesson
        assert row.predictions >= 4 and row.tasks >= 3, row
