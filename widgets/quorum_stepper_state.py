"""What a `QuorumStepper` shows: its controllers, queue, timers, logs and timeline as plain data.

Theory of operation
-------------------
A mixin of `QuorumStepper` (split out only to keep modules short) with every
read-only view of the stepped quorum.  Everything comes back as plain data
in Kafka's terms -- node ids, role names such as ``Prospective``, epochs,
offsets, virtual milliseconds since the quorum started -- so a notebook cell
can print it, compare it or compute a check from it, and the widget and the
text form are drawn from exactly the same values.

* ``state()``: per controller ``role``, ``epoch``, ``voted_for``, ``leader``,
  ``log_end_offset``, ``high_watermark`` (the replica's own log);
* ``queue()``: what happens next, in order -- messages in flight (``api``,
  ``response``, ``pre_vote``, ``epoch``, ``src``, ``dst``) and timers;
* ``timers()``: each controller's raft deadlines by name;
* ``log(node)``: its ``__cluster_metadata`` records, committed or not;
* ``history``: the timeline, a tuple of lines that prints as text;
  ``history.without("Fetch")`` hides routine entries that changed nothing and
  ``history.starting_at("isolate(")`` / ``until("resigned")`` cut out a
  stretch, for short excerpts.
"""

from __future__ import annotations

from typing import Any

from minikafka.drivers.stepping import MESSAGE, Happening
from minikafka.raft.raft_node import RaftNode
from widgets.quorum_stepper_text import message_facts, record_text, stepper_text


class History(tuple):
    """The timeline: a tuple of lines that prints as text."""

    def __str__(self) -> str:
        return "\n".join(self)

    def __repr__(self) -> str:
        return str(self) if self else "(nothing has happened yet)"

    def __getitem__(self, index):
        item = super().__getitem__(index)
        return History(item) if isinstance(index, slice) else item

    def _entries(self) -> list[tuple[str, ...]]:
        """The timeline as entries: a control's line followed by its indented effect lines."""
        entries: list[list[str]] = []
        for line in self:
            if line.startswith(" ") and entries:
                entries[-1].append(line)
            else:
                entries.append([line])
        return [tuple(entry) for entry in entries]

    def without(self, *fragments: str) -> "History":
        """The timeline minus the routine: entries whose line contains one of ``fragments``
        and that changed nothing (an entry with effect lines always stays, for its effects)."""
        return History(line for entry in self._entries()
                       if len(entry) > 1 or not any(f in entry[0] for f in fragments)
                       for line in entry)

    def _first(self, fragment: str) -> tuple[list[tuple[str, ...]], int | None]:
        entries = self._entries()
        return entries, next((i for i, entry in enumerate(entries)
                              if any(fragment in line for line in entry)), None)

    def starting_at(self, fragment: str) -> "History":
        """The timeline from the first entry with a line containing ``fragment`` (empty if none)."""
        entries, first = self._first(fragment)
        return History(line for entry in entries[len(entries) if first is None else first:]
                       for line in entry)

    def until(self, fragment: str) -> "History":
        """The timeline up to and including the first entry with a line containing
        ``fragment`` (all of it if none)."""
        entries, last = self._first(fragment)
        return History(line for entry in entries[:None if last is None else last + 1]
                       for line in entry)


class QuorumStepperReadings:
    """The read-only half of `QuorumStepper`."""

    @property
    def closed(self) -> bool:
        return self._closed

    def _node(self, node_id: int) -> RaftNode:
        return self._driver.handles[node_id].node

    def _elapsed(self, time_ms: int) -> int:
        return time_ms - self._driver.start_ms

    def _rows(self) -> dict[int, dict[str, Any]]:
        rows = {}
        for node_id in self.node_ids:
            node = self._node(node_id)
            quorum = node.client.quorum
            rows[node_id] = {"role": quorum.name, "epoch": quorum.epoch,
                             "voted_for": quorum.voted_id, "leader": quorum.leader_id,
                             "log_end_offset": node.log.end_offset,
                             "high_watermark": node.log.high_watermark}
        return rows

    def state(self) -> dict[int, dict[str, Any]]:
        """Every controller as plain data: role, epoch, voted_for, leader, log_end_offset,
        high_watermark (Kafka's names; None where there is none)."""
        self._check_open()
        return self._rows()

    @property
    def history(self) -> History:
        """The timeline so far, one line per control plus indented effects."""
        self._check_open()
        return History(self._lines)

    @property
    def events(self) -> int:
        """How many controls have been applied (what ``back`` counts)."""
        self._check_open()
        return len(self._driver.controls)

    @property
    def time_ms(self) -> int:
        """Virtual milliseconds since the quorum started."""
        self._check_open()
        return self._elapsed(self._driver.now())

    @property
    def isolated(self) -> tuple[int, ...]:
        self._check_open()
        return tuple(n for n in self.node_ids if self._driver.network.is_isolated(n))

    def leader(self) -> int | None:
        """The leader of the highest epoch, if any controller is leader."""
        rows = self.state()
        leaders = [(row["epoch"], n) for n, row in rows.items() if row["role"] == "Leader"]
        return max(leaders)[1] if leaders else None

    def _raw_timers(self) -> dict[int, dict[str, int]]:
        return {n: self._node(n).timers() for n in self.node_ids}

    def timers(self) -> dict[int, dict[str, int]]:
        """Each controller's raft deadlines by name, in virtual ms since the start."""
        self._check_open()
        return {n: {name: self._elapsed(at) for name, at in timers.items()}
                for n, timers in self._raw_timers().items()}

    def queue(self) -> list[dict[str, Any]]:
        """What happens next, in order: messages in flight and timers, as plain data."""
        self._check_open()
        return [self._entry(i, h) for i, h in enumerate(self._driver.pending())]

    def _entry(self, index: int, happening: Happening) -> dict[str, Any]:
        entry = {"index": index, "at_ms": self._elapsed(happening.time_ms),
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
        self._check_open()
        node = self._node(self._controller(node_id))
        high_watermark = node.log.high_watermark
        return [{"offset": batch.base_offset + i, "epoch": batch.epoch,
                 "record": record if isinstance(record, (str, int)) else record_text(record),
                 "committed": batch.base_offset + i < high_watermark}
                for batch in node.log.batches for i, record in enumerate(batch.records)]

    def text(self, history: int = 12) -> str:
        """The stepper as stable text: the controllers, the queue, the last timeline lines."""
        self._check_open()
        return stepper_text(self, history)

    def __str__(self) -> str:
        return "QuorumStepper (closed)" if self._closed else self.text()

    def __repr__(self) -> str:
        if self._closed:
            return "QuorumStepper(closed)"
        return (f"QuorumStepper(controllers={self.controllers}, seed={self.seed}, "
                f"events={self.events}, leader={self.leader()})")
