"""The picture of a `QuorumStepper`: controllers, messages in flight, queue and timeline as HTML.

Theory of operation
-------------------
One pure function, `stepper_html(stepper)`, turns the stepper's plain data
(``state()``, ``timers()``, ``queue()``, ``history``) into one HTML string:

* an inline SVG with one box per controller, placed on a circle: its role
  (coloured), epoch, vote, leader, log end offset and high watermark, and its
  raft timer counting down in virtual seconds; an isolated controller gets a
  dashed red border.  Every message in flight is an arrow from sender to
  receiver labelled with its API (a pre-vote is "PreVote"); the next event
  to happen is drawn bold;
* the queue as a numbered table (the numbers ``deliver(i)`` and ``drop(i)``
  take), the next entry first;
* the last lines of the timeline, newest at the bottom.

Generated in Python (no Graphviz, no JavaScript), so a redraw is a string
assignment to one ``ipywidgets.HTML``: a few milliseconds for five
controllers.  Same input, same string.
"""

from __future__ import annotations

import html
import math
from typing import Any

from widgets.quorum_stepper_text import seconds

WIDTH, HEIGHT = 660, 330                   # the SVG canvas (px)
BOX_W, BOX_H = 168, 84                     # one controller's box
ROLE_COLOURS = {"Leader": "#2e7d32", "Candidate": "#ef6c00", "Prospective": "#f9a825",
                "Follower": "#1565c0", "Unattached": "#757575", "Resigned": "#6a1b9a"}
QUEUE_ROWS = 8                             # queue entries shown
TIMELINE_ROWS = 14                         # timeline lines shown


def _positions(node_ids: tuple[int, ...]) -> dict[int, tuple[float, float]]:
    """Box centres on a circle, the first controller at the top."""
    cx, cy = WIDTH / 2, HEIGHT / 2
    if len(node_ids) == 1:
        return {node_ids[0]: (cx, cy)}
    radius_x, radius_y = WIDTH / 2 - BOX_W / 2 - 8, HEIGHT / 2 - BOX_H / 2 - 6
    out = {}
    for index, node_id in enumerate(node_ids):
        angle = -math.pi / 2 + 2 * math.pi * index / len(node_ids)
        out[node_id] = (cx + radius_x * math.cos(angle), cy + radius_y * math.sin(angle))
    return out


