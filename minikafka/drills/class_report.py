"""`ClassReport`: the teacher's view of one or many scores files.

Theory of operation
-------------------
Each graded drill left one JSON line in a scores file (see `scoreboard`)
or with the class's score service on a JupyterHub (`minikafka.classroom`).
A teacher loads the service's lines (`ClassReport.from_service`, with a
token holding the service's class scope) or collects the files (files
learners uploaded, a folder) and loads them all: `load_scores` accepts
files, folders (every ``*.jsonl`` inside) and glob patterns.  A line that is not
a score record (not JSON, a field missing) is skipped and listed in
``problems``, never fatal: one learner's damaged file must not hide the
class.

Two tables come out of the attempts:

* per drill: attempts, learners, correct answers out of answers given
  (questions and health checks), mean score in percent, median time;
* per learner: attempts, drills tried, correct answers, points, median time.

`text` prints both; `to_csv` exports the attempts or either table.

Not a Kafka concept: the teaching layer's records.
"""

from __future__ import annotations

import csv
import glob
import io
import json
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from minikafka.classroom.score_client import (SCORE_SERVICE_ENV, ScoreServiceClient, ScoreServiceError,
                                              client_from_environment)
from minikafka.drills.question import DrillError

_REQUIRED = {"learner": str, "drill": str, "score": int, "max": int, "correct": dict}


@dataclass(frozen=True, slots=True)
class Attempt:
    learner: str
    drill: str
    kind: str
    seed: Any
    score: int
    max: int
    correct: int            # questions and checks right
    asked: int              # questions and checks graded
    hints: int
    time_s: float | None
    at: str
    source: str             # the file it came from


def _files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    found: list[Path] = []
    for given in paths:
        text = os.fspath(given)
        path = Path(text).expanduser()
        if path.is_dir():
            found += sorted(path.glob("*.jsonl"))
        elif path.is_file():
            found.append(path)
        elif any(c in text for c in "*?["):
            found += sorted(Path(p) for p in glob.glob(os.path.expanduser(text)) if Path(p).is_file())
        else:
            raise DrillError(f"No scores file or folder at {text}")
    return list(dict.fromkeys(found))


def _attempt(record: Any, source: str) -> Attempt:
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    for name, kind in _REQUIRED.items():
        if not isinstance(record.get(name), kind) or isinstance(record.get(name), bool):
            raise ValueError(f"field {name!r} missing or not {kind.__name__}")
    correct = record["correct"]
    time_s = record.get("time_s")
    return Attempt(record["learner"], record["drill"], str(record.get("kind", "")),
                   record.get("seed"), record["score"], record["max"],
                   sum(1 for v in correct.values() if v is True), len(correct),
                   int(record.get("hints", 0) or 0),
                   float(time_s) if isinstance(time_s, (int, float)) else None,
                   str(record.get("at", "")), source)


def read_lines(records: Iterable[Any], source: str) -> tuple[list[Attempt], list[str]]:
    """The attempts among already-parsed score lines (from the score service), and those skipped."""
    attempts, problems = [], []
    for number, record in enumerate(records, 1):
        try:
            attempts.append(_attempt(record, source))
        except ValueError as error:
            problems.append(f"{source} line {number}: skipped ({error})")
    return attempts, problems


def load_scores(*paths: str | os.PathLike) -> tuple[list[Attempt], list[str]]:
    """Every attempt in the given files, folders or patterns, and the lines skipped."""
    if not paths:
        raise DrillError("load_scores needs at least one file, folder or pattern")
    attempts, problems = [], []
    for path in _files(paths):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            problems.append(f"{path}: cannot be read ({error})")
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                problems.append(f"{path} line {number}: skipped (not JSON)")
                continue
            try:
                attempts.append(_attempt(record, str(path)))
            except ValueError as error:
                problems.append(f"{path} line {number}: skipped ({error})")
    return attempts, problems


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 1) if known else None


