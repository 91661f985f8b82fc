"""Lesson 05's harness: the plumbing behind "Clients: bootstrap, metadata, leaders and consumer groups".

A learner need not read this module.  The lesson's cells call the Kafka
verbs themselves (a client's ``send``, ``poll`` and ``commit``,
``cluster.set_advertised_listener``, ``cluster.create_partitions``...); what
is here is the machinery around them that would otherwise fill its cells:

* `Member`: one consumer of a group polling in its own thread, as an
  application runs it (a ``KafkaConsumer`` is used by one thread only);
  `group_steps` and `settled` read the coordinator's events to wait until a
  group is Stable with every member holding its partitions;
* `write_each_partition`: a producer with a short ``delivery.timeout.ms``
  that writes one record to each partition and says which writes got
  through (section 3's wrong ``advertised.listeners``);
  `describe_cluster` asks ``DescribeCluster`` again when the client happened
  to pick the unreachable broker; `unreachable_listener` finds a port where
  nothing listens;
* `read_until_idle`, `end_offsets`, `group_rows`: small readers of a
  consumer, of the leaders' high watermarks, and of
  ``kafka-consumer-groups.sh --describe``;
* `rebalance_once`, `unowned_windows` (with `OwnershipLog` and
  `ProtocolMember`, from `minikafka.drills.group_protocol_drills`, which the
  ``fourth-member-joins`` drill shares): the "Going deeper" comparison of
  the two group protocols;
* `partition_for`: Kafka's ``GroupCoordinatorService.partitionFor``, the
  ``__consumer_offsets`` partition (hence the coordinator) of a group id;
* checks for the lesson's tasks, each returning an
  `minikafka.course.task.Outcome` read from the cluster:
  `advertises_own_listener`, `group_caught_up`.

Everything takes the cluster as an argument; nothing here is a Kafka
concept of its own.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Iterable

from minikafka.common.java_hashing import string_hash_code, utils_abs
from minikafka.course.task import Outcome
from minikafka.drills.group_protocol_drills import (OwnershipLog, ProtocolMember, rebalance_once,
                                                    unowned_windows)

__all__ = ["Member", "OwnershipLog", "ProtocolMember", "advertises_own_listener", "describe_cluster", "end_offsets", "group_caught_up",
           "group_rows", "group_steps", "java_string_hash", "partition_for", "read_until_idle",
           "rebalance_once", "settled", "unowned_windows", "unreachable_listener", "write_each_partition"]


# ---------------------------------------------------------------------- consumer groups
class Member:
    """One consumer of ``group`` on ``topic``, polling in its own thread as an application would.

    ``read`` counts the records it received, ``partitions`` is its current assignment
    (a tuple of partition numbers); it commits after each batch it processed.
    ``leave()`` stops the loop and closes the consumer, which sends ``LeaveGroup``.
    """

    def __init__(self, cluster: Any, name: str, group: str = "billing", topic: str = "orders"):
        from kafka import KafkaConsumer
        self.name, self.group, self.read = name, group, 0
        self.partitions: tuple[int, ...] = ()
        self._stop = threading.Event()
        self._consumer = KafkaConsumer(topic, bootstrap_servers=cluster.bootstrap_servers,
                                       group_id=group, client_id=name,
                                       auto_offset_reset="earliest", enable_auto_commit=False)
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            batch = self._consumer.poll(timeout_ms=1000)
            self.read += sum(len(records) for records in batch.values())
            if batch:
                self._consumer.commit()                 # commit what was processed
            self.partitions = tuple(sorted(tp.partition for tp in self._consumer.assignment()))
        self._consumer.close()                          # sends LeaveGroup

    def leave(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def __repr__(self) -> str:
        return f"Member({self.name!r}, partitions={list(self.partitions)}, read={self.read})"


def group_steps(cluster: Any, group: str = "billing", since: int = 0) -> list:
    """The coordinator's events for ``group`` (rebalances, completed joins, Stable)."""
    return [e for e in cluster.events.since(since, {"group_rebalance", "group_join_completed",
                                                    "group_stable"})
            if e.data.get("group") == group]


