"""The dashboard on a projector: watch and act on one screen, in the light and the dark theme.

Theory of operation
-------------------
A class watches the dashboard on a 1280x720 projector with the browser at
125%: the page is 1024x576 CSS pixels, drawn at 1.25 device pixels each.
The test opens lesson 01 in JupyterLab at exactly that size (Chromium's
device metrics: viewport and device scale factor), runs the cells up to the
one that invites the learner to kill a broker, scrolls the dashboard's top
into view and presses *Kill* in the row of the broker that leads the
partition that cell names.  Then, without scrolling, the killed broker's
box in the diagram and the event-log line saying the controller fenced it
(``broker N fenced``) must both be on screen, the line inside the log
pane's visible part: the button, the picture that changes and the
explanation are seen together.

The same page is then drawn in JupyterLab's dark theme (command
``apputils:change-theme``) and in a 1920x1080 window (saved at one image
pixel per CSS pixel, as a full-HD screen at 100% shows it), and
each picture is saved to ``docs/screenshots/`` as
``dashboard-<size>-<theme>.png`` (written atomically).  In the dark theme
the diagram's background must not be white: the test reads the computed
fill of the SVG's page rectangle.  Last, the cluster is stopped (code sent
to the kernel, no cell): the dashboard freezes and its output becomes the
still picture a saved notebook keeps, which must read in the dark theme
too (transparent page, light text; ``dashboard-still-1920x1080-dark.png``).

Every wait polls with a deadline; JupyterLab, its kernel and the browser
are stopped whatever happens.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_page import (BOX_AND_LOG_LINE_JS, CHROMIUM_ARGS, FAULT_BUTTON, KERNEL_IDLE_JS,
                      NOTEBOOK_JSON_JS, READ_DIAGRAM_JS, RUN_COMMAND_JS, RUN_STATE_JS,
                      error_outputs, fault_button_selector, first_kill_cell, inside,
                      parse_broker_boxes, partition_leaders, poll_until)
from lab_server import LabServer

playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
LESSON = "01_brokers_and_topics.ipynb"
SCREENSHOTS = ROOT / "docs" / "screenshots"

PROJECTOR = {"width": 1024, "height": 576}          # CSS pixels, drawn at SCALE device pixels each
SCALE = 1.25
FULL_HD = {"width": 1920, "height": 1080}
DARK, LIGHT = "JupyterLab Dark", "JupyterLab Light"

OPEN_TIMEOUT_S = 90
RUN_TIMEOUT_S = 180
CLICK_TIMEOUT_S = 20
FAILOVER_TIMEOUT_S = 60

pytestmark = pytest.mark.browser


@pytest.fixture
def page(chromium_executable: str, lab: LabServer) -> Iterator:
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable, headless=True,
                                             args=list(CHROMIUM_ARGS))
        try:
            context = browser.new_context(viewport=PROJECTOR, device_scale_factor=SCALE)
            yield context.new_page()
        finally:
            browser.close()


def test_box_and_fencing_line_on_one_projector_screen_in_both_themes(page, lab, notebook_root,
                                                                     tmp_path):
    kill_cell, partition = first_kill_cell(json.loads((notebook_root / LESSON).read_text()))
    try:
        open_notebook(page, lab)
        run_above(page, kill_cell)
        dashboard = find_dashboard(page)
        scroll_to_top_of(dashboard)
        victim = partition_leaders(parse_broker_boxes(dashboard.evaluate(READ_DIAGRAM_JS)))[partition]
        dashboard.locator(fault_button_selector("kill", victim)).click()
        fenced = f"broker {victim} fenced"
        shown = poll_until(lambda: measure(dashboard, victim, fenced),
                           lambda m: m["line"] is not None and _dead(dashboard, victim),
                           FAILOVER_TIMEOUT_S, f"the log line {fenced!r} and broker {victim} dead")
        settle(page)
        scroll_to_top_of(dashboard)
        for theme in (LIGHT, DARK):
            set_theme(page, theme)
            shown = measure(dashboard, victim, fenced)
            assert_on_screen(shown, victim, fenced, theme)
            if theme == DARK:
                assert diagram_background(dashboard) in ("rgba(0, 0, 0, 0)", "transparent", "none")
            save(page, f"dashboard-1280x720-{theme_word(theme)}.png")
        page.set_viewport_size(FULL_HD)
        settle(page)
        scroll_to_top_of(dashboard)
        for theme in (DARK, LIGHT):
            set_theme(page, theme)
            assert_on_screen(measure(dashboard, victim, fenced), victim, fenced, theme)
            save(page, f"dashboard-1920x1080-{theme_word(theme)}.png", scale="css")
        # the still picture the saved notebook keeps, in the dark theme
        set_theme(page, DARK)
        execute_in_kernel(page, "cluster.stop()")
        still = (page.locator(".jp-OutputArea-output")
                 .filter(has=page.locator(".minikafka-still .minikafka-topology svg")))
        still.last.wait_for(state="visible", timeout=CLICK_TIMEOUT_S * 1000)
        assert still.last.locator(FAULT_BUTTON).count() == 0
        assert diagram_background(still.last) in ("rgba(0, 0, 0, 0)", "transparent", "none")
        assert text_colour(still.last) != "rgb(0, 0, 0)"
        scroll_to_top_of(still.last)
        settle(page)
        save(page, "dashboard-still-1920x1080-dark.png", scale="css")
    except Exception as exc:
        path = tmp_path / "failure.png"
        try:
            page.screenshot(path=str(path))
        except Exception:           # a crashed browser must not hide the failure
            path = "no screenshot"
        raise AssertionError(f"{exc}\n(page at failure: {path}; JupyterLab log ends with:\n"
                             f"{lab.log_tail(15)})") from exc


# --------------------------------------------------------------------------- steps
def open_notebook(page, lab: LabServer) -> None:
    page.goto(lab.url(f"lab/tree/{LESSON}"))
    page.wait_for_function(KERNEL_IDLE_JS, arg=LESSON, timeout=OPEN_TIMEOUT_S * 1000)
    page.evaluate("() => { if (!window.jupyterapp.shell.leftCollapsed) "
                  "window.jupyterapp.commands.execute('application:toggle-left-area'); }")


def run_above(page, cell: int) -> None:
    page.evaluate(RUN_COMMAND_JS, [LESSON, cell, "notebook:run-all-above"])
    state = poll_until(lambda: page.evaluate(RUN_STATE_JS), lambda s: bool(s and s["done"]),
                       RUN_TIMEOUT_S, "the cells above the kill cell to finish")
    page.wait_for_function(KERNEL_IDLE_JS, arg=LESSON, timeout=OPEN_TIMEOUT_S * 1000)
    errors = error_outputs(page.evaluate(NOTEBOOK_JSON_JS, LESSON))
    assert not errors and state["result"] is True, f"cells failed: {errors} {state}"


def find_dashboard(page):
    outputs = (page.locator(".jp-OutputArea-output")
               .filter(has=page.locator(".minikafka-topology svg"))
               .filter(has=page.locator(FAULT_BUTTON)))
    outputs.last.wait_for(state="visible", timeout=CLICK_TIMEOUT_S * 1000)
    return outputs.last


def scroll_to_top_of(dashboard) -> None:
    dashboard.evaluate("(output) => output.scrollIntoView({block: 'start'})")


def measure(dashboard, node_id: int, text: str) -> dict:
    return dashboard.evaluate(BOX_AND_LOG_LINE_JS, [node_id, text])


def _dead(dashboard, node_id: int) -> bool:
    boxes = parse_broker_boxes(dashboard.evaluate(READ_DIAGRAM_JS))
    return node_id in boxes and boxes[node_id].is_dead


def settle(page) -> None:
    """No hover or focus ring, and the layout done."""
    page.mouse.move(0, 0)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.wait_for_timeout(500)


def set_theme(page, theme: str) -> None:
    page.evaluate("(theme) => window.jupyterapp.commands.execute('apputils:change-theme', "
                  "{theme})", theme)
    light = "true" if theme == LIGHT else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'",
                           timeout=CLICK_TIMEOUT_S * 1000)
    settle(page)


def execute_in_kernel(page, code: str) -> None:
    """Run ``code`` in the notebook's kernel (no cell) and wait until it is done."""
    page.evaluate("""([path, code]) => {
      const panel = [...window.jupyterapp.shell.widgets('main')]
        .find(w => w.context && w.context.path === path);
      return panel.sessionContext.session.kernel.requestExecute({code}).done.then(() => true);
    }""", [LESSON, code])
    page.wait_for_function(KERNEL_IDLE_JS, arg=LESSON, timeout=RUN_TIMEOUT_S * 1000)


