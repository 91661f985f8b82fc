"""Drills about durability: NOT_ENOUGH_REPLICAS, acks=1 data loss, an unclean election, a power cut.

Theory of operation
-------------------
Four predict drills after lesson 03, each on a simulated cluster of three
brokers and one controller with a one-partition topic of replication
factor 3, written through `DrillClient` (real Produce requests, so the
learner predicts the error names a Kafka client receives):

* `NotEnoughReplicas`: the link between the leader and one or two
  followers is cut; an acks=all write waits until the leader drops them
  from the ISR (``replica.lag.time.max.ms``), then succeeds, or, if the ISR
  is now below ``min.insync.replicas``, keeps waiting (the high watermark
  does not move under min ISR, Kafka 3.7+) until ``REQUEST_TIMED_OUT``; the
  next one succeeds or gets ``NOT_ENOUGH_REPLICAS``, depending on
  ``min.insync.replicas`` (2 or 3, from the seed) and how many followers
  are left.
* `AcksOneLoss`: the leader acknowledges acks=1 records no follower has,
  then crashes; the learner predicts the new leader, the survivors, and how
  much the old leader truncates when it returns (leader epochs).
* `UncleanElection`: the last in-sync replica dies; the partition goes
  offline; an unclean election brings it back and loses what only the old
  leader had.
* `PowerLoss`: records acknowledged with acks=all by all three replicas;
  the three broker processes crash and restart (every record is still
  there: the page cache outlives a process), then all three machines lose
  power (``Cluster.lose_power``: each log goes back to its last flush).
  The seed picks ``flush.messages`` (unset, as Kafka's default, or 2-4) and
  the number of records; the records are written one per request, so each
  replica appends, and flushes, them one by one.  It runs on a simulated
  cluster, whose log directories are in memory; the sandbox has no
  kernel writeback of its own (a real one writes dirty pages after about
  30 s), and the power cut comes seconds after the last write.
"""

from __future__ import annotations

from minikafka.drills.drill_client import DrillClient
from minikafka.drills.question import Question
from minikafka.drills.scenario import (Scenario, events_text, expect_ok, leader_alone_then_dead, now,
                                       wait_for)

