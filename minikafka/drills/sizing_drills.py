"""Drills about sizing a cluster: how many replicas a cluster of N brokers can hold, and where.

Theory of operation
-------------------
`ReplicationFactorVsBrokers` (predict, after lesson 02) runs on a simulated
cluster of three, four or five brokers and one controller.  The learner
predicts three things before the run:

1. whether ``kafka-topics.sh --create --topic payments --replication-factor
   R`` succeeds when R is the number of brokers or one more (the controller's
   replica placer puts the replicas of a partition on distinct registered
   brokers, so it refuses a replication factor it cannot reach, and the
   whole request fails with ``InvalidReplicationFactorException``);
2. how many partition replicas of a second topic, events (a multiple of N
   partitions, replication factor 1 or 2), one broker holds: the placer
   spreads the replicas evenly, so the count is partitions x RF / N;
3. how many partitions of events have no leader once that broker has
   crashed and been fenced: with replication factor 1 every partition it
   held is offline, with 2 another replica takes over.

Every answer is read from the run (the outcome of the request, the replica
lists, the leaders after the fence), never computed from the formula above.
The seed picks N, the two replication factors, the partition count and the
broker that fails.

Mirrors what ``kafka-topics.sh --create`` asks of the controller
(``CreateTopics``, placed by Kafka's ``StripedReplicaPlacer``); simplified:
one rack, so the placer's rack-awareness plays no part.
"""

from __future__ import annotations

from minikafka.drills.question import Question
from minikafka.drills.scenario import Scenario, events_text, wait_for


class ReplicationFactorVsBrokers(Scenario):
    def cluster_options(self):
        self.brokers = self.rng.choice([3, 4, 5])
        return {"brokers": self.brokers, "controllers": 1}

    def setup(self, cluster):
        n = self.brokers
        self.payments_rf = self.rng.choice([n, n + 1])
        self.events_rf = self.rng.choice([1, 2])
        self.events_partitions = n * self.rng.choice([1, 2])
        self.victim = self.rng.choice(cluster.broker_ids)
        rf = self.payments_rf
        self.outcomes = (
            f"created: each of its 3 partitions has {rf} replicas",
            f"created, but each partition gets only {n} replicas (one per broker)",
            "created, but its partitions have no leader until more brokers join",
            "refused with InvalidReplicationFactorException: nothing is created")

    def scene(self):
        ids = ", ".join(map(str, range(1, self.brokers + 1)))
        return (f"A cluster of {self.brokers} brokers ({ids}) and one controller, with no topics "
                f"of its own yet. When you run the drill, an operator runs two commands:\n"
                f"  kafka-topics.sh --create --topic payments --partitions 3 "
                f"--replication-factor {self.payments_rf}\n"
                f"  kafka-topics.sh --create --topic events --partitions "
                f"{self.events_partitions} --replication-factor {self.events_rf}\n"
                f"Then broker {self.victim} crashes (kill -9), and the controller fences it once "
                f"its heartbeats stop.")

    def questions(self):
        return [
            Question("payments", f"What happens to the first command (replication factor "
                     f"{self.payments_rf} on {self.brokers} brokers)?", "choice",
                     choices=self.outcomes),
            Question("replicas-on-broker", f"How many partition replicas of events does broker "
                     f"{self.victim} hold, before it crashes?", "number"),
            Question("leaderless", f"Once broker {self.victim} is fenced, how many partitions of "
                     f"events have no leader?", "number"),
        ]

    def run(self, cluster):
        from minikafka import KafkaException
        seq = cluster.events.last_seq
        lines = [f"$ kafka-topics.sh --create --topic payments --partitions 3 "
                 f"--replication-factor {self.payments_rf}"]
        try:
            cluster.create_topic("payments", partitions=3, replication_factor=self.payments_rf)
            widths = {len(cluster.replicas("payments", p)) for p in range(3)}
            payments = self.outcomes[0] if widths == {self.payments_rf} else self.outcomes[1]
            lines.append("Created topic payments.")
        except KafkaException as error:
            self.facts["error"] = f"{type(error).__name__}: {error}"
            payments = self.outcomes[3] if type(error).__name__ == \
                "InvalidReplicationFactorException" else f"refused: {error}"
            lines.append(f"Error while executing topic command : {error}")
        cluster.create_topic("events", partitions=self.events_partitions,
                             replication_factor=self.events_rf)
        lines += [f"$ kafka-topics.sh --create --topic events --partitions "
                  f"{self.events_partitions} --replication-factor {self.events_rf}",
                  "Created topic events.", "", cluster.describe_topic("events"), ""]
        held = self._held(cluster)
        cluster.kill(self.victim)
        wait_for(cluster, lambda: self._fenced(cluster), 20_000,
                 f"broker {self.victim} fenced and its leaderships gone")
        leaderless = sum(cluster.leader("events", p) is None for p in range(self.events_partitions))
        self.expected = {"payments": payments, "replicas-on-broker": held, "leaderless": leaderless}
        self.facts.update(held=held, leaderless=leaderless, topics=cluster.topics())
        lines += events_text(cluster, seq, {"node_killed", "broker_fenced", "partition_changed"},
                             keep=lambda e: e.kind != "partition_changed"
                             or e.data.get("topic") == "events")
        return lines + ["", f"topics now: {', '.join(self.facts['topics'])}",
                        f"replicas of events broker {self.victim} held: {held}; partitions of "
                        f"events without a leader now: {leaderless}"]

    def _held(self, cluster) -> int:
        return sum(self.victim in cluster.replicas("events", p) for p in range(self.events_partitions))

    def _fenced(self, cluster) -> bool:
        node = cluster.snapshot().node(self.victim)
        return node.registration == "fenced" and all(
            cluster.leader("events", p) != self.victim for p in range(self.events_partitions))

    def hints(self):
        return ["The replicas of one partition must sit on different brokers: how many different "
                "brokers can the controller choose from?",
                "The controller spreads replicas evenly over the brokers; a partition whose only "
                "replica is on a fenced broker has nobody to take over."]

    def explain(self):
        n, rf = self.brokers, self.payments_rf
        if rf > n:
            first = (f"The controller places the replicas of a partition on different brokers, so "
                     f"a replication factor of {rf} needs {rf} registered brokers; with {n} it "
                     f"refused the whole request ({self.facts['error']}), and payments was not "
                     f"created at all: no partition, no topic with fewer replicas. ")
        else:
            first = (f"A replication factor of {rf} on {n} brokers is the most this cluster can "
                     f"hold: one replica of each partition on every broker, and payments was "
                     f"created. One more would have been refused with "
                     f"InvalidReplicationFactorException, and nothing created. ")
        total = self.events_partitions * self.events_rf
        second = (f"events has {self.events_partitions} partitions with replication factor "
                  f"{self.events_rf}: {total} replicas, spread evenly over {n} brokers, so broker "
                  f"{self.victim} held {self.facts['held']} of them. ")
        if self.events_rf == 1:
            third = (f"With replication factor 1 each of those partitions lived only on broker "
                     f"{self.victim}: once it was fenced, those {self.facts['leaderless']} "
                     f"were left without a leader (offline) until it comes back, and their "
                     f"records are gone for good if its disk is lost.")
        else:
            third = ("With replication factor 2 every partition it held had a replica elsewhere, "
                     "and the controller made that one the leader: no partition went offline.")
        return (first + second + third + " In real Kafka the same rule covers the internal "
                "topics: __consumer_offsets is created with offsets.topic.replication.factor "
                "(3 by default) when the first group needs it, and fails on a smaller cluster; "
                "start production clusters with at least three brokers and replication factor 3.")
