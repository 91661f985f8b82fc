"""The operator's view as plain text: stable for nbval, readable in any output.

``operator_text(snapshot)`` prints the cluster's health on two lines, then
one line per broker (its state as an operator observes it: alive, fenced,
not responding, "fenced, not responding" or dead; never the cause, log bytes, partitions, leaders, under-replicated
and under-min-ISR partitions, and the traffic rates), then the names of the
MBeans the columns come from, so a learner can find them again on a real
cluster.  ``rates=False`` leaves out the traffic columns, whose values depend
on timing in a live cluster (use it in lessons checked by nbval)::

    controller: active 1001 (ActiveControllerCount summed over controllers: 1)
    partitions: 6, offline 0, under-replicated 2; brokers alive: 2 of 3

    BROKER  STATE  LOG BYTES  PARTITIONS  LEADERS  URP  UNDER-MIN-ISR
    1       alive  1.2 KiB    6           3        2    0
    2       alive  1.2 KiB    6           3        0    0
    3       dead   1.2 KiB    -           -        -    -

``probe_text(snapshot)`` prints, per broker, the three observations the
state column is made of (is the process listed, what the controller says
of its registration, what a request to its port gets), for a learner who
must diagnose a broker from the outside.
"""

from __future__ import annotations

from minikafka import ClusterSnapshot
from widgets.operator_model import BrokerRow, OperatorSummary, build_operator_summary, probe
from widgets.topology_model import human_bytes

LEGEND = ("PARTITIONS, LEADERS, URP, UNDER-MIN-ISR: kafka.server:type=ReplicaManager,"
          "name=PartitionCount, LeaderCount, UnderReplicatedPartitions, UnderMinIsrPartitionCount")
RATE_LEGEND = ("MSG IN/S, BYTES IN/S, BYTES OUT/S: kafka.server:type=BrokerTopicMetrics,name="
               "MessagesInPerSec, BytesInPerSec, BytesOutPerSec; TenSecondRate (the sandbox's: "
               "the last 10 s of cluster time; Kafka itself offers OneMinuteRate)")


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def rate_text(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if unit == "B":
        return f"{human_bytes(round(value))}"
    return f"{value:.1f}"


def health_lines(summary: OperatorSummary) -> list[str]:
    h = summary.health
    active = "none (election or lost quorum)" if h.active_controller is None else str(h.active_controller)
    return [f"controller: active {active} (ActiveControllerCount summed over controllers: "
            f"{h.active_controller_count})",
            f"partitions: {_count(h.partitions)}, offline {_count(h.offline_partitions)}, "
            f"under-replicated {h.under_replicated}; brokers alive: {h.brokers_alive} of "
            f"{h.brokers_total}"]


def _row(row: BrokerRow, rates: bool) -> tuple[str, ...]:
    cells = (str(row.broker), row.state, human_bytes(row.disk_bytes), _count(row.partitions),
             _count(row.leaders), _count(row.under_replicated), _count(row.under_min_isr))
    if rates:
        cells += (rate_text(row.messages_in), rate_text(row.bytes_in, "B"),
                  rate_text(row.bytes_out, "B"))
    return cells


def _table(lines: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines]


def operator_text(snapshot: ClusterSnapshot, *, rates: bool = True, legend: bool = True) -> str:
    """The operator's view of ``snapshot`` as text (see the module docstring)."""
    summary = build_operator_summary(snapshot)
    header = ("BROKER", "STATE", "LOG BYTES", "PARTITIONS", "LEADERS", "URP", "UNDER-MIN-ISR")
    if rates:
        header += ("MSG IN/S", "BYTES IN/S", "BYTES OUT/S")
    lines = health_lines(summary) + [""]
    lines += _table([header] + [_row(row, rates) for row in summary.brokers])
    if legend:
        lines += ["", LEGEND] + ([RATE_LEGEND] if rates else [])
    return "\n".join(lines)


def probe_text(snapshot: ClusterSnapshot, *, controllers: bool = False) -> str:
    """Per broker (or, with ``controllers=True``, per controller): what ``ps``, the active
    controller and a request to its port show; no cause."""
    if controllers:
        rows = [("CONTROLLER", "PROCESS LISTED", "A REQUEST TO ITS PORT")]
        for node in snapshot.controllers:
            seen = probe(node)
            rows.append((str(seen.broker), "yes" if seen.process_listed else "no", seen.request))
        return "\n".join(_table(rows))
    rows = [("BROKER", "PROCESS LISTED", "REGISTRATION (CONTROLLER)", "A REQUEST TO ITS PORT")]
    for node in snapshot.brokers:
        seen = probe(node)
        rows.append((str(seen.broker), "yes" if seen.process_listed else "no", seen.registration,
                     seen.request))
    return "\n".join(_table(rows))