def settled(cluster: Any, members: list[Member], group: str = "billing", partitions: int = 3,
            timeout_s: float = 30) -> bool:
    """Wait until the coordinator says the group is Stable with exactly these members, and
    every partition is held by one of them (as many busy members as there can be)."""
    def done() -> bool:
        steps = group_steps(cluster, group)
        joins = [e for e in steps if e.kind == "group_join_completed"]
        owned = sorted(p for m in members for p in m.partitions)
        return bool(steps and steps[-1].kind == "group_stable" and joins
                    and len(joins[-1].data["members"]) == len(members)
                    and owned == list(range(partitions))
                    and sum(1 for m in members if m.partitions) == min(len(members), partitions))
    return cluster.wait_until(done, timeout_ms=int(timeout_s * 1000))


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (a signed 32-bit number)."""
    return string_hash_code(text)


def partition_for(group_id: str, partitions: int = 50) -> int:
    """Kafka's group coordinator: ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``.
    The leader of ``__consumer_offsets-<this>`` coordinates the group."""
    return utils_abs(string_hash_code(group_id)) % partitions


def group_rows(tool_output: str, group: str = "billing") -> list[tuple[int, str, str, str]]:
    """(partition, CURRENT-OFFSET, LOG-END-OFFSET, LAG) of each row of
    ``kafka-consumer-groups.sh --describe --group <group>``, by partition."""
    rows = [line.split() for line in tool_output.splitlines() if line.startswith(group + " ")]
    return sorted((int(r[2]), r[3], r[4], r[5]) for r in rows)


def group_caught_up(cluster: Any, group: str, topic: str = "orders") -> Outcome:
    """Check: ``group`` has a committed offset on every partition of ``topic``, each at the
    partition's end (its LAG is 0), as ``OffsetFetch`` and ``ListOffsets`` answer."""
    from minikafka.drills.consumer_group_drills import group_offsets
    from kafka.errors import KafkaError
    partitions = len(cluster.snapshot().topic(topic).partitions)
    for attempt in range(10):          # a coordinator that has just moved answers "not available"
        try:
            found = group_offsets(cluster.bootstrap_servers, group, topic, partitions)
            break
        except KafkaError:
            if attempt == 9:
                raise
            time.sleep(0.5)
    missing = [p for p, (committed, _end) in found.items() if committed is None]
    if len(missing) == partitions:
        return Outcome(False, f"group {group} has committed no offset on {topic}")
    if missing:
        return Outcome(False, f"group {group} has no committed offset on {topic} partition(s) "
                              f"{', '.join(map(str, missing))}")
    lags = {p: end - committed for p, (committed, end) in found.items()}
    if any(lags.values()):
        shown = ", ".join(f"{topic}-{p}: {lag}" for p, lag in sorted(lags.items()))
        return Outcome(False, f"group {group} still lags behind: {shown}")
    return Outcome(True, f"group {group} has committed the end of every partition of {topic} (LAG 0)")


# ---------------------------------------------------------------------- reading
def read_until_idle(consumer: Any, idle_ms: int = 1500) -> list:
    """Every record ``consumer.poll`` returns until it has returned nothing for ``idle_ms``."""
    records, idle = [], 0
    while idle < idle_ms:
        batch = consumer.poll(timeout_ms=250)
        got = [r for part in batch.values() for r in part]
        records += got
        idle = 0 if got else idle + 250
    return records


def end_offsets(cluster: Any, topic: str = "orders") -> dict[int, int]:
    """Each partition's high watermark, as its leader reports it."""
    return {p.partition: next(r.high_watermark for r in p.replica_states if r.is_leader)
            for p in cluster.snapshot().topic(topic).partitions}


