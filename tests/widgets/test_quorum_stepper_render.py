"""The stepper's picture (widgets/quorum_stepper_render.py): well-formed, complete, stable."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from widgets import QuorumStepper
from widgets.quorum_stepper_render import (CHAR_W, FONT_PX, QUEUE_ROWS, quorum_svg,
                                           stepper_html, text_width)

SVG = "{http://www.w3.org/2000/svg}"


def boxes(root) -> dict[int, tuple[float, float, float, float, list]]:
    """controller id -> (x, y, width, height, [(x, y, text) of its lines])."""
    out = {}
    for group in root.iter(f"{SVG}g"):
        rect = group.find(f"{SVG}rect")
        texts = [(float(t.get("x")), float(t.get("y")), t.text) for t in group.iter(f"{SVG}text")]
        out[int(group.get("data-controller"))] = (float(rect.get("x")), float(rect.get("y")),
                                                  float(rect.get("width")),
                                                  float(rect.get("height")), texts)
    return out


@pytest.mark.parametrize("controllers", [1, 2, 3, 4, 5])
def test_one_box_per_controller_and_an_arrow_per_direction_in_use(controllers):
    stepper = QuorumStepper(controllers, seed=3)
    if controllers > 1:
        stepper.timeout(1001)                                  # a lone voter leads already
    root = ElementTree.fromstring(quorum_svg(stepper))
    assert len(root.findall(f"{SVG}g")) == controllers
    routes = {(e["src"], e["dst"]) for e in stepper.queue() if e["kind"] == "message"}
    lines = root.findall(f"{SVG}line")
    assert len(lines) == len(routes)
    assert {line.find(f"{SVG}title").text.split(":")[0] for line in lines} == \
        {f"{src} -> {dst}" for src, dst in routes}
    assert not any(t.get("text-anchor") for t in root.iter(f"{SVG}text"))   # no edge labels
    assert [texts[0][2] for *_, texts in boxes(root).values()] == \
        [f"controller {n}" for n in stepper.node_ids]


@pytest.mark.parametrize("controllers, seed", [(3, 7), (5, 2)])
def test_the_drawing_scales_to_its_content_and_text_stays_in_its_box(controllers, seed):
    stepper = QuorumStepper(controllers, seed=seed)
    stepper.run_until_leader()
    stepper.isolate(1002)                                      # the longest first line
    stepper.run_for(2500)                                      # request timeouts: long timers
    svg = quorum_svg(stepper)
    root = ElementTree.fromstring(svg)
    _, _, width, height = map(float, root.get("viewBox").split())
    assert root.get("width") == "100%" and f"max-width:{width:.0f}px" in root.get("style")
    drawn = boxes(root)
    for x, y, w, h, texts in drawn.values():
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height
        for tx, ty, text in texts:
            assert x < tx and tx + text_width(text) <= x + w, text
            assert y + 12 <= ty <= y + h - 3, text
    rects = list(drawn.values())
    for i, a in enumerate(rects):                              # no two boxes overlap
        for b in rects[i + 1:]:
            assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or \
                a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]


def test_monospace_width_is_measured_conservatively():
    assert CHAR_W >= 0.61 * FONT_PX                            # wider than common mono advances
    assert text_width("controller 1001") == 15 * CHAR_W


def test_boxes_show_state_timer_and_isolation():
    stepper = QuorumStepper(3, seed=7)
    stepper.run_until_leader()
    stepper.isolate(1001)
    svg = quorum_svg(stepper)
    state = stepper.state()
    for node_id, row in state.items():
        assert f"log end offset {row['log_end_offset']} · HW {row['high_watermark']}" in svg
    assert "controller 1001 (isolated)" in svg and 'stroke-dasharray="6 4"' in svg
    assert "check quorum in " in svg or "BeginQuorumEpoch resend in " in svg


def test_colours_follow_the_theme_with_light_fallbacks():
    stepper = QuorumStepper(3, seed=7)
    stepper.timeout(1001)
    page = stepper_html(stepper)
    assert "var(--jp-ui-font-color0, #000)" in page and "var(--jp-layout-color1, #fafafa)" in page
    assert 'fill="#fafafa"' not in page and 'fill="#263238"' not in page


def test_the_queue_is_a_table_with_columns():
    stepper = QuorumStepper(3, seed=7)
    page = stepper_html(stepper)
    table = page[page.index("<table"):page.index("</table>") + len("</table>")]
    root = ElementTree.fromstring(table)
    header = [th.text for th in root.iter("th")]
    assert header == ["#", "due at", "from -> to", "message"]
    rows = [[td.text for td in tr.findall("td")] for tr in root.iter("tr")][1:]
    queue = stepper.queue()
    assert rows[0] == ["0", "t=0.001s", "1001 -> 1003",
                       "Fetch request: epoch 0, fetch offset 0, last fetched epoch 0"]
    timer = next(e for e in queue if e["kind"] == "timer")
    assert rows[timer["index"]] == [str(timer["index"]), "t=1.039s", "1003",
                                    "timer: election timeout"]
    assert all(len(row) == 4 for row in rows)


def test_html_has_heading_queue_and_timeline_and_is_deterministic():
    first, second = QuorumStepper(3, seed=9), QuorumStepper(3, seed=9)
    for stepper in (first, second):
        stepper.timeout(1002)
        stepper.step(4)
    page = stepper_html(first)
    assert page == stepper_html(second)
    assert "<b>KRaft quorum</b>" in page and f"{first.events} events" in page
    assert page.count("<tr") <= QUEUE_ROWS + 2
    route, message = first.queue()[0]["text"].split("  ", 1)
    assert route.replace(">", "&gt;") in page and message.replace(">", "&gt;") in page
    assert first.history[-1].replace(">", "&gt;") in page
