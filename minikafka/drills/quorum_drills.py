"""Drills about the KRaft controller quorum: the active controller crashes; the majority is lost;
a broker restarts too soon after a clean stop.

Theory of operation
-------------------
All run on a simulated cluster, after lesson 04; the first two on three
brokers and three or five controllers (the seed picks):

* `ControllerCrash` (predict): the active controller is killed while a
  producer writes.  The learner predicts whether the write is acknowledged
  during the election, how many partition leaders move (none: brokers
  lead partitions, controllers only decide), the majority a new leader
  needs, and what happens to the quorum's epoch (it rises: KRaft's rule;
  by how much depends on split votes, so that is not asked).  All four
  come from the run: the produce's answer time against the
  ``controller_elected`` event, the ``partition_changed`` events, the
  voter set, the quorum's epoch against the old one.
* `QuickRestart` (predict): a broker (three or four brokers, one
  controller) is stopped cleanly and started again at once, as in a rolling
  restart.  The learner predicts that the new process is not registered at
  once but refused (DUPLICATE_BROKER_REGISTRATION) until the old process's
  heartbeat session expires, that the controller then fences the already
  fenced broker a second time, that the broker gets a new epoch, and which
  broker leads its partition meanwhile.  All from the run's events and
  metadata records.
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
from minikafka.common.timing import KAFKA_DEFAULTS, TEACHING_SCALE


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
        self.epoch_choices = (
            f"it stays {self.old_epoch}: the quorum is the same, only its leader changes",
            f"it is higher than {self.old_epoch}: every candidacy raises it, so at least "
            f"{self.old_epoch + 1}",
            "it starts again from 0: each active controller counts its own epochs")

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
            Question("new-epoch", f"The quorum's leader epoch is {self.old_epoch} now. What "
                     f"happens to it once the new active controller is elected?", "choice",
                     choices=self.epoch_choices),
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
            "new-epoch": self._epoch_answer(cluster.snapshot().quorum.epoch)}
        self.facts.update(outcome=outcome, elected_after=elected[0].time_ms - start,
                          epoch=cluster.snapshot().quorum.epoch)
        lines = events_text(cluster, seq, {"node_killed", "controller_elected", "partition_changed"},
                            start)
        return lines + ["", f"the write to orders-{self.partition}: {outcome.error} after "
                            f"{outcome.answered_ms - outcome.sent_ms} ms",
                        "", cluster.quorum_status()]

    def _epoch_answer(self, epoch: int) -> str:
        """The choice the quorum's epoch after the election bears out (KRaft: the winner's
        epoch is above the old one, by the number of candidacies; a seed's split vote only
        changes by how much)."""
        if epoch == self.old_epoch:
            return self.epoch_choices[0]
        return self.epoch_choices[1] if epoch > self.old_epoch else self.epoch_choices[2]

    def hints(self):
        return ["Which nodes take part in producing a record with acks=all: the controllers, or "
                "the partition's leader and followers?",
                "A KRaft election needs a majority of all the voters, dead ones included; each "
                "election (attempt) raises the epoch."]

    def explain(self):
        outcome = self.facts["outcome"]
        new_epoch = self.facts["epoch"]
        rounds = new_epoch - self.old_epoch
        epochs = (f"in epoch {new_epoch}, one above the old epoch: a single "
                  f"election" if rounds == 1 else
                  f"in epoch {new_epoch}, {rounds} above the old one: each "
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
                f"set) {epochs}. A pre-vote (KIP-996) asks first without raising the epoch. KRaft "
                f"promises only that the new epoch is higher than the old one (a controller "
                f"becomes a candidate by raising its epoch by one, and a voter rejects a "
                f"candidate whose epoch is below its own), so that is what the question asks: "
                f"the exact number depends on how many candidacies it took.")


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
                f"what the process table and a request to each controller show "
                f"(probe_text(cluster.snapshot(), controllers=True)), cluster.quorum_status(), "
                f"cluster.active_controller, "
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
        return ["Which controllers' processes are still listed, and which answer a request? "
                "probe_text(cluster.snapshot(), controllers=True) shows both.",
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


_SESSION, _HEARTBEAT = "broker.session.timeout.ms", "broker.heartbeat.interval.ms"
_FENCE, _REGISTER = "BROKER_REGISTRATION_CHANGE_RECORD", "REGISTER_BROKER_RECORD"
REGISTRATION_ANSWERS = ("NONE (registered at once)", "DUPLICATE_BROKER_REGISTRATION", "STALE_BROKER_EPOCH",
                        "BROKER_ID_NOT_REGISTERED", "INCONSISTENT_CLUSTER_ID")


def _broker_epoch(cluster, broker: int) -> int:
    """The epoch of the broker's current registration: the offset of its last RegisterBrokerRecord."""
    return [e.record.broker_epoch for e in cluster.metadata_records()
            if e.type_name == _REGISTER and e.record.broker_id == broker][-1]


