"""Helpers for lesson 03 (replication and durability); a learner need not read this module.

Theory of operation
-------------------
Lesson 03 breaks replication on purpose and then looks at offsets, at what a
consumer reads and at what a producer was told.  The cells a learner reads
keep the Kafka verbs (``cut_link``, ``kill_broker``, ``producer.send``,
``elect_leaders``...); the plumbing around them lives here:

* `replica(cluster, broker, topic, partition)`: one replica's offsets (log
  end offset, high watermark) from the cluster's snapshot;
* `read_values(cluster, topic, partition)`: every record a fresh consumer
  gets from the beginning of a partition, decoded.  It reads up to the end
  offset the leader reports (the high watermark, for a ``read_uncommitted``
  consumer) instead of waiting for a quiet second, so it is quick;
* `caught_up(cluster, topic, partition)`: every in-sync replica holds the
  leader's whole log and knows the high watermark is at its end (a state to
  wait for before printing a table, never an answer);
* `send_outcome(producer, value, topic)`: send one record and say what the
  producer got back, in the words of `SEND_OUTCOMES` (the choices of the
  lesson's "what does the producer get?" predictions): accepted, a Kafka
  error name read from the exception's error code, or no answer before the
  client's own timeout;
* `bytes_by_broker` and `sizes_settled`: disk use per broker for the cost
  of replication;
* task checks, each an `Outcome` with one line saying what the cluster
  shows: `records_on` (the partition holds at least so many records),
  `below_min_isr` (acks=all writes would be refused, every broker running), and
  `truncated_records` (the value the event-log task asks for);
* `DrillClient`, the drills' small in-process producer and reader, for the
  "crash and power cut" section's simulated cluster (no port for a real
  client there); re-exported so the lesson imports only its harness.

Not a Kafka concept: the course's plumbing around Kafka's facts.
"""

from __future__ import annotations

import time
from typing import Any

from minikafka.course.task import Outcome
from minikafka.drills.drill_client import DrillClient

#: What a producer can get back from one send, as the lesson's predictions offer it.
ACCEPTED = "accepted: the producer gets an offset"
NO_ANSWER = "no answer before the client's own timeout"
SEND_OUTCOMES = (
    ACCEPTED,
    "NOT_ENOUGH_REPLICAS",
    "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
    "LEADER_NOT_AVAILABLE",
    "REQUEST_TIMED_OUT",
    NO_ANSWER,
)


# ---------------------------------------------------------------------- reading the cluster
def replica(cluster: Any, broker: int, topic: str = "payments", partition: int = 0):
    """What ``broker``'s copy of ``topic``-``partition`` looks like now (a ``ReplicaState``)."""
    states = cluster.snapshot().topic(topic).partitions[partition].replica_states
    return next(r for r in states if r.broker == broker)


def caught_up(cluster: Any, topic: str = "payments", partition: int = 0) -> bool:
    """Every in-sync replica holds the leader's whole log and knows that the high watermark is
    at its end (a state to wait for before printing a table; it says nothing about records
    that only some replicas hold)."""
    p = cluster.snapshot().topic(topic).partitions[partition]
    states = {r.broker: r for r in p.replica_states}
    if p.leader is None or p.leader not in states:
        return False
    end = states[p.leader].log_end_offset
    in_sync = [states.get(b) for b in p.isr]
    return end is not None and all(r is not None and r.log_end_offset == end and r.high_watermark == end
                                   for r in in_sync)


def read_values(cluster: Any, topic: str = "payments", partition: int = 0,
                timeout_ms: int = 10_000) -> list[str]:
    """Every record a consumer gets from ``topic``-``partition``, from the beginning, decoded."""
    from kafka import KafkaConsumer, TopicPartition

    tp = TopicPartition(topic, partition)
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, enable_auto_commit=False)
    try:
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        end = consumer.end_offsets([tp])[tp]       # the high watermark (read_uncommitted)
        values: list[str] = []
        deadline = time.monotonic() + timeout_ms / 1000
        while consumer.position(tp) < end and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=200).values():
                values += [record.value.decode() for record in records]
        return values
    finally:
        consumer.close()


