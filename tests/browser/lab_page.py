"""Driving a notebook in JupyterLab with Playwright, and reading the cluster diagram.

Theory of operation
-------------------
The browser test works through two doors only.  JupyterLab's own command
registry (``window.jupyterapp``, exposed by `LabServer`) opens nothing by
itself but runs commands such as ``notebook:run-all-cells`` exactly as the
Run menu does; the notebook model (``panel.content.model.toJSON()``) then
tells which cells ran and what they printed.  The minikafka `Dashboard` is
read from what the learner sees: the SVG that Graphviz drew, where every
node box is a ``<g class="node">`` whose ``<title>`` is the DOT node name
(``node_2``) and whose ``<text>`` elements are the box's lines in order --
title, state, details, then replica name and mark pairs (``orders-0``,
``L``).  `parse_broker_boxes` turns those lines back into `BrokerBox`
values, so the test states its expectation in the diagram's own words
(``dead``, ``L``).

The dashboard's fault buttons show one short word ("Kill") beside the
node's name, so a test finds them by their CSS classes (``.minikafka-kill-2``;
every fault button has ``.minikafka-fault``), through helpers built in one
place (`fault_button_label`, `fault_button`, `any_fault_button`,
`fault_done_text`): when the dashboard's buttons change, only those change.
The status line still names the button in full ("Kill broker 2: done").
`BOX_AND_LOG_LINE_JS` measures where the page draws a node's box and one
line of the event log, for the test that checks both are on screen together.

Waiting is always polling with a deadline (`poll_until`); a deadline that
passes fails the test with what was last seen, never silently.  `lab_page`
opens one notebook in a headless Chromium on a running `LabServer` and
turns any failure inside it into one assertion that names a screenshot of
the page at that moment and the end of JupyterLab's log.

Simplified: a replica name that the diagram shortened (very long topic
names) is read as drawn.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from dataclasses import dataclass
from typing import Any, TypeVar

# Chromium flags for a quiet, headless, root-friendly run (no sandbox in
# containers, no GPU, no calls home that could stall or pop up dialogs).
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run")

POLL_INTERVAL_S = 0.25

# JavaScript: the notebook panel whose document is at `path`.
_PANEL = ("const panelOf = (path) => [...window.jupyterapp.shell.widgets('main')]"
          ".find(w => w.context && w.context.path === path);")

KERNEL_IDLE_JS = f"""(path) => {{ {_PANEL}
  const panel = window.jupyterapp && panelOf(path);
  const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
  return Boolean(kernel && kernel.status === 'idle');
}}"""

# Makes cell `index` the active one and runs a notebook command on it (as
# the Run menu would), recording when the command's promise settles:
# JupyterLab resolves it once the cells it started have finished, with true
# when none failed (an error stops the cells queued after it).
RUN_COMMAND_JS = f"""([path, index, command]) => {{ {_PANEL}
  panelOf(path).content.activeCellIndex = index;
  window.__minikafkaRun = {{done: false, result: null, error: null}};
  window.jupyterapp.commands.execute(command).then(
    (result) => {{ window.__minikafkaRun = {{done: true, result, error: null}}; }},
    (error) => {{ window.__minikafkaRun = {{done: true, result: null, error: String(error)}}; }});
}}"""

RUN_STATE_JS = "() => window.__minikafkaRun"

NOTEBOOK_JSON_JS = f"(path) => {{ {_PANEL} return panelOf(path).content.model.toJSON(); }}"

# Every node box of the first SVG under the element: DOT name and text lines.
READ_DIAGRAM_JS = """(root) => {
  const svg = root.querySelector('.minikafka-topology svg');
  if (!svg) return null;
  return [...svg.querySelectorAll('g.node')].map((g) => ({
    title: (g.querySelector('title') || {}).textContent || '',
    texts: [...g.querySelectorAll('text')].map((t) => t.textContent.trim()),
  }));
}"""

FAULT_BUTTON = ".minikafka-fault"       # every button of a dashboard's failure panel


def fault_button_selector(verb: str, node_id: int | None = None) -> str:
    """CSS selector of one fault button, e.g. ``.minikafka-kill-2`` (``.minikafka-heal``)."""
    return f".minikafka-{verb}" if node_id is None else f".minikafka-{verb}-{node_id}"


# The screen rectangles of node `node`'s box in the diagram and of the first event-log line
# containing `text` (null when absent), plus the log pane's own visible rectangle and the
# window size; evaluated on the output element with [node, text] -> {box, line, pane, width, height}.
BOX_AND_LOG_LINE_JS = """(root, [node, text]) => {
  const rect = (r) => r && {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  const g = [...root.querySelectorAll('.minikafka-topology svg g.node')]
    .find((n) => (n.querySelector('title') || {}).textContent === 'node_' + node);
  const pane = root.querySelector('.minikafka-event-log');
  let line = null;
  const pre = pane && pane.querySelector('pre');
  if (pre) {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t && !line; t = walker.nextNode()) {
      const at = t.textContent.indexOf(text);
      if (at >= 0) {
        const range = document.createRange();
        range.setStart(t, at);
        range.setEnd(t, at + text.length);
        line = rect(range.getBoundingClientRect());
      }
    }
  }
  return {box: rect(g && g.getBoundingClientRect()), line,
          pane: rect(pane && pane.getBoundingClientRect()),
          width: window.innerWidth, height: window.innerHeight};
}"""


def inside(inner: dict | None, outer: dict) -> bool:
    """Is rectangle ``inner`` (left/top/right/bottom) wholly within ``outer``?"""
    return bool(inner) and (inner["left"] >= outer["left"] - 0.5 and inner["top"] >= outer["top"] - 0.5
                            and inner["right"] <= outer["right"] + 0.5
                            and inner["bottom"] <= outer["bottom"] + 0.5)


_NODE_TITLE = re.compile(r"node_(\d+)")
_BOX_TITLE = re.compile(r"(broker|node) (\d+)")       # brokers and combined nodes hold replicas
_REPLICA = re.compile(r".+-\d+")
_MARK = re.compile(r"[LF-]( \(.*\))?")
_KILL_CALL = re.compile(r"\bcluster\.kill(?:_broker)?\(")
_LEADER_OF = re.compile(r"""\.leader\(\s*["']([^"']+)["']\s*,\s*(\d+)\s*\)""")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BrokerBox:
    """One broker's box in the diagram, as drawn."""

    node_id: int
    state: str                     # the state line, e.g. "alive" or "dead · fenced"
    marks: dict[str, str]          # replica name ("orders-0") -> mark ("L", "F (out of sync)")

    @property
    def is_dead(self) -> bool:
        return self.state.split(" · ")[0] == "dead"

    @property
    def is_alive(self) -> bool:
        return self.state.split(" · ")[0] == "alive"


