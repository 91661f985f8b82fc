"""Lesson 01 as a learner meets it: a cleared copy, a prediction answered in its widget, a task done.

Theory of operation
-------------------
JupyterLab serves the *learner's copy* of the lessons, made by
`minikafka.course.learner_copies.make_copies` exactly as ``make lab`` makes
it (no outputs), and Chromium opens lesson 01.  Two learner paths:

* **A prediction through its widget.**  The test runs every cell down to the
  lesson's first ``name = Prediction(...)`` cell, picks an answer in the
  widget's drop-down and presses *Commit*, then runs the cells from there to
  the reveal (selected as a range, as a learner pressing Shift+Enter would,
  so the prediction is not made again).  The reveal's output must name the
  answer picked and the cluster's value, and say "Right" exactly when they
  are equal.
* **A task.**  The test runs down to the lesson's first ``name = Task(...)``
  cell, presses *Solution* and reads the code from the widget, types it into
  the empty cell below (as a learner would, with the keyboard), runs that
  cell and presses *Check*: the widget must say the cluster shows it done.

Both write to the learner's progress file, named by ``MINIKAFKA_PROGRESS``;
the test reads it back, and the lesson named there must be the notebook's
(Jupyter tells the kernel through ``JPY_SESSION_NAME``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_page import (KERNEL_IDLE_JS, NOTEBOOK_JSON_JS, RUN_COMMAND_JS,
                      RUN_STATE_JS, error_outputs, lab_page, poll_until)
from lab_server import LabServer
from minikafka.course.learner_copies import make_copies

playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
LESSON = "01_brokers_and_topics.ipynb"
VIEWPORT = {"width": 1280, "height": 1100}
OPEN_TIMEOUT_S = 90
RUN_TIMEOUT_S = 180
WIDGET_TIMEOUT_S = 30
ASSIGNED = re.compile(r"^(\w+)\s*=\s*(Prediction|Task)\(", re.M)

pytestmark = pytest.mark.browser

# Selects cells start..end (inclusive) and runs them, as Shift+Enter on a selection does.
RUN_RANGE_JS = """([path, start, end]) => {
  const panel = [...window.jupyterapp.shell.widgets('main')].find(w => w.context && w.context.path === path);
  const notebook = panel.content;
  notebook.activeCellIndex = start;
  notebook.deselectAll();
  notebook.extendContiguousSelectionTo(end);
  window.__minikafkaRun = {done: false, result: null, error: null};
  window.jupyterapp.commands.execute('notebook:run-cell').then(
    (result) => { window.__minikafkaRun = {done: true, result, error: null}; },
    (error) => { window.__minikafkaRun = {done: true, result: null, error: String(error)}; });
}"""


def code_cells(notebook: dict) -> list[tuple[int, str]]:
    return [(i, "".join(c["source"])) for i, c in enumerate(notebook["cells"])
            if c["cell_type"] == "code"]


def first_made(notebook: dict, kind: str, answered_with: str = "") -> tuple[int, str]:
    """The first cell making a ``kind`` (whose source matches ``answered_with``), and its name."""
    for index, source in code_cells(notebook):
        for name, what in ASSIGNED.findall(source):
            if what == kind and re.search(answered_with, source):
                return index, name
    raise AssertionError(f"{LESSON} makes no {kind} matching {answered_with!r}")


def first_use(notebook: dict, after: int, pattern: str) -> int:
    for index, source in code_cells(notebook):
        if index > after and re.search(pattern, source):
            return index
    raise AssertionError(f"no cell after {after} matches {pattern}")


@pytest.fixture
def learner_root(tmp_path: Path) -> Path:
    root = tmp_path / "my-lessons"
    make_copies(ROOT / "lessons", root)
    return root


@pytest.fixture
def progress_file(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "progress.jsonl"
    monkeypatch.setenv("MINIKAFKA_PROGRESS", str(path))
    return path


@pytest.fixture
def page(chromium_executable: str, learner_root: Path, progress_file: Path, tmp_path: Path) -> Iterator:
    with LabServer(learner_root, tmp_path / "jupyter") as lab:
        with lab_page(playwright_api, chromium_executable, lab, LESSON, VIEWPORT, tmp_path,
                      OPEN_TIMEOUT_S) as page:
            yield page


def wait_run(page) -> dict:
    state = poll_until(lambda: page.evaluate(RUN_STATE_JS), lambda s: bool(s and s["done"]),
                       RUN_TIMEOUT_S, "the cells to finish")
    page.wait_for_function(KERNEL_IDLE_JS, arg=LESSON, timeout=OPEN_TIMEOUT_S * 1000)
    notebook = page.evaluate(NOTEBOOK_JSON_JS, LESSON)
    assert not error_outputs(notebook), f"cells raised errors: {error_outputs(notebook)}"
    assert state["error"] is None and state["result"] is True, f"the run ended with {state}"
    return notebook


def run_down_to(page, cell: int) -> dict:
    """Run every cell above ``cell + 1``, i.e. down to ``cell`` included."""
    page.evaluate(RUN_COMMAND_JS, [LESSON, cell + 1, "notebook:run-all-above"])
    return wait_run(page)


def run_range(page, start: int, end: int) -> dict:
    page.evaluate(RUN_RANGE_JS, [LESSON, start, end])
    return wait_run(page)


def cell_output(page, index: int):
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")


def output_text(notebook: dict, index: int) -> str:
    parts = []
    for output in notebook["cells"][index].get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "".join(parts)


def progress_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_prediction_answered_in_its_widget_is_graded_at_the_reveal(page, learner_root,
                                                                    progress_file):
    stored = json.loads((learner_root / LESSON).read_text())
    # The first prediction answered with a drop-down (one broker, node, choice, or True/False).
    asked, name = first_made(stored, "Prediction", r"""kind=["'](broker|node|choice|bool)["']""")
    revealed = first_use(stored, asked, rf"\b{name}\.reveal\(")
    run_down_to(page, asked)

    widget = cell_output(page, asked)
    choice = widget.locator("select").first
    choice.wait_for(state="visible", timeout=WIDGET_TIMEOUT_S * 1000)
    # ipywidgets draws the spaces of option labels as no-break spaces
    options = [o for o in choice.locator("option").all_inner_texts()
               if o.replace("\xa0", " ") != "(pick one)"]
    assert options, "the prediction widget offers no answer"
    picked = options[0]
    choice.select_option(label=picked)
    widget.get_by_role("button", name="Commit").click()
    widget.get_by_text("Committed:", exact=False).wait_for(timeout=WIDGET_TIMEOUT_S * 1000)

    notebook = run_range(page, asked + 1, revealed)
    verdict = output_text(notebook, revealed)
    said = re.search(r"you predicted (.+?)[;,] (?:and )?the cluster says (.+?)\.", verdict)
    assert said, f"the reveal does not grade the widget's answer:\n{verdict}"
    assert said.group(1) == picked
    assert ("Right: " if said.group(1) == said.group(2) else "Not this time: ") in verdict, verdict
    lines = [line for line in progress_lines(progress_file) if line["kind"] == "prediction"]
    assert lines and lines[-1]["lesson"] == LESSON[:-len(".ipynb")] and lines[-1]["answered"]
    assert lines[-1]["correct"] == (said.group(1) == said.group(2))


def test_a_task_done_by_typing_its_code_is_checked_done(page, learner_root, progress_file):
    stored = json.loads((learner_root / LESSON).read_text())
    given, name = first_made(stored, "Task")
    run_down_to(page, given)

    widget = cell_output(page, given)
    widget.get_by_role("button", name="Solution").click()
    code_block = widget.locator("pre").last
    code_block.wait_for(timeout=WIDGET_TIMEOUT_S * 1000)
    code = code_block.inner_text().strip()
    assert code and "(no solution given)" not in code

    learners_cell = page.locator(".jp-Notebook .jp-Cell").nth(given + 1)
    editor = learners_cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    run_range(page, given + 1, given + 1)

    widget.get_by_role("button", name="Check").click()
    done = widget.get_by_text("Done: the cluster shows it", exact=False)
    done.wait_for(timeout=WIDGET_TIMEOUT_S * 1000)
    lines = [line for line in progress_lines(progress_file) if line["kind"] == "task"]
    assert lines and lines[-1]["done"] and not lines[-1]["solution_ran"]
    assert lines[-1]["lesson"] == LESSON[:-len(".ipynb")] and lines[-1]["solution_shown"]
