"""Lesson 06's harness: the plumbing behind "Scaling and operating a cluster".

A learner need not read this module.  The lesson's cells call the Kafka
verbs themselves (``kafka-reassign-partitions.sh``,
``cluster.reassign_partitions``, ``cluster.elect_leaders``,
``cluster.decommission_broker``, the brokers' metrics...); what is here is
the machinery around them:

* `timed_move`: the same reassignment (a replica of ``events-0`` added on
  the new broker) run under a given throttle while a producer thread
  (`timed_writes`) times every acknowledgement; it returns how long the move
  took and the write latencies meanwhile, then undoes the move;
* `drain_plan`: the reassignment plan that empties a broker, each of its
  replicas replaced by a broker that does not hold the partition yet;
* `replicas_on`: the partitions whose replica list names a broker;
* `share_in_words`: a measured share (0.5) as one of the choices a
  prediction offers ("about half");
* checks for the lesson's tasks, each returning an
  `minikafka.course.task.Outcome` read from the cluster:
  `replicated_onto`, `decommissioned`, `led_by_preferred`, `leads_none`.

Everything takes the cluster as an argument; nothing here is a Kafka
concept of its own.
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

from minikafka.course.task import Outcome

__all__ = ["SHARES", "decommissioned", "drain_plan", "leads_none", "led_by_preferred", "replicas_on",
           "replicated_onto", "share_in_words", "timed_move", "timed_writes"]


# ---------------------------------------------------------------------- the throttle experiment
def timed_writes(cluster: Any, stop: threading.Event, latencies: list[float],
                 topic: str = "traffic") -> None:
    """Write 1 KB records to ``topic`` with acks=all until ``stop`` is set; append each
    acknowledgement's latency in ms to ``latencies``."""
    from kafka import KafkaProducer
    writer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all", linger_ms=0)
    try:
        while not stop.is_set():
            started = time.monotonic()
            writer.send(topic, value=bytes(1000)).get(timeout=30)
            latencies.append((time.monotonic() - started) * 1000)
    finally:
        writer.close()


def timed_move(cluster: Any, broker: int, throttle: int | None, topic: str = "events",
               partition: int = 0) -> tuple[float, float, float]:
    """Add a replica of ``topic-partition`` on ``broker`` with the given throttle (bytes/s, None
    for none) while a producer writes; return (seconds until the new replica is in sync, median
    and 95th percentile of the write latencies in ms from the move's start until 0.5 s after its
    end).  The move is undone afterwards, and its throttle cleared, for the next run."""
    original = cluster.replicas(topic, partition)
    stop, latencies = threading.Event(), []
    thread = threading.Thread(target=timed_writes, args=(cluster, stop, latencies), daemon=True)
    thread.start()
    time.sleep(0.5)
    first = len(latencies)
    begin = time.monotonic()
    cluster.reassign_partitions({(topic, partition): original + [broker]}, throttle_bytes_per_sec=throttle)
    cluster.wait_until(lambda: broker in cluster.isr(topic, partition) and not cluster.list_reassignments(),
                       timeout_ms=60_000)
    seconds = time.monotonic() - begin
    time.sleep(0.5)
    stop.set()
    thread.join()
    cluster.clear_reassignment_throttles()
    cluster.reassign_partitions({(topic, partition): original})
    cluster.wait_until(lambda: cluster.replicas(topic, partition) == original, timeout_ms=30_000)
    during = latencies[first:]
    return seconds, statistics.median(during), statistics.quantiles(during, n=20)[-1]


# ---------------------------------------------------------------------- draining a broker
def replicas_on(cluster: Any, broker: int) -> list[tuple[str, int]]:
    """(topic, partition) of every partition, internal topics included, whose replica list
    names ``broker`` (what ``kafka-topics.sh --describe`` shows under Replicas)."""
    return [(t.name, p.partition) for t in cluster.snapshot().topics for p in t.partitions
            if broker in p.replicas]


