"""`EventLogView`: the cluster's event log as a scrolling pane, newest event on top.

Theory of operation
-------------------
Each `ClusterEvent` becomes one line, ``HH:MM:SS.mmm  <text>`` (the time of
the event on the node's clock, in the learner's own time zone -- the
kernel's local zone -- then the engine's one-sentence description, e.g.
``orders-1 leader 2 -> 3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]``).  `clock_note`
says which clock and zone the times are in, for a header above the pane: a
simulated cluster runs on the sandbox's virtual clock, which starts on a
fixed day and moves only when the simulation runs, so its times are shown
in UTC and the note says they are virtual.

JupyterLab draws the pane's text in a ``<pre>`` that breaks lines anywhere,
even inside a word or a number (``e|poch``); the pane carries the class
``minikafka-event-log``, and `widgets.theme.STYLE_SHEET` (which the panel
that holds the pane puts on the page) makes it break between words, and
inside a word only when one token is wider than the pane.

The pane is an ``ipywidgets.Output`` whose ``outputs`` trait is replaced
with one stdout text, newest line first (so the event that just happened is
always visible without scrolling): a trait assignment, safe from the
cluster's thread (ipykernel >= 7.0.1) and invisible to nbval, unlike
``with output:`` which would leak into whatever cell is running.  A lock serialises appends
because the live driver's loop thread and the kernel thread (simulated
driver, fault verbs) may both deliver events.

On creation the pane shows the last ``history`` events already in the log,
then follows new ones.  It subscribes *before* reading the history and
drops events it has already shown (by sequence number), so none is lost or
doubled in between.  The pane keeps at most ``max_lines`` lines; past that
the oldest half is dropped in one step (so the trim is rare).

Like every widget here it displays with a still picture (`widgets.still`):
its lines as preformatted text, newest first.  A saved picture must not
carry the machine's paths, so given the cluster's ``data_dir`` the picture
writes that directory as ``<data dir>`` (the live pane keeps the real path,
as Kafka's own log lines do), and each event's time as seconds after the
first event of the picture instead of the hour it happened.  `freeze` stops following
the log and keeps the lines.

Simplified: no filtering UI; pass ``kinds`` to show only some event kinds.
"""

from __future__ import annotations

import html
import os
import threading
from collections.abc import Iterable
from datetime import datetime, timezone, tzinfo

import ipywidgets

from minikafka.runtime.events import ClusterEvent, EventLog
from widgets.still import CLOSED, StillPicture
from widgets.theme import border


