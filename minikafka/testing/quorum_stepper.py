"""`QuorumStepper`: a KRaft election you can step through, forwards and back.

Theory of operation
-------------------
The stepper builds a quorum of dedicated controllers (ids 1001, 1002, ...)
out of the engine's own pieces: one `RaftNode` (a `KafkaRaftClient` with an
in-memory ``__cluster_metadata`` log and quorum-state) per controller, run by
the `SteppingDriver` in virtual time with Kafka's own quorum settings
(``controller.quorum.election.timeout.ms=1000``,
``controller.quorum.fetch.timeout.ms=2000``, ...) and 1 ms between
controllers.  Nothing is live: no thread, no socket, no wall clock.

Each control is one entry of the driver's control list and one entry of the
timeline (``history``): ``step`` delivers the next message or fires the next
timer, ``next_event`` steps over routine ``Fetch`` traffic and quiet timers to
the next step that matters (the table is `quorum_stepper_next.MATTERS`;
each step it takes is a control of its own), ``deliver(i)`` lets message
``i`` of the queue overtake the others, ``drop_next`` loses the next
message, ``timeout(node)`` makes that controller's election (or fetch) timer
run out now, ``isolate``/``heal`` partition the network, ``append`` hands a
record to the leader.  After each control the timeline notes, indented,
what it changed on every controller (role, epoch, vote, leader, log end
offset, high watermark), the engine's events (elections, resignations,
truncations) and messages the network lost.

``back`` rebuilds the quorum from the seed and replays every control but the
last: same seed and same controls give the same run, so going back is exact.
``back()`` after ``next_event()`` undoes its last step, the event that
mattered, and leaves the routine steps before it.

Verbs that reach a state do nothing when the state is already there, and
say so: ``run_until_leader()`` returns a leader that a majority can reach at
once, without stepping; ``isolate(n)`` of an isolated controller and
``heal()`` of a whole network return a `Note` saying so instead of acting
(``isolate``/``heal`` always return a `Note`, the line of what they did).
Bad input (an unknown controller, a wrong type, a closed stepper, a control
that cannot act, such as ``timeout`` of the leader) raises
`QuorumStepperError`: one line in Kafka's terms, no traceback in a notebook,
and nothing changes.

The stepper is composed, not mixed in: each build of the quorum (at the
start and on every ``back``) is one `SteppedQuorum` (module
`stepped_quorum`), given the stepping driver and the voters' ids, which
answers every read (``state()``, ``queue()``, ``timers()``, ``log()``); the
stepper owns the controls, the timeline (`History`) and its subscribers.
``print`` gives the picture as text (``text()``), stable enough for nbval;
`check_invariants` runs Raft's safety checks (`RaftInvariantChecker`, the
one the raft tests use) over the controllers as they are now;
``state_diagram(node)`` draws the epoch-state diagram (Graphviz DOT) from
the transition table the raft code consults, that controller's state filled.  Recipes for
the lesson's scenarios are in `quorum_scenarios`.

This module imports nothing from ``widgets``: ``widgets.QuorumStepper`` is
this class with a notebook face (``view()``, a `QuorumStepperView`), and a
view redraws through `subscribe` -- after ``close()`` the subscribers are
called once more, with `closed` True, so a view freezes.

Mirrors no single Kafka class: it is Kafka's ``RaftEventSimulationTest`` idea
(raft clients over a scheduler of deliveries and ticks) put in a learner's
hands.  Simplified: controllers only, no brokers, records are plain strings.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from minikafka.cluster.layout import generate_cluster_id
from minikafka.drivers.stepping import MESSAGE, SteppingDriver
from minikafka.raft.raft_node import RaftNode
from minikafka.raft.replicated_log import MemoryReplicatedLog
from minikafka.raft.quorum_state_store import MemoryQuorumStateStore
from minikafka.runtime.events import ClusterEvent, EventLog
from minikafka.testing.quorum_history import History
from minikafka.testing.quorum_stepper_next import (NEXT_EVENT_LIMIT_MS, NEXT_EVENT_MAX_STEPS,
                                                   NextEvent, bound_text, landed_text, matters)
from minikafka.testing.quorum_stepper_text import (change_line, describe_message, headline, seconds,
                                                   start_line, stepper_text)
from minikafka.testing.quorum_state_diagram import transition_dot
from minikafka.testing.raft_invariants import RaftInvariantChecker
from minikafka.testing.stepped_quorum import SteppedQuorum
from minikafka.common.timing import KAFKA

FIRST_CONTROLLER_ID = 1001       # the sandbox's dedicated controllers are 1001, 1002, ...
MAX_CONTROLLERS = 5
LATENCY_MS = 1                   # one way, between any two controllers
RUN_LIMIT_MS = 30_000            # run_until_leader gives up after this much virtual time
MAX_EVENTS = 20_000              # past this the stepper is finished (back() replays them all)
INDENT = " " * 11                # effect lines sit under the time column


class QuorumStepperError(ValueError):
    """Bad use of a `QuorumStepper`; a notebook shows only its one line."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class Note(str):
    """What a verb did (or why it had nothing to do), one line that displays as itself."""

    def __repr__(self) -> str:
        return str(self)


