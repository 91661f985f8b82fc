"""`Dashboard`: the live diagram above the failure buttons and the event log.

Theory of operation
-------------------
A lesson about failures wants three things in one glance: the picture of
the cluster (`TopologyView`), the buttons that break it and the log of what
the cluster did about it (`FailurePanel`, which holds the `EventLogView`).
`Dashboard` stacks them: the diagram on top at full width (five brokers
with twenty partitions need it to stay legible), and below it the buttons
beside the event log.  It closes them together.

Its ``repr`` is as deterministic as its parts' (nbval compares it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ipywidgets

from widgets.failure_panel import FailurePanel
from widgets.topology_model import DEFAULT_MAX_PARTITIONS
from widgets.topology_view import TopologyView


class Dashboard(ipywidgets.VBox):
    """Diagram (top), failure buttons and event log (below, side by side) for ``cluster``."""

    def __init__(self, cluster: Any, *, topics: Iterable[str] | str | None = None,
                 show_internal: bool = False, max_partitions: int = DEFAULT_MAX_PARTITIONS,
                 offsets: bool = False, min_interval_s: float = 0.1, history: int = 20):
        self.view = TopologyView(cluster, topics=topics, show_internal=show_internal,
                                 max_partitions=max_partitions, offsets=offsets,
                                 min_interval_s=min_interval_s)
        self.panel = FailurePanel(cluster, history=history, log_beside=True)
        super().__init__(children=[self.view, self.panel], layout=ipywidgets.Layout(width="100%"))

    @property
    def buttons(self) -> dict:
        """The panel's buttons, e.g. ``dashboard.buttons[("kill", 2)]``."""
        return self.panel.buttons

    def close(self) -> None:
        # Widget.__del__ calls close(), also on a Dashboard whose __init__ failed.
        for part in (getattr(self, "view", None), getattr(self, "panel", None)):
            if part is not None:
                part.close()
        super().close()

    def __repr__(self) -> str:
        return f"Dashboard(nodes={self.panel.node_ids!r})"
