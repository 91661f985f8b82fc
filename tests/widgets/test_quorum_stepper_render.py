"""The stepper's picture (widgets/quorum_stepper_render.py): well-formed, complete, stable."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from widgets import QuorumStepper
from widgets.quorum_stepper_render import QUEUE_ROWS, quorum_svg, stepper_html

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("controllers", [1, 2, 3, 4, 5])
def test_one_box_per_controller_and_an_arrow_per_message(controllers):
    stepper = QuorumStepper(controllers, seed=3)
    if controllers > 1:
        stepper.timeout(1001)                                  # a lone voter leads already
    root = ElementTree.fromstring(quorum_svg(stepper))
    assert len(root.findall(f"{SVG}rect")) == controllers
    messages = [e for e in stepper.queue() if e["kind"] == "message"]
    assert len(root.findall(f"{SVG}line")) == len(messages)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert [t for t in texts if t.startswith("controller ")] == \
        [f"controller {n}" for n in stepper.node_ids]
    for entry in messages:
        label = f"{entry['index']}: {'PreVote' if entry['pre_vote'] else entry['api']} " \
                f"{'response' if entry['response'] else 'request'}"
        assert label in texts


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


def test_html_has_heading_queue_and_timeline_and_is_deterministic():
    first, second = QuorumStepper(3, seed=9), QuorumStepper(3, seed=9)
    for stepper in (first, second):
        stepper.timeout(1002)
        stepper.step(4)
    page = stepper_html(first)
    assert page == stepper_html(second)
    assert "<b>KRaft quorum</b>" in page and f"{first.events} events" in page
    assert page.count("<tr") <= QUEUE_ROWS + 2
    assert first.queue()[0]["text"].replace(">", "&gt;") in page
    assert first.history[-1].replace(">", "&gt;") in page
