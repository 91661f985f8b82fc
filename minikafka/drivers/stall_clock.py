"""`StallClock`: the live driver's clock, which leaves out the time its thread was starved.

Theory of operation
-------------------
A live cluster runs on one thread of the Python process it was started in,
next to the learner's own code.  When that code keeps the interpreter busy
(a producer sending flat out, a CPU-heavy cell, a C call that holds the
GIL, other programs on a busy machine), the cluster's thread waits for its
turn and every node on it freezes at once.  Real Kafka nodes have CPUs of
their own: nothing in a notebook could freeze them.  Read from the wall
clock, such a freeze looks to the nodes like silent peers (a follower stops
hearing from the leader, the leader from its voters, the controller from
its brokers), and they elect, resign, fence and truncate as no Kafka
cluster would.

So the nodes of a live cluster read this clock.  It advances only by what
the cluster's thread could observe:

* while the thread runs, by its own CPU time plus short waits: in each
  stretch of about ``allowance_ms``, waiting counts as time up to as much as
  the thread computed in it (``WAIT_PER_CPU``) plus ``WAIT_SLACK_MS``, and
  never beyond the allowance (the interpreter handing the GIL back after a
  disk or socket call, a slow write).  Tying the waits the clock counts to
  the work done means that however finely the thread is kept waiting (a
  busy machine preempting it every few milliseconds, a producer taking the
  GIL at every switch interval), each millisecond of cluster time outside
  idle time carries at least about a sixth of a millisecond of the
  cluster's own work.  (Before the ceiling below existed this was one to
  one and had to protect the quorum by itself; with the ceiling it only
  bounds the data plane, whose timeouts -- ``replica.lag.time.max.ms``, a
  group's session -- are seconds long.  Each disk or socket call makes the
  thread wait for the interpreter again however little it computed, so
  beside a flat-out producer it waits more than three times its work.  At
  five to one, with the storage layer making few system calls, failover
  there took 1.3 to 1.4 times as long as when idle in six runs (1.4 to 1.8
  before those calls were cut), and the largest replica lag that
  ``benchmarks/bench_calm.py`` samples under its loads stays far inside
  the 6 s that ``replica.lag.time.max.ms`` allows);
* while the thread sleeps in ``select`` with nothing to do, by the time it
  slept, at most the timeout it asked for (`ObservedSelector` tells it).
  When data woke the select up, that time includes getting the CPU and the
  interpreter back, which on a busy machine is not idleness (measured with
  ``benchmarks/calm_probe.py``: 0.2% to 19% of wall time); the ceiling below
  makes that harmless to the quorum, since the thread only sleeps in
  ``select`` when no control-plane work is due;
* any longer wait is a *stall*: the thread was ready and did not run.  The
  clock leaves it out and hands it to ``on_stall``; the live driver writes
  it to the event log as a ``sandbox_stalled`` event, in the sandbox's
  words, never as a Kafka event.
* a garbage collection of at least ``GC_PAUSE_MS`` that runs on the
  cluster's own thread is a stall too, although the thread is busy: the
  collector stops every thread of the process and walks the whole heap,
  mostly the notebook's and its clients' objects (a broker's JVM would
  collect only its own).  Collections run by other threads are waits like
  any other.
* and never past its *ceiling*: ``ceiling()`` names the latest time the
  clock may show now; the live driver passes `PlaneScheduler.ceiling`, 50
  ms past the due time of the earliest control-plane work (a quorum fetch
  or its answer, a node's timer) that has not run yet.  At the ceiling the
  clock stops, and the time it would have run beyond is a stall.  The rules
  above bound how fast the clock runs compared with the thread's work, not
  whether that work let the nodes' messages through: one long piece of work
  on the thread (300 ms of CPU in a facade call, a slow request, CPU time
  a busy machine charges to the thread) counted as at least its own length
  while the answer that would have reset a follower's 400 ms fetch timeout
  waited behind it, and controllers resigned.  With the ceiling no
  control-plane message or timer runs more than 50 ms of cluster time late,
  whatever holds the thread, so a follower hears from its leader at most
  its 200 ms fetch wait plus twice 50 ms after the previous answer.

All nodes share the clock, so a stall freezes the whole cluster in its own
time, as a paused virtual machine resumes where it stopped: no Kafka timeout
counts the frozen time, while a real fault (a killed, paused or isolated
node, which the driver models itself) is still noticed after the timing
profile's timeout of cluster time.  Most of a busy kernel's pressure is
short waits, which count as time, so under steady load the clock runs at
nearly wall speed; a producer flat out in the same interpreter takes most of
it, and the clock then runs at about 60% of wall speed.

The clock is anchored to ``time.time`` at start, so timestamps look like
real ones.  Stalls put it behind the wall clock; whenever the thread is
idle and the clock is behind, idle time counts 1.25 times
(``CATCH_UP_RATE``) until it has caught up, so the lag does not pile up
over a session (record timestamps, retention and the event log's times
stay close to the wall).  Speeding up only while idle is harmless to the
nodes (nothing is queued, so every message is still answered well within
any timeout) and mild for clients, whose own timers keep wall time: a
consumer's session timeout, for one, lasts 80% as long while the clock
catches up.

Mirrors the role of Kafka's ``org.apache.kafka.common.utils.Time`` (the one
source of time a Kafka component reads).  Sandbox only: Kafka has no such
clock; a JVM that is starved or paused sees the jump and its peers react.

Simplified: the thread's CPU time comes from ``time.thread_time`` and is
only read on the cluster's thread (`bind` names it).  From any other thread
``now`` answers an estimate that may still contain a stall the cluster's
thread has not settled, and changes nothing: such a reading once became the
floor of the cluster's own clock (which never goes back), so a reader in
another thread pushed the whole cluster's time forward by the stall under
way and controllers resigned.
"""

