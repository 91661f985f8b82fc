"""Drills about scaling: keyed partitions added, a throttled move, an empty broker, unbalanced leaders.

Theory of operation
-------------------
Four drills after lesson 06, each on a simulated cluster of three brokers
and one controller:

* `KeyedPartitionsAdded` (predict): 100 customers write keyed records; the
  topic grows; they write again.  Where each key's records landed is read
  back from the partitions (the producer side is the Java client's default
  partitioner, murmur2), so the share of keys that moved and the
  customer's new partition come from the run.
* `ThrottledReassignment` (predict): a replica of a partition of a few MB
  moves to a new broker with ``--throttle`` while acks=all traffic goes on;
  the learner predicts the duration (in multiples of size / throttle), the
  traffic, the final replicas, and whether the throttle configs remain.
* `EmptyNewBroker` (fix): a fourth broker joins and holds nothing; the
  learner moves replicas to it until every broker holds its share.
* `UnbalancedLeaders` (fix): a broker died and came back leading nothing;
  the learner restores the preferred leaders.  This cluster runs with
  ``auto.leader.rebalance.enable=false`` (Kafka's default is true), so the
  controller does not repair it by itself; the drill says so.
"""

from __future__ import annotations

from collections import Counter

from minikafka.drills.drill_client import DrillClient, partition_for_key
from minikafka.drills.question import Question
from minikafka.drills.scenario import (Check, Scenario, events_text, expect_ok, now, settle,
                                       wait_for)

KEYS = [f"customer-{i}" for i in range(100)]


class KeyedPartitionsAdded(Scenario):
    SHARES = ("none of them", "fewer than a third", "between a third and two thirds",
              "more than two thirds", "all of them")

    def setup(self, cluster):
        self.before = self.rng.choice([2, 3, 4])
        self.after = self.rng.choice([self.before + 1, 2 * self.before])
        self.customer = self.rng.choice(KEYS)
        cluster.create_topic("carts", partitions=self.before, replication_factor=3)
        self.client = DrillClient(cluster, "carts-service")
        self._write_everyone(self.before, b"v1")
        self.first = self._partitions_of(cluster, b"v1")[self.customer]
        self.describe = cluster.describe_topic("carts")

    def _write_everyone(self, partitions: int, tag: bytes) -> None:
        by_partition: dict[int, list[str]] = {}
        for key in KEYS:
            by_partition.setdefault(partition_for_key(key.encode(), partitions), []).append(key)
        for partition, keys in sorted(by_partition.items()):
            expect_ok(self.client.produce("carts", partition, [tag] * len(keys),
                                          keys=[k.encode() for k in keys]))

    def _partitions_of(self, cluster, tag: bytes) -> dict[str, int]:
        found = {}
        for partition in range(len(cluster.snapshot().topic("carts").partitions)):
            for record in self.client.read("carts", partition):
                if record.value == tag:
                    found[record.key.decode()] = partition
        return found

    def scene(self):
        return (f"{self.describe}\n\nEach of 100 customers (customer-0 ... customer-99) wrote a "
                f"record keyed by its id, with the Java client's default partitioner (murmur2 of "
                f"the key, modulo the number of partitions). {self.customer}'s record is in "
                f"carts-{self.first}. When you run the drill, carts grows from {self.before} to "
                f"{self.after} partitions (kafka-topics.sh --alter --partitions {self.after}), and "
                f"every customer writes again.")

    def questions(self):
        return [
            Question("new-partition", f"Which partition receives {self.customer}'s new record? "
                     f"(kafka.partitioner.default.murmur2 computes what the client does)", "number"),
            Question("moved-share", "What share of the 100 customers now write to a different "
                     "partition than before?", "choice", choices=self.SHARES),
            Question("in-order", f"A consumer group reads carts, one consumer per partition. Is it "
                     f"guaranteed to process {self.customer}'s two records in the order they were "
                     f"written?", "bool"),
        ]

    def run(self, cluster):
        seq = cluster.events.last_seq
        cluster.create_partitions("carts", self.after)
        self._write_everyone(self.after, b"v2")
        before, after = self._partitions_of(cluster, b"v1"), self._partitions_of(cluster, b"v2")
        moved = sum(before[k] != after[k] for k in KEYS)
        share = moved / len(KEYS)
        label = (self.SHARES[0] if moved == 0 else self.SHARES[4] if moved == len(KEYS) else
                 self.SHARES[1] if share < 1 / 3 else self.SHARES[2] if share <= 2 / 3
                 else self.SHARES[3])
        new = after[self.customer]
        self.expected = {"new-partition": new, "moved-share": label, "in-order": new == self.first}
        self.facts.update(moved=moved, new=new)
        lines = events_text(cluster, seq, {"partitions_added", "partition_changed"})
        counts = Counter(after.values())
        return lines + ["", f"{moved} of 100 customers write to another partition than before",
                        f"{self.customer}: carts-{self.first} before, carts-{new} now",
                        "records per partition now: " + ", ".join(
                            f"carts-{p}: {counts.get(p, 0)}" for p in range(self.after))]

    def hints(self):
        return ["from kafka.partitioner.default import murmur2; "
                "(murmur2(b'customer-7') & 0x7FFFFFFF) % partitions is the client's choice.",
                "A key keeps its partition only if its hash gives the same remainder for both "
                "partition counts."]

    def explain(self):
        return (f"The producer computes a keyed record's partition as murmur2(key) modulo the "
                f"number of partitions; it knows nothing of where the key went before. Going from "
                f"{self.before} to {self.after} partitions changed the remainder of "
                f"{self.facts['moved']} of the 100 keys. Kafka orders records only within a "
                f"partition: {self.customer}'s records are now in carts-{self.first} and "
                f"carts-{self.facts['new']}"
                + (" (the same partition: this key was lucky)." if self.expected["in-order"] else
                   ", read by different consumers at their own pace, so the newer one can be "
                   "processed first.")
                + " Choose partition counts generously up front for keyed topics, or migrate to a "
                  "new topic.")


