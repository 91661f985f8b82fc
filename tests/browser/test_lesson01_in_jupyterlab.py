"""Lesson 01 in a real JupyterLab and a real browser: kill a leader, watch the picture change.

Theory of operation
-------------------
This is the learner's path, end to end.  JupyterLab (headless, token-less,
on a free port) serves a temporary copy of ``lessons/`` -- the repository's
notebooks are never opened for writing -- and Chromium, driven by
Playwright for Python with the system browser (`chromium_executable`),
opens lesson 01.

The lesson's first cell that kills a broker (the "your turn" task whose
solution kills the leader of ``orders-1``) is where it invites the learner
to press the dashboard's Kill button instead.  So the test runs every cell
above that one, reads the `Dashboard`'s diagram from the page, and clicks
the *Kill* button in broker N's row (``.minikafka-kill-N``; the status line
then says "Kill broker N: done") for the broker the diagram marks ``L`` for
the partition that cell names.  It waits until the SVG shows broker N ``dead`` and another
broker ``L`` for that partition (the controller fenced the broker and moved
leadership, and the widget redrew from the kernel's thread), saves the page
as ``docs/screenshots/lesson01.png`` (the README shows it).  Then the learner
changes their mind and presses *Restart broker N* on the same dashboard: the
test waits until the diagram shows broker N alive again, and runs the rest
of the lesson, which must cope with both presses: no cell fails, and since
every broker is running again the task's check finds no dead leader and its
catch-up kills the leader of that moment ("Done by the solution").

Every wait polls with a deadline; JupyterLab, its kernel and the browser
are stopped whatever happens (`LabServer.stop`, ``browser.close``).  When a
step fails, a screenshot of the page at that moment is left in the test's
temporary directory and named in the failure.

A third learner presses *Isolate* on the active controller: the picture
must follow the majority, not the node that still believes it leads.  The
test waits until the diagram's header names another active controller in a
higher epoch and the old leader's box says it is isolated; that box must no
longer claim "active controller", and the new leader's box must.

A fourth learner presses *Run All Cells* and scrolls back up: the lesson's
last cell has stopped the cluster, and the dashboard must still show its
diagram (its last picture) with the caption saying the cluster stopped,
where it used to be blank.  (JupyterLab applies the dashboard's display
update: the output becomes the still picture, without buttons.)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lab_page import (CHROMIUM_ARGS, KERNEL_IDLE_JS, NOTEBOOK_JSON_JS, READ_DIAGRAM_JS,
                      RUN_COMMAND_JS, RUN_STATE_JS, BrokerBox, any_fault_button, cell_stdout,
                      error_outputs, fault_button, fault_done_text, first_kill_cell,
                      parse_broker_boxes, partition_leaders, poll_until, unexecuted_code_cells)
from lab_server import LabServer
from widgets.still import CLUSTER_STOPPED

playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
LESSON = "01_brokers_and_topics.ipynb"
SCREENSHOT = ROOT / "docs" / "screenshots" / "lesson01.png"

VIEWPORT = {"width": 1280, "height": 1300}
OPEN_TIMEOUT_S = 90          # page load plus kernel start, on a busy 2-core machine
RUN_TIMEOUT_S = 180          # running a stretch of the lesson's cells
CLICK_TIMEOUT_S = 20         # the kernel answers the button
FAILOVER_TIMEOUT_S = 60      # session timeout, fencing, election, redraw

pytestmark = pytest.mark.browser


@pytest.fixture
def page(chromium_executable: str, lab: LabServer) -> Iterator:
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable, headless=True,
                                             args=list(CHROMIUM_ARGS))
        try:
            yield browser.new_page(viewport=VIEWPORT)
        finally:
            browser.close()


def test_kill_then_restart_on_a_leader_and_the_lesson_goes_on(page, lab, notebook_root, tmp_path):
    kill_cell, partition = first_kill_cell(json.loads((notebook_root / LESSON).read_text()))
    try:
        open_notebook(page, lab, LESSON)
        run_cells(page, "notebook:run-all-above", kill_cell, stop=kill_cell)
        dashboard = find_dashboard(page)
        before = read_diagram(dashboard)
        victim = partition_leaders(before).get(partition)
        assert victim is not None and before[victim].is_alive, \
            f"the diagram shows no alive leader of {partition}:\n{_describe(before)}"

        click_and_confirm(dashboard, "kill", f"broker {victim}")
        after = poll_until(lambda: read_diagram(dashboard),
                           lambda boxes: _failed_over(boxes, victim, partition),
                           FAILOVER_TIMEOUT_S,
                           f"the diagram to show broker {victim} dead and a new leader of "
                           f"{partition}", describe=_describe)
        save_screenshot(page, dashboard)
        click_and_confirm(dashboard, "restart", f"broker {victim}")
        poll_until(lambda: read_diagram(dashboard),
                   lambda boxes: victim in boxes and boxes[victim].is_alive, FAILOVER_TIMEOUT_S,
                   f"the diagram to show broker {victim} alive again", describe=_describe)
        notebook = run_cells(page, "notebook:run-all-below", kill_cell)
    except Exception as exc:
        raise AssertionError(f"{exc}\n(page at failure: {failure_screenshot(page, tmp_path)}; "
                             f"JupyterLab log ends with:\n{lab.log_tail(15)})") from exc

    new_leader = partition_leaders(after)[partition]
    assert after[new_leader].is_alive and after[victim].marks[partition] != "L"
    # Every broker ran again when the cells went on: the task's check did the kill itself,
    # and the lesson named the broker it killed.
    checked = "".join(_text(notebook, index) for index in range(kill_cell, len(notebook["cells"])))
    assert "Done by the solution" in checked, f"the task's check said: {checked[:600]!r}"
    said = "".join(cell_stdout(notebook, index) for index in range(kill_cell, len(notebook["cells"])))
    assert re.search(r"\bbroker \d+ is dead; it led orders-1\b", said), \
        f"after Kill then Restart, the cells from the kill cell on printed: {said!r}"


def test_isolating_the_active_controller_moves_the_quorum_in_the_picture(page, lab, notebook_root,
                                                                         tmp_path):
    """Isolate pressed on the active controller: the picture follows the majority to the new
    leader of a higher epoch, and shows the old one isolated and no longer active."""
    kill_cell, _ = first_kill_cell(json.loads((notebook_root / LESSON).read_text()))
    try:
        open_notebook(page, lab, LESSON)
        run_cells(page, "notebook:run-all-above", kill_cell, stop=kill_cell)
        dashboard = find_dashboard(page)
        before = read_quorum(dashboard)
        assert before.active is not None, f"no active controller in the picture: {before}"
        old = before.active
        click_and_confirm(dashboard, "isolate", f"controller {old}")
        after = poll_until(lambda: read_quorum(dashboard),
                           lambda q: q.active not in (None, old) and q.epoch > before.epoch
                           and "isolated" in " ".join(q.boxes.get(old, ())),
                           FAILOVER_TIMEOUT_S,
                           f"the picture to show a new active controller after isolating {old}",
                           describe=str)
    except Exception as exc:
        raise AssertionError(f"{exc}\n(page at failure: {failure_screenshot(page, tmp_path)}; "
                             f"JupyterLab log ends with:\n{lab.log_tail(15)})") from exc
    new = after.active
    # the header and the boxes agree: the new leader's box is the highlighted one, the old
    # leader's box no longer claims to be active
    assert "active controller" in after.boxes[new], after
    assert "active controller" not in after.boxes[old], after
    assert f"epoch {after.epoch}" in " ".join(after.boxes[new]), after


def test_after_run_all_the_dashboard_keeps_its_last_picture(page, lab, tmp_path):
    try:
        open_notebook(page, lab, LESSON)
        run_cells(page, "notebook:run-all-cells", 0)
        diagrams = (page.locator(".jp-OutputArea-output")
                    .filter(has=page.locator(".minikafka-topology svg"))
                    .filter(has=page.get_by_text(CLUSTER_STOPPED, exact=False)))
        assert diagrams.count() >= 1, "no output shows a diagram with the stopped caption"
        dashboard = diagrams.first
        dashboard.evaluate("(output) => output.scrollIntoView({block: 'start'})")
        svg = dashboard.locator(".minikafka-topology svg").first
        svg.wait_for(state="visible", timeout=CLICK_TIMEOUT_S * 1000)
        box = svg.bounding_box()
        assert box is not None and box["height"] > 100 and box["width"] > 200, box
        assert dashboard.get_by_text(CLUSTER_STOPPED, exact=False).first.is_visible()
        # JupyterLab replaced the live widget by its still picture: nothing left to press
        # (a front end that kept the widget would show its buttons disabled)
        buttons = any_fault_button(dashboard, "kill")
        assert all(buttons.nth(i).is_disabled() for i in range(buttons.count()))
    except Exception as exc:
        raise AssertionError(f"{exc}\n(page at failure: {failure_screenshot(page, tmp_path)}; "
                             f"JupyterLab log ends with:\n{lab.log_tail(15)})") from exc


# --------------------------------------------------------------------------- steps
def open_notebook(page, lab: LabServer, path: str) -> None:
    page.goto(lab.url(f"lab/tree/{path}"))
    page.wait_for_function(KERNEL_IDLE_JS, arg=path, timeout=OPEN_TIMEOUT_S * 1000)
    # The file browser takes a fifth of the width; the dashboard needs it more.
    page.evaluate("() => { if (!window.jupyterapp.shell.leftCollapsed) "
                  "window.jupyterapp.commands.execute('application:toggle-left-area'); }")


def run_cells(page, command: str, cell: int, stop: int | None = None) -> dict:
    """Run ``command`` from cell ``cell``; the notebook JSON once the cells finished cleanly."""
    page.evaluate(RUN_COMMAND_JS, [LESSON, cell, command])
    state = poll_until(lambda: page.evaluate(RUN_STATE_JS), lambda s: bool(s and s["done"]),
                       RUN_TIMEOUT_S, f"{command} to finish")
    page.wait_for_function(KERNEL_IDLE_JS, arg=LESSON, timeout=OPEN_TIMEOUT_S * 1000)
    notebook = page.evaluate(NOTEBOOK_JSON_JS, LESSON)
    errors = error_outputs(notebook)
    assert not errors, f"cells raised errors: {errors}"
    assert state["error"] is None and state["result"] is True, f"{command} ended with {state}"
    never_ran = unexecuted_code_cells(notebook, stop)
    assert not never_ran, f"code cells that never ran: {never_ran}"
    return notebook


def find_dashboard(page):
    """The last output holding a cluster diagram and the kill buttons."""
    outputs = (page.locator(".jp-OutputArea-output")
               .filter(has=page.locator(".minikafka-topology svg"))
               .filter(has=any_fault_button(page, "kill")))
    outputs.last.wait_for(state="visible", timeout=CLICK_TIMEOUT_S * 1000)
    return outputs.last


def read_diagram(dashboard) -> dict[int, BrokerBox]:
    nodes = dashboard.evaluate(READ_DIAGRAM_JS)
    assert nodes is not None, "the dashboard output has no SVG diagram"
    return parse_broker_boxes(nodes)


def click_and_confirm(dashboard, verb: str, node: str) -> None:
    """Click ``verb``'s button for ``node`` and wait for the panel's status line to report
    the verb's outcome."""
    fault_button(dashboard, verb, node).click()
    done = fault_done_text(verb, node)
    status = dashboard.get_by_text(done, exact=True) \
        .or_(dashboard.get_by_text(done.replace(": done", " failed"), exact=False))
    status.first.wait_for(state="visible", timeout=CLICK_TIMEOUT_S * 1000)
    text = status.first.inner_text()
    assert text == done, f"the panel reported: {text}"


