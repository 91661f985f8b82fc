"""Drills about the KRaft controller quorum: the active controller crashes; the majority is lost.

Theory of operation
-------------------
Both run on a simulated cluster of three brokers and three or five
controllers (the seed picks), after lesson 04:

* `ControllerCrash` (predict): the active controller is killed while a
  producer writes.  The learner predicts whether the write is acknowledged
  during the election, how many partition leaders move (none: brokers
  lead partitions, controllers only decide), the majority a new leader
  needs, and the new epoch.  All four come from the run: the produce's
  answer time against the ``controller_elected`` event, the
  ``partition_changed`` events, the voter set, the quorum's epoch.
* `MajorityLost` (diagnose): a majority of the controllers dies, unannounced.
  The producer still writes; creating a topic times out with the Java admin
  client's message.  The learner finds which controllers are down, whether
  writes still work, and how many controllers must come back.
"""

from __future__ import annotations

from minikafka.common.errors import KafkaException
from minikafka.drills.drill_client import DrillClient
from minikafka.drills.question import AFTER, Question
from minikafka.drills.scenario import (UNANNOUNCED_NOTE, Scenario, events_text, expect_ok, now,
                                       unannounced, wait_for)


def _controllers(rng) -> int:
    return rng.choice([3, 5])


class ControllerCrash(Scenario):
    def cluster_options(self):
        self.controllers = _controllers(self.rng)
        return {"brokers": 3, "controllers": self.controllers}

    def setup(self, cluster):
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        self.client = DrillClient(cluster, "orders-producer")
        for p in range(3):
            expect_ok(self.client.produce("orders", p, [b"order"] * 5))
        self.old = cluster.active_controller
        self.old_epoch = cluster.snapshot().quorum.epoch
        self.status = cluster.quorum_status()
        self.partition = self.rng.randrange(3)

    def scene(self):
        return (f"Brokers 1, 2, 3 and {self.controllers} controllers. "
                f"kafka-metadata-quorum.sh describe --status:\n{self.status}\n\nWhen you run the "
                f"drill, the active controller ({self.old}) crashes. Right after the crash, a "
                f"producer writes a record to orders-{self.partition} with acks=all.")

    def questions(self):
        return [
            Question("produce-during-election", "Is that record acknowledged before a new active "
                     "controller is elected?", "bool"),
            Question("leaders-changed", "How many partitions of orders change leader because of "
                     "the crash?", "number"),
            Question("votes-needed", "How many votes (its own included) does a controller need "
                     "to become the new active controller?", "number"),
            Question("new-epoch", f"The quorum's leader epoch is {self.old_epoch} now. What is it "
                     f"once the new active controller is elected?", "number"),
        ]

    def run(self, cluster):
        seq, start = cluster.events.last_seq, now(cluster)
        cluster.kill(self.old)
        outcome = self.client.produce("orders", self.partition, [b"during the election"])
        wait_for(cluster, lambda: cluster.active_controller not in (None, self.old), 20_000,
                 "a new active controller")
        cluster.run_for(2_000)
        elected = [e for e in cluster.events.since(seq, {"controller_elected"})]
        moved = [e for e in cluster.events.since(seq, {"partition_changed"})
                 if e.data.get("topic") == "orders"
                 and e.data.get("leader_before") != e.data.get("leader")]
        voters = cluster.snapshot().quorum.voters
        self.new = cluster.active_controller
        self.expected = {
            "produce-during-election": outcome.ok and outcome.answered_ms < elected[0].time_ms,
            "leaders-changed": len(moved),
            "votes-needed": len(voters) // 2 + 1,
            "new-epoch": cluster.snapshot().quorum.epoch}
        self.facts.update(outcome=outcome, elected_after=elected[0].time_ms - start)
        lines = events_text(cluster, seq, {"node_killed", "controller_elected", "partition_changed"},
                            start)
        return lines + ["", f"the write to orders-{self.partition}: {outcome.error} after "
                            f"{outcome.answered_ms - outcome.sent_ms} ms",
                        "", cluster.quorum_status()]

    def hints(self):
        return ["Which nodes take part in producing a record with acks=all: the controllers, or "
                "the partition's leader and followers?",
                "A KRaft election needs a majority of all the voters, dead ones included; each "
                "election (attempt) raises the epoch."]

    def explain(self):
        outcome = self.facts["outcome"]
        rounds = self.expected["new-epoch"] - self.old_epoch
        epochs = (f"in epoch {self.expected['new-epoch']}, one above the old epoch: a single "
                  f"election" if rounds == 1 else
                  f"in epoch {self.expected['new-epoch']}, {rounds} above the old one: each "
                  f"candidacy raises the epoch, and the surviving controllers, which noticed the "
                  f"silence at about the same time, first split the vote (each voted for itself) "
                  f"before one won after a random back-off")
        return (f"A producer talks to partition leaders, and leaders are brokers: the write to "
                f"orders-{self.partition} was acknowledged after "
                f"{outcome.answered_ms - outcome.sent_ms} ms, while the controllers were still "
                f"without a leader (the election ended {self.facts['elected_after']} ms after the "
                f"crash; followers wait controller.quorum.fetch.timeout.ms before they suspect "
                f"the leader). No partition changed leader: the controllers decide leadership, "
                f"the brokers exercise it, and no broker failed. Controller {self.new} won with "
                f"the votes of a majority of the {self.controllers} voters "
                f"({self.expected['votes-needed']}: the dead controller still counts in the voter "
                f"set) {epochs}. A pre-vote (KIP-996) asks first without raising the epoch.")