class QuickRestart(Scenario):
    def cluster_options(self):
        self.brokers = self.rng.choice([3, 4])
        return {"brokers": self.brokers, "controllers": 1}

    def setup(self, cluster):
        cluster.create_topic("orders", partitions=self.brokers, replication_factor=3)
        self.client = DrillClient(cluster, "orders-producer")
        for p in range(self.brokers):
            expect_ok(self.client.produce("orders", p, [b"order"] * 5))
        self.broker = self.rng.choice(cluster.broker_ids)
        led = [p for p in range(self.brokers) if cluster.leader("orders", p) == self.broker]
        self.partition = self.rng.choice(led or list(range(self.brokers)))
        self.led = cluster.leader("orders", self.partition) == self.broker
        self.epoch = _broker_epoch(cluster, self.broker)
        self.session_ms = cluster.timing.ms(_SESSION)
        self.heartbeat_ms = cluster.timing.ms(_HEARTBEAT)
        self.layout = [f"  orders-{p}: leader {cluster.leader('orders', p)}, replicas "
                       f"{cluster.replicas('orders', p)}, ISR {cluster.isr('orders', p)}"
                       for p in range(self.brokers)]

    def scene(self):
        ids = ", ".join(map(str, range(1, self.brokers + 1)))
        return (f"Brokers {ids} and one controller (1001); topic orders, replication factor 3:\n"
                + "\n".join(self.layout) + f"\n\nBroker {self.broker} is registered with broker epoch "
                f"{self.epoch}. When you run the drill, it is part of a rolling restart: it is stopped "
                f"cleanly (a controlled shutdown, kafka-server-stop.sh) and started again at once. The "
                f"sandbox's teaching profile divides Kafka's timeouts by {TEACHING_SCALE}: "
                f"{_SESSION} is {self.session_ms} ms here ({KAFKA_DEFAULTS[_SESSION]} ms in Kafka), "
                f"{_HEARTBEAT} {self.heartbeat_ms} ms ({KAFKA_DEFAULTS[_HEARTBEAT]} ms).")

    def questions(self):
        b, others = self.broker, tuple(x for x in range(1, self.brokers + 1) if x != self.broker)
        return [
            Question("registered-quickly", f"Is the new process of broker {b} registered with the "
                     f"controller within 500 ms of its start?", "bool"),
            Question("first-answer", f"What does the controller answer the first BrokerRegistration "
                     f"request of broker {b}'s new process?", "choice", choices=REGISTRATION_ANSWERS),
            Question("fence-records", f"How many BrokerRegistrationChangeRecords with fenced=1 for "
                     f"broker {b} does the controller write between the stop and the new "
                     f"registration?", "number"),
            Question("same-epoch", f"Is broker {b} registered again with its old broker epoch "
                     f"{self.epoch}?", "bool"),
            Question("leader-meanwhile", f"While broker {b} waits to be registered, which broker "
                     f"leads orders-{self.partition}?", "node", choices=others),
        ]

    def run(self, cluster):
        b, seq, start = self.broker, cluster.events.last_seq, now(cluster)
        first = cluster.metadata_records(include_noops=True)[-1].offset + 1
        cluster.shutdown(b)
        restarted = now(cluster)
        cluster.restart(b)
        wait_for(cluster, lambda: self._seen(cluster, seq, {"broker_registration_refused", "broker_registered"}),
                 10_000, f"broker {b} asks to register")
        leader_meanwhile = cluster.leader("orders", self.partition)
        wait_for(cluster, lambda: self._seen(cluster, seq, {"broker_unfenced"}), 20_000,
                 f"broker {b} is registered and unfenced")
        registered = self._seen(cluster, seq, {"broker_registered"})[0]
        refused = self._seen(cluster, seq, {"broker_registration_refused"})
        records = [e for e in cluster.metadata_records() if e.offset >= first]
        register = next(e for e in records if e.type_name == _REGISTER and e.record.broker_id == b)
        fences = [e for e in records if e.type_name == _FENCE and e.record.broker_id == b
                  and e.record.fenced == 1 and e.offset < register.offset]
        self.expected = {
            "registered-quickly": registered.time_ms - restarted <= 500,
            "first-answer": refused[0].data["error"] if refused else REGISTRATION_ANSWERS[0],
            "fence-records": len(fences),
            "same-epoch": register.record.broker_epoch == self.epoch,
            "leader-meanwhile": leader_meanwhile}
        self.facts.update(fences=fences, register=register, waited=registered.time_ms - restarted)
        lines = events_text(cluster, seq, {"broker_shutdown", "node_stopped", "node_restarted",
                                           "broker_registration_refused", "broker_fenced", "broker_registered",
                                           "broker_unfenced", "partition_changed"}, start)
        epoch = register.record.broker_epoch
        return lines + ["", f"The metadata log's records about broker {b} since the stop:"] + [
            f"offset {e.offset:>3}: {e.to_json()}" for e in fences] + [
            f"offset {register.offset:>3}: REGISTER_BROKER_RECORD brokerId {b}, brokerEpoch {epoch}, fenced true "
            f"(incarnationId {register.record.incarnation_id})"]

    def _seen(self, cluster, seq, kinds):
        return [e for e in cluster.events.since(seq, kinds) if e.data.get("broker") == self.broker]

    def hints(self):
        return ["A clean stop fences the broker, but does it end the controller's heartbeat session for it?",
                f"The controller lets a new process take a broker id only once the old process's session has "
                f"expired, {_SESSION} after its last heartbeat; each registration gets a new broker epoch: the "
                f"offset of its RegisterBrokerRecord in the metadata log."]

    def explain(self):
        b, register, fences = self.broker, self.facts["register"], self.facts["fences"]
        leader = self.expected["leader-meanwhile"]
        moved = (f"orders-{self.partition} went to broker {leader}, the first other replica of its assignment "
                 f"in the ISR" if self.led else f"orders-{self.partition} stayed with broker {leader}")
        return (f"A controlled shutdown moves broker {b}'s leaderships away ({moved}) and fences it, but "
                f"the controller's BrokerHeartbeatTracker still holds a session for broker {b} at epoch "
                f"{self.epoch}. Until that session expires, {_SESSION} after the last heartbeat "
                f"({self.session_ms} ms here, {KAFKA_DEFAULTS[_SESSION]} ms in Kafka: the teaching profile "
                f"divides it by {TEACHING_SCALE}), the controller refuses the new process with "
                f"{self.expected['first-answer']} (in Kafka: \"DuplicateBrokerRegistrationException: Another "
                f"broker is registered with that broker id. If the broker was recently restarted this should "
                f"self-resolve once the heartbeat manager expires the broker's session.\"), and the broker "
                f"retries. When the session expires the controller logs \"Fencing broker {b} at epoch "
                f"{self.epoch} because its session has timed out.\" and fences the already fenced broker again: "
                f"{len(fences)} identical fenced=1 records (offsets {', '.join(str(e.offset) for e in fences)}). "
                f"Only then is the new process registered, {self.facts['waited']} ms after its start, with a "
                f"new broker epoch, {register.record.broker_epoch}: the offset of its RegisterBrokerRecord. "
                f"For an operator: a rolling restart that restarts each broker at once waits up to "
                f"{_SESSION} per broker ({KAFKA_DEFAULTS[_SESSION] // 1000} s with Kafka's defaults) before "
                f"the broker is back; wait for it to be registered and unfenced before stopping the next.")
