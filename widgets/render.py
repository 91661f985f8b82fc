"""Turning the topology into SVG with Graphviz's ``dot``, or into text without it.

Theory of operation
-------------------
`dot_to_svg` hands DOT source to the ``dot`` program through the `graphviz`
Python package (which only wraps the program; it cannot draw by itself).
When ``dot`` is not installed, nothing breaks: the diagram falls back to
`widgets.topology_text.topology_text`, and ONE message per process says how
to install Graphviz (`DOT_MISSING_MESSAGE`).

Three consumers:

* `TopologyDiagram` (from `topology_diagram(snapshot)`): a static picture
  for a notebook cell.  Its ``_repr_mimebundle_`` offers ``image/svg+xml``
  and, always, a deterministic ``text/plain`` (the text form), so nbval
  compares the text and a screen reader has it too.
* `topology_html`: an HTML fragment (SVG scaled to the output width, plus
  the text form in a collapsed ``<details>``) for `TopologyView`;
  ``compact=True`` (the dashboard) leaves the legend out of the picture and
  puts it, as an HTML table, in a second collapsed ``<details>``, so the
  drawing keeps the height for the nodes; with 4 to 6 brokers it also
  tries them all in one row and keeps whichever layout needs less
  shrinking to fit the dashboard's room on a 1280x720 screen at 125%
  (`COMPACT_ROOM`).  The SVG goes through
  `themed_svg`: Graphviz paints a white page and black text, which would be
  a white block in JupyterLab's dark theme; the page becomes transparent
  and default text takes the colour of the text around it
  (``currentColor``), while text on a pastel fill keeps its explicit dark
  colour (`widgets.topology` sets it).  Text is drawn a little smaller than
  Graphviz measured it (`TEXT_SCALE`), so a browser whose sans-serif font is
  wider than the one Graphviz measured still keeps every line inside its
  box.
* `svg_document`: the bare SVG for saving to a file.

The SVG of one ``dot`` version is stable byte for byte, but versions lay
out differently and stamp their version in a comment; lessons that check
outputs compare the text form, not the SVG.
"""

from __future__ import annotations

import html
import re
import shutil
import sys
import threading
from collections.abc import Iterable

import graphviz

from minikafka import ClusterSnapshot
from widgets.topology import DEFAULT_BROKERS_PER_ROW, legend_rows, topology_dot
from widgets.topology_model import DEFAULT_MAX_PARTITIONS
from widgets.topology_text import topology_text

DOT_MISSING_MESSAGE = (
    "Graphviz's dot program was not found on the PATH, so cluster diagrams are shown as text. "
    "To get the pictures, install Graphviz: sudo apt-get install graphviz (Debian/Ubuntu), "
    "conda install graphviz (conda), or brew install graphviz (macOS)."
)

TEXT_SCALE = 0.92                    # drawn size / measured size of the diagram's text
# The room the compact dashboard's diagram has on a 1280x720 screen at 125% (CSS pixels).
COMPACT_ROOM = (560, 416)
_SVG_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')

_reported = threading.Event()        # set once the missing-dot message has been shown
_report_lock = threading.Lock()      # so two threads cannot both print it


class GraphvizNotFound(RuntimeError):
    """Raised by `dot_to_svg` when the ``dot`` program is missing."""


def dot_available() -> bool:
    """Is Graphviz's ``dot`` on the PATH right now (installing it needs no restart)?"""
    return shutil.which("dot") is not None


def report_missing_dot(stream=None) -> bool:
    """Print `DOT_MISSING_MESSAGE` the first time only; True if it printed now."""
    with _report_lock:
        if _reported.is_set():
            return False
        _reported.set()
    print(DOT_MISSING_MESSAGE, file=stream if stream is not None else sys.stderr)
    return True


def dot_to_svg(source: str) -> str:
    """Render DOT ``source`` to an SVG document (from ``<svg`` on, no XML prolog)."""
    if not dot_available():
        raise GraphvizNotFound(DOT_MISSING_MESSAGE)
    try:
        svg = graphviz.pipe("dot", "svg", source.encode("utf-8"), quiet=True).decode("utf-8")
    except graphviz.ExecutableNotFound as exc:        # removed between the check and the call
        raise GraphvizNotFound(DOT_MISSING_MESSAGE) from exc
    return svg[svg.index("<svg"):]


def svg_document(snapshot: ClusterSnapshot, **options) -> str:
    """The diagram of ``snapshot`` as SVG; options as for `topology_dot`."""
    return dot_to_svg(topology_dot(snapshot, **options))


_TEXT_WITHOUT_FILL = re.compile(r"<text (?![^>]*\bfill=)")
_FONT_SIZE = re.compile(r'font-size="([\d.]+)"')