def text_colour(root) -> str:
    """The computed fill of the diagram's first replica name (plain text of the picture)."""
    return root.evaluate("(r) => { const t = [...r.querySelectorAll('.minikafka-topology svg text')]"
                         ".find(t => /^orders-\\d+$/.test(t.textContent.trim()));"
                         " return t ? getComputedStyle(t).fill : 'missing'; }")


def theme_word(theme: str) -> str:
    return "dark" if theme == DARK else "light"


def diagram_background(dashboard) -> str:
    return dashboard.evaluate("(root) => { const p = root.querySelector("
                              "'.minikafka-topology svg g.graph > polygon');"
                              " return p ? getComputedStyle(p).fill : 'missing'; }")


def assert_on_screen(shown: dict, victim: int, fenced: str, theme: str) -> None:
    screen = {"left": 0, "top": 0, "right": shown["width"], "bottom": shown["height"]}
    where = f"({theme}, {shown['width']}x{shown['height']}: {shown})"
    assert inside(shown["box"], screen), f"broker {victim}'s box is not on screen {where}"
    assert inside(shown["line"], screen), f"the log line {fenced!r} is not on screen {where}"
    assert inside(shown["line"], shown["pane"]), \
        f"the log line {fenced!r} is scrolled out of the log pane {where}"


def save(page, name: str, scale: str = "device") -> None:
    """The window as a PNG; ``scale="css"`` gives one image pixel per CSS pixel."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / name
    partial = target.with_name(target.stem + ".partial.png")
    page.screenshot(path=str(partial), scale=scale)
    os.replace(partial, target)
