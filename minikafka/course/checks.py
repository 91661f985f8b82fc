"""Ready-made checks for "your turn" tasks: each looks at the cluster, never at the learner's code.

Theory of operation
-------------------
A task's check is a function of no arguments; a lesson usually builds one
from these with ``lambda``::

    Task("Create the topic payments with 6 partitions on every broker",
         check=lambda: checks.topic_has(cluster, "payments", partitions=6, replication_factor=3))

Each returns an `Outcome`: ``done`` and one line saying what the cluster
shows ("payments has 3 partitions, not 6"), so the learner learns what is
missing, not only that something is.  They read the cluster through its
public verbs and `ClusterSnapshot`, as a learner could.

Not a Kafka concept; the facts they read are Kafka's.
"""

from __future__ import annotations

from typing import Any, Iterable

from minikafka.course.task import Outcome


def topic_has(cluster: Any, name: str, *, partitions: int | None = None,
              replication_factor: int | None = None,
              config: dict[str, str] | None = None) -> Outcome:
    """The topic exists, with this many partitions, replicas per partition and these configs."""
    topic = cluster.snapshot().topic(name) if name in cluster.topics() else None
    if topic is None:
        return Outcome(False, f"there is no topic {name!r} yet")
    count = len(topic.partitions)
    if partitions is not None and count != partitions:
        return Outcome(False, f"{name} has {count} partitions, not {partitions}")
    if replication_factor is not None:
        factors = sorted({len(p.replicas) for p in topic.partitions})
        if factors != [replication_factor]:
            shown = ", ".join(map(str, factors))
            return Outcome(False, f"{name}'s partitions have {shown} replica(s), not "
                                  f"{replication_factor}")
    for key, value in (config or {}).items():
        actual = topic.configs.get(key)
        if actual != str(value):
            return Outcome(False, f"{name} has {key}={actual if actual is not None else '(default)'}"
                                  f", not {value}")
    asked = []
    if partitions is not None:
        asked.append(f"{count} partition{'s' if count != 1 else ''}")
    if replication_factor is not None:
        asked.append(f"{replication_factor} replica{'s' if replication_factor != 1 else ''} each")
    asked += [f"{key}={value}" for key, value in (config or {}).items()]
    return Outcome(True, f"{name}: {', '.join(asked)}" if asked else f"{name} exists")


def broker_process(cluster: Any, broker: int, state: str) -> Outcome:
    """Broker ``broker``'s process is in ``state`` ("dead", "running", "paused"...)."""
    node = cluster.snapshot().node(broker)
    if node.process != state:
        return Outcome(False, f"broker {broker} is {node.process}, not {state}")
    return Outcome(True, f"broker {broker} is {state}")


def leader_not(cluster: Any, topic: str, partition: int, brokers: Iterable[int]) -> Outcome:
    """The partition has a leader, and it is none of ``brokers``."""
    brokers = set(brokers)
    leader = cluster.leader(topic, partition)
    if leader is None:
        return Outcome(False, f"{topic}-{partition} has no leader right now")
    if leader in brokers:
        return Outcome(False, f"{topic}-{partition} is still led by broker {leader}")
    return Outcome(True, f"{topic}-{partition} is led by broker {leader}")


def leader_is(cluster: Any, topic: str, partition: int, broker: int) -> Outcome:
    """Broker ``broker`` leads the partition."""
    leader = cluster.leader(topic, partition)
    if leader != broker:
        return Outcome(False, f"{topic}-{partition} is led by "
                              f"{'no broker' if leader is None else f'broker {leader}'}, not {broker}")
    return Outcome(True, f"broker {broker} leads {topic}-{partition}")


def holds(value: Any, expected: Any, what: str) -> Outcome:
    """A value the learner computed (a variable of theirs) equals what the cluster says."""
    if value is ... or value is None and expected is not None:
        return Outcome(False, f"{what} is not set yet")
    if value != expected:
        return Outcome(False, f"{what} is {value!r}, which is not what the cluster says")
    return Outcome(True, f"{what} is {value!r}")