class MajorityLost(Scenario):
    def cluster_options(self):
        self.controllers = _controllers(self.rng)
        return {"brokers": 3, "controllers": self.controllers}

    def setup(self, cluster):
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        self.client = DrillClient(cluster, "orders-producer")
        for p in range(3):
            expect_ok(self.client.produce("orders", p, [b"order"] * 5))
        majority = self.controllers // 2 + 1
        self.victims = sorted(self.rng.sample(cluster.controller_ids, majority))

    def scene(self):
        ids = ", ".join(map(str, range(1001, 1001 + self.controllers)))
        return (f"Brokers 1, 2, 3 and controllers {ids}; topic orders (3 partitions, replication "
                f"factor 3) and a producer writing to it. When you run the drill, something "
                f"happens to the controllers; then the producer writes again, and an operator "
                f"tries to create a topic. {UNANNOUNCED_NOTE}\nLook with the dashboard, "
                f"cluster.snapshot().controllers, cluster.quorum_status(), cluster.active_controller, "
                f"cluster.metric('kafka.controller:type=KafkaController,name=ActiveControllerCount').")

    def questions(self):
        controllers = tuple(range(1001, 1001 + self.controllers))
        return [
            Question("down", "Which controllers are down?", "nodes", choices=controllers, when=AFTER),
            Question("writes-ok", "Can producers still write to the existing partitions of orders?",
                     "bool", when=AFTER),
            Question("restarts-needed", "At least how many of the dead controllers must be "
                     "restarted before a topic can be created again?", "number", when=AFTER),
        ]

    def run(self, cluster):
        seq = cluster.events.last_seq
        with unannounced(cluster):
            for controller in self.victims:
                cluster.kill(controller)
        cluster.run_for(3_000)
        writes = [self.client.produce("orders", p, [b"after"], timeout_ms=5_000) for p in range(3)]
        try:
            cluster.create_topic("audit", partitions=1, replication_factor=3)
            created = "created"
        except KafkaException as error:
            created = f"{type(error).__name__}: {error}"
        alive = [c for c in cluster.controller_ids if c not in self.victims]
        self.expected = {"down": self.victims, "writes-ok": all(w.ok for w in writes),
                         "restarts-needed": self.controllers // 2 + 1 - len(alive)}
        self.facts.update(alive=alive, created=created)
        lines = events_text(cluster, seq, {"controller_elected", "controller_resigned",
                                           "broker_fenced", "partition_changed"})
        return (["What the nodes reported:"] + (lines or ["(nothing)"]) + [
            "", "The producer's writes: " + ", ".join(f"orders-{p} {w.error}" for p, w in enumerate(writes)),
            f"The operator's kafka-topics.sh --create --topic audit: {created}"])

    def hints(self):
        return ["cluster.snapshot().controllers shows each controller's process and KRaft role.",
                "A quorum elects a leader and commits records only with a majority of its voters."]

    def explain(self):
        majority = self.controllers // 2 + 1
        return (f"Controllers {', '.join(map(str, self.victims))} died: {len(self.facts['alive'])} "
                f"of {self.controllers} voters are left, fewer than the majority of {majority} a "
                f"KRaft leader needs. Nobody can be elected, so nothing can be decided: creating a "
                f"topic waits for an active controller and times out ({self.facts['created']}). "
                f"The brokers keep the metadata they have: partition leaders keep serving and the "
                f"producer's writes succeed. But the cluster is fragile: if a broker failed now, "
                f"nobody would fence it or move its leaderships. Restarting "
                f"{self.expected['restarts-needed']} controller(s) restores a majority. Meanwhile "
                f"the survivors keep asking for pre-votes (KIP-996) without raising their epoch, "
                f"so their return does not disturb anything.")
