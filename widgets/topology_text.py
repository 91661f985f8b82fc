"""The cluster picture as plain text: for lessons, tests and screen readers.

Theory of operation
-------------------
`topology_text` writes the same `Topology` the diagram draws
(`widgets.topology_model.build_topology`), one block per node::

    KRaft quorum: voters [1001] · active controller 1001 · epoch 1

    controller 1001: alive
      active controller · leader · epoch 1
      localhost:9093 · 4.0 KiB

    broker 1: alive
      localhost:9092 · 12.3 KiB
      orders-0  L
      orders-1  F (out of sync)

Replica names are padded to one column per block so the marks line up.  The
output is deterministic (sorted by node id, topic and partition; nothing
depends on the clock), which is what nbval needs to compare it between
runs.

Simplified: no colours; the legend is one optional line.
"""

from __future__ import annotations

from collections.abc import Iterable

from minikafka import ClusterSnapshot
from widgets.topology_model import DEFAULT_MAX_PARTITIONS, NodeBox, build_topology

LEGEND = ("Marks: L = leader, F = follower in the ISR, F (out of sync) = follower not in "
          "the ISR, - (no leader) = partition without a leader.")


def topology_text(snapshot: ClusterSnapshot, *, topics: Iterable[str] | str | None = None,
                  show_internal: bool = False, max_partitions: int = DEFAULT_MAX_PARTITIONS,
                  offsets: bool = False, legend: bool = False, controllers: bool = True,
                  details: bool = True) -> str:
    """Plain-text picture of ``snapshot``; options as for `topology_dot`.

    ``controllers=False`` leaves out the quorum line and the controller blocks and
    ``details=False`` the address and disk-usage lines: a lesson on a live cluster
    prints the parts that are the same on every run (ports and byte counts, and
    which controller wins the first election, depend on timing).
    """
    topology = build_topology(snapshot, topics=topics, show_internal=show_internal,
                              max_partitions=max_partitions)
    boxes = (topology.controllers if controllers else ()) + topology.brokers
    head = (topology.quorum,) if controllers else ()
    blocks = ["\n".join((*head, *topology.notes))] if head or topology.notes else []
    blocks += [_block(box, offsets, details) for box in boxes]
    if legend:
        blocks.append(LEGEND)
    return "\n\n".join(blocks) + "\n"


def _block(box: NodeBox, offsets: bool, details: bool = True) -> str:
    lines = [f"{box.title}: {box.status}"]
    if box.raft:
        lines.append(f"  {box.raft}")
    if box.details and details:
        lines.append(f"  {box.details}")
    if not box.is_broker:
        return "\n".join(lines)
    name_width = max((len(m.name) for m in box.replicas), default=0)
    mark_width = max((len(m.mark) for m in box.replicas), default=0)
    for mark in box.replicas:
        row = f"  {mark.name.ljust(name_width)}  {mark.mark}"
        if offsets:
            row = f"  {mark.name.ljust(name_width)}  {mark.mark.ljust(mark_width)}  {mark.offsets}"
        lines.append(row)
    if box.hidden_replicas:
        lines.append(f"  + {box.hidden_replicas} more replicas not shown")
    elif not box.replicas:
        lines.append("  no replicas")
    return "\n".join(lines)
