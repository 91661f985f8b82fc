"""`OperatorView`: the operator's dashboard as a widget that keeps itself current.

Theory of operation
-------------------
The view draws `widgets.operator_html.operator_html` of a fresh
``cluster.snapshot()`` into an ``ipywidgets.HTML``.  Two things ask for a
redraw, and a `RedrawWorker` merges their requests (at most one draw per
``min_interval_s``, on the worker's thread, so the cluster's thread is
never held up):

* every cluster event (a broker fenced, a leader elected...): health and
  counts change at once;
* a ticker every ``refresh_s`` seconds (1 s by default): traffic rates move
  without events.  ``refresh_s=None`` turns the ticker off.

The first picture is drawn in the constructor.  `wait_drawn(seq)` blocks
until the picture includes event ``seq``.  The ``repr`` depends only on the
configuration (nbval compares it).  ``text()`` gives the same view as stable
text (`widgets.operator_text.operator_text`).

This is widget plumbing, outside the sans-IO core: it uses threads and the
monotonic clock.
"""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets

from minikafka.runtime.events import ClusterEvent
from widgets.operator_html import operator_html
from widgets.operator_text import operator_text
from widgets.redraw import RedrawWorker


class OperatorView(ipywidgets.VBox):
    """Health tiles and per-broker balance and traffic for ``cluster``, redrawn as it changes."""

    def __init__(self, cluster: Any, *, refresh_s: float | None = 1.0, min_interval_s: float = 0.1,
                 font_size: str = "18px"):
        if refresh_s is not None and refresh_s <= 0:
            raise ValueError(f"refresh_s must be > 0 or None, got {refresh_s!r}")
        self._cluster = cluster
        self._refresh_s = refresh_s
        self._font_size = font_size
        self.board = ipywidgets.HTML(layout=ipywidgets.Layout(width="100%"))
        self.status = ipywidgets.HTML()               # why the last redraw failed, if it did
        super().__init__(children=[self.board, self.status], layout=ipywidgets.Layout(width="100%"))
        self._draw_lock = threading.Lock()
        self._drawn = threading.Condition()
        self.drawn_seq = -1                           # last_event_seq of the snapshot on screen
        self.last_error: str | None = None
        self._stopped = threading.Event()             # set by stop(): the ticker ends
        self._worker = RedrawWorker(self._redraw, min_interval_s=min_interval_s,
                                    on_error=self._show_error, name="minikafka-operator-view")
        self._unsubscribe = cluster.events.subscribe(self._on_event)
        try:
            self._redraw()
        except Exception:
            self.stop()
            raise
        self._ticker = None
        if refresh_s is not None:
            self._ticker = threading.Thread(target=self._tick, name="minikafka-operator-ticker",
                                            daemon=True)
            self._ticker.start()

    # ------------------------------------------------------------------ drawing
    def _on_event(self, event: ClusterEvent) -> None:
        self._worker.request()

    def _tick(self) -> None:
        while not self._stopped.wait(self._refresh_s):
            self._worker.request()

    def _redraw(self) -> None:
        with self._draw_lock:
            snapshot = self._cluster.snapshot()
            self.board.value = operator_html(snapshot, font_size=self._font_size)
            if self.last_error is not None:
                self.last_error = None
                self.status.value = ""
        with self._drawn:
            self.drawn_seq = max(self.drawn_seq, snapshot.last_event_seq)
            self._drawn.notify_all()

    def _show_error(self, exc: Exception) -> None:
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.status.value = (f'<span style="color:#b71c1c">The operator view could not be redrawn '
                             f"({self.last_error}); it shows an older state.</span>")

    def redraw(self) -> None:
        """Ask for a redraw now (it happens on the view's thread)."""
        self._worker.request()

    def text(self, *, rates: bool = True) -> str:
        """The view as text, from a fresh snapshot (``rates=False`` for outputs nbval compares)."""
        return operator_text(self._cluster.snapshot(), rates=rates)

    # ------------------------------------------------------------------ waiting
    def wait_drawn(self, seq: int, timeout_s: float = 5.0) -> bool:
        with self._drawn:
            return self._drawn.wait_for(lambda: self.drawn_seq >= seq, timeout_s)

    def wait_idle(self, timeout_s: float = 5.0) -> bool:
        return self._worker.wait_idle(timeout_s)

    @property
    def redraws(self) -> int:
        return self._worker.draws

    # ------------------------------------------------------------------ lifecycle
    def stop(self) -> None:
        """Stop following the cluster: unsubscribe, end the ticker and the redraw thread."""
        stopped = getattr(self, "_stopped", None)
        if stopped is not None:
            stopped.set()
        if getattr(self, "_unsubscribe", None) is not None:
            self._unsubscribe()
        if getattr(self, "_worker", None) is not None:
            self._worker.close()
        ticker = getattr(self, "_ticker", None)
        if ticker is not None and ticker is not threading.current_thread():
            ticker.join(5)

    def close(self) -> None:
        self.stop()
        super().close()

    def __repr__(self) -> str:
        return f"OperatorView(refresh_s={self._refresh_s!r})"
