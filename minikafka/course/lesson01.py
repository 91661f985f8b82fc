"""Helpers for lesson 01's "your turn" checks; a learner need not read this module.

Theory of operation
-------------------
Lesson 01 asks the learner to kill the broker that leads a partition, either
in code or with the dashboard's Kill button, and later cells need to know
which broker that was.  Neither the task's check nor those cells may rely on
a value remembered before the kill (the button may have been pressed before
any cell ran), so both read it from the cluster:

* `killed_leader(cluster, topic, partition)`: the dead broker that led the
  partition when it died.  Right after a kill the partition's metadata still
  names the dead broker as leader (the controller has not fenced it yet);
  once the controller has reacted, its ``partition_changed`` event says
  which broker the leadership moved away from, after that broker's
  ``node_killed`` event;
* `leader_killed(...)`: the same as a task check, an `Outcome` with one line
  saying what the cluster shows;
* `dead_leader(...)`: what the cells after the check use.  The dashboard's
  Restart button may have brought the killed broker back after the check
  ran; then no dead broker led the partition, so it kills the partition's
  current leader (saying so in one line) and returns that broker, and the
  section goes on as written.

The murmur2 task compares the learner's ``my_partition`` with where a record
with that key really lands: `where_key_lands(producer, topic, key)` sends one
such record (once per producer, topic and key, however often the check runs)
and returns the partition the broker acknowledged.

Not a Kafka concept: the course's plumbing around Kafka's facts.
"""

from __future__ import annotations

from typing import Any

from minikafka.course.task import Outcome

_LANDED: dict[tuple[int, str, bytes], int] = {}


def _dead_brokers(cluster: Any) -> list[int]:
    snapshot = cluster.snapshot()
    return [b for b in cluster.broker_ids if snapshot.node(b).process == "dead"]


def killed_leader(cluster: Any, topic: str, partition: int) -> int | None:
    """The dead broker that led ``topic``-``partition`` when it was killed, or None."""
    dead = _dead_brokers(cluster)
    if not dead:
        return None
    leader = cluster.leader(topic, partition)
    if leader in dead:
        return leader                   # killed, not fenced yet: the metadata still names it
    last_kill = {}
    for event in cluster.events.since(0, {"node_killed"}):
        last_kill[event.node] = event.seq
    moved_from = None
    for event in cluster.events.since(0, {"partition_changed"}):
        data = event.data
        before = data.get("leader_before")
        if (data.get("topic") == topic and data.get("partition") == partition
                and before in dead and data.get("leader") != before
                and event.seq > last_kill.get(before, event.seq)):
            moved_from = before
    return moved_from


def leader_killed(cluster: Any, topic: str, partition: int) -> Outcome:
    """Task check: the broker that led the partition is dead."""
    victim = killed_leader(cluster, topic, partition)
    if victim is not None:
        return Outcome(True, f"broker {victim}, which led {topic}-{partition}, is dead")
    dead = _dead_brokers(cluster)
    leader = cluster.leader(topic, partition)
    if dead:
        names = (f"broker {dead[0]} is" if len(dead) == 1
                 else f"brokers {', '.join(map(str, dead))} are")
        return Outcome(False, f"{names} dead, but {topic}-{partition} is led by broker {leader}")
    return Outcome(False, f"every broker is running; {topic}-{partition} is led by a live broker")


def dead_leader(cluster: Any, topic: str, partition: int) -> int:
    """The dead broker that led the partition; if there is none (a Restart press brought it
    back), kill the partition's leader now, say so, and return it."""
    victim = killed_leader(cluster, topic, partition)
    if victim is not None:
        return victim
    leader = cluster.leader(topic, partition)
    print(f"No dead broker led {topic}-{partition} (a Restart press?): killing its leader, "
          f"broker {leader}, once more")
    cluster.kill_broker(leader)
    return leader


def where_key_lands(producer: Any, topic: str, key: bytes) -> int:
    """The partition a record with ``key`` lands in, as the broker acknowledged it.

    Sends one record (its value says it came from a task's check) the first
    time it is asked for a producer, topic and key; later calls return the
    same partition without sending again.
    """
    memo = (id(producer), topic, key)
    if memo not in _LANDED:
        value = b"sent by the check of the my_partition task"
        _LANDED[memo] = producer.send(topic, key=key, value=value).get(timeout=10).partition
    return _LANDED[memo]
