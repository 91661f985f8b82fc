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

from typing import Any

import ipywidgets

from widgets.live_view import LiveView
from widgets.operator_html import operator_html
from widgets.operator_text import operator_text


class OperatorView(LiveView):
    """Health tiles and per-broker balance and traffic for ``cluster``, redrawn as it changes."""

    what = "operator view"

    def __init__(self, cluster: Any, *, refresh_s: float | None = 1.0, min_interval_s: float = 0.1,
                 font_size: str = "18px"):
        self._font_size = font_size
        self.board = ipywidgets.HTML(layout=ipywidgets.Layout(width="100%"))
        super().__init__(cluster, self.board, refresh_s=refresh_s, min_interval_s=min_interval_s,
                         name="minikafka-operator-view")

    def render(self, snapshot) -> str:
        return operator_html(snapshot, font_size=self._font_size)

    def text(self, *, rates: bool = True) -> str:
        """The view as text, from a fresh snapshot (``rates=False`` for outputs nbval compares)."""
        return operator_text(self._cluster.snapshot(), rates=rates)

    def __repr__(self) -> str:
        return f"OperatorView(refresh_s={self._refresh_s!r})"