# ---------------------------------------------------------------------- producing
def send_outcome(producer: Any, value: bytes, topic: str = "payments", timeout: float = 20) -> str:
    """Send one record and wait: one of `SEND_OUTCOMES`, or the Kafka error name the
    exception carries if it is none of them."""
    from kafka.errors import KafkaError, KafkaTimeoutError

    try:
        producer.send(topic, value=value).get(timeout=timeout)
        return ACCEPTED
    except KafkaTimeoutError:
        return NO_ANSWER
    except KafkaError as error:
        return kafka_error_name(error)


def kafka_error_name(error: Exception) -> str:
    """The Kafka name of a client exception's error code ("NOT_ENOUGH_REPLICAS"), else its class name."""
    from minikafka import Errors

    code = getattr(error, "errno", None)
    if isinstance(code, int) and code > 0:
        try:
            return Errors(code).name  # type: ignore[call-arg]  # a look-up by value
        except ValueError:
            pass
    return type(error).__name__


# ---------------------------------------------------------------------- the cost of replication
def bytes_by_broker(cluster: Any, topic: str) -> tuple[dict[int, int], int]:
    """Log bytes of ``topic`` per broker, and how many of them followers fetched."""
    on_disk, fetched = {b: 0 for b in cluster.broker_ids}, 0
    for partition in cluster.snapshot().topic(topic).partitions:
        for r in partition.replica_states:
            on_disk[r.broker] += r.size_bytes or 0
            fetched += 0 if r.is_leader else (r.size_bytes or 0)
    return on_disk, fetched


def sizes_settled(cluster: Any, topic: str) -> bool:
    """Every replica of every partition of ``topic`` holds the same number of bytes."""
    sizes = [{r.size_bytes for r in p.replica_states} for p in cluster.snapshot().topic(topic).partitions]
    return all(len(s) == 1 for s in sizes)


# ---------------------------------------------------------------------- task checks
def records_on(cluster: Any, topic: str, partition: int, at_least: int,
               wait_ms: int = 3_000) -> Outcome:
    """The partition's leader holds at least ``at_least`` records.  Waits (up to ``wait_ms``)
    only while some records have arrived and more may be on their way."""
    name = f"{topic}-{partition}"

    def held() -> int:
        leader = cluster.leader(topic, partition)
        return 0 if leader is None else (replica(cluster, leader, topic, partition).log_end_offset or 0)

    count = held()
    if 0 < count < at_least:
        cluster.wait_until(lambda: held() >= at_least, timeout_ms=wait_ms)
        count = held()
    if count < at_least:
        return Outcome(False, f"{name} holds {count} record(s), not {at_least} yet")
    return Outcome(True, f"{name} holds {count} records")


def below_min_isr(cluster: Any, topic: str, partition: int = 0) -> Outcome:
    """Every broker is running, and the partition's ISR is smaller than its min.insync.replicas:
    acks=all writes are refused."""
    snapshot = cluster.snapshot()
    stopped = [b for b in cluster.broker_ids if snapshot.node(b).process != "running"]
    if stopped:
        return Outcome(False, f"broker(s) {stopped} not running: the task is to do it with every broker "
                              f"running (restart_broker, resume_broker)")
    isr = cluster.isr(topic, partition)
    min_isr = int(snapshot.topic(topic).configs.get("min.insync.replicas", "1"))
    seen = f"ISR {isr}, min.insync.replicas {min_isr}"
    if len(isr) < min_isr:
        return Outcome(True, seen)
    return Outcome(False, f"{seen} (a follower leaves the ISR once it has been behind the leader's log "
                          f"end for replica.lag.time.max.ms; check again a few seconds later)")


def truncated_records(cluster: Any, partition_name: str) -> int | None:
    """How many records a replica of ``partition_name`` ("payments-0") cut from its log the
    first time it truncated, from the cluster's event log; None if it never did."""
    for event in cluster.events:
        if event.kind == "log_truncated" and event.data.get("partition") == partition_name:
            return event.data["old_log_end_offset"] - event.data["truncation_offset"]
    return None
