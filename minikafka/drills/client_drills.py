"""Drills with real Kafka clients on a live cluster: a wrong advertised listener, an idle consumer.

Theory of operation
-------------------
Both run on a live cluster (three brokers, one controller, real TCP ports)
because the client is the story, after lesson 05:

* `WrongAdvertisedListener` (diagnose): one broker is restarted with an
  ``advertised.listeners`` address where nothing listens (the change and the
  restart are not announced).  A kafka-python producer that bootstraps from
  another broker then writes to every partition: the partitions that broker
  leads time out.  The learner finds the broker, the partitions and the
  address it advertises; all three come from the run (the producer's
  outcomes, and ``DescribeCluster`` through kafka-python's admin client).
* `ConsumersExceedPartitions` (predict): more kafka-python consumers than
  partitions join one group; the learner predicts how many get nothing.
  Each consumer polls in its own thread, as an application's consumer
  loop does (kafka-python only completes a rebalance from inside poll()).
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import time

from minikafka.drills.drill_client import DrillClient
from minikafka.drills.question import AFTER, Question
from minikafka.drills.scenario import UNANNOUNCED_NOTE, Scenario, expect_ok, unannounced, wait_for


def _quiet_kafka_python() -> None:
    # The client logs every retry and timeout at WARNING; the drill reports outcomes itself.
    logging.getLogger("kafka").setLevel(logging.CRITICAL)


class WrongAdvertisedListener(Scenario):
    def setup(self, cluster):
        _quiet_kafka_python()
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        self.victim = self.rng.choice(cluster.broker_ids)
        self.entry = next(b for b in cluster.broker_ids if b != self.victim)
        client = DrillClient(cluster, "orders-service")
        for p in range(3):
            expect_ok(client.produce("orders", p, [b"order"] * 3))
        self.led = [p for p in range(3) if cluster.leader("orders", p) == self.victim]

    def scene(self):
        return ("Brokers 1, 2, 3 (live, on this machine's loopback) and one controller; topic "
                "orders, 3 partitions, each broker leads one. When you run the drill, an operator "
                "changes something on one broker and restarts it. Then a new producer bootstraps "
                f"from broker {self.entry}'s address and writes one record to each partition. "
                f"{UNANNOUNCED_NOTE}\nLook with the dashboard, cluster.describe_topic('orders'), "
                "kafka-python's KafkaAdminClient(bootstrap_servers=...).describe_cluster(), "
                "cluster.bootstrap_servers and the brokers' files under cluster.data_dir / 'config'.")

    def questions(self):
        return [
            Question("broken-broker", "Which broker cannot be reached by clients?", "node",
                     choices=(1, 2, 3), when=AFTER),
            Question("failing-partitions", "Which partitions of orders can the producer not write "
                     "to?", "numbers", when=AFTER),
            Question("advertised-port", "Which port does that broker tell clients to connect to?",
                     "number", when=AFTER),
        ]

    def run(self, cluster):
        self.port = self._unused_port(cluster.layout.host)
        self.facts["host"] = cluster.layout.host
        with unannounced(cluster):
            cluster.set_advertised_listener(self.victim, f"PLAINTEXT://{cluster.layout.host}:{self.port}")
            cluster.shutdown(self.victim)
            cluster.restart(self.victim)
        wait_for(cluster, lambda: all(len(cluster.isr("orders", p)) == 3 for p in range(3)), 30_000,
                 f"broker {self.victim} back in every ISR")
        cluster.elect_leaders("preferred", [("orders", p) for p in self.led])
        wait_for(cluster, lambda: all(cluster.leader("orders", p) == self.victim for p in self.led),
                 10_000, f"broker {self.victim} leads its partitions again")
        outcomes = self._write_each_partition(cluster)
        advertised = self._advertised_port(cluster)
        self.expected = {"broken-broker": self.victim,
                         "failing-partitions": [p for p, ok in outcomes.items() if not ok[0]],
                         "advertised-port": advertised}
        return [f"A producer bootstrapped from broker {self.entry}'s address and wrote to each "
                f"partition:"] + [f"  orders-{p}: {text}" for p, (ok, text) in outcomes.items()]

    def _unused_port(self, host: str) -> int:
        """A port where nothing listens, picked from the seed (the same seed, the same port,
        unless something happens to listen there now)."""
        port = 20_000 + self.rng.randrange(10_000)
        while True:
            with socket.socket() as probe:
                probe.settimeout(0.5)
                if probe.connect_ex((host, port)) != 0:
                    return port
            port += 1

    def _write_each_partition(self, cluster) -> dict[int, tuple[bool, str]]:
        from kafka import KafkaProducer
        from kafka.errors import KafkaError
        address = f"{cluster.layout.host}:{cluster.layout.broker_ports[self.entry]}"
        producer = KafkaProducer(bootstrap_servers=address, client_id="probe",
                                 request_timeout_ms=1500, delivery_timeout_ms=3000)
        futures = {p: producer.send("orders", value=b"probe", partition=p) for p in range(3)}
        outcomes = {}
        for partition, future in futures.items():
            try:
                sent = future.get(timeout=10)
                outcomes[partition] = (True, f"acknowledged at offset {sent.offset}")
            except KafkaError as error:
                # kafka-python's text ends with the milliseconds that happened to pass; the
                # drill states the limit instead, so the story reads the same every run.
                text = re.sub(r"^\w+: |: \d+ ms has passed since batch creation$", "", str(error))
                outcomes[partition] = (False, f"{type(error).__name__}: {text} "
                                              f"(delivery.timeout.ms=3000 expired)")
        producer.close(timeout=1)
        return outcomes

    def _advertised_port(self, cluster) -> int:
        """The port the victim advertises, as a DescribeCluster answer gives it to any client."""
        from minikafka.network.codec import request_class
        from minikafka.drivers.inprocess import InProcessConnection
        request = request_class(60)[0](include_cluster_authorized_operations=False)
        answer = InProcessConnection(cluster, self.entry, "probe").send(request)
        return next(b.port for b in answer.brokers if b.broker_id == self.victim)

    def hints(self):
        return ["Bootstrap needs one reachable broker; after that the client connects to each "
                "partition's leader at the address that leader advertises.",
                "describe_cluster() lists what every broker advertises; cluster.bootstrap_servers "
                "lists where they really listen."]

    def explain(self):
        cluster_host = self.facts["host"]
        return (f"The operator set advertised.listeners on broker {self.victim} to an address "
                f"where nothing listens ({cluster_host}:{self.port}) and restarted it; the broker registered "
                f"that address with the controller, and every broker hands it to clients in "
                f"Metadata answers. Bootstrap through broker {self.entry} worked, and so did the "
                f"writes to partitions the other brokers lead; the records for the partitions "
                f"broker {self.victim} leads sat in the producer's buffer until delivery.timeout.ms "
                f"expired: the classic 'can connect, then times out'. The fix: advertise an "
                f"address clients can reach (cluster.set_advertised_listener({self.victim}, None)) "
                f"and restart the broker.")


class _Member:
    """One consumer with its own polling thread; only that thread touches the consumer."""

    def __init__(self, bootstrap: str, topic: str, group: str, name: str):
        from kafka import KafkaConsumer
        self.assignment: frozenset[int] = frozenset()   # partitions owned as of its last poll
        self._stop = threading.Event()
        self._consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                       client_id=name, auto_offset_reset="earliest",
                                       enable_auto_commit=False)
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                self._consumer.poll(timeout_ms=200)
                self.assignment = frozenset(tp.partition for tp in self._consumer.assignment())
        finally:
            self._consumer.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


class ConsumersExceedPartitions(Scenario):
    def setup(self, cluster):
        _quiet_kafka_python()
        self.partitions = self.rng.choice([2, 3, 4])
        self.consumers = self.partitions + self.rng.choice([1, 2])
        cluster.create_topic("billing", partitions=self.partitions, replication_factor=3)
        client = DrillClient(cluster, "billing-service")
        for p in range(self.partitions):
            expect_ok(client.produce("billing", p, [b"invoice"] * 5))

    def scene(self):
        return (f"Brokers 1, 2, 3 (live) and one controller; topic billing has {self.partitions} "
                f"partitions. When you run the drill, {self.consumers} kafka-python consumers "
                f"with group.id=billing start together and subscribe to billing, each polling in "
                f"its own loop (kafka-python's default assignor: range).")

    def questions(self):
        return [
            Question("idle", f"Once the group is stable, how many of the {self.consumers} "
                     f"consumers get no partition?", "number"),
            Question("busiest", "How many partitions does the busiest consumer get?", "number"),
            Question("assigned", "How many partitions are assigned in the group, in total?",
                     "number"),
        ]

    def run(self, cluster):
        members: list[_Member] = []
        try:
            for i in range(self.consumers):
                members.append(_Member(cluster.bootstrap_servers, "billing", "billing",
                                       f"billing-{i + 1}"))
            if not self._settle(cluster, members):
                raise RuntimeError(f"the group did not settle with {len(members)} members")
            sizes = sorted((len(m.assignment) for m in members), reverse=True)
        finally:
            for member in members:
                member.close()
        self.expected = {"idle": sizes.count(0), "busiest": sizes[0], "assigned": sum(sizes)}
        self.facts["sizes"] = sizes
        return [f"{self.consumers} consumers in group billing; partitions per consumer: {sizes}"]

    def _settle(self, cluster, members: list[_Member], timeout_s: float = 30.0) -> bool:
        """Every partition owned exactly once, by as many members as there are partitions,
        and the coordinator's last word a Stable generation of all the members."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            owned = sorted(p for m in members for p in m.assignment)
            busy = sum(1 for m in members if m.assignment)
            if owned == list(range(self.partitions)) and busy == min(len(members), self.partitions) \
                    and self._stable_with(cluster, len(members)):
                return True
            time.sleep(0.1)
        return False

    @staticmethod
    def _stable_with(cluster, count: int) -> bool:
        steps = [e for e in cluster.events.since(0, {"group_rebalance", "group_join_completed",
                                                     "group_stable"})
                 if e.data.get("group") == "billing"]
        joins = [e for e in steps if e.kind == "group_join_completed"]
        return bool(joins) and steps[-1].kind == "group_stable" \
            and len(joins[-1].data.get("members", ())) == count

    def hints(self):
        return ["In a consumer group each partition is read by exactly one member.",
                "Range assignment splits each topic's partitions into contiguous ranges, one per "
                "member, in member order."]

    def explain(self):
        idle = self.expected["idle"]
        return (f"The group's leader (a consumer) assigned the {self.partitions} partitions of "
                f"billing among {self.consumers} members; each partition goes to exactly one "
                f"member, so at most {self.partitions} members can have work and {idle} stayed "
                f"idle: they sit in the group as stand-bys and take over when a busy member "
                f"leaves. A topic can never have more useful consumers in one group than it has "
                f"partitions; plan partition counts for the parallelism you will need.")
