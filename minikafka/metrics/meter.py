"""`Meter`: how many events happened, and how fast, in the node's own time.

Theory of operation
-------------------
Kafka's byte, message and request rates are Yammer meters (metrics-core
2.2.0).  A meter keeps a total ``Count`` and three exponentially weighted
moving averages, ``OneMinuteRate``, ``FiveMinuteRate`` and
``FifteenMinuteRate``, in events per second.  The averages move in ticks,
every 5 seconds: the events counted since the previous tick, divided by 5 s,
are the tick's instant rate, and each average moves a fraction ``alpha`` of
the way towards it (``alpha = 1 - exp(-5 s / window)``).  The very first
tick sets the averages to the instant rate.  ``MeanRate`` is ``Count``
divided by the meter's age.

Yammer ticks from a background thread; the sandbox ticks lazily instead:
when a mark or a read finds that one or more 5-second tick times have
passed, it applies them (the first with the events counted so far, the rest
with none), which gives the same values at the same times.  Time is the
``now`` the node passes in (virtual time on a simulated cluster).

The sandbox adds one attribute Kafka does not have, ``TenSecondRate``: the
events of the last 10 seconds divided by 10, counted in 100 ms buckets (a
mark only adds to the count; the first mark of a bucket also notes the count
before it, which is all the window needs).  A
one-minute average follows a lesson's short bursts slowly (it still shows
most of a burst a minute after it ended); the ten-second window shows what
is happening now.  Everything a lesson prints or the dashboard draws as
"over the last 10 s" is this attribute.

Mirrors ``com.yammer.metrics.core.Meter`` and ``EWMA``.  Simplified: rates
are always per second (``RateUnit`` SECONDS, as for every Kafka meter); the
``EventType`` attribute is kept but not reported.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

TICK_INTERVAL_MS = 5_000            # Yammer's EWMA tick
WINDOW_MS = 10_000                  # the sandbox's TenSecondRate window
BUCKET_MS = 100                     # ... counted in buckets of this size
_BUCKETS = WINDOW_MS // BUCKET_MS

# alpha = 1 - exp(-tick / window) for windows of 1, 5 and 15 minutes (Yammer's EWMA constants)
_ALPHAS = tuple(1.0 - math.exp(-TICK_INTERVAL_MS / 60_000 / minutes) for minutes in (1, 5, 15))


class Meter:
    """Count events with ``mark(n, now)``; read Kafka's attributes with ``attributes(now)``."""

    __slots__ = ("event_type", "count", "start_ms", "_last_tick", "_count_at_tick", "_rates",
                 "_ticked", "_history", "_next_boundary")

    def __init__(self, event_type: str, now: int):
        self.event_type = event_type            # "messages", "bytes", "requests"... (JMX EventType)
        self.count = 0                          # every event ever marked (JMX Count)
        self.start_ms = now                     # when the meter was created (MeanRate's start)
        self._last_tick = now                   # time of the last EWMA tick applied
        self._count_at_tick = 0                 # count at that tick (events since: count - this)
        self._rates = [0.0, 0.0, 0.0]           # 1, 5 and 15 minute averages, events per second
        self._ticked = False                    # the first tick sets the averages outright
        # (bucket, count before its first event) for each 100 ms bucket that saw events,
        # oldest first, back to 10 s ago: the events since bucket b are count - its entry
        self._history: deque[tuple[int, int]] = deque()
        self._next_boundary = now               # the next bucket start or tick time: mark() rolls

    def mark(self, n: int, now: int) -> None:
        if now >= self._next_boundary:          # most marks only add: the rest is done per bucket
            self._roll(now)
        self.count += n

    def _roll(self, now: int) -> None:
        if now - self._last_tick >= TICK_INTERVAL_MS:
            self._tick(now)
        bucket = now // BUCKET_MS
        history = self._history
        if not history or history[-1][0] != bucket:
            history.append((bucket, self.count))
            while history[0][0] <= bucket - _BUCKETS:
                history.popleft()
        self._next_boundary = min((bucket + 1) * BUCKET_MS, self._last_tick + TICK_INTERVAL_MS)

    def _tick(self, now: int) -> None:
        ticks = (now - self._last_tick) // TICK_INTERVAL_MS
        self._last_tick += ticks * TICK_INTERVAL_MS
        instant = (self.count - self._count_at_tick) * 1000.0 / TICK_INTERVAL_MS
        self._count_at_tick = self.count
        rates = self._rates
        for i, alpha in enumerate(_ALPHAS):
            rate = instant if not self._ticked else rates[i] + alpha * (instant - rates[i])
            # the remaining ticks saw no events: each keeps (1 - alpha) of the average
            rates[i] = rate * (1.0 - alpha) ** (ticks - 1)
        self._ticked = True

    def window_rate(self, now: int) -> float:
        """Events per second over the last 10 seconds (the sandbox's ``TenSecondRate``)."""
        oldest = now // BUCKET_MS - _BUCKETS + 1             # the window's first bucket
        for bucket, before in self._history:
            if bucket >= oldest:                             # no events in the buckets before it
                return (self.count - before) * 1000.0 / WINDOW_MS
        return 0.0

    def attributes(self, now: int) -> dict[str, Any]:
        """The meter's JMX attributes at ``now`` (rates in events per second)."""
        if now - self._last_tick >= TICK_INTERVAL_MS:
            self._tick(now)
            self._next_boundary = now            # the next mark re-plans its boundary
        age_s = (now - self.start_ms) / 1000.0
        mean = self.count / age_s if self.count and age_s > 0 else 0.0
        one, five, fifteen = self._rates
        return {"Count": self.count, "MeanRate": mean, "OneMinuteRate": one,
                "FiveMinuteRate": five, "FifteenMinuteRate": fifteen,
                "TenSecondRate": self.window_rate(now)}