def format_event(event: ClusterEvent, tz: tzinfo | None = None) -> str:
    """``10:00:03.120  broker 2 fenced ...``: the event's time of day and its text.

    ``tz`` is the zone to show the time in; None means the kernel's local
    time zone (the learner's clock)."""
    moment = datetime.fromtimestamp(event.time_ms // 1000, tz=timezone.utc)
    moment = moment.astimezone(tz) if tz is not None else moment.astimezone()
    return f"{moment:%H:%M:%S}.{event.time_ms % 1000:03d}  {event.text}"


def zone_name(moment: datetime | None = None) -> str:
    """The local time zone as ``CET, UTC+01:00`` (or ``UTC`` alone)."""
    moment = (moment or datetime.now(timezone.utc)).astimezone()
    offset = moment.strftime("%z") or "+0000"
    utc = f"UTC{offset[:3]}:{offset[3:]}"
    name = moment.tzname() or ""
    if utc == "UTC+00:00" and name in ("UTC", "GMT", ""):
        return "UTC"
    return f"{name}, {utc}" if name and name != utc else utc


def clock_note(simulated: bool) -> str:
    """Which clock and zone the pane's times are in (see the module docstring)."""
    if simulated:
        return "times: the simulated cluster's virtual clock, in UTC"
    return f"times: {zone_name()}"


class EventLogView(ipywidgets.Output):
    """Follows ``events`` (an `EventLog`); see the module docstring."""

    def __init__(self, events: EventLog, *, history: int = 20, max_lines: int = 500,
                 kinds: Iterable[str] | None = None, height: str = "16em",
                 data_dir: str | os.PathLike | None = None, simulated: bool = False):
        if max_lines < 2:
            raise ValueError(f"max_lines must be at least 2, got {max_lines!r}")
        super().__init__(layout=ipywidgets.Layout(height=height, overflow="auto",
                                                  border=f"1px solid {border()}"))
        self.add_class("minikafka-event-log")
        self._tz = timezone.utc if simulated else None
        self.clock_note = clock_note(simulated)       # for a header above the pane
        self._kinds = frozenset(kinds) if kinds is not None else None
        self._max_lines = max_lines
        self._data_dir = os.path.abspath(str(data_dir)) if data_dir is not None else None
        self._lock = threading.Lock()
        self.shown_seq = 0              # highest event seq already on screen
        self.lines: list[str] = []      # the pane's text, one entry per event (for tests)
        self._shown: list[ClusterEvent] = []   # the events of those lines, for the still picture
        self.still = StillPicture(lambda: ipywidgets.Widget._repr_mimebundle_(self),
                                  self.picture, lambda: repr(self))
        with self._lock:
            self._unsubscribe = events.subscribe(self._on_event)
            past = [e for e in events.since(0) if self._wanted(e)]
            for event in past[-history:] if history > 0 else []:
                self._append(event)
            if past:
                self.shown_seq = max(self.shown_seq, past[-1].seq)

    def _wanted(self, event: ClusterEvent) -> bool:
        return self._kinds is None or event.kind in self._kinds

    def _on_event(self, event: ClusterEvent) -> None:
        if not self._wanted(event):
            return
        with self._lock:
            if event.seq > self.shown_seq:
                self._append(event)

    def _append(self, event: ClusterEvent) -> None:
        """Caller holds the lock."""
        line = format_event(event, self._tz)
        if len(self.lines) >= self._max_lines:
            self.lines = self.lines[-(self._max_lines // 2):]
            self._shown = self._shown[-(self._max_lines // 2):]
        self.lines.append(line)
        self._shown.append(event)
        self.outputs = ({"output_type": "stream", "name": "stdout",
                         "text": "".join(text + "\n" for text in reversed(self.lines))},)
        self.shown_seq = max(self.shown_seq, event.seq)

    @property
    def text(self) -> str:
        """Everything the pane shows, as one string."""
        with self._lock:
            return "".join(line + "\n" for line in self.lines)

    def picture(self) -> str:
        """The pane as HTML: its lines, newest first."""
        with self._lock:
            first = self._shown[0].time_ms if self._shown else 0
            lines = "".join(f"+{(event.time_ms - first) / 1000:8.3f} s  "
                            f"{html.escape(self._without_data_dir(event.text))}\n"
                            for event in reversed(self._shown))
        return (f'<pre style="max-height:16em;overflow:auto;border:1px solid {border()};'
                f'margin:0;padding:2px 4px;white-space:pre-wrap;word-break:normal;'
                f'overflow-wrap:anywhere">{lines}</pre>')

    def _without_data_dir(self, line: str) -> str:
        return line.replace(self._data_dir, "<data dir>") if self._data_dir else line

    def _ipython_display_(self) -> None:
        self.still.display()

    def freeze(self, caption: str = CLOSED) -> None:
        """Stop following the log; the pane, and the saved notebook, keep the lines."""
        self.stop()
        self.still.freeze(caption)

    def stop(self) -> None:
        """Stop following the event log (the pane keeps its lines)."""
        unsubscribe = getattr(self, "_unsubscribe", None)   # absent if __init__ failed
        if unsubscribe is not None:
            unsubscribe()

    def close(self) -> None:
        if getattr(self, "still", None) is not None:
            self.freeze(CLOSED)
        self.stop()
        super().close()

    def __repr__(self) -> str:
        kinds = "all" if self._kinds is None else sorted(self._kinds)
        return f"EventLogView(kinds={kinds!r})"