class ThrottledReassignment(Scenario):
    def setup(self, cluster):
        self.megabytes = self.rng.choice([2, 5, 8])
        self.throttle = self.rng.choice([1_000_000, 2_000_000])
        cluster.create_topic("events", partitions=1, replication_factor=2)
        cluster.create_topic("traffic", partitions=3, replication_factor=3)
        self.client = DrillClient(cluster, "events-producer")
        for _ in range(self.megabytes * 10):
            expect_ok(self.client.produce("events", 0, [bytes(1000)] * 100, acks=1))
        self.new_broker = cluster.add_broker()
        kept, self.leaving = cluster.replicas("events", 0)
        self.target = [kept, self.new_broker]
        self.describe = cluster.describe_topic("events")
        expected_s = self.megabytes * 1_000_000 / self.throttle
        self.expected_s = expected_s
        # The ranges the choices name are the ones the run is graded by (the move's measured
        # duration, which the run prints, falls in exactly one of them).
        self.bounds = (round(0.3 * expected_s, 2), round(1.5 * expected_s, 2))
        low, high = self.bounds
        self.durations = (f"under {low:g} s: the throttle does not slow a single partition",
                          f"between {low:g} s and {high:g} s: about the partition's size divided "
                          f"by the throttle ({expected_s:g} s)",
                          f"more than {high:g} s: about twice that ({2 * expected_s:g} s), as "
                          f"leader and follower are both throttled",
                          "it never completes while the traffic goes on")

    def scene(self):
        return (f"{self.describe}\n\nevents-0 holds about {self.megabytes} MB. Broker "
                f"{self.new_broker} has just joined. When you run the drill, an operator moves "
                f"events-0's replica from broker {self.leaving} to broker {self.new_broker} with "
                f"kafka-reassign-partitions.sh --execute --throttle {self.throttle} "
                f"({self.throttle // 1_000_000} MB/s), while a producer keeps writing to topic "
                f"traffic with acks=all.")

    def questions(self):
        return [
            Question("move-time", f"How long until broker {self.new_broker}'s replica has caught "
                     f"up and the move completes?", "choice", choices=self.durations),
            Question("traffic-acked", "Does the traffic producer keep getting acknowledgements "
                     "during the move?", "bool"),
            Question("final-replicas", "Which brokers hold events-0 when the move is complete?",
                     "nodes", choices=(1, 2, 3, self.new_broker)),
            Question("throttle-left", "When the move is complete (nobody ran --verify), does "
                     "kafka-topics.sh --describe still show throttle settings in events' Configs?",
                     "bool"),
        ]

    def run(self, cluster):
        seq, start = cluster.events.last_seq, now(cluster)
        cluster.reassign_partitions({("events", 0): self.target},
                                    throttle_bytes_per_sec=self.throttle)
        sent = acked = 0
        while cluster.list_reassignments() and now(cluster) - start < 60_000:
            acked += self.client.produce("traffic", sent % 3, [b"traffic"], timeout_ms=5_000).ok
            sent += 1
            cluster.run_for(100)
        done = [e.time_ms for e in cluster.events.since(seq, {"reassignment_completed"})]
        seconds = (done[0] - start) / 1000 if done else None
        configs = cluster.snapshot().topic("events").configs
        if seconds is None:
            move = self.durations[3]
        else:
            low, high = self.bounds
            move = self.durations[0 if seconds < low else 1 if seconds < high else 2]
        self.expected = {"move-time": move, "traffic-acked": sent > 0 and acked == sent,
                         "final-replicas": cluster.replicas("events", 0),
                         "throttle-left": any("throttled.replicas" in k for k in configs)}
        self.facts.update(seconds=seconds, sent=sent, acked=acked)
        lines = events_text(cluster, seq, {"reassignment_started", "reassignment_completed",
                                           "partition_changed", "config_changed"}, start)
        return lines + ["", f"the move took {seconds:g} s; the traffic producer got {acked} of "
                            f"{sent} writes acknowledged meanwhile", "", cluster.describe_topic("events")]

    def hints(self):
        return ["The new replica copies the whole partition by fetching it from the leader, "
                "no faster than the throttle allows.",
                "--execute --throttle sets configs on brokers and on the topic; only --verify "
                "(after completion) removes them."]

    def explain(self):
        return (f"The new replica on broker {self.new_broker} started empty and fetched all of "
                f"events-0 from the leader. The throttle capped that copy at "
                f"{self.throttle // 1_000_000} MB/s, so {self.megabytes} MB took "
                f"{self.facts['seconds']:g} s (about size / throttle, a little less: the first "
                f"fetch, up to replica.fetch.max.bytes = 1 MiB, leaves before the quota has measured "
                f"anything); once the replica was in the "
                f"ISR the controller dropped broker {self.leaving} from the replica list. The "
                f"traffic producer was served all along ({self.facts['acked']} of "
                f"{self.facts['sent']} writes): the throttle applies only to the moving replica. "
                f"--execute --throttle wrote *.replication.throttled.rate on the brokers and "
                f"*.replication.throttled.replicas on the topic; they stay until "
                f"kafka-reassign-partitions.sh --verify sees the move complete "
                f"(cluster.clear_reassignment_throttles() here). A forgotten throttle slows every "
                f"later catch-up of those replicas.")


