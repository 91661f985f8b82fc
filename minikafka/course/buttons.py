"""Undo what a widget's fault buttons did, before a lesson cell that breaks the cluster itself.

Theory of operation
-------------------
A lesson shows a dashboard with Kill, Restart, Pause, Resume, Isolate and
Heal buttons, and later cells act on nodes in code ("broker 3 crashes
now").  A learner may have pressed any button in between, so such a cell
cannot assume the cluster is as the lesson left it.  `undo_button_presses`
is the one line those cells run first: it looks at the cluster's snapshot,
heals any network partition or cut link, resumes paused nodes and restarts
dead ones (the facade's ordinary verbs), and then waits until every
broker is registered and unfenced and every partition has its full ISR
again (also when nothing was left to undo: a Kill followed by a Restart
leaves a broker still catching up), so the cell that follows starts from a whole,
settled cluster.  It prints one line either way, so the learner sees what
was undone, or that nothing was.

``keep_dead`` names nodes the lesson itself killed earlier and wants to stay
dead.  Not a Kafka concept: the course's plumbing; an operator would look
at the cluster and decide.  A learner need not read this module.
"""

from __future__ import annotations

from typing import Any, Iterable

SETTLE_MS = 30_000


def _settled(cluster: Any, keep: set[int]) -> bool:
    """Every running broker registered and unfenced; every replica in its ISR except on ``keep``."""
    if not cluster.is_ready():
        return False
    snapshot = cluster.snapshot()
    return all(set(p.replicas) - keep <= set(p.isr) for t in snapshot.topics for p in t.partitions)


def undo_button_presses(cluster: Any, keep_dead: Iterable[int] = (),
                        timeout_ms: int = SETTLE_MS) -> None:
    """Heal the network, resume paused nodes, restart dead ones (except ``keep_dead``),
    wait until the cluster is whole again, and print one line saying what was undone."""
    keep = set(keep_dead)
    snapshot = cluster.snapshot()
    undone: list[str] = []
    if any(n.isolated or n.cut_from for n in snapshot.nodes):
        cluster.heal()
        undone.append("healed the network")
    for node in snapshot.nodes:
        role = "node" if node.is_broker and node.is_controller else node.roles[0]
        name = f"{role} {node.node_id}"
        if node.process == "paused":
            cluster.resume(node.node_id)
            undone.append(f"resumed {name}")
        elif node.process == "dead" and node.node_id not in keep:
            cluster.restart(node.node_id)
            undone.append(f"restarted {name}")
    # also after a press that undid itself (Kill, then Restart): the broker may be catching up
    settled = cluster.wait_until(lambda: _settled(cluster, keep), timeout_ms)
    tail = "" if settled else f" (some replicas were still out of sync after {timeout_ms // 1000} s)"
    if not undone:
        print(f"No button press to undo: every node is running and the network is whole{tail}.")
    else:
        print(f"Undid earlier button presses: {', '.join(undone)}{tail}.")
