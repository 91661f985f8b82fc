"""Lesson 04's stepper cells survive the stepper's own buttons.

The learner may press any button of the view ``stepper.view()`` shows, at any
time, before running the next cell.  This runs the lesson's cells that drive
``stepper`` (from the cell that shows the view to the reveal of the commit
prediction, leaving out the cells about the simulated and live clusters) in
one namespace, with a button pressed (or a few in a row) through the view's
own ``press`` just before one of those cells, and checks that no cell raises.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "04_kraft_controller_quorum.ipynb"
OTHER_CLUSTERS = ("sim.", "sim,", "lonely", "live.", "p_restart")

# (button, controller chosen in the view) pressed in a row
PRESSES = {
    "isolate 1001": [("isolate", 1001)],
    "isolate 1003 (the leader)": [("isolate", 1003)],
    "isolate twice": [("isolate", 1002), ("isolate", 1002)],
    "isolate two": [("isolate", 1001), ("isolate", 1002)],
    "heal": [("heal", 1001)],
    "back": [("back", 1001), ("back", 1001)],
    "run until leader twice": [("run_until_leader", 1001), ("run_until_leader", 1001)],
    "next event": [("next_event", 1001)],
    "time out 1002": [("timeout", 1002)],
}


def stepper_cells() -> list[tuple[int, str]]:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells]
    first = next(i for i, s in enumerate(sources) if "stepper.view()" in s)
    last = next(i for i, s in enumerate(sources) if "p_one_follower.reveal" in s)
    return [(i, sources[i]) for i in range(first, last + 1)
            if cells[i]["cell_type"] == "code" and not any(w in sources[i] for w in OTHER_CLUSTERS)]


CELLS = stepper_cells()
# just before: the prediction, the learner's election cell, the reading of the leader, the
# isolate task, the commit cell
PRESS_BEFORE = [i for i, source in CELLS if source.startswith(("p_first_leader = ",
                                                               "# Your code here: step",
                                                               "leader = stepper.",
                                                               "t_isolate.check()",
                                                               "leader, cut_off = "))]


def run_lesson(press_before: int, presses: list[tuple[str, int]]) -> dict:
    from minikafka.course import lesson04
    from widgets import Prediction, Task, checks
    namespace = {"Prediction": Prediction, "Task": Task, "checks": checks, "lesson04": lesson04}
    view = None
    for index, source in CELLS:
        if index == press_before:
            for name, controller in presses:
                view.controller.value = controller
                view.press(name)
                assert "\n" not in view.last_status and "Traceback" not in view.status.value
        source = source.replace("stepper.view()", "view = stepper.view()")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, f"<lesson 04 cell {index}>", "exec"), namespace)
        view = namespace.get("view", view)
    return namespace


def test_the_cells_and_press_points_are_found():
    assert len(CELLS) >= 12 and len(PRESS_BEFORE) == 5


@pytest.mark.parametrize("press_before", PRESS_BEFORE)
@pytest.mark.parametrize("presses", sorted(PRESSES))
def test_no_stepper_cell_fails_after_a_button_press(press_before, presses, tmp_path, monkeypatch):
    monkeypatch.setenv("MINIKAFKA_PROGRESS", str(tmp_path / "progress.jsonl"))
    monkeypatch.setenv("MINIKAFKA_SCOREBOARD", str(tmp_path / "scores"))
    namespace = run_lesson(press_before, PRESSES[presses])
    stepper = namespace["stepper"]
    assert namespace["leader"] in stepper.node_ids
    assert namespace["committed"] is True and stepper.isolated == ()
