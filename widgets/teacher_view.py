"""`TeacherView`: a class's drill scores on one screen, per drill and per learner, with CSV export.

Theory of operation
-------------------
The view reads scores through `minikafka.drills.ClassReport`: the files,
folders of ``*.jsonl`` or glob patterns it is given; given none, the class's
score service when ``MINIKAFKA_SCORE_SERVICE`` names one (with the
teacher's own hub token, which must hold the service's class scope,
`minikafka.classroom`), else the folder or file ``MINIKAFKA_SCOREBOARD``
names.  It shows the two tables as HTML: per drill
(attempts, learners, correct answers out of those graded, mean score,
median time) and per learner (attempts, drills, correct answers, points,
median time).  Lines that could not be read are listed below, never fatal;
a service that cannot be reached or refuses shows its one-line error in
the status line above empty tables.

**Reload** reads the files again (learners keep finishing drills during a
class); **Export CSV** writes ``drills.csv``, ``learners.csv`` and
``attempts.csv`` into ``export_dir``.  `teacher_html` gives the tables as
an HTML fragment without a widget.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

import ipywidgets

from widgets.still import StillPicture
from widgets.theme import ERROR_COLOUR

_DRILL_COLUMNS = [("drill", "Drill"), ("attempts", "Attempts"), ("learners", "Learners"),
                  ("correct", "Correct"), ("mean_score_pct", "Mean score %"),
                  ("median_time_s", "Median time (s)")]
_LEARNER_COLUMNS = [("learner", "Learner"), ("attempts", "Attempts"), ("drills", "Drills"),
                    ("correct", "Correct"), ("score", "Points"), ("median_time_s", "Median time (s)")]


def _cell(row: dict[str, Any], key: str) -> str:
    if key == "correct":
        return f"{row['correct']} / {row['asked']}"
    if key == "score":
        return f"{row['score']} / {row['max']}"
    value = row[key]
    return "-" if value is None else str(value)


def _table(rows: list[dict[str, Any]], columns: list[tuple[str, str]], title: str) -> str:
    head = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(label)}</th>"
                   for _, label in columns)
    body = "".join("<tr>" + "".join(f"<td style='padding:2px 8px'>{html.escape(_cell(r, k))}</td>"
                                    for k, _ in columns) + "</tr>" for r in rows)
    empty = "" if rows else f"<tr><td colspan='{len(columns)}'><i>no scores yet</i></td></tr>"
    return f"<b>{html.escape(title)}</b><table><tr>{head}</tr>{body}{empty}</table>"


def teacher_html(report) -> str:
    """Both tables (and the skipped lines) of a `ClassReport` as one HTML fragment."""
    parts = [_table(report.by_drill(), _DRILL_COLUMNS, "Per drill"),
             _table(report.by_learner(), _LEARNER_COLUMNS, "Per learner")]
    if report.problems:
        skipped = "".join(f"<li>{html.escape(p)}</li>" for p in report.problems)
        parts.append(f"<b>{len(report.problems)} line(s) skipped</b><ul>{skipped}</ul>")
    return "<br>".join(parts)


def default_scores_location() -> Path:
    """Where the learners' scores are when nothing is named: MINIKAFKA_SCOREBOARD, else this
    user's default scores file."""
    from minikafka.drills import scoreboard
    named = os.environ.get(scoreboard.ENV_VAR)
    return Path(named).expanduser() if named else scoreboard.scoreboard_path("any")


def load_report(paths: tuple[str | os.PathLike, ...]) -> tuple[Any, str]:
    """The `ClassReport` of ``paths``, else of the score service when one is configured, else of
    `default_scores_location`; and a one-line problem to show ("" when none)."""
    from minikafka.classroom import SCORE_SERVICE_ENV
    from minikafka.drills import ClassReport, DrillError
    if paths or not os.environ.get(SCORE_SERVICE_ENV):
        return ClassReport.load(*(paths or (default_scores_location(),))), ""
    try:
        return ClassReport.from_service(), ""
    except DrillError as error:
        return ClassReport([], []), str(error)


def _error_html(text: str) -> str:
    return f'<span style="color:{ERROR_COLOUR}">{html.escape(text)}</span>'


class TeacherView(ipywidgets.VBox):
    def __init__(self, *paths: str | os.PathLike, export_dir: str | os.PathLike = "."):
        self.paths = paths
        self.export_dir = Path(export_dir)
        self.report, problem = load_report(paths)
        self.tables = ipywidgets.HTML(teacher_html(self.report))
        self.status = ipywidgets.HTML(_error_html(problem) if problem else "")
        self.buttons = {"reload": ipywidgets.Button(description="Reload", button_style="info"),
                        "export": ipywidgets.Button(description="Export CSV", button_style="success")}
        self.buttons["reload"].on_click(lambda _b: self.reload())
        self.buttons["export"].on_click(lambda _b: self._export())
        super().__init__(children=[ipywidgets.HBox(list(self.buttons.values())), self.status,
                                   self.tables])
        self.still = StillPicture(lambda: ipywidgets.Widget._repr_mimebundle_(self),
                                  lambda: self.tables.value, lambda: repr(self))

    def _ipython_display_(self) -> None:
        self.still.display()

    def reload(self) -> None:
        """Read the scores (files or service) again."""
        self.report, problem = load_report(self.paths)
        self.tables.value = teacher_html(self.report)
        self.status.value = _error_html(problem) if problem else f"{len(self.report.attempts)} attempts read"

    def export(self) -> list[Path]:
        """Write drills.csv, learners.csv and attempts.csv into ``export_dir``; their paths."""
        self.export_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for table in ("drills", "learners", "attempts"):
            target = self.export_dir / f"{table}.csv"
            self.report.to_csv(target, table=table)
            written.append(target)
        return written

    def _export(self) -> None:
        try:
            written = self.export()
        except Exception as error:          # shown in the view, never raised into the kernel
            self.status.value = _error_html(str(error))
            return
        self.status.value = "wrote " + ", ".join(html.escape(str(p)) for p in written)

    def __repr__(self) -> str:
        return f"TeacherView(attempts={len(self.report.attempts)})"
