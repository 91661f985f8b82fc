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

Simplified: the view redraws the whole diagram each time (no diffing).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import ipywidgets

from minikafka.runtime.events import ClusterEvent
from widgets.redraw import RedrawWorker
from widgets.render import topology_html
from widgets.topology_model import DEFAULT_MAX_PARTITIONS


class TopologyView(ipywidgets.VBox):
    """A live diagram of ``cluster`` (any object with ``snapshot()`` and ``events``)."""

    def __init__(self, cluster: Any, *, topics: Iterable[str] | str | None = None,
                 show_internal: bool = False, max_partitions: int = DEFAULT_MAX_PARTITIONS,
                 offsets: bool = False, min_interval_s: float = 0.1):
        self._cluster = cluster
        self._topics = [topics] if isinstance(topics, str) else (
            list(topics) if topics is not None else None)
        self._options = {"topics": self._topics, "show_internal": show_internal,
                         "max_partitions": max_partitions, "offsets": offsets}
        self.diagram = ipywidgets.HTML(layout=ipywidgets.Layout(width="100%"))
        self.status = ipywidgets.HTML()            # shows why the last redraw failed, if it did
        super().__init__(children=[self.diagram, self.status],
                         layout=ipywidgets.Layout(width="100%"))
        self._draw_lock = threading.Lock()         # one draw at a time: constructor vs worker
        self._drawn = threading.Condition()
        self.drawn_seq = -1                        # last_event_seq of the snapshot on screen
        self.last_error: str | None = None         # why the last redraw failed, if it did
        self._worker = RedrawWorker(self._redraw, min_interval_s=min_interval_s,
                                    on_error=self._show_error, name="minikafka-topology-view")
        # Subscribe before the first draw: an event in between then causes
        # one more redraw instead of being missed.
        self._unsubscribe = cluster.events.subscribe(self._on_event)
        try:
            self._redraw()
        except Exception:
            self.stop()             # bad options or no snapshot: leave no thread behind
            raise

    # ------------------------------------------------------------------ drawing
    def _on_event(self, event: ClusterEvent) -> None:
        self._worker.request()

    def _redraw(self) -> None:
        with self._draw_lock:
            snapshot = self._cluster.snapshot()
            self.diagram.value = topology_html(snapshot, **self._options)
            if self.last_error is not None:
                self.last_error = None
                self.status.value = ""
        with self._drawn:
            self.drawn_seq = max(self.drawn_seq, snapshot.last_event_seq)
            self._drawn.notify_all()

    def _show_error(self, exc: Exception) -> None:
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.status.value = (f'<span style="color:#b71c1c">The diagram could not be redrawn '
                             f"({self.last_error}); it shows an older state.</span>")

    def redraw(self) -> None:
        """Ask for a redraw now (it happens on the view's thread)."""
        self._worker.request()

    # ------------------------------------------------------------------ waiting
    def wait_drawn(self, seq: int, timeout_s: float = 5.0) -> bool:
        """Block until the picture includes event ``seq``; False after ``timeout_s``."""
        with self._drawn:
            return self._drawn.wait_for(lambda: self.drawn_seq >= seq, timeout_s)

    def wait_idle(self, timeout_s: float = 5.0) -> bool:
        """Block until no redraw is pending or running."""
        return self._worker.wait_idle(timeout_s)

    @property
    def redraws(self) -> int:
        """Redraws done by the background worker (the first, synchronous one not counted)."""
        return self._worker.draws

    # ------------------------------------------------------------------ lifecycle
    def stop(self) -> None:
        """Stop following the cluster: unsubscribe and end the redraw thread."""
        # getattr: Widget.__del__ calls close() even when __init__ failed half-way.
        if getattr(self, "_unsubscribe", None) is not None:
            self._unsubscribe()
        if getattr(self, "_worker", None) is not None:
            self._worker.close()

    def close(self) -> None:
        """Stop following the cluster and close the widget."""
        self.stop()
        super().close()

    def __repr__(self) -> str:
        topics = "all" if self._topics is None else self._topics
        return (f"TopologyView(topics={topics!r}, show_internal={self._options['show_internal']}, "
                f"offsets={self._options['offsets']})")