def _step_name(happening: Any) -> str:
    """A step's name in the `MATTERS` table: a message's API, a timer's name."""
    if happening.kind == MESSAGE:
        return type(happening.envelope.body).__name__.removesuffix("Response") \
            .removesuffix("Request")
    return happening.text.split("timer: ", 1)[-1]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class QuorumStepper:
    """A simulated KRaft quorum of ``controllers`` voters, stepped by hand (see the module doc)."""

    def __init__(self, controllers: int = 3, seed: int = 7):
        if not _is_int(controllers) or not 1 <= controllers <= MAX_CONTROLLERS:
            raise QuorumStepperError(f"controllers must be a whole number from 1 to "
                                     f"{MAX_CONTROLLERS}, got {controllers!r}")
        if not _is_int(seed):
            raise QuorumStepperError(f"seed must be a whole number, got {seed!r}")
        self.controllers = controllers
        self.seed = seed
        self.node_ids = tuple(range(FIRST_CONTROLLER_ID, FIRST_CONTROLLER_ID + controllers))
        self.timing = KAFKA
        self.cluster_id = generate_cluster_id(f"stepper-{seed}")
        self._closed = False
        self._listeners: list[Callable[[], None]] = []    # called after each control
        self._rebuild(())

    # ------------------------------------------------------------------ building and replay
    def _rebuild(self, controls: tuple) -> None:
        """A fresh quorum with ``controls`` applied; the timeline is regenerated with it."""
        self._events: list[ClusterEvent] = []      # engine events of the control being applied
        self._last_changed = False                 # did the last control change a controller?
        self._driver = self._build()
        self._quorum = SteppedQuorum(self._driver, self.node_ids)
        self._lines = [self._start_line()]
        self._marks = [1]                          # len(_lines) after each control
        for control in controls:
            self._apply(control)

    def _rewind(self, count: int) -> None:
        """Keep the first ``count`` controls: replay them on a fresh quorum, quietly (the
        timeline of a replayed prefix is the same as before, so its lines are kept)."""
        controls = tuple(self._driver.controls[:count])
        self._events = []
        driver = self._build()
        for control in controls:
            driver.apply(control)
        self._driver = driver
        self._quorum = SteppedQuorum(driver, self.node_ids)
        del self._lines[self._marks[count]:]
        del self._marks[count + 1:]

    def _build(self) -> SteppingDriver:
        endpoints = {n: f"CONTROLLER://localhost:{9093 + i}" for i, n in enumerate(self.node_ids)}
        logs = {n: MemoryReplicatedLog() for n in self.node_ids}
        stores = {n: MemoryQuorumStateStore() for n in self.node_ids}

        def factory(node_id: int, incarnation: int, now: int) -> RaftNode:
            rng = random.Random(f"{self.seed}:{node_id}:{incarnation}")
            return RaftNode(node_id, rng, endpoints, logs[node_id], stores[node_id], self.timing,
                            self.cluster_id)
        events = EventLog()
        events.subscribe(self._events.append)
        driver = SteppingDriver(factory, events, LATENCY_MS, describe=describe_message)
        for node_id in self.node_ids:
            driver.add_node(node_id, ("controller",))
        driver.start_together(self.node_ids)
        self._events.clear()
        return driver

    def _start_line(self) -> str:
        quorum = self._quorum
        timers = {n: quorum.elapsed(t["election timeout"]) for n, t in quorum.raw_timers().items()
                  if "election timeout" in t}
        rows = quorum.rows()
        lone = next(((n, row["epoch"]) for n, row in rows.items() if row["role"] == "Leader"),
                    None) if self.controllers == 1 else None
        return start_line(timers, self.timing, lone)

    # ------------------------------------------------------------------ applying controls
    def _apply(self, control: tuple) -> Any:
        before = self._quorum.rows()
        self._events.clear()
        self._driver.lost.clear()
        result = self._driver.apply(control)
        now = seconds(self._quorum.elapsed(self._driver.now()))
        self._lines.append(f"{now}  {headline(control, result, self.node_ids, self.timing)}")
        effects = [f"lost: {h.text}" for h in self._driver.lost]
        effects += [event.text for event in self._events]
        after = self._quorum.rows()
        changes = [line for n in self.node_ids
                   if (line := change_line(n, before[n], after[n])) is not None]
        self._last_changed = bool(self._events or changes)
        effects += changes
        self._lines.extend(INDENT + line for line in effects)
        self._marks.append(len(self._lines))
        return result

    def _control(self, control: tuple) -> Any:
        """Apply one new control from the learner and redraw the views."""
        try:
            return self._apply(control)
        finally:
            self._changed()

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # ------------------------------------------------------------------ checks
    def _check_open(self) -> None:
        if self._closed:
            raise QuorumStepperError("This QuorumStepper is closed; create a new one")

    def _check_can_step(self) -> None:
        self._check_open()
        if len(self._driver.controls) >= MAX_EVENTS:
            raise QuorumStepperError(f"This QuorumStepper is finished: it holds {MAX_EVENTS} "
                                     f"events, the most it keeps; use back() or create a new one")

    def _controller(self, node_id: Any) -> int:
        if not _is_int(node_id):
            raise QuorumStepperError(f"A controller is named by its node id, a whole number such "
                                     f"as {self.node_ids[0]}; got {node_id!r}")
        if node_id not in self.node_ids:
            raise QuorumStepperError(f"Unknown controller {node_id}: the voters are "
                                     f"{', '.join(str(n) for n in self.node_ids)}")
        return node_id

    # ------------------------------------------------------------------ controls
    def step(self, count: int = 1) -> None:
        """Deliver the next message or fire the next timer (the first entry of `queue`);
        ``count`` times (each one an event of its own for `back`)."""
        self._check_can_step()
        if not _is_int(count) or count < 1:
            raise QuorumStepperError(f"step() takes a number of events of at least 1, got "
                                     f"{count!r}")
        if not self._driver.pending():
            raise QuorumStepperError("Nothing to step: no message is in flight and no timer is set")
        try:
            for _ in range(min(count, MAX_EVENTS - len(self._driver.controls))):
                if not self._driver.pending():
                    break
                self._apply(("step",))
        finally:
            self._changed()

    def back(self, events: int = 1) -> None:
        """Undo the last ``events`` controls by replaying the rest from the seed."""
        self._check_open()
        if not _is_int(events) or events < 1:
            raise QuorumStepperError(f"back() takes a number of events of at least 1, got "
                                     f"{events!r}")
        controls = tuple(self._driver.controls)
        if not controls:
            raise QuorumStepperError("Nothing to go back to: no event has happened yet")
        try:
            self._rewind(max(0, len(controls) - events))
        finally:
            self._changed()

    def next_event(self) -> NextEvent:
        """Step to the next event that matters and stop right after it; what it landed on.

        Routine steps (``Fetch`` requests and responses, BeginQuorumEpoch resends and timers
        that changed nothing) are stepped over; a timeout firing (election, fetch, election
        backoff), a ``Vote`` or ``EndQuorumEpoch`` message, or any step that changed a
        controller (role, epoch, vote, leader, log end offset, high watermark: a commit) or
        raised an engine event stops it.  The table is
        `quorum_stepper_next.MATTERS`.  It never runs forever: past 10 s of virtual
        time, or 4,000 steps, it stops and says so (the returned line; ``.found`` is False).
        Every step it takes is an event of its own, so ``back()`` undoes the one it landed on.
        """
        self._check_can_step()
        if not self._driver.pending():
            raise QuorumStepperError("Nothing to step: no message is in flight and no timer is set")
        deadline = self._driver.now() + NEXT_EVENT_LIMIT_MS
        skipped = 0
        try:
            while True:
                pending = self._driver.pending()
                if len(self._driver.controls) >= MAX_EVENTS:
                    return NextEvent(f"Stopped after {skipped} routine steps: this QuorumStepper "
                                     f"is finished, it holds {MAX_EVENTS} events (use back() or "
                                     f"create a new one)", False, skipped, skipped)
                if not pending:
                    return NextEvent(bound_text(skipped, NEXT_EVENT_LIMIT_MS, False, empty=True),
                                     False, skipped, skipped)
                if pending[0].time_ms > deadline or skipped >= NEXT_EVENT_MAX_STEPS:
                    return NextEvent(bound_text(skipped, NEXT_EVENT_LIMIT_MS,
                                                pending[0].time_ms > deadline),
                                     False, skipped, skipped)
                happening = pending[0]
                mark = len(self._lines)
                self._apply(("step",))
                if matters(happening.kind, _step_name(happening), self._last_changed):
                    return NextEvent(landed_text(self._lines[mark:], skipped), True, skipped,
                                     skipped + 1)
                skipped += 1
        finally:
            self._changed()

    def settled_leader(self) -> int | None:
        """The leader, if it can reach a majority of the voters (so it will stay leader until
        something changes); None otherwise."""
        leader = self.leader()
        if leader is None or leader in self.isolated:
            return None
        reachable = len(self.node_ids) - len(self.isolated)
        return leader if reachable > len(self.node_ids) // 2 else None

    def run_until_leader(self) -> int | None:
        """A leader: the one already there if a majority can reach it (nothing is stepped),
        else step until a controller wins an election; its id, or None if none did within
        30 s of virtual time (e.g. no majority can talk)."""
        self._check_can_step()
        settled = self.settled_leader()
        if settled is not None:
            return settled
        elected = self._run(self._driver.now() + RUN_LIMIT_MS, stop_on_election=True)
        return elected[-1].data["leader"] if elected else None

    def run_for(self, duration_ms: int) -> None:
        """Step through everything due in the next ``duration_ms`` of virtual time."""
        self._check_can_step()
        if not _is_int(duration_ms) or not 0 < duration_ms <= RUN_LIMIT_MS:
            raise QuorumStepperError(f"run_for() takes milliseconds of virtual time, from 1 to "
                                     f"{RUN_LIMIT_MS}; got {duration_ms!r}")
        self._run(self._driver.now() + duration_ms, stop_on_election=False)

    def _run(self, deadline: int, stop_on_election: bool) -> list[ClusterEvent]:
        """Step until ``deadline`` (or an election); the elections seen."""
        elected: list[ClusterEvent] = []
        try:
            while len(self._driver.controls) < MAX_EVENTS:
                pending = self._driver.pending()
                if not pending or pending[0].time_ms > deadline:
                    break
                self._apply(("step",))
                elected += [e for e in self._events if e.kind == "controller_elected"]
                if elected and stop_on_election:
                    break
        finally:
            self._changed()
        return elected

    def deliver(self, index: int) -> None:
        """Message number ``index`` of `queue` arrives now, overtaking the ones before it."""
        self._check_can_step()
        self._message_index(index)
        try:
            self._driver.check_deliverable(index)
        except ValueError as exc:
            raise QuorumStepperError(f"{str(exc)[0].upper()}{str(exc)[1:]}") from None
        self._control(("deliver", index))

    def drop_next(self) -> None:
        """Lose the next message in flight (its sender's request will time out)."""
        self._check_can_step()
        for index, happening in enumerate(self._driver.pending()):
            if happening.kind == MESSAGE:
                self._control(("drop", index))
                return
        raise QuorumStepperError("No message is in flight: nothing to drop")

    def drop(self, index: int) -> None:
        """Lose message number ``index`` of `queue`."""
        self._check_can_step()
        self._message_index(index)
        self._control(("drop", index))

    def _message_index(self, index: Any) -> None:
        pending = self._driver.pending()
        if not _is_int(index) or not 0 <= index < len(pending):
            raise QuorumStepperError(f"There is no entry {index!r} in the queue; it holds "
                                     f"{len(pending)} (numbered from 0)")
        if pending[index].kind != MESSAGE:
            raise QuorumStepperError(f"Entry {index} of the queue is a timer, not a message: "
                                     f"{pending[index].text}")

    def timeout(self, node_id: int) -> None:
        """Make the election timer (fetch timer for a follower) of ``node_id`` run out now."""
        self._check_can_step()
        epoch = self._quorum.leader_epoch(self._controller(node_id))
        if epoch is not None:
            raise QuorumStepperError(f"Controller {node_id} is the leader of epoch {epoch}: "
                                     f"a leader has no election or fetch timer (isolate it to "
                                     f"make it lose its quorum)")
        self._control(("call", node_id, "expire_timer", ()))

    def isolate(self, node_id: int) -> Note:
        """Cut ``node_id`` off from every other controller (messages in flight are lost); a
        controller already cut off stays so (nothing happens).  Says what it did."""
        self._check_open()
        self._controller(node_id)
        if self._driver.network.is_isolated(node_id):
            return Note(f"Controller {node_id} is already isolated: nothing changed")
        self._check_can_step()
        self._control(("isolate", node_id))
        return Note(self._lines[self._marks[-2]].split("  ", 1)[-1])

    def heal(self) -> Note:
        """Remove every network partition (nothing happens if there is none).  Says what it
        did."""
        self._check_open()
        if not self.isolated:
            return Note("The network is not partitioned: nothing to heal")
        self._check_can_step()
        self._control(("heal",))
        return Note(self._lines[self._marks[-2]].split("  ", 1)[-1])

    def append(self, record: str | int = "x", node_id: int | None = None) -> int:
        """Hand ``record`` to the leader (or to ``node_id``, which must be a leader); returns
        the offset it will have.  It is committed once a majority has fetched it."""
        self._check_can_step()
        if not isinstance(record, (str, int)) or isinstance(record, bool):
            raise QuorumStepperError(f"A record here is a string or a whole number, got "
                                     f"{record!r}")
        target = self.leader() if node_id is None else self._controller(node_id)
        if target is None or self.state()[target]["role"] != "Leader":
            who = "No controller is the leader" if target is None else \
                f"Controller {target} is not a leader"
            raise QuorumStepperError(f"{who}: Append failed because the replica is not the "
                                     f"current leader")
        return self._control(("call", target, "append", (record,)))

    def close(self) -> None:
        """Release the quorum; the stepper cannot be used afterwards.  Its views freeze:
        they keep their last picture, buttons disabled."""
        if self._closed:
            return
        self._closed = True
        self._changed()                  # a view sees `closed` and freezes
        self._listeners.clear()
        self._driver = None
        self._quorum = None
        self._lines = []

    # ------------------------------------------------------------------ subscribers
    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` after every control (and once more on ``close()``, with
        `closed` True); returns an unsubscribe function."""
        self._check_open()
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # ------------------------------------------------------------------ readings (SteppedQuorum)
    @property
    def closed(self) -> bool:
        return self._closed

    def state(self) -> dict[int, dict[str, Any]]:
        """Every controller as plain data: role, epoch, voted_for, leader, log_end_offset,
        high_watermark (Kafka's names; None where there is none)."""
        self._check_open()
        return self._quorum.rows()

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
        return self._quorum.elapsed(self._driver.now())

    @property
    def isolated(self) -> tuple[int, ...]:
        self._check_open()
        return self._quorum.isolated()

    def leader(self) -> int | None:
        """The leader of the highest epoch, if any controller is leader."""
        self._check_open()
        return self._quorum.leader()

    def timers(self) -> dict[int, dict[str, int]]:
        """Each controller's raft deadlines by name, in virtual ms since the start."""
        self._check_open()
        return self._quorum.timers()

    def queue(self) -> list[dict[str, Any]]:
        """What happens next, in order: messages in flight and timers, as plain data."""
        self._check_open()
        return self._quorum.queue()

    def log(self, node_id: int) -> list[dict[str, Any]]:
        """The ``__cluster_metadata`` log of ``node_id``: offset, epoch, record, committed."""
        self._check_open()
        return self._quorum.log(self._controller(node_id))

    def state_diagram(self, node_id: int) -> str:
        """The epoch-state diagram as Graphviz DOT, ``node_id``'s current state filled.  It is
        drawn from the transition table the raft code checks every transition against
        (`quorum_state_diagram`), so it shows exactly the moves the controllers can make."""
        self._check_open()
        return transition_dot(current=self.state()[self._controller(node_id)]["role"])

    def check_invariants(self) -> list[str]:
        """Raft's safety properties over the controllers as they are now (one leader per
        epoch, log matching, committed batches agree, a leader holds every committed batch,
        one vote per epoch): the violations found, as lines (empty: all hold).  The checker
        is `RaftInvariantChecker`, the one the raft tests run after every step."""
        self._check_open()
        return RaftInvariantChecker.audit({n: self._quorum.node(n) for n in self.node_ids})

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


__all__ = ["QuorumStepper", "QuorumStepperError", "Note", "FIRST_CONTROLLER_ID", "MAX_CONTROLLERS"]
