"""`TopologyView`: the cluster diagram as a widget that redraws itself.

Theory of operation
-------------------
The view follows the cluster through the two things every lesson can see:
``cluster.events`` (an `EventLog`) and ``cluster.snapshot()``.  It
subscribes to the event log; each event only asks a `RedrawWorker` for a
redraw, so the cluster thread that emitted the event is never held up.  The
worker takes a fresh snapshot, renders it (`widgets.render.topology_html`:
SVG from ``dot``, or the text form when ``dot`` is missing) and assigns the
result to an ``ipywidgets.HTML``: a trait update, which is safe from a
background thread with ipykernel >= 7.0.1 (no ``with output:`` anywhere).
Bursts of events are coalesced into one redraw, at most one per
``min_interval_s`` (0.1 s by default).

The first picture is drawn synchronously in the constructor, so the view
shows the current state as soon as it is displayed.  `wait_drawn(seq)`
blocks until the picture includes event ``seq`` (snapshots carry
``last_event_seq``), which lets tests and lessons wait for "the diagram
shows it" without sleeping.

The widget's ``repr`` (its ``text/plain``, which nbval compares) depends
only on how the view was configured, never on the cluster's changing state.
The redraw plumbing is `widgets.live_view.LiveView`'s.

``compact=True`` (the `Dashboard`) moves the legend out of the picture into
a collapsed part below it (`widgets.render.topology_html`).

Simplified: the view redraws the whole diagram each time (no diffing).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ipywidgets

from widgets.live_view import LiveView
from widgets.render import topology_html
from widgets.topology_model import DEFAULT_MAX_PARTITIONS


class TopologyView(LiveView):
    """A live diagram of ``cluster`` (any object with ``snapshot()`` and ``events``)."""

    what = "diagram"

    def __init__(self, cluster: Any, *, topics: Iterable[str] | str | None = None,
                 show_internal: bool = False, max_partitions: int = DEFAULT_MAX_PARTITIONS,
                 offsets: bool = False, min_interval_s: float = 0.1, compact: bool = False):
        self._topics = [topics] if isinstance(topics, str) else (
            list(topics) if topics is not None else None)
        self._options = {"topics": self._topics, "show_internal": show_internal,
                         "max_partitions": max_partitions, "offsets": offsets}
        self._compact = compact
        self.diagram = ipywidgets.HTML(layout=ipywidgets.Layout(width="100%"))
        super().__init__(cluster, self.diagram, min_interval_s=min_interval_s,
                         name="minikafka-topology-view")

    def render(self, snapshot) -> str:
        return topology_html(snapshot, compact=self._compact, **self._options)

    def __repr__(self) -> str:
        topics = "all" if self._topics is None else self._topics
        return (f"TopologyView(topics={topics!r}, show_internal={self._options['show_internal']}, "
                f"offsets={self._options['offsets']})")
