"""A simulated cluster's clock runs while its dashboard is on screen in JupyterLab.

Theory of operation
-------------------
A small notebook, written by the test, starts a seeded simulated cluster
with one topic and shows its `Dashboard`; JupyterLab runs it in headless
Chromium.  With no cell running, the virtual time the dashboard's clock row
shows ("virtual time t=... s") must grow: the front end counted the view
(ipywidgets' ``_view_count``) and the widget let time pass on the kernel's
event loop.  Then the test presses the dashboard's *Kill* button on the
broker that leads ``orders-0`` and, again without running any code, waits
until the diagram shows that broker dead and fenced and another broker
leading ``orders-0``: the kill plays out as on a live cluster.  A cell
prints the view count the kernel holds (at least 1).  Then the dashboard's
output is cleared, as a learner's *Clear Output* does: the count must drop
to 0 and virtual time must stand still between two cells run seconds apart.

A second notebook shows a drill's `DrillPanel`: before *Lock and run* its
clock row says it waits for the run and virtual time stands still for
seconds of wall time; after the run it keeps running by itself.

Without the clock the diagram would stay at "dead · unfenced" with the dead
broker still leading, which is what this test guards against.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from lab_page import (KERNEL_IDLE_JS, NOTEBOOK_JSON_JS, READ_DIAGRAM_JS,
                      RUN_COMMAND_JS, RUN_STATE_JS, error_outputs, fault_button,
                      lab_page, parse_broker_boxes, partition_leaders, poll_until)
from lab_server import LabServer

playwright_api = pytest.importorskip("playwright.sync_api")

NOTEBOOK = "sim_clock.ipynb"
VIEWPORT = {"width": 1280, "height": 1100}
OPEN_TIMEOUT_S = 90
RUN_TIMEOUT_S = 120
PLAY_TIMEOUT_S = 60
VIRTUAL_TIME = re.compile(r"virtual time t=(\d+\.\d+) s")

pytestmark = pytest.mark.browser

CELLS = [
    "from minikafka.cluster import Cluster\n"
    "from widgets import Dashboard\n"
    "cluster = Cluster(brokers=3, controllers=1, seed=8, simulated=True).start()\n"
    "cluster.create_topic('orders', partitions=2, replication_factor=3)\n"
    "cluster.run_for(1000)",
    "dashboard = Dashboard(cluster, topics=['orders'])\n"
    "dashboard",
    "print('views', dashboard.sim_clock._view_count)",
    "import time\n"
    "before = cluster.now()\n"
    "print('views', dashboard.sim_clock._view_count)",
    "time.sleep(0)\n"
    "print('moved', cluster.now() - before)",
]


DRILL_CELLS = [
    "from minikafka import drills\n"
    "from widgets import DrillPanel\n"
    "drill = drills.start('leader-crash', seed=3, record=False, learner='browser')\n"
    "panel = DrillPanel(drill)\n"
    "panel",
]


@pytest.fixture
def cells(request) -> list[str]:
    return getattr(request, "param", CELLS)


@pytest.fixture
def page(chromium_executable: str, tmp_path: Path, cells: list[str]) -> Iterator:
    root = tmp_path / "notebooks"
    root.mkdir()
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, root / NOTEBOOK)
    with LabServer(root, tmp_path / "jupyter") as lab:
        with lab_page(playwright_api, chromium_executable, lab, NOTEBOOK, VIEWPORT, tmp_path,
                      OPEN_TIMEOUT_S) as page:
            yield page


def run_cells(page, index: int, command: str) -> dict:
    page.evaluate(RUN_COMMAND_JS, [NOTEBOOK, index, command])
    state = poll_until(lambda: page.evaluate(RUN_STATE_JS), lambda s: bool(s and s["done"]),
                       RUN_TIMEOUT_S, "the cells to finish")
    page.wait_for_function(KERNEL_IDLE_JS, arg=NOTEBOOK, timeout=OPEN_TIMEOUT_S * 1000)
    notebook = page.evaluate(NOTEBOOK_JSON_JS, NOTEBOOK)
    assert not error_outputs(notebook), f"cells raised errors: {error_outputs(notebook)}"
    assert state["error"] is None and state["result"] is True, f"the run ended with {state}"
    return notebook


def virtual_seconds(dashboard) -> float | None:
    found = VIRTUAL_TIME.search(dashboard.inner_text())
    return float(found.group(1)) if found else None


def boxes(dashboard):
    nodes = dashboard.evaluate(READ_DIAGRAM_JS)
    return parse_broker_boxes(nodes) if nodes else {}


def test_the_clock_runs_while_shown_and_a_kill_plays_out(page):
    run_cells(page, 0, "notebook:run-cell")                       # the cluster
    run_cells(page, 1, "notebook:run-cell")                       # the dashboard
    dashboard = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-Cell-outputArea")
    first = poll_until(lambda: virtual_seconds(dashboard), lambda t: t is not None,
                       PLAY_TIMEOUT_S, "the dashboard's clock row")
    later = poll_until(lambda: virtual_seconds(dashboard), lambda t: t is not None and t > first + 1,
                       PLAY_TIMEOUT_S, "virtual time to run by itself")
    assert later > first

    leaders = poll_until(lambda: partition_leaders(boxes(dashboard)), lambda l: "orders-0" in l,
                         PLAY_TIMEOUT_S, "the diagram to show the leader of orders-0")
    victim = leaders["orders-0"]
    fault_button(dashboard, "kill", f"broker {victim}").click()

    def played_out(seen) -> bool:
        box = seen.get(victim)
        leader = partition_leaders(seen).get("orders-0")
        return (box is not None and box.is_dead and "fenced" in box.state
                and "unfenced" not in box.state and leader not in (None, victim))
    seen = poll_until(lambda: boxes(dashboard), played_out, PLAY_TIMEOUT_S,
                      f"broker {victim} fenced and a new leader of orders-0, with no cell running")
    assert partition_leaders(seen)["orders-0"] != victim

    notebook = run_cells(page, 2, "notebook:run-cell")
    printed = "".join("".join(o.get("text", "")) for o in notebook["cells"][2]["outputs"])
    views = re.search(r"views (\d+)", printed)
    assert views and int(views.group(1)) >= 1, printed

    page.evaluate(RUN_COMMAND_JS, [NOTEBOOK, 1, "notebook:clear-cell-output"])
    poll_until(lambda: dashboard.count(), lambda n: n == 0 or not dashboard.first.inner_text(),
               PLAY_TIMEOUT_S, "the dashboard's output to be cleared")
    notebook = run_cells(page, 3, "notebook:run-cell")
    printed = "".join("".join(o.get("text", "")) for o in notebook["cells"][3]["outputs"])
    assert "views 0" in printed, printed
    time.sleep(3)                       # wall time in which a running clock would move
    notebook = run_cells(page, 4, "notebook:run-cell")
    printed = "".join("".join(o.get("text", "")) for o in notebook["cells"][4]["outputs"])
    assert "moved 0" in printed, printed


@pytest.mark.parametrize("cells", [DRILL_CELLS], indirect=True)
def test_a_drills_clock_waits_for_the_run_then_runs(page):
    run_cells(page, 0, "notebook:run-cell")
    panel = page.locator(".jp-Notebook .jp-Cell").nth(0).locator(".jp-Cell-outputArea")
    poll_until(lambda: panel.inner_text(), lambda text: "time starts when the drill runs" in text,
               PLAY_TIMEOUT_S, "the drill's clock to say it waits for the run")
    waiting = virtual_seconds(panel)
    time.sleep(2)                       # wall time in which a running clock would move
    assert virtual_seconds(panel) == waiting
    panel.get_by_role("button", name="Lock and run").click()
    # the run itself lets virtual time pass; after it, the clock must keep it going
    after_run = poll_until(lambda: virtual_seconds(panel), lambda t: t is not None and t > waiting,
                           PLAY_TIMEOUT_S, "the clock row to show the time after the run")
    poll_until(lambda: virtual_seconds(panel), lambda t: t is not None and t > after_run + 1,
               PLAY_TIMEOUT_S, "virtual time to run by itself after the drill's run")
