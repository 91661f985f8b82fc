"""`SimClock`: a simulated cluster's virtual time, running by itself while it is on screen.

Theory of operation
-------------------
A simulated cluster (``Cluster(simulated=True)``, the drills' clusters) has
no clock of its own: its virtual time moves only when code lets it pass
(``cluster.run_for``, ``cluster.wait_until``, a client request).  That is
what makes a seeded run repeat exactly, but on a dashboard it looks wrong:
after *Kill* the broker stays "dead · unfenced" and leader for ever, as if
Kafka never failed over, because nothing lets the broker's session time
out.  This widget is the missing clock: a small row, "virtual time
t=12.345 s · 1×", with speed buttons (⏸ Pause, 0.5×, 1×, 2×, 5×).

While a front end shows the row, a thread of the widget lets virtual time
pass in slices: every ``tick_s`` (50 ms) of wall time it asks for one slice
of wall time elapsed × speed, at most ``MAX_SLICE_MS`` (a kernel busy for a
minute does not make the cluster jump a minute; the time is lost, as it is
when paused).  `ClockPacer` does that arithmetic, with the wall clock passed
in, so tests give it a fake one.  A slice is ``cluster.run_for(ms)``, the
facade's own verb: every timer, session timeout and election in it runs as
in any other run.

Where a slice runs: on the kernel's own event loop when there is one (in a
notebook the widget is built inside a cell, which runs on that loop), so it
runs only between cells and between button presses, never at the same time
as a cell's code.  A cell's own ``run_for``, its clients' callbacks and a
drill's run therefore never interleave with the clock: while a cell runs,
virtual time is the cell's, and the clock resumes when the cell ends.
Without an event loop (a plain script, a test) the slice runs on the
widget's thread; the simulated driver then keeps its heap whole and its
clock monotonic under two threads (see `minikafka.drivers.simulated`).

When time does not run by itself (determinism first):

* no view is shown.  ipywidgets' ``_view_count`` trait (marked experimental
  by ipywidgets) is set to 0 here, which asks the front end to count the
  views it renders: JupyterLab adds one when a view is displayed and takes
  it off when the view is removed.  Under nbconvert, nbclient and nbval
  there is no front end, the count stays 0 and the cluster moves only as
  the cells say, so saved outputs stay identical run to run.  (A browser
  tab closed without removing its views may leave the count above 0; the
  clock then runs until the widget is closed or its cluster stops.);
* the speed is ⏸ Pause;
* ``gate()`` gives a reason (the drill panel: before the drill has run, so
  every learner with the same seed plays the same run);
* another `SimClock` of the same cluster is already running it (one clock
  per cluster, so two dashboards do not double the speed);
* the widget is frozen or closed, or its cluster stops
  (``cluster.events.subscribe_stop``).  A live cluster needs none of this:
  its views do not build a `SimClock`.

The row's text changes only while it is shown (the thread sleeps until the
front end counts a view), so nothing of it enters a saved output.

Sandbox only: simulated time is a teaching device.  A real Kafka cluster's
clock always runs, and a fault plays out whether anyone watches or not;
pausing here stops every node's clock at once, which no real cluster can.

This is widget plumbing, outside the sans-IO core: it uses threads and the
monotonic clock.
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
from typing import Any, Callable

import ipywidgets


PAUSE = "⏸ Pause"
SPEEDS: dict[str, float] = {PAUSE: 0.0, "0.5×": 0.5, "1×": 1.0, "2×": 2.0, "5×": 5.0}
TICK_S = 0.05            # wall seconds between two slices
MAX_SLICE_MS = 250       # virtual ms one slice may let pass, however long the wait was
IDLE_WAIT_S = 1.0        # how often a clock that is not shown looks again (it is also woken)

_TOOLTIP = ("This cluster is simulated: its clock moves only when something lets time pass. "
            "While this row is on screen, virtual time runs by itself at the chosen speed, "
            "and pauses while a cell runs. A real Kafka cluster's clock always runs.")

_NOT_MINE = "another view of this cluster runs its clock"
_running: dict[int, "SimClock"] = {}     # id(cluster) -> the clock that runs it now
_running_lock = threading.Lock()


class ClockPacer:
    """How much virtual time to let pass now: wall time elapsed × ``speed``, in whole ms.

    ``wall()`` gives seconds (``time.monotonic`` by default).  The first call after `hold`
    (or ever) starts the measure and lets nothing pass; fractions of a millisecond carry over
    to the next slice; a slice is at most ``max_slice_ms``."""

    def __init__(self, speed: float = 1.0, *, wall: Callable[[], float] = time.monotonic,
                 max_slice_ms: int = MAX_SLICE_MS):
        if speed < 0:
            raise ValueError(f"speed must be >= 0, got {speed!r}")
        self.speed = speed
        self.max_slice_ms = max_slice_ms
        self._wall = wall
        self._last: float | None = None     # wall() at the previous slice; None: not measuring
        self._carry = 0.0                   # the fraction of a ms not yet let pass

    def hold(self) -> None:
        """Time is not running: the next slice measures from its own call."""
        self._last = None
        self._carry = 0.0

    def slice_ms(self) -> int:
        """The virtual ms to let pass now (0 at the first call after `hold`, or paused)."""
        now = self._wall()
        last, self._last = self._last, now
        if last is None or self.speed <= 0:
            self._carry = 0.0
            return 0
        due = min((now - last) * 1000.0 * self.speed + self._carry, float(self.max_slice_ms))
        whole = int(due + 1e-6)         # 49.9999999 ms of float noise is 50 ms
        self._carry = due - whole
        return whole


class SimClock(ipywidgets.HBox):
    """The virtual-time row of a simulated ``cluster``; time runs while a view is shown.

    ``gate()`` may return a reason why time must not run now (None: it may); ``speed`` is a
    key of `SPEEDS`; ``tick_s=None`` starts no thread (tests call `tick`); ``wall`` is the
    pacer's wall clock; ``run_on(fn)`` runs a slice where the cluster is driven (default: the
    kernel's event loop if the widget is built on one, else the widget's thread)."""

    def __init__(self, cluster: Any, *, speed: str = "1×",
                 gate: Callable[[], str | None] | None = None, tick_s: float | None = TICK_S,
                 wall: Callable[[], float] = time.monotonic,
                 run_on: Callable[[Callable[[], None]], Any] | None = None):
        if speed not in SPEEDS:
            raise ValueError(f"speed must be one of {', '.join(SPEEDS)}; got {speed!r}")
        self._cluster = cluster
        self._gate = gate
        self.pacer = ClockPacer(SPEEDS[speed], wall=wall)
        self.advanced_ms = 0                # virtual ms this clock let pass so far
        self.slices = 0                     # slices that let time pass
        self.last_error: str | None = None  # why the clock stopped, if a slice failed
        self.frozen = False
        self.label = ipywidgets.HTML(self._text(None))
        self.speed = ipywidgets.ToggleButtons(
            options=list(SPEEDS), value=speed, tooltips=[_TOOLTIP] * len(SPEEDS),
            style=ipywidgets.ToggleButtonsStyle(button_width="auto"))
        self.speed.observe(self._on_speed, names="value")
        # _view_count=0 asks the front end to count the views of this row it shows
        super().__init__([self.label, self.speed], _view_count=0,
                         layout=ipywidgets.Layout(align_items="center", flex_flow="row wrap"))
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._pending = threading.Lock()    # held from scheduling a slice until it has run
        self.observe(lambda _change: self._wake.set(), names="_view_count")
        self._run_on = run_on if run_on is not None else _kernel_loop_runner()
        self._unsubscribe_stop = cluster.events.subscribe_stop(self.freeze)
        self._thread = None
        if tick_s is not None:
            self._thread = threading.Thread(target=self._loop, args=(tick_s,), daemon=True,
                                            name="minikafka-sim-clock")
            self._thread.start()

    # ------------------------------------------------------------------ state
    @property
    def shown(self) -> bool:
        """Whether a front end shows this row now (it counts its views)."""
        return bool(self._view_count)

    def why_still(self) -> str | None:
        """Why time does not run by itself now (None: it runs)."""
        if self.frozen:
            return "stopped"
        if not self.shown:
            return "not on screen"
        if self.pacer.speed <= 0:
            return "paused"
        reason = self._gate() if self._gate is not None else None
        if reason:
            return reason
        with _running_lock:
            owner = _running.setdefault(id(self._cluster), self)
        if owner is not self:
            return _NOT_MINE
        return None

    def _text(self, reason: str | None) -> str:
        try:
            seconds = f"{(self._cluster.now() - (self._cluster.clock_origin_ms() or 0)) / 1000:.3f}"
        except Exception:           # a stopped cluster has no clock to read
            seconds = "?"
        speed = next((k for k, v in SPEEDS.items() if v == self.pacer.speed), "")
        tail = f" · {html.escape(reason)}" if reason and reason != "paused" else ""
        return (f'<span title="{html.escape(_TOOLTIP)}">virtual time <b>t={seconds} s</b> · '
                f"{html.escape(speed)}{tail}</span>")

    # ------------------------------------------------------------------ running
    def tick(self) -> None:
        """One beat of the clock (the thread calls it every ``tick_s``): if time may run,
        have one slice run where the cluster is driven (skipped while the last one waits)."""
        if self.frozen or not self.shown:
            self.pacer.hold()
            self._let_go()
            return
        if not self._pending.acquire(blocking=False):
            return                  # the kernel is busy (a cell runs): the slice still waits
        try:
            if self._run_on is None:
                self._slice()
            else:
                self._run_on(self._slice)
                return              # _slice releases _pending
        except BaseException:
            self._release()
            raise
        self._release()

    def _release(self) -> None:
        try:
            self._pending.release()
        except RuntimeError:
            pass

    def _slice(self) -> None:
        """Let one slice of virtual time pass (where the cluster is driven), then show it."""
        try:
            reason = self.why_still()
            if reason is not None:
                self.pacer.hold()
                if reason != _NOT_MINE:
                    self._let_go()
            else:
                ms = self.pacer.slice_ms()
                if ms > 0:
                    self._cluster.run_for(ms)
                    self.advanced_ms += ms
                    self.slices += 1
            if not self.frozen:
                self.label.value = self._text(reason)
        except Exception as exc:     # a clock must never raise into the kernel
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.freeze()
            self.label.value = (f'<span style="color:#b71c1c">Virtual time stopped '
                                f"({html.escape(self.last_error)})</span>")
        finally:
            if self._run_on is not None:
                self._release()

    def _loop(self, tick_s: float) -> None:
        while not self._stop.is_set():
            if self.shown:
                self._stop.wait(tick_s)
            else:
                self._wake.wait(IDLE_WAIT_S)
                self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.tick()
            except Exception:        # a clock must never take the kernel down
                return

    def _on_speed(self, change) -> None:
        self.pacer.speed = SPEEDS[change["new"]]
        self.pacer.hold()            # the new speed counts from now
        if self.pacer.speed <= 0:
            self._let_go()
        if not self.frozen:
            self.label.value = self._text(None)

    def _let_go(self) -> None:
        """No longer the clock that runs the cluster (another view may take over)."""
        with _running_lock:
            if _running.get(id(self._cluster)) is self:
                del _running[id(self._cluster)]

    # ------------------------------------------------------------------ lifecycle
    def freeze(self, caption: str | None = None) -> None:
        """Stop for good: time no longer runs by itself, the speed buttons are disabled."""
        if self.frozen:
            return
        self.frozen = True
        self._let_go()
        self._stop.set()
        self._wake.set()
        unsubscribe = getattr(self, "_unsubscribe_stop", None)
        if unsubscribe is not None:
            unsubscribe()
        self.speed.disabled = True
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(2)

    def close(self) -> None:
        if getattr(self, "speed", None) is not None:
            self.freeze()
        super().close()

    def __repr__(self) -> str:
        return f"SimClock(speed={self.speed.value!r})"


def _kernel_loop_runner() -> Callable[[Callable[[], None]], Any] | None:
    """``fn -> None`` that runs ``fn`` on the event loop of the calling thread (IPython's kernel
    runs cells on one), or None when there is no running loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.call_soon_threadsafe


def sim_clock_for(cluster: Any, **options: Any) -> SimClock | None:
    """A `SimClock` for a simulated cluster; None for a live one (its clock runs anyway)."""
    if getattr(cluster, "simulated", False) is not True:
        return None
    return SimClock(cluster, **options)
