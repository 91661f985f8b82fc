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

On a simulated cluster a `SimClock` row sits on top (``sim_clock=False``
leaves it out, as `Dashboard` does): while the view is on screen virtual time
runs by itself.

This is widget plumbing, outside the sans-IO core: it uses threads and the
monotonic clock.
"""

from __future__ import annotations

from typing import Any

import ipywidgets

from widgets.live_view import LiveView
from widgets.operator_html import operator_html
from widgets.operator_text import operator_text
from widgets.sim_clock import sim_clock_for
from widgets.still import CLOSED


class OperatorView(LiveView):
    """Health tiles and per-broker balance and traffic for ``cluster``, redrawn as it changes."""

    what = "operator view"

    def __init__(self, cluster: Any, *, refresh_s: float | None = 1.0, min_interval_s: float = 0.1,
                 font_size: str = "18px", sim_clock: bool = True):
        self._font_size = font_size
        self.board = ipywidgets.HTML(layout=ipywidgets.Layout(width="100%"))
        super().__init__(cluster, self.board, refresh_s=refresh_s, min_interval_s=min_interval_s,
                         name="minikafka-operator-view")
        # simulated clusters only: virtual time runs while shown (widgets/sim_clock.py)
        self.sim_clock = sim_clock_for(cluster) if sim_clock else None
        if self.sim_clock is not None:
            self.children = (self.sim_clock, *self.children)

    def freeze(self, caption: str = CLOSED) -> None:
        if getattr(self, "sim_clock", None) is not None:
            self.sim_clock.freeze(caption)
        super().freeze(caption)

    def close(self) -> None:
        super().close()
        if getattr(self, "sim_clock", None) is not None:
            self.sim_clock.close()

    def render(self, snapshot) -> str:
        return operator_html(snapshot, font_size=self._font_size)

    def text(self, *, rates: bool = True) -> str:
        """The view as text, from a fresh snapshot (``rates=False`` for outputs nbval compares)."""
        return operator_text(self._cluster.snapshot(), rates=rates)

    def __repr__(self) -> str:
        return f"OperatorView(refresh_s={self._refresh_s!r})"
