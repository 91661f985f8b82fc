"""`LiveView`: the plumbing every self-redrawing view of the cluster shares.

Theory of operation
-------------------
A live view shows one rendering of ``cluster.snapshot()`` in an
``ipywidgets.HTML`` and keeps it current.  Two things ask for a redraw, and a
`RedrawWorker` merges their requests (at most one draw per
``min_interval_s``, on the worker's own thread, so the cluster's thread that
emitted an event is never held up):

* every cluster event (a broker fenced, a leader elected...);
* optionally a ticker every ``refresh_s`` seconds, for what moves without an
  event (offsets, traffic rates).

The first picture is drawn in the constructor, so the view shows the current
state as soon as it is displayed; bad options fail there, leaving no thread
behind.  `wait_drawn(seq)` blocks until the picture includes event ``seq``
(snapshots carry ``last_event_seq``).  A failed redraw keeps the older
picture and says so under it.  Trait updates from the worker's thread are
safe with ipykernel >= 7.0.1 (no ``with output:`` anywhere).

Every live view leaves a still picture (`widgets.still`): it displays
itself with a static HTML copy beside the live view, and when its cluster
announces that it stops (``Cluster.stop()``), or the view is closed, it
*freezes*: it stops following the cluster, keeps the picture it shows with a
caption saying why it no longer changes, and replaces its saved output by
that still picture.  Asked to redraw after that, it says so in one line.

A subclass says what it draws: ``render(snapshot) -> html``, the HTML widget
it draws into, and ``what`` (a few words for the error line).  This is
widget plumbing, outside the sans-IO core: it uses threads.
"""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets

from widgets.redraw import RedrawWorker
from widgets.still import CLOSED, CLUSTER_STOPPED, StillPicture, caption_html
from widgets.theme import ERROR_COLOUR


class LiveView(ipywidgets.VBox):
    """Base of the views that redraw themselves from cluster snapshots."""

    what = "view"                                   # named in the error line ("The diagram ...")

    def __init__(self, cluster: Any, content: ipywidgets.HTML, *, refresh_s: float | None = None,
                 min_interval_s: float = 0.1, name: str = "minikafka-view"):
        if refresh_s is not None and (not isinstance(refresh_s, (int, float)) or refresh_s <= 0):
            raise ValueError(f"refresh_s must be a positive number of seconds or None, "
                             f"got {refresh_s!r}")
        self._cluster = cluster
        self._refresh_s = refresh_s
        self._content = content
        self.status = ipywidgets.HTML()             # why the last redraw failed, if it did
        super().__init__(children=[content, self.status], layout=ipywidgets.Layout(width="100%"))
        self._draw_lock = threading.Lock()          # one draw at a time: constructor vs worker
        self._drawn = threading.Condition()
        self.drawn_seq = -1                         # last_event_seq of the snapshot on screen
        self.last_error: str | None = None          # why the last redraw failed, if it did
        self._stopped = threading.Event()           # set by stop(): the ticker ends
        self.still = StillPicture(lambda: ipywidgets.Widget._repr_mimebundle_(self),
                                  lambda: self._content.value, lambda: repr(self))
        self._unsubscribe_stop = cluster.events.subscribe_stop(
            lambda: self.freeze(CLUSTER_STOPPED))
        self._worker = RedrawWorker(self._redraw, min_interval_s=min_interval_s,
                                    on_error=self._show_error, name=name)
        # Subscribe before the first draw: an event in between then causes one more
        # redraw instead of being missed.
        self._unsubscribe = cluster.events.subscribe(lambda event: self._worker.request())
        self._ticker = None
        try:
            self._redraw()
        except Exception:
            self.stop()
            raise
        if refresh_s is not None:
            self._ticker = threading.Thread(target=self._tick, name=f"{name}-tick", daemon=True)
            self._ticker.start()

    def render(self, snapshot) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------ drawing
    def _tick(self) -> None:
        while not self._stopped.wait(self._refresh_s):
            self._worker.request()

    def _redraw(self) -> None:
        with self._draw_lock:
            snapshot = self._cluster.snapshot()
            self._content.value = self.render(snapshot)
            if self.last_error is not None:
                self.last_error = None
                self.status.value = ""
        with self._drawn:
            self.drawn_seq = max(self.drawn_seq, snapshot.last_event_seq)
            self._drawn.notify_all()

    def _show_error(self, exc: Exception) -> None:
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.status.value = (f'<span style="color:{ERROR_COLOUR}">The {self.what} could not be redrawn '
                             f"({self.last_error}); it shows an older state.</span>")

    def redraw(self) -> None:
        """Ask for a redraw now (it happens on the view's thread); a frozen view says it no
        longer changes, in one line."""
        if self.still.frozen:
            print(f"This {self.what} no longer follows its cluster ({self.still.caption}) "
                  f"Make a new one for a running cluster.")
            return
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
    def _ipython_display_(self) -> None:
        self.still.display()

    def freeze(self, caption: str = CLOSED) -> None:
        """Stop following the cluster and keep the picture shown, with ``caption`` under it
        (here and in the saved notebook); later calls do nothing."""
        if self.still.frozen:
            return
        self._worker.wait_idle(2.0)             # the picture includes the last event drawn
        self.stop()
        self.status.value = caption_html(caption)
        self.still.freeze(caption)

    def stop(self) -> None:
        """Stop following the cluster: unsubscribe, end the ticker and the redraw thread."""
        # getattr: Widget.__del__ calls close() even when __init__ failed half-way.
        stopped = getattr(self, "_stopped", None)
        if stopped is not None:
            stopped.set()
        if getattr(self, "_unsubscribe", None) is not None:
            self._unsubscribe()
        if getattr(self, "_unsubscribe_stop", None) is not None:
            self._unsubscribe_stop()
        if getattr(self, "_worker", None) is not None:
            self._worker.close()
        ticker = getattr(self, "_ticker", None)
        if ticker is not None and ticker is not threading.current_thread():
            ticker.join(5)

    def close(self) -> None:
        """Freeze (the saved notebook keeps the last picture), then close the widget."""
        if getattr(self, "still", None) is not None:
            self.freeze(CLOSED)
        self.stop()
        super().close()
