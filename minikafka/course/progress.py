"""The learner's progress file: one JSON line per revealed prediction or checked task.

Theory of operation
-------------------
`widgets.Prediction` and `widgets.Task` append a line each time a
prediction is revealed or a task is checked::

    {"learner": "ada", "lesson": "01_brokers_and_topics", "kind": "prediction",
     "id": "which-broker-leads-orders-1", "answered": true, "correct": false,
     "at": "2026-11-28T14:02:11Z"}
    {"learner": "ada", "lesson": "01_brokers_and_topics", "kind": "task",
     "id": "create-payments", "done": true, "solution_shown": false,
     "solution_ran": false, "at": "..."}

Where the file is follows the drills' scoreboard (`minikafka.drills.scoreboard`):
``MINIKAFKA_PROGRESS`` names a folder (``<folder>/<learner>.jsonl``, so a
teacher collects a class's progress as they collect drill scores) or a file;
otherwise ``$XDG_DATA_HOME/minikafka/progress.jsonl``.  The file is never
opened through a symbolic link.

A lesson must never fail because its progress cannot be written: `ProgressLog`
swallows the error and keeps it in ``problem`` (the index shows it).

`lesson_summary` folds the lines into one row per lesson, keeping the last
line per prediction or task (re-running a cell replaces, never adds), except
that a task once done stays done.  The lesson a line belongs to is the
notebook's name, read from the kernel's environment (``JPY_SESSION_NAME``,
which Jupyter sets for every notebook kernel), or given explicitly.

`ClassProgress.load(folder)` reads a class's files (one per learner when
``MINIKAFKA_PROGRESS`` names a shared folder) into one row per learner and
lesson, for the teacher.

Not a Kafka concept: the teaching layer's records.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from minikafka.drills.scoreboard import default_learner, learner_file

ENV_VAR = "MINIKAFKA_PROGRESS"
UNKNOWN_LESSON = "(unknown notebook)"


def progress_path(learner: str | None = None, path: str | os.PathLike | None = None) -> Path:
    """Where ``learner``'s progress goes: ``path``, else ``MINIKAFKA_PROGRESS``, else the default."""
    chosen = os.fspath(path) if path is not None else os.environ.get(ENV_VAR, "")
    return learner_file(learner or default_learner(), chosen, "progress.jsonl")


def current_lesson() -> str:
    """The running notebook's name without ``.ipynb`` (``01_brokers_and_topics``)."""
    session = os.environ.get("JPY_SESSION_NAME", "")
    if not session:
        return UNKNOWN_LESSON
    name = Path(session).name
    return name[:-len(".ipynb")] if name.endswith(".ipynb") else name


class ProgressLog:
    """Appends progress lines for one learner; never raises into a lesson."""

    def __init__(self, path: str | os.PathLike | None = None, learner: str | None = None):
        self.learner = learner or default_learner()
        self.path = progress_path(self.learner, path)
        self.problem: str | None = None

    def record(self, lesson: str, kind: str, id: str, **fields: Any) -> bool:
        line = {"learner": self.learner, "lesson": lesson, "kind": kind, "id": id, **fields,
                "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # never through a link: in a folder a class shares, one planted under a learner's
            # name would send the line into another file of theirs
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
            with open(os.open(self.path, flags, 0o644), "a", encoding="utf-8") as out:
                out.write(json.dumps(line, separators=(", ", ": ")) + "\n")
        except OSError as error:
            self.problem = (f"Cannot write progress to {self.path}: {error.strerror}; set "
                            f"{ENV_VAR} to a writable file or folder")
            return False
        return True

    def read(self) -> list[dict[str, Any]]:
        return read_progress(self.path)


def read_progress(path: Path) -> list[dict[str, Any]]:
    """The lines of a progress file that parse as progress records (others are skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    records = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and {"lesson", "kind", "id"} <= record.keys():
            records.append(record)
    return records


@dataclass
class LessonProgress:
    lesson: str
    predictions_made: int = 0
    predictions_right: int = 0
    predictions_revealed: int = 0
    tasks_done: int = 0
    tasks_checked: int = 0
    _predictions: dict[str, dict] = field(default_factory=dict, repr=False)
    _tasks: dict[str, bool] = field(default_factory=dict, repr=False)


def lesson_summary(records: Iterable[dict[str, Any]]) -> dict[str, LessonProgress]:
    """One `LessonProgress` per lesson named in ``records`` (see the module docstring)."""
    lessons: dict[str, LessonProgress] = {}
    for record in records:
        row = lessons.setdefault(record["lesson"], LessonProgress(record["lesson"]))
        if record["kind"] == "prediction":
            row._predictions[record["id"]] = record
        elif record["kind"] == "task":
            row._tasks[record["id"]] = row._tasks.get(record["id"], False) or bool(
                record.get("done") and not record.get("solution_ran"))
    for row in lessons.values():
        row.predictions_revealed = len(row._predictions)
        row.predictions_made = sum(bool(r.get("answered")) for r in row._predictions.values())
        row.predictions_right = sum(bool(r.get("correct")) for r in row._predictions.values())
        row.tasks_checked = len(row._tasks)
        row.tasks_done = sum(row._tasks.values())
    return lessons


def _progress_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    files: list[Path] = []
    for given in paths:
        path = Path(given).expanduser()
        files += sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    return files


@dataclass(frozen=True)
class ClassProgress:
    """A class's progress: one row per learner and lesson, read from many progress files."""
    rows: tuple[dict[str, Any], ...]

    @classmethod
    def load(cls, *paths: str | os.PathLike) -> "ClassProgress":
        """Files or folders (every ``*.jsonl`` inside), as a teacher collects them; by default
        the folder or file ``MINIKAFKA_PROGRESS`` names."""
        chosen = paths or (os.environ.get(ENV_VAR) or str(progress_path("any")),)
        by_learner: dict[str, list[dict[str, Any]]] = {}
        for path in _progress_files(chosen):
            for record in read_progress(path):
                by_learner.setdefault(str(record.get("learner", path.stem)), []).append(record)
        rows = []
        for learner in sorted(by_learner):
            for lesson, row in sorted(lesson_summary(by_learner[learner]).items()):
                rows.append({"learner": learner, "lesson": lesson,
                             "predictions_made": row.predictions_made,
                             "predictions_right": row.predictions_right,
                             "tasks_done": row.tasks_done})
        return cls(tuple(rows))

    def text(self) -> str:
        header = f"{'learner':12} {'lesson':34} {'predicted':>9} {'right':>5} {'tasks done':>10}"
        lines = [header] + [f"{r['learner']:12} {r['lesson']:34} {r['predictions_made']:>9} "
                            f"{r['predictions_right']:>5} {r['tasks_done']:>10}" for r in self.rows]
        return "\n".join(lines if self.rows else [header, "(no progress lines yet)"])
