"""Issue 22 in the stored lessons: graded predictions asked before they are revealed, tasks the
learner writes, and no right answer saved in the repository's notebooks.

Read from the notebooks' code (the order of cells is the order a learner meets them):

* every ``name = Prediction(...)`` is revealed by a ``name.reveal(...)`` in a *later* cell,
  with cells in between (the cells that make it happen);
* every ``name.answer(...)`` in the stored notebook still holds the placeholder ``...``,
  and every reveal's saved output is the unanswered verdict;
* every ``name = Task(...)`` has a ``name.check()`` in a later cell;
* lessons 01-07 have at least 4 predictions and 3 tasks each on their main path (before
  the optional "Going deeper" part);
* every cell whose code holds an answer (a reveal and its explanation, a task's hint and
  solution) is folded in JupyterLab (``source_hidden``), so reading down never shows it first;
* no saved widget state (it would carry whatever a run left in the answer widgets).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
COURSE = sorted(p for p in LESSONS.glob("0[1-9]_*.ipynb"))
ASSIGNED = re.compile(r"^(\w+)\s*=\s*(Prediction|Task)\(", re.M)


def code_cells(notebook: Path) -> list[dict]:
    return [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def text_of(cell: dict) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "".join(parts)


def made(notebook: Path, kind: str) -> dict[str, int]:
    """name -> index of the code cell that makes it."""
    found = {}
    for index, cell in enumerate(code_cells(notebook)):
        for name, what in ASSIGNED.findall(source(cell)):
            if what == kind:
                found[name] = index
    return found


def main_path_code_cells(notebook: Path) -> int:
    """How many code cells come before the lesson's "Going deeper (optional)" part."""
    count = 0
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] == "markdown" and source(cell).startswith("## Going deeper (optional)"):
            break
        count += cell["cell_type"] == "code"
    return count


def test_the_course_has_its_lessons():
    assert [p.name[:2] for p in COURSE] == ["01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("notebook", COURSE, ids=lambda p: p.name)
def test_predictions_are_asked_then_revealed_later_and_never_answered(notebook):
    cells = code_cells(notebook)
    predictions = made(notebook, "Prediction")
    on_main_path = [i for i in predictions.values() if i < main_path_code_cells(notebook)]
    assert len(on_main_path) >= 4, f"{notebook.name}: {len(on_main_path)} predictions on its main path"
    for name, asked in predictions.items():
        reveals = [i for i, c in enumerate(cells) if re.search(rf"\b{name}\.reveal\(", source(c))]
        assert reveals, f"{name} is never revealed"
        assert min(reveals) > asked + 1, f"{name} is revealed right after it is asked: no cell makes it happen"
        for index in reveals:
            assert "No prediction was committed" in text_of(cells[index]), \
                f"{notebook.name}: the saved reveal of {name} is not the unanswered verdict"
        for cell in cells:
            for argument in re.findall(rf"\b{name}\.answer\((.*?)\)", source(cell)):
                assert argument.strip() == "...", f"{name}.answer({argument}) is saved in the lesson"


@pytest.mark.parametrize("notebook", COURSE, ids=lambda p: p.name)
def test_tasks_are_checked_after_the_learners_cell(notebook):
    cells = code_cells(notebook)
    tasks = made(notebook, "Task")
    on_main_path = [i for i in tasks.values() if i < main_path_code_cells(notebook)]
    assert len(on_main_path) >= 3, f"{notebook.name}: {len(on_main_path)} tasks on its main path"
    for name, given in tasks.items():
        checks = [i for i, c in enumerate(cells) if re.search(rf"\b{name}\.check\(\)", source(c))]
        assert checks and min(checks) > given + 1, f"{name}: no learner's cell before its check"


@pytest.mark.parametrize("notebook", sorted(LESSONS.glob("*.ipynb")) + sorted(LESSONS.glob("drills/*.ipynb")),
                         ids=lambda p: p.name)
def test_no_saved_widget_state(notebook):
    assert "widgets" not in json.loads(notebook.read_text())["metadata"]


@pytest.mark.parametrize("notebook", COURSE, ids=lambda p: p.name)
def test_cells_holding_answers_are_folded(notebook):
    unfolded = [source(c)[:60] for c in code_cells(notebook)
                if re.search(r"\b\w+\.reveal\(|^\w+\s*=\s*Task\(", source(c), re.M)
                and not c["metadata"].get("jupyter", {}).get("source_hidden")]
    assert unfolded == [], f"{notebook.name}: run scripts/hide_answer_cells.py; not folded: {unfolded}"
    # JupyterLab shows a folded cell's first line: the reveal or the Task, never its explanation.
    for cell in code_cells(notebook):
        if cell["metadata"].get("jupyter", {}).get("source_hidden"):
            first = source(cell).split("\n")[0]
            assert re.match(r"^\w+(\.reveal\(|\s*=\s*Task\()", first) and "why=" not in first, first
