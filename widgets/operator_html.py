"""The operator's view as HTML, sized for a projector: health tiles over a per-broker table.

Theory of operation
-------------------
Across a room, an operator's dashboard must answer four questions before
anyone reads a number: is there exactly one active controller, is any
partition offline, is any partition under-replicated, are all brokers up?
`operator_html` draws those as four large tiles, green when healthy and red
(or amber for under-replication) when not.  Below them one row per broker
shows its state, the bytes of its log segments, its partition and leader
counts with bars scaled to the busiest broker (balance is then a matter of
equal bar lengths), its under-replicated and under-min-ISR partitions, and
its traffic over the last 10 seconds.  A small line under the table names
the MBeans behind the columns.

The fragment is self-contained (inline styles, no scripts), so it works in
an ``ipywidgets.HTML`` and in a static notebook alike; the text form of the
same view is `widgets.operator_text.operator_text`.
"""

from __future__ import annotations

import html

from minikafka import ClusterSnapshot
from widgets.operator_model import BrokerRow, ClusterHealth, build_operator_summary
from widgets.operator_text import LEGEND, RATE_LEGEND, rate_text
from widgets.topology_model import human_bytes

GOOD, WARN, BAD, MUTED = "#2e7d32", "#ef6c00", "#c62828", "#757575"
STATE_COLOURS = {"alive": GOOD, "fenced": WARN, "not responding": BAD,
                 "fenced, not responding": BAD, "dead": BAD}


def _tile(title: str, value: str, colour: str) -> str:
    return (f'<div style="flex:1;min-width:9em;padding:0.4em 0.7em;border-radius:8px;'
            f'background:{colour};color:white">'
            f'<div style="font-size:0.75em;opacity:0.9">{html.escape(title)}</div>'
            f'<div style="font-size:1.9em;font-weight:bold;line-height:1.1">{html.escape(value)}</div></div>')


def _tiles(h: ClusterHealth) -> str:
    controller = "none" if h.active_controller is None else str(h.active_controller)
    offline = "?" if h.offline_partitions is None else str(h.offline_partitions)
    tiles = [
        _tile("Active controller", controller, GOOD if h.active_controller_count == 1 else BAD),
        _tile("Offline partitions", offline, GOOD if h.offline_partitions == 0 else BAD),
        _tile("Under-replicated", str(h.under_replicated), GOOD if h.under_replicated == 0 else WARN),
        _tile("Brokers alive", f"{h.brokers_alive} / {h.brokers_total}",
              GOOD if h.brokers_alive == h.brokers_total else BAD),
    ]
    return f'<div style="display:flex;gap:0.5em;margin-bottom:0.5em">{"".join(tiles)}</div>'


def _bar(value: int | None, largest: int, label: str | None = None) -> str:
    if value is None:
        return f'<span style="color:{MUTED}">-</span>'
    width = 0 if largest <= 0 else round(100 * value / largest)
    text = html.escape(label if label is not None else str(value))
    return (f'<div style="display:flex;align-items:center;gap:0.3em">'
            f'<div style="width:5em;height:0.7em;background:var(--jp-border-color2, #e0e0e0);border-radius:3px">'
            f'<div style="width:{width}%;height:100%;background:#1565c0;border-radius:3px"></div></div>'
            f'<span>{text}</span></div>')


def _flag(value: int | None) -> str:
    if value is None:
        return f'<span style="color:{MUTED}">-</span>'
    colour = GOOD if value == 0 else WARN
    return f'<span style="color:{colour};font-weight:bold">{value}</span>'


def _row(row: BrokerRow, most: dict[str, int]) -> str:
    state = f'<span style="color:{STATE_COLOURS.get(row.state, MUTED)};font-weight:bold">{row.state}</span>'
    cells = [f"<b>{row.broker}</b>", state,
             _bar(row.disk_bytes, most["disk"], human_bytes(row.disk_bytes)),
             _bar(row.partitions, most["partitions"]), _bar(row.leaders, most["leaders"]),
             _flag(row.under_replicated), _flag(row.under_min_isr),
             rate_text(row.messages_in), rate_text(row.bytes_in, "B"), rate_text(row.bytes_out, "B")]
    return "<tr>" + "".join(f'<td style="padding:0.15em 0.6em">{c}</td>' for c in cells) + "</tr>"


def operator_html(snapshot: ClusterSnapshot, *, font_size: str = "18px") -> str:
    """The operator's view of ``snapshot`` as an HTML fragment (see the module docstring)."""
    summary = build_operator_summary(snapshot)
    rows = summary.brokers
    most = {"disk": max((r.disk_bytes for r in rows), default=0),
            "partitions": max((r.partitions or 0 for r in rows), default=0),
            "leaders": max((r.leaders or 0 for r in rows), default=0)}
    heads = ["Broker", "State", "Log bytes", "Partitions", "Leaders", "URP", "Under min ISR",
             "Msg in/s", "Bytes in/s", "Bytes out/s"]
    head = "".join(f'<th style="text-align:left;padding:0.15em 0.6em">{h}</th>' for h in heads)
    body = "".join(_row(r, most) for r in rows)
    legend = html.escape(f"{LEGEND}. {RATE_LEGEND}.")
    return (f'<div style="font-family:sans-serif;font-size:{font_size}">{_tiles(summary.health)}'
            f'<table style="border-collapse:collapse"><thead><tr>{head}</tr></thead>'
            f'<tbody>{body}</tbody></table>'
            f'<div style="font-size:0.6em;color:{MUTED};margin-top:0.3em">{legend}</div></div>')