ERRORS = ("NONE", "NOT_ENOUGH_REPLICAS", "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "REQUEST_TIMED_OUT")
EVENT_KINDS = {"node_killed", "node_restarted", "network_link_cut", "network_healed",
               "broker_fenced", "isr_shrink", "partition_changed", "log_truncated", "config_changed"}


def _followers(cluster, topic: str) -> tuple[int, list[int]]:
    leader = cluster.leader(topic, 0)
    return leader, [b for b in cluster.replicas(topic, 0) if b != leader]


class NotEnoughReplicas(Scenario):
    def setup(self, cluster):
        self.min_isr = self.rng.choice([2, 3])
        self.cut = self.rng.choice([1, 2])
        cluster.create_topic("payments", partitions=1, replication_factor=3,
                             config={"min.insync.replicas": str(self.min_isr)})
        self.leader, followers = _followers(cluster, "payments")
        self.victims = sorted(self.rng.sample(followers, self.cut))
        self.client = DrillClient(cluster, "payments-producer")
        expect_ok(self.client.produce("payments", 0, [f"payment {i}".encode() for i in range(5)]))
        self.describe = cluster.describe_topic("payments")
        self.lag_ms = cluster.timing.ms("replica.lag.time.max.ms")

    def scene(self):
        who = (f"the link between the leader and follower {self.victims[0]} is" if self.cut == 1
               else f"the links between the leader and both followers ({self.victims[0]} and "
                    f"{self.victims[1]}) are")
        return (f"{self.describe}\n\nThe leader is broker {self.leader}; min.insync.replicas="
                f"{self.min_isr}. When you run the drill, {who} cut (a firewall rule: every "
                f"broker still reaches the controller). Right "
                f"after the cut, a producer sends one record with acks=all (request.timeout.ms "
                f"30000); when it has its answer, it sends a second one with acks=all.")

    def questions(self):
        return [
            Question("first-produce", "What does the leader answer to the first record?",
                     "choice", choices=ERRORS),
            Question("first-readable", "Can a consumer read the first record afterwards?", "bool"),
            Question("isr-after", "How many replicas are in the ISR once the leader has dropped "
                     "the followers it cannot reach?", "number"),
            Question("second-produce", "What does the leader answer to the second record?",
                     "choice", choices=ERRORS),
        ]

    def run(self, cluster):
        seq, start = cluster.events.last_seq, now(cluster)
        for follower in self.victims:
            cluster.cut_link(self.leader, follower)
        first = self.client.produce("payments", 0, [b"first"])
        second = self.client.produce("payments", 0, [b"second"])
        values = [r.value for r in self.client.read("payments", 0)]
        self.facts.update(first=first, second=second, waited=first.answered_ms - first.sent_ms)
        self.expected = {"first-produce": first.error, "first-readable": b"first" in values,
                         "isr-after": len(cluster.isr("payments", 0)),
                         "second-produce": second.error}
        lines = events_text(cluster, seq, EVENT_KINDS, start)
        return lines + ["", f"first record (acks=all): {first.error} after "
                            f"{self.facts['waited']} ms",
                        f"second record (acks=all): {second.error}",
                        f"a consumer reads {len(values)} records; the first one "
                        f"{'is' if b'first' in values else 'is not'} among them"]

    def hints(self):
        return [f"A follower that stops fetching stays in the ISR until replica.lag.time.max.ms "
                f"({self.lag_ms} ms here) has passed; an acks=all write waits for every ISR member.",
                "NOT_ENOUGH_REPLICAS refuses a record before writing it. A record already "
                "written is committed (the high watermark passes it) only while the ISR has at "
                "least min.insync.replicas members."]

    def explain(self):
        isr = self.expected["isr-after"]
        first = self.facts["first"]
        text = (f"The first write was appended to the leader's log at once, then waited for the "
                f"followers in the ISR. The cut-off follower(s) could not fetch it, and the leader "
                f"only dropped them after replica.lag.time.max.ms ({self.lag_ms} ms). ")
        if first.error == "NONE":
            text += (f"With {isr} replicas left in the ISR, at least min.insync.replicas="
                     f"{self.min_isr}, the high watermark passed the record: success, after "
                     f"{self.facts['waited']} ms. ")
        elif first.error == "REQUEST_TIMED_OUT":
            text += (f"The ISR shrank to {isr}, below min.insync.replicas={self.min_isr}, and from "
                     f"then on the leader does not move the high watermark (Kafka 3.7+, so that a "
                     f"replica that left the ISR cannot miss a committed record). The record stayed "
                     f"in the leader's log, uncommitted and "
                     f"{'readable' if self.expected['first-readable'] else 'not readable'}, and the "
                     f"write waited until its timeout (request.timeout.ms): REQUEST_TIMED_OUT after "
                     f"{self.facts['waited']} ms. The producer cannot tell whether the record was kept; a "
                     f"retry would write it twice unless the producer is idempotent. ")
        else:
            text += (f"The ISR shrank to {isr}, below min.insync.replicas={self.min_isr}, after the "
                     f"high watermark passed the record: it is in the log, but the producer was told "
                     f"{first.error}. ")
        if self.expected["second-produce"] == "NOT_ENOUGH_REPLICAS":
            text += (f"The second write found the ISR ({isr}) below min.insync.replicas and was "
                     f"refused before anything was written: NOT_ENOUGH_REPLICAS.")
        else:
            text += "The second write needed only the replicas still in the ISR: accepted at once."
        return text


class AcksOneLoss(Scenario):
    def setup(self, cluster):
        cluster.create_topic("payments", partitions=1, replication_factor=3)
        self.leader, self.followers = _followers(cluster, "payments")
        self.committed = self.rng.randint(3, 8)
        self.unreplicated = self.rng.randint(2, 6)
        self.client = DrillClient(cluster, "payments-producer")
        expect_ok(self.client.produce("payments", 0, [f"payment {i}".encode()
                                                       for i in range(self.committed)]))
        self.describe = cluster.describe_topic("payments")

    def scene(self):
        return (f"{self.describe}\n\npayments-0 holds {self.committed} records, written with "
                f"acks=all. When you run the drill: the links between the leader (broker "
                f"{self.leader}) and both followers are cut; a producer with acks=1 writes "
                f"{self.unreplicated} more records, and the leader acknowledges each; then broker "
                f"{self.leader} crashes, the links are restored, and later broker {self.leader} "
                f"restarts.")

    def questions(self):
        return [
            Question("new-leader", "Which broker leads payments-0 after the crash?", "node",
                     choices=(1, 2, 3)),
            Question("survivors", f"How many of the {self.unreplicated} acks=1 records can a "
                     f"consumer read after the failover?", "number"),
            Question("truncated", f"When broker {self.leader} restarts and follows the new leader, "
                     f"how many records does it remove from its log?", "number"),
        ]

    def run(self, cluster):
        seq, start = cluster.events.last_seq, now(cluster)
        for follower in self.followers:
            cluster.cut_link(self.leader, follower)
        for i in range(self.unreplicated):
            expect_ok(self.client.produce("payments", 0, [f"acks=1 record {i}".encode()], acks=1))
        cluster.kill(self.leader)
        cluster.heal()
        wait_for(cluster, lambda: cluster.leader("payments", 0) not in (None, self.leader), 15_000,
                 "a new leader for payments-0")
        cluster.run_for(1_000)
        values = [r.value for r in self.client.read("payments", 0)]
        survivors = sum(v.startswith(b"acks=1") for v in values)
        new_leader = cluster.leader("payments", 0)
        cluster.restart(self.leader)
        wait_for(cluster, lambda: self.leader in cluster.isr("payments", 0), 20_000,
                 f"broker {self.leader} back in the ISR")
        cut = [e.data for e in cluster.events.since(seq, {"log_truncated"})
               if e.node == self.leader and e.data.get("partition") == "payments-0"]
        truncated = sum(d["old_log_end_offset"] - d["truncation_offset"] for d in cut)
        self.expected = {"new-leader": new_leader, "survivors": survivors, "truncated": truncated}
        self.facts.update(new_leader=new_leader, readable=len(values))
        lines = events_text(cluster, seq, EVENT_KINDS, start)
        return lines + ["", f"after the failover a consumer reads {len(values)} records, "
                            f"{survivors} of them written with acks=1"]

    def hints(self):
        return ["With acks=1 the leader answers as soon as the record is in its own log.",
                "A new leader's log is the partition. A returning old leader compares leader "
                "epochs with it (leader-epoch-checkpoint) and cuts what the new leader never had."]

    def explain(self):
        return (f"acks=1 means the leader answers once the record is in its own log. The followers "
                f"were cut off, so only broker {self.leader} had the {self.unreplicated} records "
                f"when it crashed. The controller made broker {self.facts['new_leader']}, the first "
                f"in-sync replica in assignment order, the leader, in a new leader epoch; its log "
                f"ends after the {self.committed} committed records, and that is now the partition: "
                f"the acknowledged records are gone, and the producer was never told. When broker "
                f"{self.leader} came back it asked the new leader where its last epoch ended, "
                f"truncated its log to that offset ({self.expected['truncated']} records removed) "
                f"and fetched the new epoch's records. acks=all with min.insync.replicas=2 "
                f"would not have acknowledged them.")


class UncleanElection(Scenario):
    def setup(self, cluster):
        cluster.create_topic("clicks", partitions=1, replication_factor=3)
        self.leader, self.followers = _followers(cluster, "clicks")
        self.committed = self.rng.randint(3, 8)
        self.alone = self.rng.randint(2, 6)
        self.client = DrillClient(cluster, "clicks-producer")
        expect_ok(self.client.produce("clicks", 0, [f"click {i}".encode() for i in range(self.committed)]))
        self.describe = cluster.describe_topic("clicks")
        self.leader_choices = ("none: the partition is offline",
                               *(f"broker {b}" for b in self.followers))

    def scene(self):
        first, second = self.followers
        return (f"{self.describe}\n\nclicks-0 holds {self.committed} records on every replica. "
                f"When you run the drill: brokers {first} and {second} crash; the leader, broker "
                f"{self.leader}, keeps accepting records alone and acknowledges {self.alone} more "
                f"(acks=1); then broker {self.leader} crashes too, and brokers {first} and "
                f"{second} restart. Later an operator sets unclean.leader.election.enable=true on "
                f"the topic and runs kafka-leader-election.sh --election-type unclean.")

    def questions(self):
        first, second = self.followers
        return [
            Question("leader-after-restart", f"Once brokers {first} and {second} are back (broker "
                     f"{self.leader} still down), who leads clicks-0?", "choice",
                     choices=self.leader_choices),
            Question("unclean-leader", "Which broker does the unclean election make leader?",
                     "node", choices=(1, 2, 3)),
            Question("lost", f"How many of the {self.committed + self.alone} acknowledged records "
                     f"are lost?", "number"),
        ]

    def run(self, cluster):
        seq, start = cluster.events.last_seq, now(cluster)
        leader_alone_then_dead(cluster, self.client, "clicks", self.leader, self.followers,
                               self.alone, "late click")
        cluster.run_for(2_000)
        offline = cluster.leader("clicks", 0)
        self.facts["elr"] = ",".join(map(str, cluster.snapshot().topic("clicks").partitions[0].elr))
        before = events_text(cluster, seq, EVENT_KINDS, start) + ["", cluster.describe_topic("clicks")]
        seq = cluster.events.last_seq
        cluster.alter_topic_config("clicks", set={"unclean.leader.election.enable": "true"})
        cluster.elect_leaders("unclean", [("clicks", 0)])
        wait_for(cluster, lambda: cluster.leader("clicks", 0) is not None, 10_000,
                 "the unclean election")
        cluster.run_for(1_000)
        readable = len(self.client.read("clicks", 0))
        chosen = cluster.leader("clicks", 0)
        labels = dict(zip([None] + self.followers, self.leader_choices))
        self.expected = {"leader-after-restart": labels.get(offline, f"broker {offline}"),
                         "unclean-leader": chosen,
                         "lost": self.committed + self.alone - readable}
        self.facts.update(chosen=chosen, readable=readable)
        after = events_text(cluster, seq, EVENT_KINDS, start)
        return before + ["", *after, "", f"after the unclean election a consumer reads {readable} "
                                         f"records"]

    def hints(self):
        return ["By default (unclean.leader.election.enable=false) only an in-sync replica may "
                "become leader.",
                "An unclean election takes a live replica in assignment order, whatever it holds."]

    def explain(self):
        first, second = self.followers
        elr = (f" (the controller emptied the ISR and kept broker {self.leader} as the eligible leader "
               f"replica, Elr: {self.facts['elr']}, the one replica that may lead cleanly when it "
               f"returns)") if self.facts["elr"] == str(self.leader) else ""
        return (f"When brokers {first} and {second} died, the leader dropped them from the ISR and "
                f"went on alone: the {self.alone} acks=1 records existed only on broker "
                f"{self.leader}. With broker {self.leader} dead, no in-sync replica was alive{elr}, "
                f"and Kafka does not elect an out-of-sync replica unless allowed: Leader: none, the "
                f"partition was offline although two of its brokers were running. The unclean "
                f"election took the first live replica of the assignment, broker "
                f"{self.facts['chosen']}, with the records it had: {self.facts['readable']}. The "
                f"{self.expected['lost']} records only broker {self.leader} had are lost for good "
                f"(it truncates them when it returns). Availability came back at the price of "
                f"durability; restarting broker {self.leader} instead would have lost nothing.")


class PowerLoss(Scenario):
    """Acknowledged by every replica, then a crash, then a power cut of all three machines."""

    def setup(self, cluster):
        self.flush_every = self.rng.choice([None, None, 2, 3, 4])   # Kafka's default as often as a setting
        self.written = self.rng.randint(5, 9)
        config = {"min.insync.replicas": "2"}
        if self.flush_every is not None:
            config["flush.messages"] = str(self.flush_every)
        cluster.create_topic("journal", partitions=1, replication_factor=3, config=config)
        self.client = DrillClient(cluster, "journal-producer")
        for i in range(self.written):       # one record per request: each is on all three before the next
            expect_ok(self.client.produce("journal", 0, [f"entry {i}".encode()]))
        self.last_write_ms = now(cluster)
        self.describe = cluster.describe_topic("journal")

    def scene(self):
        flush = (f"flush.messages={self.flush_every} on the topic" if self.flush_every is not None
                 else "no flush setting on the topic or the brokers (Kafka's defaults)")
        return (f"{self.describe}\n\njournal-0 holds {self.written} records, each written on its own "
                f"with acks=all, so every replica had each one before the producer sent the next; "
                f"{flush}. When you run the drill: the processes of all three brokers crash at once "
                f"(the machines stay up) and start again; later the power fails in the rack that "
                f"holds the three broker machines, and they start again when it is back. The "
                f"controller runs elsewhere and keeps running.")

    def questions(self):
        return [
            Question("after-crash", f"After the crash and restart, how many of the {self.written} "
                     f"records can a consumer read?", "number"),
            Question("after-power-loss", f"After the power cut and restart, how many of the "
                     f"{self.written} records can a consumer read?", "number"),
        ]

    def _back_up(self, cluster, brokers):
        """Once the controller has noticed that all three are gone (the partition has no leader),
        start them again and wait until all three replicas are back in the ISR."""
        wait_for(cluster, lambda: cluster.leader("journal", 0) is None, 30_000,
                 "journal-0 without a leader once its three brokers are down")
        for broker in brokers:
            cluster.restart(broker)
        wait_for(cluster, lambda: len(cluster.isr("journal", 0)) == 3, 30_000,
                 "all three replicas of journal-0 back in the ISR")

    def run(self, cluster):
        seq, start = cluster.events.last_seq, now(cluster)
        brokers = cluster.replicas("journal", 0)
        for broker in brokers:
            cluster.kill(broker)
        self._back_up(cluster, brokers)
        after_crash = len(self.client.read("journal", 0))
        self.facts["gap_s"] = (now(cluster) - self.last_write_ms) / 1000
        cluster.lose_power(*brokers)
        self._back_up(cluster, brokers)
        after_power_loss = len(self.client.read("journal", 0))
        self.expected = {"after-crash": after_crash, "after-power-loss": after_power_loss}
        lines = events_text(cluster, seq, EVENT_KINDS | {"node_lost_power"}, start)
        return lines + ["", f"the power failed {self.facts['gap_s']:.1f} s after the last record "
                            f"was acknowledged",
                        f"after the crash a consumer read {after_crash} records",
                        f"after the power cut a consumer read {after_power_loss} records"]

    def hints(self):
        return ["A write lands in the operating system's page cache; only a flush (fsync) puts it on "
                "the disk. A crashed process leaves the page cache to the operating system; a power "
                "cut empties it.",
                "Kafka flushes a log when flush.messages records were appended since the last "
                "flush (never, by default), when a segment rolls and at a clean shutdown."]

    def explain(self):
        flushed = self.expected["after-power-loss"]
        text = (f"acks=all means every in-sync replica appended the record, not that any of them "
                f"wrote it to disk. The crash killed the processes only: what they had written was "
                f"still in the operating system's page cache, so all "
                f"{self.expected['after-crash']} records were there after the restart. The power cut "
                f"took the page caches of all three machines at once, so each log came back as it was "
                f"at its last flush: {flushed} records. ")
        if self.flush_every is None:
            text += ("No flush had happened (Kafka's defaults never flush by count or time; the "
                     "segment had not rolled), so every acknowledged record was lost. ")
        else:
            text += (f"With flush.messages={self.flush_every} each replica flushed whenever "
                     f"{self.flush_every} records had been appended since its last flush; the "
                     f"{self.written - flushed} records after the last flush were lost. ")
        return text + ("Kafka's answer is replication across failure domains (racks, zones, with "
                       "broker.rack), not fsync: three replicas in one rack share one power supply.")
