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
* `OwnershipLog`, `ProtocolMember`, `unowned_windows`, `rebalance_once`: the
  "Going deeper" comparison of the two group protocols.  Each member is a
  real client (kafka-python with the classic protocol, confluent-kafka with
  ``group.protocol=consumer``) that spends ``processing_ms`` on every batch, as
  an application does, and writes down the moment its rebalance callbacks
  (``on_partitions_revoked``/``on_revoke`` and ``..._assigned``/``on_assign``)
  give up or receive a partition.  A partition is *unowned* from the moment
  its owner gives it up until some member receives it;
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


# ---------------------------------------------------------------------- the two group protocols
class OwnershipLog:
    """What the members' rebalance callbacks reported: (seconds, member, "revoked"/"assigned",
    partition), from any thread, with the kernel's monotonic clock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.rows: list[tuple[float, str, str, int]] = []

    def note(self, member: str, what: str, partitions: Iterable[int]) -> None:
        now = time.monotonic()
        with self._lock:
            self.rows.extend((now, member, what, p) for p in partitions)

    def owners(self) -> dict[int, str]:
        """Each partition's current owner, by the callbacks so far."""
        owners: dict[int, str] = {}
        with self._lock:
            rows = sorted(self.rows)
        for _, member, what, partition in rows:
            if what == "assigned":
                owners[partition] = member
            elif owners.get(partition) == member:
                del owners[partition]
        return owners


class ProtocolMember:
    """A consumer of ``group`` that polls in its own thread and spends ``processing_ms`` on every
    batch.  ``protocol="classic"``: kafka-python (JoinGroup/SyncGroup; its assignor runs in
    the group leader, a consumer).  ``protocol="consumer"``: confluent-kafka with
    ``group.protocol=consumer`` (KIP-848; ConsumerGroupHeartbeat, the broker assigns)."""

    def __init__(self, cluster: Any, name: str, group: str, topic: str, protocol: str,
                 log: OwnershipLog, processing_ms: int = 300):
        if protocol not in ("classic", "consumer"):
            raise ValueError(f"protocol must be classic or consumer, not {protocol!r}")
        self.name, self.protocol, self._log = name, protocol, log
        self._pause = processing_ms / 1000
        self._stop = threading.Event()
        self._consumer = (self._classic(cluster, group, topic) if protocol == "classic"
                          else self._next_generation(cluster, group, topic))
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _classic(self, cluster: Any, group: str, topic: str) -> Any:
        from kafka import KafkaConsumer
        from kafka.consumer.subscription_state import ConsumerRebalanceListener
        log, name = self._log, self.name

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                log.note(name, "revoked", (tp.partition for tp in revoked))

            def on_partitions_assigned(self, assigned):
                log.note(name, "assigned", (tp.partition for tp in assigned))
        consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, group_id=group,
                                 client_id=name, auto_offset_reset="earliest", enable_auto_commit=False)
        consumer.subscribe([topic], listener=Listener())
        return consumer

    def _next_generation(self, cluster: Any, group: str, topic: str) -> Any:
        import confluent_kafka
        log, name = self._log, self.name
        consumer = confluent_kafka.Consumer({
            "bootstrap.servers": cluster.bootstrap_servers, "group.id": group, "client.id": name,
            "group.protocol": "consumer", "auto.offset.reset": "earliest",
            "enable.auto.commit": False})
        consumer.subscribe([topic],
                           on_assign=lambda c, ps: log.note(name, "assigned", (p.partition for p in ps)),
                           on_revoke=lambda c, ps: log.note(name, "revoked", (p.partition for p in ps)))
        return consumer

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.protocol == "classic":
                self._consumer.poll(timeout_ms=100)
            else:
                self._consumer.poll(0.1)
            self._stop.wait(self._pause)            # "processing" the batch
        self._consumer.close()                      # leaves the group

    def leave(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


def _wait(condition, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def rebalance_once(cluster: Any, protocol: str, topic: str, group: str, members: int = 3,
                   processing_ms: int = 300, timeout_s: float = 60) -> dict:
    """``members`` members of a new ``group`` share ``topic``; once every partition is owned and
    stays so for a second, one more member joins.  Returns what the callbacks saw from the
    moment it joined (``log``, ``joined_at``), the owners before and after, and the coordinator's
    events since the join (``events``).  Every member leaves at the end."""
    partitions = len(cluster.snapshot().topic(topic).partitions)
    log = OwnershipLog()
    group_members = [ProtocolMember(cluster, f"{protocol}-{i}", group, topic, protocol, log,
                                    processing_ms) for i in range(1, members + 1)]
    try:
        def spread(count: int) -> bool:
            owners = log.owners()
            return len(owners) == partitions and len(set(owners.values())) == min(count, partitions)
        if not _wait(lambda: spread(members), timeout_s):
            raise TimeoutError(f"the {members} {protocol} members did not share {topic} in {timeout_s} s")
        time.sleep(1.0)
        before = log.owners()
        seq = cluster.events.last_seq
        joined_at = time.monotonic()
        group_members.append(ProtocolMember(cluster, f"{protocol}-{members + 1}", group, topic, protocol,
                                            log, processing_ms))
        if not _wait(lambda: spread(members + 1), timeout_s):
            raise TimeoutError(f"the {protocol} group did not settle after the new member joined")
        time.sleep(1.0)
        events = [e for e in cluster.events.since(seq) if e.data.get("group") == group]
        return {"log": log, "joined_at": joined_at, "before": before, "after": log.owners(),
                "events": events, "partitions": partitions}
    finally:
        for member in group_members:
            member.leave()


def unowned_windows(run: dict) -> dict[int, list[tuple[float, float]]]:
    """Per partition, the (start, end) seconds after the join during which no member owned it."""
    windows: dict[int, list[tuple[float, float]]] = {p: [] for p in range(run["partitions"])}
    gave_up: dict[int, float] = {}
    for at, _member, what, partition in sorted(r for r in run["log"].rows if r[0] >= run["joined_at"]):
        if what == "revoked":
            gave_up[partition] = at
        elif partition in gave_up:
            start = gave_up.pop(partition)
            windows[partition].append((start - run["joined_at"], at - run["joined_at"]))
    return windows


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
