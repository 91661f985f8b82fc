"""The KRaft epoch-state diagram, drawn from `QuorumState`'s transition table.

Theory of operation
-------------------
``minikafka.raft.quorum_state.TRANSITIONS`` (voters) and
``OBSERVER_TRANSITIONS`` (brokers) map a pair (state, `QuorumEvent`) to the
next state; the raft code consults them on every transition and raises on a
pair they do not list.  This module only reads them: `transition_edges` lists
the edges (one per pair, in the table's order), `transition_dot` renders them
as Graphviz DOT, one arrow per (from, to) labelled with every event that
takes it, the current state filled when one is given.  Because the picture
is drawn from the table the code checks, it cannot drift from the code.

`QuorumStepper.state_diagram` gives the diagram of one controller as it is
now; any Graphviz renderer (the ``graphviz`` package, ``dot -Tsvg``) draws
the text.

Mirrors no Kafka class: Kafka documents these transitions in prose in
``org.apache.kafka.raft.QuorumState``'s comment.
"""

from __future__ import annotations

from typing import NamedTuple

from minikafka.raft.quorum_state import OBSERVER_TRANSITIONS, TRANSITIONS, QuorumEvent

STATE_ORDER = ("Unattached", "Prospective", "Candidate", "Leader", "Resigned", "Follower")


class Edge(NamedTuple):
    """One legal transition: ``event`` moves ``source`` to ``target``."""

    source: str
    event: QuorumEvent
    target: str


def transition_edges(observer: bool = False) -> list[Edge]:
    """Every legal (state, event) pair of a voter (or an observer) as an edge."""
    table = OBSERVER_TRANSITIONS if observer else TRANSITIONS
    return [Edge(source, event, target) for (source, event), target in table.items()]


def transition_dot(observer: bool = False, current: str | None = None) -> str:
    """The state diagram as Graphviz DOT; ``current`` (a state's name) is filled."""
    edges = transition_edges(observer)
    states = [s for s in STATE_ORDER if any(s in (e.source, e.target) for e in edges)]
    labels: dict[tuple[str, str], list[str]] = {}
    for edge in edges:
        labels.setdefault((edge.source, edge.target), []).append(edge.event.name)
    name = "observer" if observer else "voter"
    lines = [f"digraph kraft_{name} {{", "  rankdir=LR;",
             '  node [shape=box, style="rounded"];']
    for state in states:
        fill = ', style="rounded,filled", fillcolor="#ffe082"' if state == current else ""
        lines.append(f'  "{state}" [label="{state}"{fill}];')
    for (source, target), events in labels.items():
        label = "\\n".join(events)              # one event per line in the label
        lines.append(f'  "{source}" -> "{target}" [label="{label}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"
