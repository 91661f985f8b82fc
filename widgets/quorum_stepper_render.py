"""The picture of a `QuorumStepper`: controllers, messages in flight, queue and timeline as HTML.

Theory of operation
-------------------
One pure function, `stepper_html(stepper)`, turns the stepper's plain data
(``state()``, ``timers()``, ``queue()``, ``history``) into one HTML string:

* an inline SVG with one box per controller: its role (coloured), epoch,
  vote, leader, log end offset and high watermark, and its raft timer
  counting down in virtual seconds; an isolated controller gets a dashed red
  border.  The text is monospace, so its width is known before drawing
  (`CHAR_W`, a little more than any monospace font's advance): every box is
  as wide as the longest line of any box, so no text leaves its box.  The
  boxes sit on an ellipse grown until no two overlap, and the SVG's
  ``viewBox`` is the drawing's own size; it is shown at ``width:100%`` up to
  that size, so it scales down on a narrow page and stays sharp;
* every pair of controllers with messages in flight gets one arrow per
  direction, with no label (labels on crossing arrows overlap): the arrow's
  colour says which API travels (`API_COLOURS`, in a legend under the
  drawing), a thick arrow carries the next event to happen, and the queue
  table names each message;
* the queue as an HTML table with columns ``#`` (the number ``deliver(i)``
  and ``drop(i)`` take), ``due at``, ``from -> to`` and ``message``, the next
  entry first;
* the last lines of the timeline, newest at the bottom.

Colours that sit on the page (text, box fill, borders) are JupyterLab's theme
variables with light fallbacks (``var(--jp-ui-font-color0, #000)``), so the
picture follows a dark theme and still reads where no theme is set (GitHub's
notebook view); the role colours are mid-tones and the next entry's tint is
translucent, so they read on both.  The whole picture sets its own line
height (an ``ipywidgets.HTML`` inherits one of 28 px).

Generated in Python (no Graphviz, no JavaScript), so a redraw is a string
assignment to one ``ipywidgets.HTML``: a few milliseconds for five
controllers.  Same input, same string.
"""

from __future__ import annotations

import html
import math
from typing import Any

from minikafka.testing.quorum_stepper_text import seconds

FONT_PX = 12                               # text in the boxes (monospace)
CHAR_W = 0.65 * FONT_PX                    # per character: wider than any monospace advance
LINE_H = 16                                # one line of a box
PAD = 9                                    # inside a box, around its text
GAP = 28                                   # at least this between two boxes (room for arrows)
MARGIN = 6                                 # around the drawing
ROLE_COLOURS = {"Leader": "#2e7d32", "Candidate": "#ef6c00", "Prospective": "#c77c00",
                "Follower": "#1e88e5", "Unattached": "#8a8a8a", "Resigned": "#8e24aa"}
API_COLOURS = {"Vote": "#ef6c00", "BeginQuorumEpoch": "#2e7d32", "EndQuorumEpoch": "#8e24aa",
               "Fetch": "#78909c"}
TEXT = "var(--jp-ui-font-color0, #000)"
MUTED = "var(--jp-ui-font-color2, #555)"
PAPER = "var(--jp-layout-color1, #fafafa)"
RULE = "var(--jp-border-color2, #ddd)"
NEXT_BG = "rgba(255, 179, 0, 0.25)"       # the next entry: a tint that reads on light and dark
ISOLATED = "#e53935"
QUEUE_ROWS = 8                             # queue entries shown
TIMELINE_ROWS = 14                         # timeline lines shown


def _box_lines(node_id: int, row: dict[str, Any], timers: dict[str, int], now_ms: int,
               isolated: bool) -> list[tuple[str, str | None]]:
    """The lines of one box, each with its colour (None: the page's text colour)."""
    def dash(value: Any) -> Any:
        return "-" if value is None else value
    timer = next(iter(sorted(timers.items(), key=lambda item: item[1])), None)
    timer_text = f"{timer[0]} in {(timer[1] - now_ms) / 1000:.3f}s" if timer else "no timer"
    return [(f"controller {node_id}{' (isolated)' if isolated else ''}", None),
            (row["role"], ROLE_COLOURS.get(row["role"], "#757575")),
            (f"epoch {row['epoch']} · leader {dash(row['leader'])}", None),
            (f"voted for {dash(row['voted_for'])}", None),
            (f"log end offset {row['log_end_offset']} · HW {row['high_watermark']}", None),
            (timer_text, MUTED)]


def text_width(text: str) -> float:
    """How wide ``text`` may be drawn in the boxes' font, at most (monospace)."""
    return len(text) * CHAR_W


