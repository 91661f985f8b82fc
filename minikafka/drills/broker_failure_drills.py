"""Drills about a broker that fails: a leader crash, a follower out of sync, an offline partition.

Theory of operation
-------------------
All three run on a simulated cluster (three or four brokers, one
controller) with a topic of replication factor 3 and records written
through `DrillClient`:

* `LeaderCrash` (predict, after lesson 01): the learner predicts which
  replica takes over, how long the partition waits for it and how many
  records survive; the run kills the leader and measures all three.
* `FollowerOutOfSync` (diagnose, after lesson 03): one broker is frozen,
  crashed, or cut off from the other brokers while a producer writes;
  the fault is not announced; the learner finds which broker, what
  happened to it and how many partitions are under-replicated.
* `OfflinePartition` (fix, after lesson 03): the last in-sync replica of a
  partition is down; the learner brings the partition back without
  losing acknowledged records (restart that broker) rather than with an
  unclean election.

The rules they exercise are Kafka's: a leader is replaced only once the
controller fences it (``broker.session.timeout.ms`` without a heartbeat),
by the first in-sync replica in assignment order; a follower leaves the
ISR after ``replica.lag.time.max.ms`` without catching up.
"""

from __future__ import annotations

from minikafka.drills.drill_client import DrillClient
from minikafka.drills.question import AFTER, Question
from minikafka.drills.scenario import (UNANNOUNCED_NOTE, Check, Scenario, band, events_text,
                                       expect_ok, leader_alone_then_dead, now, settle, unannounced)

CHANGE_KINDS = {"node_killed", "broker_fenced", "partition_changed"}


class LeaderCrash(Scenario):
    def cluster_options(self):
        self.brokers = self.rng.choice([3, 4])
        return {"brokers": self.brokers, "controllers": 1}

    def setup(self, cluster):
        cluster.create_topic("orders", partitions=self.brokers, replication_factor=3)
        self.victim = self.rng.choice(cluster.broker_ids)
        self.partition = next(p for p in range(self.brokers) if cluster.leader("orders", p) == self.victim)
        self.records = self.rng.randint(4, 12)
        client = DrillClient(cluster)
        for p in range(self.brokers):
            count = self.records if p == self.partition else 5
            expect_ok(expect_ok(client.produce("orders", p, [f"order {i}".encode() for i in range(count)])))
        self.session_ms = cluster.timing.ms("broker.session.timeout.ms")
        self.lag_ms = cluster.timing.ms("replica.lag.time.max.ms")
        self.describe = cluster.describe_topic("orders")
        self.replicas = cluster.replicas("orders", self.partition)
        self.delay_choices = ("under 100 ms",
                              f"about {self.session_ms} ms (broker.session.timeout.ms)",
                              f"about {self.lag_ms} ms (replica.lag.time.max.ms)",
                              f"never: it waits until broker {self.victim} restarts")

    def scene(self):
        return (f"Brokers {', '.join(map(str, range(1, self.brokers + 1)))}, one controller. "
                f"Topic orders:\n{self.describe}\n\norders-{self.partition} holds {self.records} "
                f"records, all acknowledged with acks=all. When you run the drill, broker "
                f"{self.victim}, the leader of orders-{self.partition}, crashes (kill -9).")

    def questions(self):
        return [
            Question("new-leader", f"Which broker will lead orders-{self.partition} after the crash?",
                     "node", choices=tuple(range(1, self.brokers + 1))),
            Question("failover-time", f"How long after the crash will orders-{self.partition} "
                     f"have its new leader?", "choice", choices=self.delay_choices),
            Question("readable", f"A consumer reads orders-{self.partition} from the beginning, "
                     f"a second after the failover. How many records does it get?", "number"),
        ]

    def run(self, cluster):
        seq, start = cluster.events.last_seq, now(cluster)
        cluster.kill(self.victim)
        moved = cluster.wait_until(lambda: cluster.leader("orders", self.partition)
                                   not in (None, self.victim), 30_000)
        delay = now(cluster) - start
        self.new_leader = cluster.leader("orders", self.partition)
        cluster.run_for(1_000)              # the consumer reads a second after the failover
        read = DrillClient(cluster).read("orders", self.partition)
        choices = self.delay_choices
        self.expected = {
            "new-leader": self.new_leader if moved else self.victim,
            "failover-time": band(delay, [(100, choices[0]), (self.session_ms * 2, choices[1]),
                                          (self.lag_ms * 2, choices[2])]) if moved else choices[3],
            "readable": len(read)}
        self.facts.update(delay=delay, read=len(read))
        lines = events_text(cluster, seq, CHANGE_KINDS, start,
                            keep=lambda e: e.kind != "partition_changed"
                            or e.data.get("partition") == self.partition)
        return lines + ["", f"orders-{self.partition}: new leader broker {self.new_leader} after "
                            f"{delay} ms; a consumer reads {len(read)} records"]

    def hints(self):
        return ["The controller chooses the new leader among the in-sync replicas (Isr), in the "
                "order of the Replicas list.",
                "A crashed broker sends no heartbeats: when does the controller give up on it? "
                "cluster.describe() lists the timing settings."]

    def explain(self):
        return (f"Nobody tells the controller that a broker crashed. It notices because broker "
                f"{self.victim}'s heartbeats stop: after broker.session.timeout.ms "
                f"({self.session_ms} ms here, 9000 ms in Kafka) it fences the broker and, for each "
                f"partition it led, picks the first replica of the assignment "
                f"(Replicas: {','.join(map(str, self.replicas))}) that is alive and in the ISR: "
                f"broker {self.new_leader}. The new leadership took {self.facts['delay']} ms. The "
                f"records had been acknowledged with acks=all, so every in-sync replica had them: "
                f"all {self.facts['read']} are still there. replica.lag.time.max.ms is about "
                f"followers that fall behind, not about dead leaders.")