def parse_broker_boxes(nodes: list[dict[str, Any]]) -> dict[int, BrokerBox]:
    """`READ_DIAGRAM_JS` output -> broker id -> `BrokerBox` (controllers skipped)."""
    boxes: dict[int, BrokerBox] = {}
    for node in nodes:
        texts = node["texts"]
        dot_name = _NODE_TITLE.fullmatch(node["title"])
        heading = _BOX_TITLE.fullmatch(texts[0]) if texts else None
        if dot_name is None or heading is None or len(texts) < 2:
            continue
        marks = {name: mark for name, mark in zip(texts[2:], texts[3:])
                 if _REPLICA.fullmatch(name) and _MARK.fullmatch(mark)}
        boxes[int(dot_name.group(1))] = BrokerBox(int(dot_name.group(1)), texts[1], marks)
    return boxes


def partition_leaders(boxes: dict[int, BrokerBox]) -> dict[str, int]:
    """Replica name -> the broker whose box marks it ``L``."""
    return {name: box.node_id for box in boxes.values()
            for name, mark in box.marks.items() if mark == "L"}


def fault_button_label(verb: str, node: str) -> str:
    """The long name of the button that applies ``verb`` ("kill", "restart") to ``node``
    ("broker 2"): "Kill broker 2" (its tooltip starts with it; the button shows "Kill")."""
    return f"{verb.capitalize()} {node}"


def fault_done_text(verb: str, node: str) -> str:
    """What the panel's status line says once that button's verb has acted."""
    return f"{fault_button_label(verb, node)}: done"


