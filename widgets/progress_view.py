"""`progress_report`: this learner's progress per lesson, for the index notebook.

Theory of operation
-------------------
The lessons' `Prediction` and `Task` append lines to the learner's progress
file (`minikafka.course.progress`).  The report folds them per lesson and
sets them beside what each lesson offers, counted from the notebooks in the
folder (the number of ``Prediction(`` and ``Task(`` calls in their code
cells), so a row reads "5 predictions: 3 made, 2 right · 3 tasks: 1 done".
A task done only by the lesson's own catch-up, not by the learner, does not
count as done.  A notebook that offers neither (the index itself) has no row.
Re-run the cell to refresh it.

`progress_report` returns a `ProgressReport`, displayed as an HTML table
with the same table as plain text.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from minikafka.course.progress import ProgressLog, lesson_summary, progress_path

_LESSON = re.compile(r"^\d\d_.+\.ipynb$")
_CALL = {"predictions": re.compile(r"\bPrediction\("), "tasks": re.compile(r"\bTask\(")}


@dataclass(frozen=True)
class ProgressRow:
    lesson: str
    title: str
    predictions: int
    made: int
    right: int
    tasks: int
    done: int


def offered(notebook: Path) -> tuple[str, int, int]:
    """A lesson's title (its first heading) and how many predictions and tasks its code makes."""
    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    title = notebook.stem
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            first = "".join(cell.get("source", [])).strip().splitlines()[:1]
            if first and first[0].startswith("#"):
                title = first[0].lstrip("# ").strip()
                break
    code = "\n".join("".join(c.get("source", [])) for c in cells if c.get("cell_type") == "code")
    return title, len(_CALL["predictions"].findall(code)), len(_CALL["tasks"].findall(code))


@dataclass(frozen=True)
class ProgressReport:
    rows: tuple[ProgressRow, ...]
    source: str
    problem: str | None = None

    def text(self) -> str:
        lines = [f"Your progress (from {self.source}):"]
        for r in self.rows:
            lines.append(f"  {r.title}: predictions {r.made} made of {r.predictions}, {r.right} right;"
                         f" tasks {r.done} done of {r.tasks}")
        if not self.rows:
            lines.append("  no lessons found in this folder")
        if self.problem:
            lines.append("  " + self.problem)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th style='text-align:left;padding:2px 8px'>{h}</th>"
                       for h in ("Lesson", "Predictions made", "Right", "Tasks done"))
        body = "".join(
            f"<tr><td style='padding:2px 8px'>{html.escape(r.title)}</td>"
            f"<td style='padding:2px 8px'>{r.made} / {r.predictions}</td>"
            f"<td style='padding:2px 8px'>{r.right} / {r.predictions}</td>"
            f"<td style='padding:2px 8px'>{r.done} / {r.tasks}</td></tr>" for r in self.rows)
        note = f"<div style='color:#b71c1c'>{html.escape(self.problem)}</div>" if self.problem else ""
        return (f"<b>Your progress</b> <span style='color:#555'>(from {html.escape(self.source)})"
                f"</span><table><tr>{head}</tr>{body}</table>{note}")

    def __repr__(self) -> str:
        return self.text()


def progress_report(folder: str | Path = ".", progress: ProgressLog | None = None) -> ProgressReport:
    """The progress of this learner on the lessons in ``folder`` (the notebook's own folder)."""
    log = progress if progress is not None else ProgressLog()
    summary = lesson_summary(log.read())
    rows = []
    for notebook in sorted(Path(folder).glob("*.ipynb")):
        if not _LESSON.match(notebook.name):
            continue
        title, predictions, tasks = offered(notebook)
        if not predictions and not tasks:           # the index itself, a notes notebook
            continue
        done = summary.get(notebook.stem)
        rows.append(ProgressRow(notebook.stem, title, predictions,
                                done.predictions_made if done else 0,
                                done.predictions_right if done else 0,
                                tasks, done.tasks_done if done else 0))
    problem = None if log.path.exists() or not rows else "no progress recorded yet"
    return ProgressReport(tuple(rows), _source_name(log.path), problem)


def _source_name(path: Path) -> str:
    """The progress file's name without the learner's home folder (no machine paths on screen)."""
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return path.name if path.is_absolute() else str(path)


__all__ = ["ProgressReport", "ProgressRow", "progress_path", "progress_report"]
