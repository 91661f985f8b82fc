"""`Dashboard`: the live diagram beside the failure buttons and the event log.

Theory of operation
-------------------
A lesson about failures wants three things in one glance: the picture of
the cluster (`TopologyView`), the buttons that break it and the log of what
the cluster did about it (`FailurePanel`, which holds the `EventLogView`).
The class must see the button pressed, the box that changes and the log
line that explains it on one screen, down to a 1280x720 projector at 125%
zoom (about 1024x576 CSS pixels, of which JupyterLab's bars leave some 470
in height).  So the `Dashboard` puts them side by side in one row at most
that high:

* left, the diagram, scaled to the room it has (its SVG keeps its
  proportions and grows no taller than `widgets.theme.DIAGRAM_MAX_HEIGHT`),
  with the legend and the text version collapsed below it;
* right, a narrow column (the compact `FailurePanel`): the status line of
  the last button, one row of short buttons per node ("Kill", "Restart",
  ...), and the event log, newest first, wrapping between words.

On a narrow page the column wraps under the diagram.  It closes its parts
together.

``operator=True`` adds the operator's view (`OperatorView`) under that row,
in a collapsible section, closed at first (``operator_open=True`` opens
it): health tiles (active controller, offline and under-replicated
partitions, brokers alive) and per-broker disk, partition and leader counts
(balance) and traffic, from Kafka's MBeans, redrawn on every event and every
``refresh_s`` seconds.  ``dashboard.operator_text()`` gives that view as
stable text.

On a simulated cluster a `SimClock` row sits on top (``sim_clock=False``
leaves it out): while the dashboard is on screen virtual time runs by itself,
so a kill plays out (fencing, a new leader) as on a live cluster.

Every part follows JupyterLab's light or dark theme (`widgets.theme`).

Its still picture (`widgets.still`) is its parts' pictures, laid out as on
screen: the diagram beside the event log, the operator's tiles under them;
when the cluster stops it freezes with them, keeping the last state.
Its ``repr`` is as deterministic as its parts' (nbval compares it).

One live dashboard per cluster: clicking a widget moves JupyterLab's active
cell to the widget's cell, so the next Shift+Enter runs ``Dashboard(cluster)``
again.  A new dashboard therefore freezes the older live one of the same
cluster (its still picture stays, captioned `REPLACED`, and it stops
listening to the cluster's events).  A module-level table maps ``id(cluster)``
to a weak reference to the newest dashboard (a dashboard nobody holds can
still go away; the cluster itself is compared too, since ids are reused).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

import ipywidgets

from widgets.failure_panel import FailurePanel
from widgets.operator_view import OperatorView
from widgets.sim_clock import sim_clock_for
from widgets.still import CLOSED, CLUSTER_STOPPED, StillPicture
from widgets.theme import style_widget
from widgets.topology_model import DEFAULT_MAX_PARTITIONS
from widgets.topology_view import TopologyView

REPLACED = "A newer dashboard of this cluster replaced this one: this is its last picture."

_NEWEST: dict[int, weakref.ref] = {}     # id(cluster) -> the newest dashboard of that cluster


def _replace_older(dashboard: "Dashboard") -> None:
    """Make ``dashboard`` the cluster's newest; freeze the one it replaces, if still live."""
    cluster = dashboard._cluster
    held = _NEWEST.get(id(cluster))
    older = held() if held is not None else None
    _NEWEST[id(cluster)] = weakref.ref(dashboard)
    if older is not None and older is not dashboard and older._cluster is cluster:
        older.freeze(REPLACED)


COLUMN_WIDTH = "30em"          # the buttons and the event log beside the diagram
OPERATOR_TITLE = "Operator view: health, balance and traffic (from Kafka's MBeans)"