from __future__ import annotations

import gc
import selectors
import threading
import time
from typing import Callable

STALL_ALLOWANCE_MS = 50.0   # waiting per stretch that may still count as the cluster's own time
WAIT_PER_CPU = 5.0          # ...but at most this many ms of waiting per ms the thread computed (see above)
WAIT_SLACK_MS = 2.0         # ...plus this much per stretch (waking up from select, a page fault)
IDLE_TIMEOUT_CAP_S = 0.025  # select never sleeps longer: bounds a stall hidden behind a wake-up
CATCH_UP_RATE = 0.25        # while idle and behind, each idle ms also gives back this many ms
GC_PAUSE_MS = 10.0          # a garbage collection on the cluster's thread this long is a stall


class StallClock:
    """Milliseconds since the epoch, minus the stalls of the cluster's thread."""

    def __init__(self, on_stall: Callable[[float], None] | None = None,
                 allowance_ms: float = STALL_ALLOWANCE_MS,
                 wall: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic,
                 thread_cpu: Callable[[], float] = time.thread_time,
                 ceiling: Callable[[], float | None] | None = None):
        self.on_stall = on_stall              # called with each stall's length (ms), on the thread
        self.ceiling = ceiling                # the latest time the clock may show now (None: any)
        self.allowance_ms = allowance_ms
        self.monotonic = monotonic            # seconds, as time.monotonic
        self._monotonic = monotonic
        self._thread_cpu = thread_cpu
        self._wall_anchor = wall() * 1000.0   # the wall clock at start, ms
        self._mono_anchor = monotonic() * 1000.0
        self.stalled_ms = 0.0                 # how far the clock is behind the wall clock now
        self.total_stalled_ms = 0.0           # every stall since start (catching up does not undo it)
        self._thread_id: int | None = None    # the cluster's thread, once bound
        self._mark_mono = 0.0                 # start of the current stretch (monotonic ms)
        self._mark_cpu = 0.0                  # the thread's CPU time then (ms)
        self._idle_ms = 0.0                   # idle time credited within the stretch
        self._last = int(self._wall_anchor)   # last value returned: never go back
        self._gc_started: tuple[float, float] | None = None  # (monotonic, cpu) ms of a collection
        self._gc_unreported = 0.0             # collections left out, not yet given to on_stall

    def bind(self) -> None:
        """Call on the cluster's thread before it runs anything: from now on it is observed."""
        self._thread_id = threading.get_ident()
        self._mark_mono = self._monotonic() * 1000.0
        self._mark_cpu = self._thread_cpu() * 1000.0
        self._idle_ms = 0.0
        gc.callbacks.append(self._on_gc)

    def unbind(self) -> None:
        """Stop observing (the cluster's thread has ended)."""
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        self._thread_id = None

    def now(self) -> int:
        mono = self._monotonic() * 1000.0
        if threading.get_ident() != self._thread_id:
            # An estimate for other threads: it may include a stall the cluster's thread has not
            # settled yet, so it must not become the floor of the cluster's own clock.
            return max(self._last, int(self._raw(mono)))
        if mono - self._mark_mono > self.allowance_ms:
            self._close_stretch(mono)
        value = self._wall_anchor + mono - self._mono_anchor - self.stalled_ms
        if self.ceiling is not None:
            limit = self.ceiling()
            if limit is not None and value > limit:
                value = self._hold(mono, limit)
        if self._gc_unreported and self.on_stall is not None:
            pause, self._gc_unreported = self._gc_unreported, 0.0
            self.on_stall(pause)
        value = int(value)
        if value < self._last:
            return self._last
        self._last = value
        return value

    def _raw(self, mono: float) -> float:
        return self._wall_anchor + mono - self._mono_anchor - self.stalled_ms

    def _hold(self, mono: float, limit: float) -> float:
        """Control work due before ``limit`` has not run: the clock stops there, and the time it
        would have run beyond is a stall (the stretch's own waits are settled first, so no time is
        left out twice)."""
        self._close_stretch(mono)
        value = self._raw(mono)
        if value > limit:
            excess, value = value - limit, limit
            self.stalled_ms += excess
            self.total_stalled_ms += excess
            if self.on_stall is not None:
                self.on_stall(excess)
        return value

    def _close_stretch(self, mono: float) -> None:
        """A stretch longer than the allowance ended: its waits beyond what may count (the slack plus
        as much as the thread computed, at most the allowance) are a stall."""
        cpu = self._thread_cpu() * 1000.0
        computed = cpu - self._mark_cpu
        waited = (mono - self._mark_mono) - computed - self._idle_ms
        self._mark_mono, self._mark_cpu, self._idle_ms = mono, cpu, 0.0
        counted = min(self.allowance_ms, WAIT_SLACK_MS + WAIT_PER_CPU * max(computed, 0.0))
        if waited > counted:
            stall = waited - counted
            self.stalled_ms += stall
            self.total_stalled_ms += stall
            if self.on_stall is not None:
                self.on_stall(stall)

    def _on_gc(self, phase: str, info: dict) -> None:
        """``gc.callbacks`` hook.  It runs wherever Python happens to allocate, so it only
        does arithmetic; the stall is handed to ``on_stall`` at the next ``now``."""
        if threading.get_ident() != self._thread_id:
            return
        if phase == "start":
            self._gc_started = (self._monotonic() * 1000.0, self._thread_cpu() * 1000.0)
            return
        if self._gc_started is None:
            return
        (mono, cpu), self._gc_started = self._gc_started, None
        pause = self._monotonic() * 1000.0 - mono
        if pause >= GC_PAUSE_MS:
            # Move the stretch past the collection so that its CPU time is not the cluster's.
            self._mark_mono += pause
            self._mark_cpu += self._thread_cpu() * 1000.0 - cpu
            self.stalled_ms += pause
            self.total_stalled_ms += pause
            self._gc_unreported += pause

    def idle(self, slept_ms: float) -> None:
        """The thread slept ``slept_ms`` in ``select`` with nothing to do (cluster's thread only)."""
        self._idle_ms += slept_ms
        if self.stalled_ms > 0:
            self.stalled_ms = max(0.0, self.stalled_ms - slept_ms * CATCH_UP_RATE)

    @property
    def speed(self) -> float:
        """How fast the clock runs while the thread is idle (wall ms -> cluster ms)."""
        return 1.0 + CATCH_UP_RATE if self.stalled_ms > 0 else 1.0


class ObservedSelector(selectors.BaseSelector):
    """The event loop's selector, telling the clock how long the thread slept in ``select``.

    A sleep counts at most as long as the timeout asked for: past it, the thread
    was awake and waiting for the interpreter.  The timeout is capped at
    ``IDLE_TIMEOUT_CAP_S`` so that a stall right after an early wake-up (data
    arrived, then the thread waited) hides at most that long.
    """

    def __init__(self, inner: selectors.BaseSelector, clock: StallClock):
        self._inner = inner
        self._clock = clock

    def register(self, fileobj, events, data=None):
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj):
        return self._inner.unregister(fileobj)

    def modify(self, fileobj, events, data=None):
        return self._inner.modify(fileobj, events, data)

    def get_key(self, fileobj):
        return self._inner.get_key(fileobj)

    def get_map(self):
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()

    def select(self, timeout: float | None = None):
        capped = IDLE_TIMEOUT_CAP_S if timeout is None else min(max(timeout, 0.0), IDLE_TIMEOUT_CAP_S)
        started = self._clock.monotonic()
        ready = self._inner.select(capped)
        slept = self._clock.monotonic() - started
        if capped > 0:
            self._clock.idle(min(slept, capped) * 1000.0)
        return ready