@dataclass
class ClassReport:
    attempts: list[Attempt]
    problems: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, *paths: str | os.PathLike) -> "ClassReport":
        attempts, problems = load_scores(*paths)
        return cls(attempts, problems)

    @classmethod
    def from_service(cls, client: ScoreServiceClient | None = None) -> "ClassReport":
        """The class's lines from the score service (``client``, else ``MINIKAFKA_SCORE_SERVICE`` with
        this user's hub token); an empty class is an empty report.  `DrillError` in one line when the
        service is not configured, cannot be reached or refuses (a learner's token)."""
        try:
            client = client or client_from_environment()
            if client is None:
                raise DrillError(f"No score service: {SCORE_SERVICE_ENV} is not set")
            lines = client.class_lines()
        except ScoreServiceError as error:
            raise DrillError(str(error)) from None
        attempts, problems = read_lines(lines, client.url)
        return cls(attempts, problems)

    def _grouped(self, key: str) -> dict[str, list[Attempt]]:
        groups: dict[str, list[Attempt]] = {}
        for attempt in self.attempts:
            groups.setdefault(getattr(attempt, key), []).append(attempt)
        return dict(sorted(groups.items()))

    def by_drill(self) -> list[dict[str, Any]]:
        rows = []
        for drill, group in self._grouped("drill").items():
            points = sum(a.max for a in group)
            rows.append({"drill": drill, "attempts": len(group),
                         "learners": len({a.learner for a in group}),
                         "correct": sum(a.correct for a in group), "asked": sum(a.asked for a in group),
                         "mean_score_pct": round(100 * sum(a.score for a in group) / points) if points else 0,
                         "median_time_s": _median([a.time_s for a in group])})
        return rows

    def by_learner(self) -> list[dict[str, Any]]:
        rows = []
        for learner, group in self._grouped("learner").items():
            rows.append({"learner": learner, "attempts": len(group),
                         "drills": len({a.drill for a in group}),
                         "correct": sum(a.correct for a in group), "asked": sum(a.asked for a in group),
                         "score": sum(a.score for a in group), "max": sum(a.max for a in group),
                         "median_time_s": _median([a.time_s for a in group])})
        return rows

    def rows(self, table: str = "attempts") -> list[dict[str, Any]]:
        if table == "attempts":
            return [{"learner": a.learner, "drill": a.drill, "kind": a.kind, "seed": a.seed,
                     "score": a.score, "max": a.max, "correct": a.correct, "asked": a.asked,
                     "hints": a.hints, "time_s": a.time_s, "at": a.at, "source": a.source}
                    for a in self.attempts]
        if table == "drills":
            return self.by_drill()
        if table == "learners":
            return self.by_learner()
        raise DrillError(f"table must be 'attempts', 'drills' or 'learners', not {table!r}")

    def to_csv(self, path: str | os.PathLike | None = None, table: str = "attempts") -> str:
        """The table as CSV text; also written to ``path`` when given."""
        rows = self.rows(table)
        out = io.StringIO()
        columns = list((rows or _EMPTY_COLUMNS[table])[0])
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        text = out.getvalue()
        if path is not None:
            try:
                Path(path).write_text(text, encoding="utf-8")
            except OSError as error:
                raise DrillError(f"Cannot write {path}: {error.strerror}") from None
        return text

    def text(self) -> str:
        """Both tables as plain text (and the skipped lines, if any)."""
        def cell(value):
            return "-" if value is None else str(value)
        drills = [f"{'DRILL':28} {'ATTEMPTS':>8} {'LEARNERS':>8} {'CORRECT':>9} {'MEAN %':>6} "
                  f"{'MEDIAN S':>8}"]
        drills += [f"{r['drill']:28} {r['attempts']:>8} {r['learners']:>8} "
                   f"{str(r['correct']) + '/' + str(r['asked']):>9} {r['mean_score_pct']:>6} "
                   f"{cell(r['median_time_s']):>8}" for r in self.by_drill()]
        learners = [f"{'LEARNER':20} {'ATTEMPTS':>8} {'DRILLS':>6} {'CORRECT':>9} {'POINTS':>9} "
                    f"{'MEDIAN S':>8}"]
        learners += [f"{r['learner'][:20]:20} {r['attempts']:>8} {r['drills']:>6} "
                     f"{str(r['correct']) + '/' + str(r['asked']):>9} "
                     f"{str(r['score']) + '/' + str(r['max']):>9} {cell(r['median_time_s']):>8}"
                     for r in self.by_learner()]
        parts = ["\n".join(drills), "\n".join(learners)]
        if self.problems:
            parts.append(f"{len(self.problems)} line(s) skipped:\n" + "\n".join(self.problems))
        return "\n\n".join(parts)


_EMPTY_COLUMNS = {
    "attempts": [{"learner": "", "drill": "", "kind": "", "seed": "", "score": "", "max": "",
                  "correct": "", "asked": "", "hints": "", "time_s": "", "at": "", "source": ""}],
    "drills": [{"drill": "", "attempts": "", "learners": "", "correct": "", "asked": "",
                "mean_score_pct": "", "median_time_s": ""}],
    "learners": [{"learner": "", "attempts": "", "drills": "", "correct": "", "asked": "",
                  "score": "", "max": "", "median_time_s": ""}],
}