def _box_size(all_lines: list[list[tuple[str, str | None]]]) -> tuple[float, float]:
    longest = max(text_width(text) for lines in all_lines for text, _ in lines)
    return math.ceil(longest + 2 * PAD), len(all_lines[0]) * LINE_H + 2 * PAD - 4


def _positions(count: int, box_w: float, box_h: float) -> list[tuple[float, float]]:
    """Box centres on an ellipse (the first at the top), grown until no two boxes overlap."""
    if count == 1:
        return [(0.0, 0.0)]
    if count == 2:
        return [(-(box_w + GAP * 2) / 2, 0.0), ((box_w + GAP * 2) / 2, 0.0)]
    radius_x, radius_y = box_w * 0.6, box_h * 0.7
    while True:
        centres = [(radius_x * math.cos(-math.pi / 2 + 2 * math.pi * i / count),
                    radius_y * math.sin(-math.pi / 2 + 2 * math.pi * i / count))
                   for i in range(count)]
        if all(abs(a[0] - b[0]) >= box_w + GAP or abs(a[1] - b[1]) >= box_h + GAP
               for i, a in enumerate(centres) for b in centres[i + 1:]):
            return centres
        radius_x, radius_y = radius_x * 1.08, radius_y * 1.08


def _edge_point(centre: tuple[float, float], towards: tuple[float, float], box_w: float,
                box_h: float) -> tuple[float, float]:
    """Where the line from ``centre`` to ``towards`` leaves the box around ``centre``."""
    dx, dy = towards[0] - centre[0], towards[1] - centre[1]
    scale = min((box_w / 2 + 3) / abs(dx) if dx else math.inf,
                (box_h / 2 + 3) / abs(dy) if dy else math.inf)
    return centre[0] + dx * scale, centre[1] + dy * scale


def _box(node_id: int, lines: list[tuple[str, str | None]], role: str, isolated: bool,
         centre: tuple[float, float], box_w: float, box_h: float) -> str:
    x, y = centre[0] - box_w / 2, centre[1] - box_h / 2
    colour = ROLE_COLOURS.get(role, "#757575")
    border = (f'stroke="{ISOLATED}" stroke-width="3" stroke-dasharray="6 4"' if isolated
              else f'stroke="{colour}" stroke-width="2"')
    texts = []
    for i, (text, fill) in enumerate(lines):
        weight = ' font-weight="bold"' if i < 2 else ""
        texts.append(f'<text x="{x + PAD:.1f}" y="{y + PAD + 11 + i * LINE_H:.1f}"{weight} '
                     f'style="fill:{fill or TEXT}">{html.escape(text)}</text>')
    return (f'<g data-controller="{node_id}"><rect x="{x:.1f}" y="{y:.1f}" width="{box_w}" '
            f'height="{box_h}" rx="8" style="fill:{PAPER}" {border}/>{"".join(texts)}</g>')


def _arrows(queue: list[dict[str, Any]], positions: dict[int, tuple[float, float]],
            box_w: float, box_h: float) -> list[str]:
    """One arrow per direction between two controllers with messages in flight."""
    routes: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for entry in queue:
        if entry["kind"] == "message":
            routes.setdefault((entry["src"], entry["dst"]), []).append(entry)
    out = []
    for (src_id, dst_id), entries in routes.items():
        src, dst = positions[src_id], positions[dst_id]
        start, end = _edge_point(src, dst, box_w, box_h), _edge_point(dst, src, box_w, box_h)
        length = math.hypot(end[0] - start[0], end[1] - start[1]) or 1
        nx, ny = -(end[1] - start[1]) / length * 5, (end[0] - start[0]) / length * 5
        first = entries[0]
        colour = API_COLOURS.get(first["api"], "#78909c")
        is_next = any(e["index"] == 0 for e in entries)
        width = 3.5 if is_next else 1.6
        apis = ", ".join(dict.fromkeys(e["api"] for e in entries))
        out.append(f'<line x1="{start[0] + nx:.1f}" y1="{start[1] + ny:.1f}" '
                   f'x2="{end[0] + nx:.1f}" y2="{end[1] + ny:.1f}" stroke="{colour}" '
                   f'stroke-width="{width}" marker-end="url(#qs-arrow-{first["api"]})">'
                   f'<title>{src_id} -&gt; {dst_id}: {len(entries)} in flight ({apis})</title>'
                   f'</line>')
    return out


def _markers() -> str:
    return "<defs>" + "".join(
        f'<marker id="qs-arrow-{api}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        f'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        for api, colour in API_COLOURS.items()) + "</defs>"