class Dashboard(ipywidgets.VBox):
    """Diagram (left), failure buttons and event log (a column on the right) for ``cluster``."""

    def __init__(self, cluster: Any, *, topics: Iterable[str] | str | None = None,
                 show_internal: bool = False, max_partitions: int = DEFAULT_MAX_PARTITIONS,
                 offsets: bool = False, min_interval_s: float = 0.1, history: int = 20,
                 operator: bool = False, refresh_s: float | None = 1.0,
                 operator_open: bool = False, sim_clock: bool = True):
        self._cluster = cluster
        # simulated clusters only: virtual time runs while shown (widgets/sim_clock.py)
        self.sim_clock = sim_clock_for(cluster) if sim_clock else None
        self.operator: OperatorView | None = None
        if operator:
            self.operator = OperatorView(cluster, refresh_s=refresh_s, min_interval_s=min_interval_s,
                                         sim_clock=False)
        self.view = TopologyView(cluster, topics=topics, show_internal=show_internal,
                                 max_partitions=max_partitions, offsets=offsets,
                                 min_interval_s=min_interval_s, compact=True)
        self.panel = FailurePanel(cluster, history=history, compact=True, log_height="16em",
                                  sim_clock=False)
        # the diagram takes what the column leaves, but no more than its natural width, so
        # on a wide screen the column stays beside it
        self.view.layout = ipywidgets.Layout(flex="1 1 22em", min_width="0", width="auto",
                                             max_width="max-content")
        self.panel.layout = ipywidgets.Layout(flex="0 1 " + COLUMN_WIDTH, width=COLUMN_WIDTH,
                                              min_width="22em", margin="0 0 0 8px")
        row = ipywidgets.HBox([self.view, self.panel], layout=ipywidgets.Layout(
            width="100%", flex_flow="row wrap", align_items="flex-start"))
        row.add_class("minikafka-compact")
        self.row = row
        parts: list[ipywidgets.Widget] = [self.sim_clock] if self.sim_clock is not None else []
        parts.append(row)
        self.operator_section: ipywidgets.Accordion | None = None
        if self.operator is not None:
            self.operator_section = ipywidgets.Accordion(
                children=[self.operator], titles=(OPERATOR_TITLE,),
                selected_index=0 if operator_open else None)
            parts.append(self.operator_section)
        parts.append(style_widget())            # invisible: the style sheet of the parts
        super().__init__(children=parts, layout=ipywidgets.Layout(width="100%"))
        self.still = StillPicture(lambda: ipywidgets.Widget._repr_mimebundle_(self),
                                  self.picture, lambda: repr(self))
        self._unsubscribe_stop = cluster.events.subscribe_stop(
            lambda: self.freeze(CLUSTER_STOPPED))
        _replace_older(self)

    @property
    def buttons(self) -> dict:
        """The panel's buttons, e.g. ``dashboard.buttons[("kill", 2)]``."""
        return self.panel.buttons

    def operator_text(self, *, rates: bool = True) -> str:
        """The operator's view as text (also without ``operator=True``); see `operator_text`."""
        from widgets.operator_text import operator_text
        return operator_text(self._cluster.snapshot(), rates=rates)

    def picture(self) -> str:
        """The dashboard as HTML for a still picture: the diagram beside the event log, the
        operator's tiles under them."""
        row = (f'<div style="display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start">'
               f'<div style="flex:1 1 22em;min-width:0;max-width:max-content">{self.view.diagram.value}</div>'
               f'<div style="flex:0 1 {COLUMN_WIDTH};min-width:20em">{self.panel.picture()}</div>'
               f"</div>")
        operator = self.operator.board.value if self.operator is not None else ""
        return row + operator

    def _ipython_display_(self) -> None:
        self.still.display()

    def freeze(self, caption: str = CLOSED) -> None:
        """Freeze every part and keep the dashboard's last picture with ``caption``."""
        if self.still.frozen:
            return
        self._unsubscribe_stop()
        for part in (self.sim_clock, self.operator, self.view, self.panel):
            if part is not None:
                part.freeze(caption)
        self.still.freeze(caption)

    def close(self) -> None:
        # Widget.__del__ calls close(), also on a Dashboard whose __init__ failed.
        if getattr(self, "still", None) is not None:
            self.freeze(CLOSED)
        for part in (getattr(self, "sim_clock", None), getattr(self, "operator", None),
                     getattr(self, "view", None), getattr(self, "panel", None)):
            if part is not None:
                part.close()
        super().close()

    def __repr__(self) -> str:
        if self.operator is not None:
            return f"Dashboard(nodes={self.panel.node_ids!r}, operator=True)"
        return f"Dashboard(nodes={self.panel.node_ids!r})"
