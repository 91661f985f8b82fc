"""`MetricsRegistry`: the gauges and meters of one Kafka process.

Theory of operation
-------------------
In Kafka every component registers its metrics in the process's Yammer
registry at construction: a gauge is a function read whenever someone asks
(``LeaderCount`` counts the partitions this broker leads at that moment), a
meter is an object the component marks as events happen.  Per-partition and
per-topic metrics come and go with their partitions and topics.

The sandbox keeps one registry per node (one node is one Kafka process) and
follows the same split:

* ``gauge(mbean, fn)`` registers a value read on demand;
* ``gauges(fn)`` registers a *family*: ``fn()`` yields ``(mbean, value)``
  pairs, for gauges that exist once per log or per partition (Kafka
  registers one per log and removes it with the log; enumerating the logs at
  read time gives the same set without the bookkeeping).  Family members
  always carry tags (``topic=``, ``partition=``);
* ``meter(mbean, event_type)`` returns the meter of that name, creating it
  on first use (as Kafka's per-topic meters are created lazily).

``read(now)`` returns every metric as ``{mbean: {attribute: value}}`` in
name order: ``{"Value": v}`` for a gauge, `Meter.attributes` for a meter.
``read(now, node_level=True)`` keeps only the MBeans without tags (the
node's totals: what a dashboard shows per broker), and skips the families.
A restarted node has a new registry: its counts start again from zero, as a
restarted JVM's do.

Mirrors ``KafkaYammerMetrics.defaultRegistry`` as Kafka's components use it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from minikafka.metrics.meter import Meter
from minikafka.metrics.metric_name import is_node_level

Gauge = Callable[[], Any]
GaugeFamily = Callable[[], Iterable[tuple[str, Any]]]


class MetricsRegistry:
    def __init__(self, clock: Callable[[], int]):
        self._clock = clock                            # the node's `now` (meters created lazily start then)
        self._gauges: dict[str, Gauge] = {}            # mbean -> function giving the current value
        self._families: list[GaugeFamily] = []         # functions yielding (mbean, value) pairs
        self.meters: dict[str, Meter] = {}             # mbean -> meter

    def gauge(self, mbean: str, fn: Gauge) -> None:
        self._gauges[mbean] = fn

    def gauges(self, fn: GaugeFamily) -> None:
        self._families.append(fn)

    def meter(self, mbean: str, event_type: str) -> Meter:
        found = self.meters.get(mbean)
        if found is None:
            found = self.meters[mbean] = Meter(event_type, self._clock())
        return found

    def read(self, now: int, node_level: bool = False) -> dict[str, dict[str, Any]]:
        """Every metric at ``now`` in name order; with ``node_level``, only the untagged ones."""
        values: dict[str, dict[str, Any]] = {}
        for mbean, fn in self._gauges.items():
            if not node_level or is_node_level(mbean):
                values[mbean] = {"Value": fn()}
        if not node_level:
            for family in self._families:
                for mbean, value in family():
                    values[mbean] = {"Value": value}
        for mbean, meter in self.meters.items():
            if not node_level or is_node_level(mbean):
                values[mbean] = meter.attributes(now)
        return dict(sorted(values.items()))