def fault_button(container: Any, verb: str, node: str) -> Any:
    """The Playwright locator of that button inside ``container`` (a page or an output);
    ``node`` is named as the panel names it ("broker 2")."""
    return container.locator(fault_button_selector(verb, int(node.split()[-1])))


def any_fault_button(container: Any, verb: str) -> Any:
    """Every button of ``verb`` (any node) inside ``container``: how a dashboard is recognised."""
    return container.locator(f'{FAULT_BUTTON}[class*="minikafka-{verb}-"]')


def error_outputs(notebook: dict[str, Any]) -> list[str]:
    """Each error output of the notebook JSON as 'cell N: ename: evalue'."""
    errors = []
    for index, cell in enumerate(notebook.get("cells", [])):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                errors.append(f"cell {index}: {output.get('ename')}: {output.get('evalue')}")
    return errors


def unexecuted_code_cells(notebook: dict[str, Any], stop: int | None = None) -> list[int]:
    """Indexes (below ``stop``) of code cells without an execution count: they never ran."""
    cells = notebook.get("cells", [])[:stop]
    return [index for index, cell in enumerate(cells)
            if cell.get("cell_type") == "code" and cell.get("execution_count") is None]


def cell_stdout(notebook: dict[str, Any], index: int) -> str:
    """What cell ``index`` printed (its stream outputs, joined)."""
    outputs = notebook["cells"][index].get("outputs", [])
    return "".join(_joined(o.get("text", "")) for o in outputs if o.get("output_type") == "stream")


def first_kill_cell(notebook: dict[str, Any]) -> tuple[int, str]:
    """The first code cell that kills a broker, and the partition whose leader it kills.

    That is where the lesson invites the learner to press the Kill button
    instead.  The kill may be in the cell's code or in the solution of the
    "your turn" task the cell defines (``solution='cluster.kill_broker(...)'``);
    either way the cell must name the partition as ``cluster.leader("orders", 1)``.
    """
    for index, cell in enumerate(notebook.get("cells", [])):
        source = _joined(cell.get("source", ""))
        if cell.get("cell_type") == "code" and _KILL_CALL.search(source):
            leader_of = _LEADER_OF.search(source)
            assert leader_of, (f"cell {index} kills a broker but does not name the partition "
                               f'as cluster.leader("<topic>", <partition>):\n{source}')
            return index, f"{leader_of.group(1)}-{leader_of.group(2)}"
    raise AssertionError("the lesson has no code cell that kills a broker "
                         "(cluster.kill_broker(...) or cluster.kill(...))")


def _joined(text: str | list[str]) -> str:
    return text if isinstance(text, str) else "".join(text)


def poll_until(probe: Callable[[], T], accept: Callable[[T], bool], timeout_s: float,
               what: str, describe: Callable[[T], str] = repr) -> T:
    """Call ``probe`` until ``accept`` says yes; AssertionError with the last value at the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if accept(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"Timed out after {timeout_s:.0f} s waiting for {what}; "
                                 f"last seen:\n{describe(value)}")
        time.sleep(POLL_INTERVAL_S)


@contextmanager
def lab_page(playwright_api: Any, chromium_executable: str, lab: Any, notebook: str,
             viewport: dict[str, int], failure_dir: Path, open_timeout_s: float) -> Iterator[Any]:
    """A Chromium page showing ``notebook`` on ``lab`` once its kernel is idle.  A failure
    in the block is raised again as one AssertionError naming a screenshot of the page
    (saved in ``failure_dir``) and the end of JupyterLab's log; the browser always closes."""
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable, headless=True,
                                             args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page(viewport=viewport)
            page.goto(lab.url(f"lab/tree/{notebook}"))
            page.wait_for_function(KERNEL_IDLE_JS, arg=notebook, timeout=open_timeout_s * 1000)
            yield page
        except Exception as exc:
            shot: Path | str = failure_dir / "failure.png"
            try:
                page.screenshot(path=str(shot), full_page=True)
            except Exception:       # a crashed browser must not hide the first failure
                shot = "no screenshot"
            raise AssertionError(f"{exc}\n(page at failure: {shot}; JupyterLab log ends with:\n"
                                 f"{lab.log_tail(15)})") from exc
        finally:
            browser.close()
