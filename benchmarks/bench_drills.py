"""Drills: start to grade, simulated (< 5 s) and live (< 30 s); the teacher's view of 40 x 12 (< 1 s).

Measured (wall-clock seconds, no asserts):

* every simulated drill of the catalogue, from ``drills.start`` to ``drill.grade``
  (answers given, scenario run, graded, closed), over seeds 1-3: median and worst;
* each live drill, start to grade, seeds 1 and 2;
* the teacher's view of a class of 40 learners who each graded the 12 drills once
  (40 files of 12 JSON lines): ``ClassReport.load`` plus both tables, the text and
  the three CSV exports, and the HTML of `TeacherView`.

    .venv/bin/python benchmarks/bench_drills.py [--no-live]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minikafka import drills  # noqa: E402

SEEDS = (1, 2, 3)


def start_to_grade(drill_id: str, seed: int) -> float:
    started = time.perf_counter()
    drill = drills.start(drill_id, seed=seed, record=False, learner="bench")
    try:
        for question in drill.questions:
            if question.when == "before" and question.type == "number":
                drill.answer(question.id, 1)
        drill.run()
        drill.grade()
    finally:
        drill.close()
    return time.perf_counter() - started


def class_of(folder: Path, learners: int = 40, per_learner: int = 12) -> None:
    rows = drills.catalogue()
    for n in range(learners):
        with open(folder / f"learner-{n:02d}.jsonl", "w") as scores:
            for k in range(per_learner):
                row = rows[k % len(rows)]
                correct = {f"q{i}": (n + k + i) % 3 != 0 for i in range(3)}
                scores.write(json.dumps({
                    "learner": f"learner-{n:02d}", "drill": row.id, "kind": row.kind, "seed": n,
                    "answers": {q: 1 for q in correct}, "correct": correct,
                    "score": 2 * sum(correct.values()), "max": 6, "hints": k % 2,
                    "time_s": 60.0 + (n * 7 + k * 13) % 500, "at": "2026-01-12T10:00:00Z"}) + "\n")


def teacher_view_seconds(folder: Path) -> float:
    from widgets.teacher_view import teacher_html
    started = time.perf_counter()
    report = drills.ClassReport.load(folder)
    report.by_drill(), report.by_learner(), report.text()
    for table in ("attempts", "drills", "learners"):
        report.to_csv(table=table)
    teacher_html(report)
    assert len(report.attempts) == 480
    return time.perf_counter() - started


def main(live: bool = True) -> None:
    os.environ.setdefault("MINIKAFKA_SCOREBOARD", tempfile.mkdtemp(prefix="bench-drills-") + "/")
    start_to_grade("leader-crash", 99)          # imports and first-use costs, not measured
    print("simulated drills, start to grade (target < 5 s):")
    worst_all = []
    for row in drills.catalogue():
        if row.live:
            continue
        times = [start_to_grade(row.id, seed) for seed in SEEDS]
        worst_all.append(max(times))
        print(f"  {row.id:28} median {statistics.median(times):5.2f} s, worst {max(times):5.2f} s")
    print(f"  worst of all: {max(worst_all):.2f} s")
    if live:
        print("live drills, start to grade (target < 30 s):")
        for row in drills.catalogue():
            if row.live:
                times = [start_to_grade(row.id, seed) for seed in (1, 2)]
                print(f"  {row.id:28} " + ", ".join(f"{t:5.2f} s" for t in times))
    with tempfile.TemporaryDirectory() as folder:
        class_of(Path(folder))
        runs = [teacher_view_seconds(Path(folder)) for _ in range(5)]
        print(f"teacher's view of 40 learners x 12 drills (target < 1 s): median "
              f"{statistics.median(runs) * 1000:.0f} ms, worst {max(runs) * 1000:.0f} ms")


if __name__ == "__main__":
    main(live="--no-live" not in sys.argv[1:])