def save_screenshot(page, dashboard) -> None:
    """The page with the dashboard's cell at the top; replaced atomically."""
    dashboard.evaluate("(output) => output.closest('.jp-Cell').scrollIntoView({block: 'start'})")
    # No hover or focus ring on the button just clicked.
    page.mouse.move(0, 0)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    partial = SCREENSHOT.with_name(SCREENSHOT.stem + ".partial.png")
    page.screenshot(path=str(partial), full_page=True)
    os.replace(partial, SCREENSHOT)


def failure_screenshot(page, directory: Path) -> str:
    """Best effort: a browser that crashed must not hide the original failure."""
    path = directory / "failure.png"
    try:
        page.screenshot(path=str(path), full_page=True)
    except Exception as exc:        # reported instead of the picture
        return f"no screenshot ({type(exc).__name__})"
    return str(path)


# --------------------------------------------------------------------------- the quorum
_HEADER = re.compile(r"active controller (\d+) · epoch (\d+)")
_CONTROLLER_TITLE = re.compile(r"node_(\d{4,})$")
_DIAGRAM_TEXTS_JS = """(root) => {
  const svg = root.querySelector('.minikafka-topology svg');
  return svg ? [...svg.querySelectorAll('text')].map((t) => t.textContent.trim()) : null;
}"""