# ---------------------------------------------------------------------- advertised.listeners
def unreachable_listener(host: str = "127.0.0.1") -> str:
    """``PLAINTEXT://host:port`` for a free port of this machine: nothing listens there."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return f"PLAINTEXT://{host}:{probe.getsockname()[1]}"


def write_each_partition(cluster: Any, bootstrap: Any, topic: str = "orders",
                         partitions: Iterable[int] = range(3), show: bool = True) -> dict[int, Any]:
    """Write one record to each partition with a new producer bootstrapped from ``bootstrap``;
    {partition: offset, or the client's error}.  A short ``delivery.timeout.ms`` (the default is
    2 minutes) makes a write that cannot be delivered fail within seconds.  With ``show``, one
    line per partition, naming its leader."""
    from kafka import KafkaProducer
    from kafka.errors import KafkaError
    client = KafkaProducer(bootstrap_servers=bootstrap, client_id="advertised-test",
                           request_timeout_ms=2000, delivery_timeout_ms=4000)
    results: dict[int, Any] = {}
    try:
        for partition in partitions:
            try:
                results[partition] = client.send(topic, value=b"probe",
                                                 partition=partition).get(timeout=10).offset
            except KafkaError as error:
                results[partition] = error
            if show:
                outcome = results[partition]
                said = f"ok, offset {outcome}" if isinstance(outcome, int) else str(outcome)
                print(f"  {topic}-{partition} (leader {cluster.leader(topic, partition)}): {said}")
    finally:
        client.close(timeout=1)
    return results


def describe_cluster(bootstrap: Any, attempts: int = 10) -> dict | None:
    """``DescribeCluster`` through a new admin client.  The client sends it to a broker of its
    choosing; when that is a broker it cannot reach, ask again (up to ``attempts`` times)."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError
    for _ in range(attempts):
        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        try:
            return admin.describe_cluster()
        except KafkaError:
            continue
        finally:
            admin.close()
    return None


def _registered_endpoint(cluster: Any, broker: int) -> tuple[str, int] | None:
    """The (host, port) broker ``broker`` registered with the controller last, from the
    metadata log's RegisterBrokerRecords (what every broker's Metadata answers carry)."""
    found = None
    for entry in cluster.metadata_records():
        record = entry.record
        if type(record).__name__ == "RegisterBrokerRecord" and record.broker_id == broker:
            found = next(((e.host, e.port) for e in record.end_points), None)
    return found


def _configured_advertised(cluster: Any, broker: int) -> str | None:
    path = cluster.data_dir / "config" / f"broker-{broker}.properties"
    for line in path.read_text().splitlines():
        if line.startswith("advertised.listeners="):
            return line.split("=", 1)[1]
    return None


def advertises_own_listener(cluster: Any, broker: int, wait_ms: int = 15_000) -> Outcome:
    """Check: ``broker`` is running, unfenced, and registered advertising the address it
    listens on (so clients that learn it from the metadata can connect).  A broker that has
    just been restarted registers again within seconds: the check waits up to ``wait_ms``."""
    node = cluster.snapshot().node(broker)
    configured = _configured_advertised(cluster, broker)
    own = f"PLAINTEXT://{node.host}:{node.port}"
    if configured is not None and configured != own:
        return Outcome(False, f"broker-{broker}.properties still has advertised.listeners={configured}, "
                              f"but the broker listens on {own}")
    if node.process != "running":
        return Outcome(False, f"the setting is fixed, but broker {broker} is {node.process}: start it")
    if not cluster.wait_until(lambda: cluster.snapshot().node(broker).registration == "unfenced",
                              timeout_ms=wait_ms):
        state = cluster.snapshot().node(broker).registration
        return Outcome(False, f"broker {broker} is {state}: it has not registered with the controller again")
    registered = _registered_endpoint(cluster, broker)
    if registered != (node.host, node.port):
        where = "nothing" if registered is None else f"{registered[0]}:{registered[1]}"
        return Outcome(False, f"the setting is fixed in the file, but broker {broker} is still registered "
                              f"at {where}: a broker reads server.properties only when it starts")
    return Outcome(True, f"broker {broker} advertises the address it listens on")