def drain_plan(cluster: Any, broker: int) -> dict[tuple[str, int], list[int]]:
    """{(topic, partition): new replicas} that moves every replica off ``broker``: in each list
    the broker is replaced, at the same place, by the first broker that holds no replica of
    that partition yet."""
    plan = {}
    for topic, partition in replicas_on(cluster, broker):
        replicas = cluster.replicas(topic, partition)
        spare = next((b for b in cluster.broker_ids if b != broker and b not in replicas), None)
        if spare is None:
            raise ValueError(f"no broker is free to take {topic}-{partition}'s replica from broker {broker}")
        plan[(topic, partition)] = [spare if r == broker else r for r in replicas]
    return plan


# ---------------------------------------------------------------------- predictions
SHARES = {"about a tenth": 0.1, "about a quarter": 0.25, "about half": 0.5,
          "about three quarters": 0.75, "nearly all": 1.0}


def share_in_words(share: float) -> str:
    """The choice of `SHARES` nearest to ``share`` (0.48 -> "about half")."""
    return min(SHARES, key=lambda words: abs(SHARES[words] - share))


# ---------------------------------------------------------------------- checks for the tasks
def _target(partition: Any) -> list[int]:
    """A partition's replicas once its reassignment (if any) is done."""
    return [b for b in partition.replicas if b not in partition.removing_replicas]


def replicated_onto(cluster: Any, topic: str, broker: int, replication_factor: int) -> Outcome:
    """Check: every partition of ``topic`` has (or is moving to) ``replication_factor`` replicas,
    one of them on ``broker``."""
    partitions = cluster.snapshot().topic(topic).partitions
    short = [f"{topic}-{p.partition} has {len(_target(p))}" for p in partitions
             if len(_target(p)) != replication_factor]
    if short:
        return Outcome(False, f"{', '.join(short)} replica(s), not {replication_factor}")
    missing = [f"{topic}-{p.partition}" for p in partitions if broker not in _target(p)]
    if missing:
        return Outcome(False, f"broker {broker} holds no replica of {', '.join(missing)}")
    return Outcome(True, f"every partition of {topic} has {replication_factor} replicas, one on broker {broker}")


def decommissioned(cluster: Any, broker: int) -> Outcome:
    """Check: ``broker`` is gone from the cluster and no partition lists it any more."""
    listed = replicas_on(cluster, broker)
    if listed:
        shown = ", ".join(f"{t}-{p}" for t, p in listed[:6])
        return Outcome(False, f"{shown}{' ...' if len(listed) > 6 else ''} still list broker {broker}")
    if broker in cluster.broker_ids:
        return Outcome(False, f"broker {broker} holds no replica, but it is still part of the cluster")
    return Outcome(True, f"broker {broker} is gone; the brokers are {', '.join(map(str, cluster.broker_ids))}")


def led_by_preferred(cluster: Any, topics: Any = None, wait_ms: int = 5_000) -> Outcome:
    """Check: every partition of ``topics`` (default: every topic, internal ones included) is led
    by its preferred replica, the first in its list.  Waits up to ``wait_ms`` for the brokers to
    see an election the controller has just made."""
    def others() -> list[str]:
        return [f"{t.name}-{p.partition}" for t in cluster.snapshot().topics
                if topics is None or t.name in topics for p in t.partitions
                if p.replicas and p.leader != p.replicas[0]]
    cluster.wait_until(lambda: not others(), timeout_ms=wait_ms)
    left = others()
    if left:
        return Outcome(False, f"{len(left)} partition(s) not led by their preferred replica, e.g. "
                              f"{', '.join(left[:4])}")
    return Outcome(True, "every partition is led by its preferred replica")


def leads_none(cluster: Any, topic: str, broker: int) -> Outcome:
    """Check: ``broker`` leads no partition of ``topic``."""
    led = [p.partition for p in cluster.snapshot().topic(topic).partitions if p.leader == broker]
    if led:
        return Outcome(False, f"broker {broker} leads {len(led)} partition(s) of {topic}")
    return Outcome(True, f"broker {broker} leads no partition of {topic}")
