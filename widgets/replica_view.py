"""`ReplicaView`: one partition's replicas side by side, live: log end offsets and high watermarks.

Theory of operation
-------------------
Replication is easiest to understand by watching the numbers Kafka keeps per
replica of one partition: each replica's *log end offset* (the next offset it
will write) and *high watermark* (the offset below which records are
committed: held by every in-sync replica, and so visible to consumers).  The
leader computes the high watermark as the smallest log end offset over the
ISR; followers learn it in their next fetch response.

`replica_table(snapshot, topic, partition)` renders those numbers from a
`ClusterSnapshot` as a fixed-width text table (deterministic, so lessons can
print it under nbval); `replica_table_html` renders the same rows as HTML.
The leader's own view of each follower (the offset its last fetch asked for,
how long ago it last had everything the leader had) comes from the leader's
replica states, as Kafka's ``Partition`` keeps them, and is what decides
when a follower leaves the ISR (``replica.lag.time.max.ms``).

`ReplicaView(cluster, topic, partition)` is the widget (a `LiveView`): an
``ipywidgets.HTML`` redrawn on every cluster event *and* every ``refresh_s``
seconds, because offsets move without any event being emitted.
Its ``repr`` depends only on its configuration (nbval compares it).
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets

from minikafka import ClusterSnapshot, PartitionSnapshot, ReplicaState
from widgets.live_view import LiveView

COLUMNS = ("broker", "role", "in ISR", "log end offset", "high watermark", "behind leader",
           "caught up")


def _partition(snapshot: ClusterSnapshot, topic: str, partition: int) -> PartitionSnapshot:
    try:
        topic_snapshot = snapshot.topic(topic)
    except KeyError:
        raise ValueError(f"Topic {topic!r} does not exist (UNKNOWN_TOPIC_OR_PARTITION)") from None
    for candidate in topic_snapshot.partitions:
        if candidate.partition == partition:
            return candidate
    raise ValueError(f"Topic {topic!r} has no partition {partition!r} "
                     f"(it has {len(topic_snapshot.partitions)}; UNKNOWN_TOPIC_OR_PARTITION)")


def _offset(value: int | None) -> str:
    return "-" if value is None else str(value)


def _row(snapshot: ClusterSnapshot, part: PartitionSnapshot, replica: ReplicaState,
         leader_end: int | None) -> tuple[str, ...]:
    node_state = snapshot.node(replica.broker).state
    if replica.is_leader:
        role = "leader"
    else:
        role = "follower"
    if node_state != "alive":
        role += f" ({node_state})"
    behind = ""
    if not replica.is_leader and leader_end is not None and replica.log_end_offset is not None:
        behind = str(max(0, leader_end - replica.log_end_offset))
    caught_up = ""
    if replica.last_caught_up_time_ms is not None:
        ago = max(0, snapshot.time_ms - replica.last_caught_up_time_ms)
        caught_up = f"{ago} ms ago"
    return (str(replica.broker), role, "yes" if replica.in_sync else "no",
            _offset(replica.log_end_offset), _offset(replica.high_watermark), behind, caught_up)


def replica_rows(snapshot: ClusterSnapshot, topic: str, partition: int,
                 caught_up: bool = False) -> tuple[str, list[tuple[str, ...]]]:
    """A heading and one row of strings per replica, in assignment order."""
    part = _partition(snapshot, topic, partition)
    leader_state = next((r for r in part.replica_states if r.is_leader), None)
    leader_end = leader_state.log_end_offset if leader_state is not None else None
    leader = "none" if part.leader is None else str(part.leader)
    heading = (f"{part.name}: leader {leader}, leader epoch {part.leader_epoch}, "
               f"ISR [{','.join(map(str, part.isr))}]")
    rows = [_row(snapshot, part, r, leader_end) for r in part.replica_states]
    if not caught_up:
        rows = [row[:-1] for row in rows]
    return heading, rows


def replica_table(snapshot: ClusterSnapshot, topic: str, partition: int = 0, *,
                  caught_up: bool = False) -> str:
    """The replicas of ``topic``-``partition`` as a text table.

    ``caught_up=True`` adds the leader's "last caught up ... ms ago" per follower,
    which changes from moment to moment (leave it out of outputs that must not).
    """
    heading, rows = replica_rows(snapshot, topic, partition, caught_up)
    columns = COLUMNS if caught_up else COLUMNS[:-1]
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    lines = [heading, "  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def replica_table_html(snapshot: ClusterSnapshot, topic: str, partition: int = 0) -> str:
    heading, rows = replica_rows(snapshot, topic, partition, caught_up=True)
    head = "".join(f"<th style='padding:2px 10px;text-align:left'>{html.escape(c)}</th>"
                   for c in COLUMNS)
    body = []
    for row in rows:
        colour = "#e8f5e9" if row[2] == "yes" else "#ffebee"
        cells = "".join(f"<td style='padding:2px 10px'>{html.escape(v)}</td>" for v in row)
        # pastel rows keep dark text in a dark theme too
        body.append(f"<tr style='background:{colour};color:#212121'>{cells}</tr>")
    return (f"<div style='font-family:monospace'><b>{html.escape(heading)}</b>"
            f"<table style='border-collapse:collapse'><tr>{head}</tr>{''.join(body)}</table></div>")


class ReplicaView(LiveView):
    """A live table of one partition's replicas, redrawn on events and every ``refresh_s``."""

    what = "table"

    def __init__(self, cluster: Any, topic: str, partition: int = 0, *,
                 refresh_s: float = 0.25, min_interval_s: float = 0.1):
        if refresh_s is None:
            raise ValueError("refresh_s must be a positive number of seconds: offsets move "
                             "without events")
        self._topic, self._partition = topic, partition
        replica_table_html(cluster.snapshot(), topic, partition)   # bad topic: fail here, once
        self.table = ipywidgets.HTML()
        super().__init__(cluster, self.table, refresh_s=refresh_s, min_interval_s=min_interval_s,
                         name="minikafka-replica-view")

    def render(self, snapshot) -> str:
        return replica_table_html(snapshot, self._topic, self._partition)

    def __repr__(self) -> str:
        return f"ReplicaView(topic={self._topic!r}, partition={self._partition})"