def _edge_point(centre: tuple[float, float], towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from ``centre`` to ``towards`` leaves the box around ``centre``."""
    dx, dy = towards[0] - centre[0], towards[1] - centre[1]
    scale = min((BOX_W / 2 + 4) / abs(dx) if dx else math.inf,
                (BOX_H / 2 + 4) / abs(dy) if dy else math.inf)
    return centre[0] + dx * scale, centre[1] + dy * scale


def _label(entry: dict[str, Any]) -> str:
    api = "PreVote" if entry["pre_vote"] else entry["api"]
    return f"{api} {'response' if entry['response'] else 'request'}"


def _box(node_id: int, row: dict[str, Any], timers: dict[str, int], now_ms: int,
         isolated: bool, centre: tuple[float, float]) -> str:
    x, y = centre[0] - BOX_W / 2, centre[1] - BOX_H / 2
    colour = ROLE_COLOURS.get(row["role"], "#424242")
    border = ('stroke="#c62828" stroke-width="3" stroke-dasharray="6 4"' if isolated
              else f'stroke="{colour}" stroke-width="2"')
    dash = "-"
    timer = next(iter(sorted(timers.items(), key=lambda item: item[1])), None)
    timer_text = (f"{timer[0]} in {(timer[1] - now_ms) / 1000:.3f}s" if timer else "no timer")
    lines = [
        f'<text x="{x + 8:.1f}" y="{y + 17:.1f}" font-weight="bold">controller {node_id}'
        f'{" (isolated)" if isolated else ""}</text>',
        f'<text x="{x + 8:.1f}" y="{y + 33:.1f}" fill="{colour}" font-weight="bold">'
        f'{row["role"]}</text>',
        f'<text x="{x + 8:.1f}" y="{y + 48:.1f}">epoch {row["epoch"]} · voted for '
        f'{row["voted_for"] if row["voted_for"] is not None else dash} · leader '
        f'{row["leader"] if row["leader"] is not None else dash}</text>',
        f'<text x="{x + 8:.1f}" y="{y + 63:.1f}">log end offset {row["log_end_offset"]} · '
        f'HW {row["high_watermark"]}</text>',
        f'<text x="{x + 8:.1f}" y="{y + 78:.1f}" fill="#555">{html.escape(timer_text)}</text>',
    ]
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{BOX_H}" rx="8" '
            f'fill="#fafafa" {border}/>' + "".join(lines))


def _arrows(queue: list[dict[str, Any]], positions: dict[int, tuple[float, float]]) -> list[str]:
    out, seen = [], {}
    for entry in queue:
        if entry["kind"] != "message":
            continue
        src, dst = positions[entry["src"]], positions[entry["dst"]]
        nth = seen.setdefault((entry["src"], entry["dst"]), 0)
        seen[(entry["src"], entry["dst"])] = nth + 1
        start, end = _edge_point(src, dst), _edge_point(dst, src)
        length = math.hypot(end[0] - start[0], end[1] - start[1]) or 1
        nx, ny = -(end[1] - start[1]) / length * 7, (end[0] - start[0]) / length * 7
        start, end = (start[0] + nx, start[1] + ny), (end[0] + nx, end[1] + ny)
        fraction = 0.5 - 0.18 * nth
        lx = start[0] + (end[0] - start[0]) * fraction + nx * 1.6
        ly = start[1] + (end[1] - start[1]) * fraction + ny * 1.6
        weight = ' stroke-width="2.5"' if entry["index"] == 0 else ""
        bold = ' font-weight="bold"' if entry["index"] == 0 else ""
        out.append(f'<line x1="{start[0]:.1f}" y1="{start[1]:.1f}" x2="{end[0]:.1f}" '
                   f'y2="{end[1]:.1f}" stroke="#37474f"{weight} marker-end="url(#arrow)"/>'
                   f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="middle" font-size="11"'
                   f'{bold} fill="#263238">{entry["index"]}: {html.escape(_label(entry))}</text>')
    return out


def quorum_svg(stepper: Any) -> str:
    """The controllers and the messages between them, as one inline SVG."""
    state, timers, queue = stepper.state(), stepper.timers(), stepper.queue()
    isolated, now_ms = set(stepper.isolated), stepper.time_ms
    positions = _positions(stepper.node_ids)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'font-family="sans-serif" font-size="12">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#37474f"/>'
             '</marker></defs>']
    parts += _arrows(queue, positions)
    parts += [_box(n, state[n], timers[n], now_ms, n in isolated, positions[n])
              for n in stepper.node_ids]
    parts.append("</svg>")
    return "".join(parts)


def _queue_table(stepper: Any) -> str:
    queue = stepper.queue()
    rows = []
    for entry in queue[:QUEUE_ROWS]:
        style = ' style="font-weight:bold;background:#fff8e1"' if entry["index"] == 0 else ""
        rows.append(f'<tr{style}><td>{entry["index"]}</td><td>{seconds(entry["at_ms"])}</td>'
                    f'<td>{html.escape(entry["text"])}</td></tr>')
    more = (f'<tr><td></td><td></td><td>... {len(queue) - QUEUE_ROWS} more</td></tr>'
            if len(queue) > QUEUE_ROWS else "")
    return ('<table style="font-family:monospace;font-size:12px;border-collapse:collapse">'
            '<tr><th align="left">#</th><th align="left">due</th><th align="left">next '
            f'(messages in flight and timers)</th></tr>{"".join(rows)}{more}</table>')


def _timeline(stepper: Any) -> str:
    lines = stepper.history[-TIMELINE_ROWS:]
    return ('<pre style="font-size:11px;max-height:16em;overflow:auto;margin:4px 0;'
            f'border:1px solid #ddd;padding:4px">{html.escape(str(lines))}</pre>')


def stepper_html(stepper: Any) -> str:
    """The whole picture: heading, diagram, queue and timeline."""
    leader = stepper.leader()
    heading = (f'<div style="font-family:sans-serif"><b>KRaft quorum</b> · '
               f'{seconds(stepper.time_ms)} (virtual) · {stepper.events} events · leader '
               f'{leader if leader is not None else "none"}'
               f'{" · isolated: " + ", ".join(map(str, stepper.isolated)) if stepper.isolated else ""}'
               f'</div>')
    return heading + quorum_svg(stepper) + _queue_table(stepper) + _timeline(stepper)