def themed_svg(svg: str) -> str:
    """Graphviz's SVG made to follow the page's theme (see the module docstring)."""
    svg = svg.replace('<polygon fill="white"', '<polygon fill="transparent"')
    # white table backgrounds (BGCOLOR="#ffffff") of shapes, never of text
    svg = re.sub(r'<(polygon|path) fill="#ffffff"', r'<\1 fill="transparent"', svg)
    svg = _TEXT_WITHOUT_FILL.sub('<text fill="currentColor" ', svg)
    return _FONT_SIZE.sub(lambda m: f'font-size="{float(m.group(1)) * TEXT_SCALE:.2f}"', svg)


def _fit(svg: str) -> float:
    """How much the picture must shrink to fit `COMPACT_ROOM` (1.0: it fits as drawn)."""
    size = _SVG_SIZE.search(svg)
    if size is None:
        return 1.0
    width, height = (float(v) * 4 / 3 for v in size.groups())     # pt -> CSS px
    return min(1.0, COMPACT_ROOM[0] / width, COMPACT_ROOM[1] / height)


def _compact_svg(snapshot: ClusterSnapshot, options: dict) -> str:
    """The legend-less SVG, with the brokers in rows of 3 or all in one row (4 to 6 brokers),
    whichever needs less shrinking to fit the compact dashboard."""
    brokers = sum(1 for node in snapshot.nodes if node.is_broker)
    best: tuple[float, str] | None = None
    for per_row in [DEFAULT_BROKERS_PER_ROW] + ([brokers] if 3 < brokers <= 6 else []):
        svg = dot_to_svg(topology_dot(snapshot, legend=False, brokers_per_row=per_row,
                                      **options))
        if best is None or _fit(svg) > best[0] + 0.02:
            best = (_fit(svg), svg)
    return best[1]


def legend_html() -> str:
    """The diagram's legend as a small HTML table (the compact dashboard's collapsed legend)."""
    cells = []
    for swatch, fill, colour, meaning in legend_rows():
        cells.append(f'<tr><td style="background:{fill};color:{colour};padding:0 6px;'
                     f'white-space:nowrap">{html.escape(swatch)}</td>'
                     f'<td style="padding:0 8px">{html.escape(meaning)}</td></tr>')
    return f'<table style="border-collapse:separate;border-spacing:2px">{"".join(cells)}</table>'


def topology_html(snapshot: ClusterSnapshot, *, topics: Iterable[str] | str | None = None,
                  show_internal: bool = False, max_partitions: int = DEFAULT_MAX_PARTITIONS,
                  offsets: bool = False, compact: bool = False) -> str:
    """HTML for a widget: the SVG fitted to the width, with the text form below.

    ``compact=True`` draws no legend in the picture and adds it collapsed
    below.  Without ``dot`` the text form is the picture, preceded by how to
    install Graphviz (shown on every redraw of the widget, since it is part
    of it).
    """
    options = {"topics": topics, "show_internal": show_internal,
               "max_partitions": max_partitions, "offsets": offsets}
    text = html.escape(topology_text(snapshot, **options))
    try:
        svg = (_compact_svg(snapshot, options) if compact
               else dot_to_svg(topology_dot(snapshot, **options)))
    except GraphvizNotFound:
        return (f'<div class="minikafka-topology"><p><i>{html.escape(DOT_MISSING_MESSAGE)}</i></p>'
                f"<pre>{text}</pre></div>")
    # Natural size, but shrunk to the output's width when wider (the viewBox
    # keeps the proportions; the style wins over the height attribute).
    svg = themed_svg(svg).replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
    legend = (f"<details><summary>Legend</summary>{legend_html()}</details>"
              if compact else "")
    return (f'<div class="minikafka-topology">{svg}{legend}'
            f"<details><summary>Text version</summary><pre>{text}</pre></details></div>")


class TopologyDiagram:
    """A static picture of one snapshot for a notebook cell (see the module docstring)."""

    def __init__(self, snapshot: ClusterSnapshot, **options):
        self.dot = topology_dot(snapshot, **options)       # the DOT source, for the curious
        text_options = {k: v for k, v in options.items()
                        if k in ("topics", "show_internal", "max_partitions", "offsets")}
        self.text = topology_text(snapshot, **text_options)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        bundle = {"text/plain": self.text}
        try:
            bundle["image/svg+xml"] = dot_to_svg(self.dot)
        except GraphvizNotFound:
            report_missing_dot()
        return bundle

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text


def topology_diagram(snapshot: ClusterSnapshot, **options) -> TopologyDiagram:
    """The picture of ``snapshot`` for display in a cell; options as for `topology_dot`."""
    return TopologyDiagram(snapshot, **options)