def _replica_counts(cluster, topic: str) -> dict[int, int]:
    counts = Counter(b for p in cluster.snapshot().topic(topic).partitions for b in p.replicas)
    return {b: counts.get(b, 0) for b in cluster.broker_ids}


def _share(total: int, brokers: int = 4) -> str:
    low, high = total // brokers, -(-total // brokers)
    return str(low) if low == high else f"{low} or {high}"


def _settled(cluster, topic: str) -> bool:
    partitions = cluster.snapshot().topic(topic).partitions
    return not cluster.list_reassignments() and not any(p.under_replicated for p in partitions)


class EmptyNewBroker(Scenario):
    def setup(self, cluster):
        self.partitions = self.rng.choice([4, 6])
        self.rf = self.rng.choice([2, 3])
        cluster.create_topic("events", partitions=self.partitions, replication_factor=self.rf)
        client = DrillClient(cluster, "events-producer")
        for p in range(self.partitions):
            expect_ok(client.produce("events", p, [b"event"] * 20))

    def scene(self):
        return (f"Topic events: {self.partitions} partitions, replication factor {self.rf}, on "
                f"brokers 1, 2, 3 and one controller. When you run the drill, a fourth broker "
                f"joins the cluster.")

    def task(self):
        total = self.partitions * self.rf
        return (f"make broker 4 carry its share: every broker should hold {_share(total)} of the "
                f"{total} replicas of events, with the replication factor "
                f"unchanged and every replica in sync. Use drill.cluster.replicas(...), "
                f"drill.cluster.reassign_partitions({{('events', p): [brokers...]}}) and "
                f"drill.cluster.describe_topic('events'); drill.check() shows how far you are.")

    def run(self, cluster):
        seq = cluster.events.last_seq
        self.new_broker = cluster.add_broker()
        held = _replica_counts(cluster, "events")
        lines = events_text(cluster, seq, {"broker_registered", "broker_unfenced"})
        return lines + ["", cluster.describe_topic("events"), "",
                        "replicas per broker: " + ", ".join(f"{b}: {n}" for b, n in held.items())]

    def checks(self, cluster):
        settle(cluster, lambda: _settled(cluster, "events"), 30_000)   # let moves finish
        total = self.partitions * self.rf
        held = _replica_counts(cluster, "events")
        partitions = cluster.snapshot().topic("events").partitions
        healthy = sum(len(p.replicas) == self.rf and not p.under_replicated for p in partitions)
        moving = bool(cluster.list_reassignments())
        return [
            Check("new-broker-used", f"broker {self.new_broker} holds at least {total // 4} "
                  f"replicas", held[self.new_broker], total // 4, held[self.new_broker] >= total // 4),
            Check("balanced", "every broker holds within one replica of the others",
                  {str(b): n for b, n in held.items()}, f"{_share(total)} each",
                  max(held.values()) - min(held.values()) <= 1),
            Check("healthy", f"all {self.partitions} partitions have {self.rf} replicas, all in "
                  f"sync, no move in progress", healthy, self.partitions,
                  healthy == self.partitions and not moving, guard=True),
        ]

    def hints(self):
        return ["A plan names each moved partition's complete new replica list, e.g. "
                "{('events', 0): [4, 2]} replaces broker 1 by broker 4 in [1, 2].",
                "Take replicas away from the brokers holding the most, one per partition."]

    def explain(self):
        return (f"A broker that joins registers with the controller and is unfenced, but Kafka "
                f"never moves data by itself: broker {self.new_broker} held nothing until a "
                f"reassignment named it. Moving a replica means the new broker fetches the "
                f"partition from the leader, joins the ISR, and only then the controller drops "
                f"the old replica, so the replication factor never dips. With "
                f"{self.partitions * self.rf} replicas on 4 brokers, each broker should hold "
                f"{_share(self.partitions * self.rf)}. "
                f"kafka-reassign-partitions.sh --generate proposes such a plan; --execute runs it.")


class UnbalancedLeaders(Scenario):
    def cluster_options(self):
        return {"brokers": 3, "controllers": 1,
                "broker_config": {"auto.leader.rebalance.enable": "false"}}

    def setup(self, cluster):
        cluster.create_topic("clicks", partitions=6, replication_factor=3)
        self.victim = self.rng.choice(cluster.broker_ids)
        client = DrillClient(cluster, "clicks-producer")
        for p in range(6):
            expect_ok(client.produce("clicks", p, [b"click"] * 10))

    def scene(self):
        return ("Topic clicks: 6 partitions, replication factor 3, on brokers 1, 2, 3 and one "
                "controller. This cluster runs with auto.leader.rebalance.enable=false (Kafka's "
                "default is true), as some operators choose, so nothing rebalances leaders by "
                f"itself. When you run the drill, broker {self.victim} crashes and comes back.")

    def task(self):
        return ("give every partition of clicks its preferred leader back (the first broker of "
                "its Replicas), so that each broker leads its share. Use drill.cluster "
                "(elect_leaders, describe_topic, metric('kafka.server:type=ReplicaManager,"
                "name=LeaderCount')); drill.check() shows how far you are.")

    def run(self, cluster):
        seq = cluster.events.last_seq
        cluster.kill(self.victim)
        wait_for(cluster, lambda: all(cluster.leader("clicks", p) not in (None, self.victim)
                                      for p in range(6)), 15_000, "leaders moved away")
        cluster.restart(self.victim)
        wait_for(cluster, lambda: all(len(cluster.isr("clicks", p)) == 3 for p in range(6)),
                 30_000, f"broker {self.victim} back in every ISR")
        lines = events_text(cluster, seq, {"node_killed", "node_restarted", "broker_fenced",
                                           "partition_changed"},
                            keep=lambda e: e.kind != "partition_changed"
                            or e.data.get("leader_before") != e.data.get("leader"))
        leaders = cluster.metric("kafka.server:type=ReplicaManager,name=LeaderCount")
        return lines + ["", cluster.describe_topic("clicks"), "", f"LeaderCount per broker: {leaders}"]

    def checks(self, cluster):
        def measure():
            imbalance = cluster.metric(
                "kafka.controller:type=KafkaController,name=PreferredReplicaImbalanceCount")
            leaders = cluster.metric("kafka.server:type=ReplicaManager,name=LeaderCount")
            return sum(imbalance.values()), leaders

        def applied():          # the brokers' LeaderCount agrees with the committed metadata
            led = Counter(cluster.leader("clicks", p) for p in range(6))
            return all(measure()[1].get(b, 0) == led.get(b, 0) for b in cluster.broker_ids)
        settle(cluster, lambda: measure()[0] == 0 and applied(), 5_000)   # let an election land
        imbalance, leaders = measure()
        under = sum(p.under_replicated for p in cluster.snapshot().topic("clicks").partitions)
        return [
            Check("preferred-leaders", "PreferredReplicaImbalanceCount is 0", imbalance, 0,
                  imbalance == 0),
            Check("balanced", "each broker leads 2 partitions (LeaderCount)",
                  {str(b): n for b, n in leaders.items()}, "2 each",
                  sorted(leaders.values()) == [2, 2, 2]),
            Check("in-sync", "no partition of clicks is under-replicated", under, 0, under == 0,
                  guard=True),
        ]

    def hints(self):
        return ["kafka.controller:type=KafkaController,name=PreferredReplicaImbalanceCount counts "
                "the partitions whose leader is not their preferred replica.",
                "kafka-leader-election.sh --election-type PREFERRED: cluster.elect_leaders('preferred')."]

    def explain(self):
        return (f"When broker {self.victim} died, the controller moved its leaderships to other "
                f"in-sync replicas; when it came back it rejoined every ISR as a follower, and "
                f"leadership does not move back by itself: the other brokers did all the produce "
                f"and fetch work for its partitions. A preferred leader election "
                f"(kafka-leader-election.sh --election-type PREFERRED --all-topic-partitions) makes "
                f"each partition's first replica the leader again when it is in sync. With "
                f"auto.leader.rebalance.enable=true the controller does the same every "
                f"leader.imbalance.check.interval.seconds (300 s in Kafka).")
