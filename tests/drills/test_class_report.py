"""The teacher's view over many scores files (minikafka/drills/class_report.py)."""

import csv
import io
import json

import pytest

from minikafka.drills import ClassReport, DrillError, load_scores


def line(learner, drill, score, correct, time_s, seed=1, maximum=6):
    return json.dumps({"learner": learner, "drill": drill, "kind": "predict", "seed": seed,
                       "answers": {}, "correct": correct, "score": score, "max": maximum,
                       "hints": 0, "time_s": time_s, "at": "2026-01-05T09:00:00Z"})


@pytest.fixture
def class_folder(tmp_path):
    (tmp_path / "ada.jsonl").write_text(
        line("ada", "leader-crash", 6, {"a": True, "b": True, "c": True}, 100) + "\n" +
        line("ada", "acks1-data-loss", 2, {"a": True, "b": False, "c": False}, 300) + "\n")
    (tmp_path / "bob.jsonl").write_text(
        line("bob", "leader-crash", 4, {"a": True, "b": True, "c": False}, 200) + "\n\n" +
        "not json at all\n" + json.dumps({"learner": "bob"}) + "\n")
    (tmp_path / "notes.txt").write_text("ignored: not a .jsonl file")
    return tmp_path


def test_many_files_make_one_table_per_drill_and_per_learner(class_folder):
    report = ClassReport.load(class_folder)
    assert len(report.attempts) == 3
    assert report.by_drill() == [
        {"drill": "acks1-data-loss", "attempts": 1, "learners": 1, "correct": 1, "asked": 3,
         "mean_score_pct": 33, "median_time_s": 300.0},
        {"drill": "leader-crash", "attempts": 2, "learners": 2, "correct": 5, "asked": 6,
         "mean_score_pct": 83, "median_time_s": 150.0}]
    assert report.by_learner() == [
        {"learner": "ada", "attempts": 2, "drills": 2, "correct": 4, "asked": 6, "score": 8,
         "max": 12, "median_time_s": 200.0},
        {"learner": "bob", "attempts": 1, "drills": 1, "correct": 2, "asked": 3, "score": 4,
         "max": 6, "median_time_s": 200.0}]


def test_damaged_lines_are_skipped_and_listed_never_fatal(class_folder):
    report = ClassReport.load(class_folder)
    assert len(report.problems) == 2
    assert report.problems[0].endswith("bob.jsonl line 3: skipped (not JSON)")
    assert report.problems[1].endswith("bob.jsonl line 4: skipped (field 'drill' missing or not str)")
    assert "2 line(s) skipped:" in report.text()


def test_files_folders_and_patterns_can_be_mixed_without_counting_twice(class_folder):
    attempts, _ = load_scores(class_folder / "ada.jsonl", class_folder, str(class_folder / "b*.jsonl"))
    assert sorted(a.learner for a in attempts) == ["ada", "ada", "bob"]


def test_csv_export_of_each_table(class_folder, tmp_path):
    report = ClassReport.load(class_folder)
    rows = list(csv.DictReader(io.StringIO(report.to_csv(table="drills"))))
    assert [(r["drill"], r["attempts"], r["correct"]) for r in rows] == [
        ("acks1-data-loss", "1", "1"), ("leader-crash", "2", "5")]
    target = tmp_path / "out" / "learners.csv"
    target.parent.mkdir()
    report.to_csv(target, table="learners")
    assert target.read_text().splitlines()[0] == "learner,attempts,drills,correct,asked,score,max,median_time_s"
    attempts = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert len(attempts) == 3 and attempts[0]["source"].endswith("ada.jsonl")
    assert ClassReport([]).to_csv(table="drills").startswith("drill,attempts,")


def test_the_text_view(class_folder):
    text = ClassReport.load(class_folder).text()
    drills_table, learners_table, _ = text.split("\n\n")
    assert drills_table.splitlines()[2].split() == ["leader-crash", "2", "2", "5/6", "83", "150.0"]
    assert learners_table.splitlines()[1].split() == ["ada", "2", "2", "4/6", "8/12", "200.0"]


def test_bad_paths_and_tables_are_refused_in_one_line(tmp_path):
    with pytest.raises(DrillError, match="No scores file or folder at .*missing.jsonl"):
        ClassReport.load(tmp_path / "missing.jsonl")
    with pytest.raises(DrillError, match="needs at least one file"):
        load_scores()
    with pytest.raises(DrillError, match="table must be 'attempts', 'drills' or 'learners'"):
        ClassReport([]).to_csv(table="everything")
