"""The two consumer group protocols side by side, and the ``fourth-member-joins`` drill.

Theory of operation
-------------------
Each member is a real client polling in its own thread and spending
``processing_ms`` on every batch, as an application does: kafka-python for
the classic protocol (JoinGroup/SyncGroup; its eager assignors run in the
group leader, a consumer), confluent-kafka with ``group.protocol=consumer``
for KIP-848 (ConsumerGroupHeartbeat; the coordinator runs the assignor).
Every member writes down, in one `OwnershipLog`, the moment its rebalance
callbacks (``on_partitions_revoked``/``on_revoke``,
``on_partitions_assigned``/``on_assign``) give up or receive a partition.
A partition is *unowned* from the moment its owner gives it up until a
member receives it: `unowned_windows` reads those spans from the log.
`rebalance_once` runs the experiment of lesson 05 and of the drill: a group
of three shares a topic, then a fourth member joins.

Not a Kafka concept: the teaching layer.  The times come from the kernel's
monotonic clock in the clients' threads, so they include the clients' own
scheduling; the partition counts do not depend on them.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Iterable

from minikafka.drills.question import Question
from minikafka.drills.scenario import Scenario

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
        self.errors: list[str] = []                 # what poll() raised, in order
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
            try:
                if self.protocol == "classic":
                    self._consumer.poll(timeout_ms=100)
                else:
                    self._consumer.poll(0.1)
            except Exception as error:              # an application logs it and polls again
                self.errors.append(f"{type(error).__name__}: {error}")
            self._stop.wait(self._pause)            # "processing" the batch
        self._consumer.close()                      # leaves the group

    def leave(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


def _errors(members: list[ProtocolMember]) -> str:
    said = [f"{m.name}: {m.errors[-1]} ({len(m.errors)}x)" for m in members if m.errors]
    return "errors from poll: " + "; ".join(said) if said else "no errors from poll"


def _coordinator_said(cluster: Any, group: str, since: int) -> str:
    said = [e.text for e in cluster.events.since(since) if e.data.get("group") == group]
    return "the coordinator's last events: " + " | ".join(said[-4:]) if said else "no coordinator event"


def _brokers_said(cluster: Any) -> str:
    """Each broker's process and registration, for a timeout message (a fenced or stalled broker
    answers metadata and fetches differently from the others)."""
    return "brokers: " + ", ".join(f"{n.node_id} {n.process}/{n.registration}"
                                   for n in cluster.snapshot().nodes if n.is_broker)


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
    start_seq = cluster.events.last_seq
    log = OwnershipLog()
    group_members = [ProtocolMember(cluster, f"{protocol}-{i}", group, topic, protocol, log,
                                    processing_ms) for i in range(1, members + 1)]
    try:
        def spread(count: int) -> bool:
            owners = log.owners()
            return len(owners) == partitions and len(set(owners.values())) == min(count, partitions)
        if not _wait(lambda: spread(members), timeout_s):
            raise TimeoutError(f"the {members} {protocol} members did not share {topic} in {timeout_s} s "
                               f"(owners by their callbacks: {log.owners()}; {_errors(group_members)}; "
                               f"{_coordinator_said(cluster, group, start_seq)}; {_brokers_said(cluster)})")
        time.sleep(1.0)
        before = log.owners()
        seq = cluster.events.last_seq
        joined_at = time.monotonic()
        group_members.append(ProtocolMember(cluster, f"{protocol}-{members + 1}", group, topic, protocol,
                                            log, processing_ms))
        if not _wait(lambda: spread(members + 1), timeout_s):
            raise TimeoutError(f"the {protocol} group did not settle after the new member joined "
                               f"(owners by their callbacks: {log.owners()}; {_errors(group_members)}; "
                               f"{_coordinator_said(cluster, group, start_seq)}; {_brokers_said(cluster)})")
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



class FourthMemberJoins(Scenario):
    """Predict: how many partitions stop, and how many move, when a fourth member joins."""

    def setup(self, cluster):
        import logging
        logging.getLogger("kafka").setLevel(logging.CRITICAL)
        self.partitions = self.rng.choice([8, 12])
        cluster.create_topic("clicks", partitions=self.partitions, replication_factor=3)

    def scene(self):
        return (f"Brokers 1, 2, 3 (live); topic clicks has {self.partitions} partitions. When you run "
                f"the drill, three consumers share clicks, each spending 0.3 s on every batch; then a "
                f"fourth member joins. This happens twice: once with kafka-python (classic protocol, "
                f"its default eager assignors) in group clicks-classic, once with confluent-kafka and "
                f"group.protocol=consumer (KIP-848) in group clicks-consumer.")

    def questions(self):
        return [
            Question("classic_given_up", "Classic protocol: how many partitions are given up by their "
                     "owner while the fourth member joins?", "number"),
            Question("consumer_given_up", "Consumer protocol: how many partitions are given up by their "
                     "owner while the fourth member joins?", "number"),
            Question("consumer_moved", "Consumer protocol: how many partitions end up with a different "
                     "owner?", "number"),
        ]

    def run(self, cluster):
        classic = rebalance_once(cluster, "classic", "clicks", "clicks-classic")
        modern = rebalance_once(cluster, "consumer", "clicks", "clicks-consumer")
        given_up = {name: sum(1 for spans in unowned_windows(run).values() if spans)
                    for name, run in (("classic", classic), ("consumer", modern))}
        moved = sum(1 for p in range(self.partitions) if modern["before"].get(p) != modern["after"].get(p))
        self.expected = {"classic_given_up": given_up["classic"], "consumer_given_up": given_up["consumer"],
                         "consumer_moved": moved}
        self.facts["computed_by_coordinator"] = any(
            e.kind == "consumer_group_target_assignment" for e in modern["events"])
        return [f"classic protocol: {given_up['classic']} partitions given up and handed out again",
                f"consumer protocol: {given_up['consumer']} partitions given up; {moved} changed owner"]

    def hints(self):
        return ["kafka-python's assignors are eager: a member gives up everything it owns before it "
                "rejoins.",
                "Under the consumer protocol the coordinator's uniform assignor is sticky: it moves only "
                "what it must to balance the members."]

    def explain(self):
        share = self.partitions // 4
        return (f"The classic protocol stopped the whole group: every member gave up all its partitions "
                f"({self.expected['classic_given_up']}) and waited for the others to rejoin before the "
                f"leader, a consumer, handed them out again. Under the consumer protocol the coordinator, "
                f"a broker, computed the new target with its uniform assignor, and the old members gave "
                f"up only what they held above the new share of {share} partitions per member "
                f"({self.expected['consumer_given_up']} in all, each moving to the newcomer); the other "
                f"partitions were never interrupted. In real Kafka: group.protocol=consumer on the "
                f"client, group.consumer.assignors on the brokers.")
