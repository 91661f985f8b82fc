"""Lesson 04's harness: the plumbing behind lessons/04_kraft_controller_quorum.ipynb.

A learner need not read this module.  It keeps threads, timing and
bookkeeping out of the lesson's cells, so that those cells show the Kafka
verbs (``sim.shutdown``, ``live.kill_controller``, ``stepper.isolate``) and
the facts the cluster reports:

* `leaderless_ms(cluster, stop)`: stop a partition's leader with ``stop``
  (``cluster.shutdown`` or ``cluster.kill``), print what the controller did,
  restart the broker and return how long the partition had no running
  leader, read from the cluster's events;
* `BackgroundProducer`: a kafka-python producer sending to a topic on a
  thread of its own, noting the cluster's time of every acknowledgement, so
  a lesson can count the acknowledgements between two events;
* checks for the lesson's tasks (`controller_killed`, `has_leader`,
  `one_follower_isolated`, `stepper_leader_is`), each returning an
  `Outcome` that says what the cluster or the stepper shows;
* small readings for the reveals: `closest_choice` (a measured time as the
  prediction's choice nearest to it), `first_registration_answer` (the
  controller's answer to a restarted broker's first registration, from the
  events) and `record_committed` (whether any controller of a quorum
  stepper holds a record committed).

Not a Kafka concept: every fact these return comes from the cluster.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Iterable, Mapping

from minikafka.course.task import Outcome

ACCEPTED = "NONE (registered at once)"
REGISTRATION_ANSWERS = (ACCEPTED, "DUPLICATE_BROKER_REGISTRATION", "STALE_BROKER_EPOCH",
                        "INCONSISTENT_CLUSTER_ID")
LEADERLESS_EVENTS = ("node_killed", "node_stopped", "broker_shutdown", "broker_fenced")


# --------------------------------------------------------------------- section 2: stopping a leader

def leaderless_ms(cluster: Any, stop: Callable[[int], None], topic: str = "orders",
                  partition: int = 0, timeout_ms: int = 10_000) -> int:
    """Stop the leader of ``topic-partition`` with ``stop`` (e.g. ``cluster.shutdown`` or
    ``cluster.kill``); print the events that tell the story; restart the broker and wait
    until it is back in every ISR of the topic; return how many ms the partition had no
    running leader (0 if its leadership moved before the broker went down)."""
    victim = cluster.leader(topic, partition)
    stopped_at, seq = cluster.driver.now(), cluster.events.last_seq
    stop(victim)
    cluster.wait_until(lambda: cluster.leader(topic, partition) != victim, timeout_ms=timeout_ms)
    events = cluster.events.since(seq)
    down = next(e.time_ms for e in events if e.kind in ("node_killed", "node_stopped"))
    moved = next(e.time_ms for e in events if e.kind == "partition_changed"
                 and e.data["topic"] == topic and e.data["partition"] == partition
                 and e.data["leader_before"] == victim)
    for event in events:
        if event.kind in LEADERLESS_EVENTS or (
                event.kind == "partition_changed" and event.data["topic"] == topic
                and event.data["partition"] == partition):
            print(f"  +{event.time_ms - stopped_at:>4} ms  {event.text}")
    cluster.restart(victim)
    partitions = range(len(cluster.snapshot().topic(topic).partitions))
    cluster.wait_until(lambda: all(victim in cluster.isr(topic, p) for p in partitions),
                       timeout_ms=timeout_ms)
    return max(0, moved - down)


def closest_choice(value_ms: int | None, choices: Mapping[str, int],
                   otherwise: str | None = None) -> str | None:
    """The label of ``choices`` (label -> ms) nearest to ``value_ms``; ``otherwise`` when
    nothing was measured (``value_ms`` is None)."""
    if value_ms is None:
        return otherwise
    return min(choices, key=lambda label: abs(choices[label] - value_ms))


# --------------------------------------------------------------------- section 3: a producer meanwhile

class BackgroundProducer:
    """Sends a record to ``topic`` every ``interval_s`` on a thread of its own, and notes
    the cluster's clock (``cluster.driver.now()``, the clock its events carry) at every
    acknowledgement.  It stops by itself after ``limit_s``."""

    def __init__(self, cluster: Any, producer: Any, topic: str, interval_s: float = 0.005,
                 limit_s: float = 1800.0):
        self.cluster = cluster
        self.producer = producer
        self.topic = topic
        self.interval_s = interval_s
        self.limit_s = limit_s
        self.acknowledged: list[int] = []   # the cluster's time (ms) of each acknowledgement
        self.sent = 0
        self._running = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, first_ack_timeout_s: float = 10.0) -> "BackgroundProducer":
        """Start sending; return once the first acknowledgement has arrived (or the timeout)."""
        if self._thread is not None:
            raise RuntimeError("this producer is already writing")
        self._running.set()
        self._thread = threading.Thread(target=self._write, name="lesson04-producer",
                                        daemon=True)
        self._thread.start()
        deadline = time.monotonic() + first_ack_timeout_s
        while not self.acknowledged and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def _write(self) -> None:
        ends = time.monotonic() + self.limit_s
        while self._running.is_set() and time.monotonic() < ends:
            future = self.producer.send(self.topic, key=str(self.sent).encode(), value=b"order")
            future.add_callback(self._acknowledged)
            self.sent += 1
            time.sleep(self.interval_s)

    def _acknowledged(self, _metadata: Any) -> None:
        self.acknowledged.append(self.cluster.driver.now())

    def stop(self) -> None:
        """Stop sending and wait for the records in flight."""
        self._running.clear()
        if self._thread is not None:
            self._thread.join()
        self.producer.flush()

    def acknowledged_between(self, start_ms: int, end_ms: int) -> int:
        """How many acknowledgements arrived from ``start_ms`` to ``end_ms`` (cluster time)."""
        return sum(start_ms <= t <= end_ms for t in list(self.acknowledged))


def controller_killed(cluster: Any, was_active: int) -> Outcome:
    """The check of "kill the active controller": ``was_active`` (the controller that was
    active when the task was set) is dead."""
    snapshot = cluster.snapshot()
    if snapshot.node(was_active).process == "dead":
        return Outcome(True, "the controller that was active is dead")
    dead = [n.node_id for n in snapshot.controllers if n.process == "dead"]
    if dead:
        return Outcome(False, f"controller {', '.join(map(str, dead))} is dead, but it was not "
                              f"the active one, which is still running")
    return Outcome(False, "every controller is still running")


# --------------------------------------------------------------------- section 6: a quick restart

def first_registration_answer(events: Iterable[Any], broker: int) -> str | None:
    """The controller's answer to ``broker``'s first BrokerRegistration in ``events``: the
    error of a refusal, or `ACCEPTED` if it was registered without one; None if neither."""
    for event in events:
        if event.data.get("broker") != broker:
            continue
        if event.kind == "broker_registration_refused":
            return event.data["error"]
        if event.kind == "broker_registered":
            return ACCEPTED
    return None


# --------------------------------------------------------------------- section 7: the quorum stepper

def has_leader(stepper: Any) -> Outcome:
    """Some controller of the stepper has won an election."""
    leader = stepper.leader()
    if leader is None:
        return Outcome(False, f"no controller leads yet ({stepper.events} events so far)")
    return Outcome(True, f"controller {leader} leads epoch {stepper.state()[leader]['epoch']}")


def one_follower_isolated(stepper: Any) -> Outcome:
    """Exactly one controller is cut off, and it is not the leader."""
    isolated, leader = stepper.isolated, stepper.leader()
    if not isolated:
        return Outcome(False, "every controller can still reach the others")
    if len(isolated) > 1:
        return Outcome(False, f"controllers {', '.join(map(str, isolated))} are cut off; heal() "
                              f"and cut off only one")
    if isolated[0] == leader:
        return Outcome(False, f"controller {leader} is cut off, but it is the leader; heal() and "
                              f"cut off a follower")
    return Outcome(True, f"follower {isolated[0]} is cut off")


def stepper_leader_is(stepper: Any, node_id: int) -> Outcome:
    """Controller ``node_id`` leads the stepper's quorum."""
    leader = stepper.leader()
    if leader is None:
        return Outcome(False, "no controller leads yet")
    if leader != node_id:
        return Outcome(False, f"controller {leader} won; the one whose timer runs out first asks "
                              f"for votes first")
    return Outcome(True, f"controller {node_id} leads epoch {stepper.state()[leader]['epoch']}")


def record_committed(stepper: Any, offset: int, epoch: int) -> bool:
    """Whether any controller holds the record written at ``offset`` in ``epoch`` committed
    (below its high watermark)."""
    return any(entry["offset"] == offset and entry["epoch"] == epoch and entry["committed"]
               for node_id in stepper.node_ids for entry in stepper.log(node_id))
