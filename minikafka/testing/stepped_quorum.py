"""`SteppedQuorum`: a KRaft quorum on the stepping driver, read as plain data.

Theory of operation
-------------------
The `QuorumStepper` builds a quorum of `RaftNode` objects on a `SteppingDriver`
and, on every ``back()``, builds it again; each build is one `SteppedQuorum`,
which receives that driver and the voters' ids and answers every read-only
question about them, in Kafka's terms -- node ids, role names such as
``Prospective``, epochs, offsets, virtual milliseconds since the quorum
started -- so a notebook cell can print it, compare it or compute a check
from it, and the widget and the text form are drawn from exactly the same
values:

* ``rows()``: per controller ``role``, ``epoch``, ``voted_for``, ``leader``,
  ``log_end_offset``, ``high_watermark`` (the replica's own log);
* ``queue()``: what happens next, in order -- messages in flight (``api``,
  ``response``, ``pre_vote``, ``epoch``, ``src``, ``dst``) and timers;
* ``timers()``: each controller's raft deadlines by name;
* ``log(node)``: its ``__cluster_metadata`` records, committed or not;
* ``is_leader_state(node)``, ``isolated()``, ``leader()``: the facts the
  stepper's controls check before acting.

Mirrors no single Kafka class: the observation half of Kafka's
``RaftEventSimulationTest`` cluster.
"""

from __future__ import annotations

from typing import Any

from minikafka.drivers.stepping import MESSAGE, Happening, SteppingDriver
from minikafka.raft.leader_state import LeaderState
from minikafka.raft.raft_node import RaftNode
from minikafka.testing.quorum_stepper_text import message_facts, record_text


class SteppedQuorum:
    """One build of the stepper's quorum: the driver that steps it and its voters' ids."""

    def __init__(self, driver: SteppingDriver, node_ids: tuple[int, ...]):
        self.driver = driver          # the stepping driver running the controllers
        self.node_ids = node_ids

    def node(self, node_id: int) -> RaftNode:
        return self.driver.handles[node_id].node

    def elapsed(self, time_ms: int) -> int:
        """Virtual milliseconds since the quorum started."""
        return time_ms - self.driver.start_ms

    def rows(self) -> dict[int, dict[str, Any]]:
        """Every controller as plain data: role, epoch, voted_for, leader, log_end_offset,
        high_watermark (Kafka's names; None where there is none)."""
        rows = {}
        for node_id in self.node_ids:
            node = self.node(node_id)
            quorum = node.client.quorum
            rows[node_id] = {"role": quorum.name, "epoch": quorum.epoch,
                             "voted_for": quorum.voted_id, "leader": quorum.leader_id,
                             "log_end_offset": node.log.end_offset,
                             "high_watermark": node.log.high_watermark}
        return rows

    def leader(self) -> int | None:
        """The leader of the highest epoch, if any controller is leader."""
        leaders = [(row["epoch"], n) for n, row in self.rows().items() if row["role"] == "Leader"]
        return max(leaders)[1] if leaders else None

    def leader_epoch(self, node_id: int) -> int | None:
        """The epoch ``node_id`` leads, or None if it is not a leader."""
        state = self.node(node_id).client.quorum.state
        return state.epoch if isinstance(state, LeaderState) else None

    def isolated(self) -> tuple[int, ...]:
        return tuple(n for n in self.node_ids if self.driver.network.is_isolated(n))

    def raw_timers(self) -> dict[int, dict[str, int]]:
        """Each controller's raft deadlines by name, in the driver's clock."""
        return {n: self.node(n).timers() for n in self.node_ids}

    def timers(self) -> dict[int, dict[str, int]]:
        """Each controller's raft deadlines by name, in virtual ms since the start."""
        return {n: {name: self.elapsed(at) for name, at in timers.items()}
                for n, timers in self.raw_timers().items()}

    def queue(self) -> list[dict[str, Any]]:
        """What happens next, in order: messages in flight and timers, as plain data."""
        return [self._entry(i, h) for i, h in enumerate(self.driver.pending())]

    def _entry(self, index: int, happening: Happening) -> dict[str, Any]:
        entry = {"index": index, "at_ms": self.elapsed(happening.time_ms),
                 "kind": happening.kind, "text": happening.text}
        if happening.kind == MESSAGE:
            entry.update(src=happening.src, dst=happening.dst,
                         **message_facts(happening.envelope.body, happening.request))
        else:
            entry.update(node=happening.node_id,
                         timer=happening.text.split("timer: ", 1)[-1])
        return entry

    def log(self, node_id: int) -> list[dict[str, Any]]:
        """The ``__cluster_metadata`` log of ``node_id``: offset, epoch, record, committed."""
        node = self.node(node_id)
        high_watermark = node.log.high_watermark
        return [{"offset": batch.base_offset + i, "epoch": batch.epoch,
                 "record": record if isinstance(record, (str, int)) else record_text(record),
                 "committed": batch.base_offset + i < high_watermark}
                for batch in node.log.batches for i, record in enumerate(batch.records)]


__all__ = ["SteppedQuorum"]