class FollowerOutOfSync(Scenario):
    FAULTS = {"crashed": "its process crashed",
              "paused": "its process is frozen (paused, as with kill -STOP)",
              "cut": "its network links to the other brokers are cut (it still reaches the controller)"}

    def cluster_options(self):
        self.brokers = self.rng.choice([3, 4])
        return {"brokers": self.brokers, "controllers": 1}

    def setup(self, cluster):
        cluster.create_topic("orders", partitions=self.brokers, replication_factor=3)
        self.victim = self.rng.choice(cluster.broker_ids)
        self.fault = self.rng.choice(sorted(self.FAULTS))
        self.client = DrillClient(cluster, "orders-producer")
        self._write_round(cluster)

    def _write_round(self, cluster):
        for p in range(self.brokers):
            if cluster.leader("orders", p) is not None:
                self.client.produce("orders", p, [b"order"], acks=1, timeout_ms=2_000)

    def scene(self):
        return (f"Brokers {', '.join(map(str, range(1, self.brokers + 1)))} and one controller "
                f"serve topic orders ({self.brokers} partitions, replication factor 3); a producer "
                f"writes to every partition. When you run the drill, something happens to one "
                f"broker while the producer keeps writing. {UNANNOUNCED_NOTE}\nLook with the "
                f"dashboard, cluster.describe_topic('orders', under_replicated_partitions=True), "
                f"cluster.metric('kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions'), "
                f"the operator view (operator_text(cluster.snapshot())), what the process table, "
                f"the controller and a request to each broker show (probe_text(cluster.snapshot())) "
                f"and cluster.events.")

    def questions(self):
        brokers = tuple(range(1, self.brokers + 1))
        return [
            Question("culprit", "Which broker is the cause?", "node", choices=brokers, when=AFTER),
            Question("fault", "What happened to it?", "choice",
                     choices=tuple(self.FAULTS.values()), when=AFTER),
            Question("under-replicated", "How many partitions of orders are under-replicated now?",
                     "number", when=AFTER),
        ]

    def run(self, cluster):
        seq = cluster.events.last_seq
        with unannounced(cluster):
            if self.fault == "crashed":
                cluster.kill(self.victim)
            elif self.fault == "paused":
                cluster.pause(self.victim)
            else:
                for other in cluster.broker_ids:
                    if other != self.victim:
                        cluster.cut_link(self.victim, other)
        for _ in range(12):                       # the producer keeps writing for 12 s
            self._write_round(cluster)
            cluster.run_for(1_000)
        partitions = cluster.snapshot().topic("orders").partitions
        self.urp = sum(p.under_replicated for p in partitions)
        self.expected = {"culprit": self.victim, "fault": self.FAULTS[self.fault],
                         "under-replicated": self.urp}
        lines = events_text(cluster, seq, {"broker_fenced", "partition_changed", "isr_shrink"})
        return ["The producer wrote for 12 seconds. What the nodes reported:"] + \
            (lines or ["(nothing)"])

    def hints(self):
        return ["Compare Replicas and Isr in cluster.describe_topic('orders'): which broker is "
                "missing from the ISRs, or alone in one?",
                "A frozen or dead broker stops heartbeating and the controller fences it; a broker "
                "whose links are cut still heartbeats. Is the broker's process still listed, and "
                "what happens to a request sent to its port? probe_text(cluster.snapshot()) "
                "shows both."]

    def explain(self):
        why = {
            "crashed": f"Broker {self.victim} crashed: the controller fenced it after "
                       f"broker.session.timeout.ms, moved its leaderships away and removed it from "
                       f"every ISR. Its process is gone (connections refused).",
            "paused": f"Broker {self.victim}'s process was frozen: it neither fetches nor "
                      f"heartbeats, so the controller fenced it after broker.session.timeout.ms, "
                      f"exactly as for a crash; but the process still exists (its port accepts "
                      f"connections that are never answered), and it comes back where it was "
                      f"when resumed.",
            "cut": f"Broker {self.victim} still heartbeats to the controller, so it is not fenced "
                   f"and keeps its leaderships; but it cannot fetch from the other brokers and they "
                   f"cannot fetch from it. After replica.lag.time.max.ms each leader dropped the "
                   f"followers that stopped catching up: broker {self.victim} from the others' "
                   f"ISRs, the others from the ISRs of the partitions broker {self.victim} leads."}
        return (why[self.fault] + f" {self.urp} partitions of orders are under-replicated (ISR "
                f"smaller than the replica list): the UnderReplicatedPartitions metric an operator "
                f"watches first.")