def quorum_svg(stepper: Any) -> str:
    """The controllers and the messages between them, as one inline SVG sized to its content."""
    state, timers, queue = stepper.state(), stepper.timers(), stepper.queue()
    isolated, now_ms = set(stepper.isolated), stepper.time_ms
    lines = {n: _box_lines(n, state[n], timers[n], now_ms, n in isolated) for n in stepper.node_ids}
    box_w, box_h = _box_size(list(lines.values()))
    centres = _positions(len(stepper.node_ids), box_w, box_h)
    left = min(c[0] for c in centres) - box_w / 2 - MARGIN
    top = min(c[1] for c in centres) - box_h / 2 - MARGIN
    positions = {n: (c[0] - left, c[1] - top) for n, c in zip(stepper.node_ids, centres)}
    width = math.ceil(max(c[0] for c in positions.values()) + box_w / 2 + MARGIN)
    height = math.ceil(max(c[1] for c in positions.values()) + box_h / 2 + MARGIN)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="100%" style="max-width:{width}px;height:auto;display:block" '
             f'font-family="monospace" font-size="{FONT_PX}">', _markers()]
    parts += _arrows(queue, positions, box_w, box_h)
    parts += [_box(n, lines[n], state[n]["role"], n in isolated, positions[n], box_w, box_h)
              for n in stepper.node_ids]
    parts.append("</svg>")
    return "".join(parts)


def _legend() -> str:
    keys = " ".join(f'<span style="white-space:nowrap"><span style="display:inline-block;'
                    f'width:18px;height:3px;vertical-align:middle;background:{colour}"></span> '
                    f'{api}</span>' for api, colour in API_COLOURS.items())
    return (f'<div style="font-size:11px;color:{MUTED};margin:2px 0 6px">arrows: messages in '
            f'flight (thick: the next event) · {keys}</div>')


def _queue_cells(entry: dict[str, Any]) -> tuple[str, str]:
    """(from -> to, message) of one queue entry."""
    if entry["kind"] == "message":
        route, _, message = entry["text"].partition("  ")
        return route, message
    return f"{entry['node']}", f"timer: {entry['timer']}"


def _queue_table(stepper: Any) -> str:
    queue = stepper.queue()
    cell = 'style="padding:1px 12px 1px 0;text-align:left;vertical-align:top"'
    rows = []
    for entry in queue[:QUEUE_ROWS]:
        style = f' style="font-weight:bold;background:{NEXT_BG}"' if entry["index"] == 0 else ""
        route, message = _queue_cells(entry)
        rows.append(f'<tr{style}><td {cell}>{entry["index"]}</td><td {cell}>'
                    f'{seconds(entry["at_ms"])}</td><td {cell}>{html.escape(route)}</td>'
                    f'<td {cell}>{html.escape(message)}</td></tr>')
    more = (f'<tr><td {cell}></td><td {cell}></td><td {cell}></td><td {cell}>... '
            f'{len(queue) - QUEUE_ROWS} more</td></tr>' if len(queue) > QUEUE_ROWS else "")
    head = "".join(f'<th {cell}>{name}</th>' for name in ("#", "due at", "from -&gt; to",
                                                           "message"))
    return (f'<table style="font-family:monospace;font-size:12px;border-collapse:collapse;'
            f'color:{TEXT}"><caption style="text-align:left;font-family:sans-serif">next '
            f'(messages in flight and timers)</caption><tr style="border-bottom:1px solid '
            f'{RULE}">{head}</tr>{"".join(rows)}{more}</table>')


def _timeline(stepper: Any) -> str:
    lines = stepper.history[-TIMELINE_ROWS:]
    return (f'<pre style="font-size:11px;max-height:16em;overflow:auto;margin:4px 0;'
            f'border:1px solid {RULE};padding:4px;color:{TEXT};background:{PAPER};'
            f'white-space:pre-wrap">{html.escape(str(lines))}</pre>')


def stepper_html(stepper: Any) -> str:
    """The whole picture: heading, diagram, legend, queue and timeline."""
    leader = stepper.leader()
    heading = (f'<div style="font-family:sans-serif;color:{TEXT}"><b>KRaft quorum</b> · '
               f'{seconds(stepper.time_ms)} (virtual) · {stepper.events} events · leader '
               f'{leader if leader is not None else "none"}'
               f'{" · isolated: " + ", ".join(map(str, stepper.isolated)) if stepper.isolated else ""}'
               f'</div>')
    body = heading + quorum_svg(stepper) + _legend() + _queue_table(stepper) + _timeline(stepper)
    return f'<div style="line-height:1.35">{body}</div>'     # not the widgets' 28 px line height