@dataclass(frozen=True)
class Quorum:
    """What the picture says of the quorum: the header's active controller and epoch, and
    each controller box's lines."""
    active: int | None
    epoch: int
    boxes: dict[int, tuple[str, ...]]


def read_quorum(dashboard) -> Quorum:
    texts = dashboard.evaluate(_DIAGRAM_TEXTS_JS) or []
    header = next((m for m in map(_HEADER.search, texts) if m), None)
    boxes = {}
    for node in dashboard.evaluate(READ_DIAGRAM_JS) or []:
        title = _CONTROLLER_TITLE.search(node["title"])
        if title:
            boxes[int(title.group(1))] = tuple(node["texts"])
    if header is None:
        return Quorum(None, -1, boxes)
    return Quorum(int(header.group(1)), int(header.group(2)), boxes)


# --------------------------------------------------------------------------- checks
def _text(notebook: dict, index: int) -> str:
    """Every text/plain and stream text cell ``index`` showed."""
    parts = []
    for output in notebook["cells"][index].get("outputs", []):
        plain = output.get("data", {}).get("text/plain", output.get("text", ""))
        parts.append(plain if isinstance(plain, str) else "".join(plain))
    return "".join(parts)


def _failed_over(boxes: dict[int, BrokerBox], victim: int, partition: str) -> bool:
    leader = partition_leaders(boxes).get(partition)
    return victim in boxes and boxes[victim].is_dead and leader not in (None, victim)


def _describe(boxes: dict[int, BrokerBox]) -> str:
    return "\n".join(f"broker {b.node_id}: {b.state} {b.marks}" for b in boxes.values())
