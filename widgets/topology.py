"""The cluster diagram as Graphviz DOT source: a pure function of a snapshot.

Theory of operation
-------------------
`topology_dot` draws the classic course picture ("3 brokers, topic orders,
replication factor 3"): the KRaft controller quorum on top, one box per
broker below it, and inside each broker box the partition replicas that
broker holds, marked ``L`` (leader), ``F`` (in-sync follower) or
``F (out of sync)`` (a follower outside the ISR).  What to draw is decided by
`widgets.topology_model.build_topology`, shared with the text form, so the
two always agree.

Text on a pastel fill (a box's header, the legend's swatches) is drawn in a
fixed dark grey (`ON_PASTEL`); any other text has no colour in the DOT
source, so that the widgets can let it follow the page's theme
(`widgets.render.themed_svg`).  The active controller's quorum line is
split over two rows ("active controller", then "leader · epoch 3") so no
row is much wider than the box's replica rows.

Every fact is written as text as well as colour (the state word in each box,
the mark in each replica row), so the picture reads in grey scale and to a
screen reader; a legend explains the colours.  Boxes are HTML-like Graphviz
labels (``shape=plain``); invisible edges only fix the layout (quorum row,
then rows of at most ``brokers_per_row`` brokers, each left to right by id,
then the legend).

The function is deterministic: the same snapshot and options give the same
bytes, so goldens can pin it and nbval can compare it.

Simplified: no edges for replication traffic or heartbeats (with 20
partitions they would hide the marks); the quorum leader is taken from the
snapshot's quorum view, and each controller box shows what that node itself
believes (an isolated old leader may still say ``leader``).
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from itertools import zip_longest

from minikafka import ClusterSnapshot
from widgets.topology_model import DEFAULT_MAX_PARTITIONS, NodeBox, ReplicaMark, build_topology

DEFAULT_BROKERS_PER_ROW = 3

# state -> (header fill, border colour, table STYLE); the word is always printed too
STATE_STYLES = {
    "alive": ("#c8e6c9", "#2e7d32", "rounded"),
    "fenced": ("#ffcc80", "#e65100", "rounded"),
    "paused": ("#d1c4e9", "#4527a0", "rounded,dotted"),
    "isolated": ("#fff59d", "#b26a00", "rounded,dashed"),
    "dead": ("#e0e0e0", "#616161", "rounded,dashed"),
}
ACTIVE_CONTROLLER_FILL = "#ffd54f"
# Text on a pastel fill is always this dark grey (explicit, so that `widgets.render.themed_svg`
# leaves it dark when the theme's text colour turns light); other text follows the theme.
ON_PASTEL = "#212121"

# replica kind -> (cell fill, text colour, bold)
REPLICA_STYLES = {
    "leader": ("#1565c0", "#ffffff", True),
    "follower": ("#bbdefb", "#0d47a1", False),
    "out_of_sync": ("#ffcdd2", "#b71c1c", True),
    "offline": ("#e0e0e0", "#424242", True),
}

_REPLICA_LEGEND = (
    ("L", "leader", "partition leader"),
    ("F", "follower", "follower in the ISR (in sync)"),
    ("F (out of sync)", "out_of_sync", "follower not in the ISR"),
    ("- (no leader)", "offline", "partition has no leader"),
)
_STATE_LEGEND = (
    ("alive", "running and unfenced"),
    ("fenced", "running, fenced by the controller"),
    ("paused", "process paused (no heartbeats)"),
    ("isolated", "network cut from the other nodes"),
    ("dead", "process killed"),
)


def topology_dot(snapshot: ClusterSnapshot, *, topics: Iterable[str] | str | None = None,
                 show_internal: bool = False, max_partitions: int = DEFAULT_MAX_PARTITIONS,
                 offsets: bool = False, legend: bool = True,
                 brokers_per_row: int = DEFAULT_BROKERS_PER_ROW) -> str:
    """Graphviz DOT source for ``snapshot`` (see the module docstring).

    ``topics``/``show_internal``/``max_partitions`` choose the partitions
    (internal topics such as ``__consumer_offsets`` are hidden by default);
    ``offsets=True`` adds each replica's log end offset and high watermark.
    """
    if isinstance(brokers_per_row, bool) or not isinstance(brokers_per_row, int) \
            or brokers_per_row < 1:
        raise ValueError(f"brokers_per_row must be a positive integer, got {brokers_per_row!r}")
    topology = build_topology(snapshot, topics=topics, show_internal=show_internal,
                              max_partitions=max_partitions)
    lines = [
        "digraph minikafka {",
        '  graph [fontname="Helvetica", fontsize=11, labelloc=t, labeljust=l, '
        'nodesep=0.3, ranksep=0.3, newrank=true,',
        f"         label=<{_graph_label(topology.quorum, topology.notes)}>];",
        '  node [shape=plain, fontname="Helvetica", fontsize=10];',
        "  edge [style=invis];",
    ]
    lines += _quorum(topology.controllers, offsets)
    lines += [f"  node_{box.node_id} [label=<{_box_label(box, offsets)}>];"
              for box in topology.brokers]
    rows = [[f"node_{box.node_id}" for box in topology.controllers]]
    rows += _rows([f"node_{box.node_id}" for box in topology.brokers], brokers_per_row)
    if legend:
        # Below the brokers, so the picture is as wide as its widest row of
        # boxes, not boxes plus legend.
        lines.append(f"  legend [label=<{_legend_label()}>];")
        rows.append(["legend"])
    previous: list[str] = []
    for row in (r for r in rows if r):
        lines += _rank_row(row)
        if previous:
            # Middle to middle, so each row sits centred under the one above.
            lines.append(f"  {previous[len(previous) // 2]} -> {row[len(row) // 2]};")
        previous = row
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quorum(controllers: tuple[NodeBox, ...], offsets: bool) -> list[str]:
    """The dedicated controllers, framed as the KRaft quorum."""
    if not controllers:
        return []
    return ["  subgraph cluster_quorum {",
            '    label="KRaft controller quorum"; style="rounded,dashed"; color="#9e9e9e";',
            *[f"    node_{box.node_id} [label=<{_box_label(box, offsets)}>];"
              for box in controllers],
            "  }"]


def _rows(names: list[str], per_row: int) -> list[list[str]]:
    """Split into balanced rows: 5 brokers with 3 per row give 3 + 2."""
    if not names:
        return []
    count = -(-len(names) // per_row)
    width = -(-len(names) // count)
    return [names[i:i + width] for i in range(0, len(names), width)]


def _rank_row(names: list[str]) -> list[str]:
    """Same rank, kept left to right in the given order by an invisible chain."""
    if not names:
        return []
    lines = ["  { rank=same; " + " ".join(f"{n};" for n in names) + " }"]
    if len(names) > 1:
        lines.append("  " + " -> ".join(names) + ";")
    return lines


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _graph_label(quorum: str, notes: tuple[str, ...]) -> str:
    parts = [f"<B>{_esc(quorum)}</B>"] + [_esc(note) for note in notes]
    return '<BR ALIGN="LEFT"/>'.join(parts) + '<BR ALIGN="LEFT"/>'


def _box_label(box: NodeBox, offsets: bool) -> str:
    fill, border, style = STATE_STYLES.get(box.state, STATE_STYLES["alive"])
    header = ACTIVE_CONTROLLER_FILL if box.active_controller else fill
    span = 3 if offsets else 2
    cell = f'<TD COLSPAN="{span}" BGCOLOR="{header}"'
    rows = [f"{cell}>{_dark(_esc(box.title), bold=True)}</TD>",
            f"{cell}>{_dark(_esc(box.status))}</TD>"]
    if box.raft:
        rows += [f"{cell}>{_dark(_esc(part))}</TD>" for part in _raft_rows(box.raft)]
    if box.details:
        rows.append(f'<TD COLSPAN="{span}"><FONT POINT-SIZE="9">{_esc(box.details)}</FONT></TD>')
    if box.is_broker:
        rows += [_replica_row(mark, offsets) for mark in box.replicas]
        if box.hidden_replicas:
            rows.append(f'<TD COLSPAN="{span}"><I>+ {box.hidden_replicas} more replicas '
                        f"not shown</I></TD>")
        elif not box.replicas:
            rows.append(f'<TD COLSPAN="{span}"><I>no replicas</I></TD>')
    border_width = 3 if box.active_controller else 2
    # One table row per DOT line: Graphviz ignores whitespace between tags,
    # and the source stays readable for learners who print it.
    body = "".join(f"\n      <TR>{row}</TR>" for row in rows)
    return (f'<TABLE BORDER="{border_width}" CELLBORDER="0" CELLSPACING="1" CELLPADDING="3" '
            f'COLOR="{border}" BGCOLOR="#ffffff" STYLE="{style}">{body}</TABLE>')


def _dark(text: str, bold: bool = False) -> str:
    """``text`` in the fixed dark colour used on pastel fills."""
    inner = f"<B>{text}</B>" if bold else text
    return f'<FONT COLOR="{ON_PASTEL}">{inner}</FONT>'


_ACTIVE_PREFIX = "active controller · "


def _raft_rows(raft: str) -> list[str]:
    """``active controller · leader · epoch 3`` as two rows; other quorum lines as one."""
    if raft.startswith(_ACTIVE_PREFIX):
        return ["active controller", raft[len(_ACTIVE_PREFIX):]]
    return [raft]


def legend_rows() -> list[tuple[str, str, str, str]]:
    """(swatch text, fill, text colour, meaning) for every colour the picture uses."""
    rows = [(mark, REPLICA_STYLES[kind][0], REPLICA_STYLES[kind][1], meaning)
            for mark, kind, meaning in _REPLICA_LEGEND]
    rows += [(word, STATE_STYLES[word][0], ON_PASTEL, meaning) for word, meaning in _STATE_LEGEND]
    rows.append(("active", ACTIVE_CONTROLLER_FILL, ON_PASTEL, "active controller (quorum leader)"))
    return rows


def _replica_row(mark: ReplicaMark, offsets: bool) -> str:
    fill, colour, bold = REPLICA_STYLES[mark.kind]
    text = _esc(mark.mark)
    if bold:
        text = f"<B>{text}</B>"
    row = (f'<TD ALIGN="LEFT">{_esc(mark.name)}</TD>'
           f'<TD BGCOLOR="{fill}" ALIGN="LEFT"><FONT COLOR="{colour}">{text}</FONT></TD>')
    if offsets:
        row += f'<TD ALIGN="LEFT"><FONT POINT-SIZE="9">{_esc(mark.offsets)}</FONT></TD>'
    return row


def _legend_label() -> str:
    rows = ['<TR><TD COLSPAN="4" ALIGN="LEFT"><B>Legend</B></TD></TR>']
    for replica, state in zip_longest(_REPLICA_LEGEND, _STATE_LEGEND):
        cells = ""
        if replica:
            mark, kind, meaning = replica
            fill, colour, _ = REPLICA_STYLES[kind]
            cells += (f'<TD BGCOLOR="{fill}"><FONT COLOR="{colour}">{_esc(mark)}</FONT></TD>'
                      f'<TD ALIGN="LEFT">{_esc(meaning)}</TD>')
        else:
            cells += '<TD COLSPAN="2"></TD>'
        word, meaning = state
        fill, border, _ = STATE_STYLES[word]
        cells += (f'<TD BGCOLOR="{fill}" BORDER="1" COLOR="{border}">{_dark(word)}</TD>'
                  f'<TD ALIGN="LEFT">{_esc(meaning)}</TD>')
        rows.append(f"<TR>{cells}</TR>")
    rows.append(f'<TR><TD COLSPAN="2"></TD><TD BGCOLOR="{ACTIVE_CONTROLLER_FILL}">{_dark("active")}</TD>'
                '<TD ALIGN="LEFT">active controller (quorum leader)</TD></TR>')
    return ('<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2" COLOR="#9e9e9e">'
            + "".join(f"\n      {row}" for row in rows) + "</TABLE>")