class OfflinePartition(Scenario):
    def setup(self, cluster):
        cluster.create_topic("ledger", partitions=1, replication_factor=3)
        self.leader = cluster.leader("ledger", 0)
        self.followers = [b for b in cluster.replicas("ledger", 0) if b != self.leader]
        self.committed = self.rng.randint(3, 8)
        self.alone = self.rng.randint(2, 6)
        self.client = DrillClient(cluster)
        expect_ok(self.client.produce("ledger", 0, [f"entry {i}".encode() for i in range(self.committed)]))

    def scene(self):
        return ("Topic ledger: one partition on brokers 1, 2, 3 (replication factor 3), one "
                "controller. When you run the drill, the cluster goes through a bad night: brokers "
                "fail one after the other, some come back, and the partition ends up offline. "
                "Every record written so far was acknowledged to its producer.")

    def task(self):
        return ("bring ledger-0 back online with all three replicas in sync, without losing any "
                "acknowledged record. Work on drill.cluster (describe_topic, restart_broker, "
                "elect_leaders, ...); drill.check() shows how far you are, drill.grade() ends it.")

    def run(self, cluster):
        seq = cluster.events.last_seq
        leader_alone_then_dead(cluster, self.client, "ledger", self.leader, self.followers,
                               self.alone, "late entry")
        self.acknowledged = self.committed + self.alone
        lines = events_text(cluster, seq, {"node_killed", "node_restarted", "broker_fenced",
                                           "partition_changed"})
        return lines + ["", cluster.describe_topic("ledger")]

    def checks(self, cluster):
        def measure():
            leader = cluster.leader("ledger", 0)
            readable = len(self.client.read("ledger", 0)) if leader is not None else 0
            return leader, readable, len(cluster.isr("ledger", 0))
        def healthy():
            leader, readable, isr = measure()
            return leader is not None and readable == self.acknowledged and isr == 3
        settle(cluster, healthy, 15_000)             # give a repair time to settle
        leader, readable, isr = measure()
        return [
            Check("online", "ledger-0 has a leader", "none" if leader is None else leader,
                  "a broker", leader is not None),
            Check("no-loss", f"all {self.acknowledged} acknowledged records can be read",
                  readable, self.acknowledged, readable == self.acknowledged),
            Check("in-sync", "all 3 replicas are in the ISR", isr, 3, isr == 3),
        ]

    def hints(self):
        return ["Which broker was the last one in the ISR? cluster.describe_topic('ledger') shows it.",
                "An unclean election (elect_leaders('unclean', ...)) brings the partition back at "
                "once, from a replica that missed records. Is there a way without that?"]

    def explain(self):
        return (f"Broker {self.leader} was the only in-sync replica when it died: it alone had the "
                f"last {self.alone} acknowledged records (written with acks=1 while the followers "
                f"were down). With unclean.leader.election.enable=false (the default) Kafka keeps "
                f"the partition offline rather than elect a replica that lacks them. The repair "
                f"that loses nothing is to restart broker {self.leader}: it is elected again, and "
                f"brokers {self.followers[0]} and {self.followers[1]} truncate nothing, fetch the "
                f"missing records and rejoin the ISR. An unclean election would have brought the "
                f"partition back sooner with {self.alone} records lost for good.")
