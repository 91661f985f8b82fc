"""Drills about consumer groups' committed offsets: a group that lags behind its topic.

Theory of operation
-------------------
`LaggingGroup` (fix, after lesson 05) runs on a live cluster (three brokers,
one controller), because the repair is done with real clients: a consumer
group's offsets are records in ``__consumer_offsets``, written by the group
coordinator when a client commits, and read back by ``OffsetFetch``.

* Setup: topic orders (2 to 4 partitions) holds a few records per
  partition; the billing service's consumer (kafka-python, group
  ``billing``) reads them, commits and leaves, so the group is Empty with
  its offsets at the end of each partition.
* Run: producers write a backlog (a seeded number of records per
  partition) while billing is down; group ``audit`` reads everything and
  commits, so it has no lag.  The group's LAG per partition (log end offset
  minus committed offset, what ``kafka-consumer-groups.sh --describe``
  prints) is now the backlog.
* The learner answers how many records billing has not processed (its
  total LAG), then repairs the group: either lets a consumer of the group
  process the backlog and commit (what an operator would rather do), or
  resets the group's offsets to the latest, which skips the backlog.
* Checks, computed from the cluster when graded: billing has a committed
  offset for every partition of orders, its total lag is 0, and the topic
  still holds every record written (deleting records or the topic is not a
  repair).  A repair of another group, or a consumer that reads without
  committing, leaves billing's lag where it was.

The reset can be done with the sandbox's ``kafka-consumer-groups.sh
--reset-offsets`` (through ``cluster.run_tool``), as with Kafka's, or with
kafka-python's ``KafkaAdminClient.reset_group_offsets``: both commit the new
offsets with the same ``OffsetCommit`` request (generation -1, no member)
that Kafka's ``Admin.alterConsumerGroupOffsets`` sends.
"""

from __future__ import annotations

import time

from minikafka.drills.client_drills import _quiet_kafka_python
from minikafka.drills.drill_client import DrillClient
from minikafka.drills.question import AFTER, Question
from minikafka.drills.scenario import Check, Scenario, expect_ok

TOPIC = "orders"


def read_and_commit(bootstrap: str, group: str, topic: str, records: int,
                    timeout_s: float = 30.0) -> int:
    """One kafka-python consumer of ``group`` reads ``topic`` until it has seen ``records``
    records, commits its position and leaves the group; how many records it read."""
    from kafka import KafkaConsumer
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                             client_id=f"{group}-1", auto_offset_reset="earliest",
                             enable_auto_commit=False)
    read, deadline = 0, time.monotonic() + timeout_s
    try:
        while read < records and time.monotonic() < deadline:
            read += sum(len(batch) for batch in consumer.poll(timeout_ms=200).values())
        consumer.commit()
    finally:
        consumer.close()
    if read < records:
        raise RuntimeError(f"group {group} read {read} of {records} records of {topic}")
    return read


def group_offsets(bootstrap: str, group: str, topic: str, partitions: int):
    """(committed offset or None, log end offset) per partition, as the brokers answer
    OffsetFetch and ListOffsets (what kafka-consumer-groups.sh --describe asks)."""
    from kafka import KafkaAdminClient, TopicPartition
    from kafka.admin import OffsetSpec
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="drill-check")
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        committed = admin.list_group_offsets({group: tps}).get(group, {})
        ends = admin.list_partition_offsets({tp: OffsetSpec.LATEST for tp in tps})
    finally:
        admin.close()
    found = {}
    for tp in tps:
        offset = committed.get(tp)
        known = offset is not None and offset.offset >= 0
        found[tp.partition] = (offset.offset if known else None, ends[tp].offset)
    return found


class LaggingGroup(Scenario):
    def setup(self, cluster):
        _quiet_kafka_python()
        self.partitions = self.rng.choice([2, 3, 4])
        self.processed = [self.rng.randint(3, 8) for _ in range(self.partitions)]
        self.backlog = [self.rng.randint(4, 12) for _ in range(self.partitions)]
        cluster.create_topic(TOPIC, partitions=self.partitions, replication_factor=3)
        self.client = DrillClient(cluster, "orders-service")
        for p, count in enumerate(self.processed):
            expect_ok(self.client.produce(TOPIC, p, [f"order {i}".encode() for i in range(count)]))
        read_and_commit(cluster.bootstrap_servers, "billing", TOPIC, sum(self.processed))

    def scene(self):
        return (f"Brokers 1, 2, 3 (live) and one controller; topic {TOPIC} has {self.partitions} "
                f"partitions. Group billing (the billing service's consumers) has read and "
                f"committed everything written so far, then its consumers stopped. When you run the "
                f"drill, producers keep writing to {TOPIC} while billing is down, and group audit "
                f"reads everything.\nLook with cluster.run_tool('kafka-consumer-groups.sh --list'), "
                f"cluster.run_tool('kafka-consumer-groups.sh --describe --group billing') and "
                f"kafka-python's KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers).")

    def questions(self):
        return [Question("lag", f"How many records of {TOPIC} has group billing not processed yet "
                         f"(its total LAG)?", "number", when=AFTER)]

    def task(self):
        return ("bring group billing's lag on orders to 0, keeping a committed offset for every "
                "partition and every record of orders. In real Kafka: start the group's consumers, "
                "or, if the backlog may be skipped, kafka-consumer-groups.sh --group billing "
                "--topic orders --reset-offsets --to-latest --execute, which the sandbox's tool "
                "does too (drill.cluster.run_tool('kafka-consumer-groups.sh ...'); try --dry-run "
                "first). From Python: kafka-python's KafkaConsumer(group_id='billing', ...) and "
                "commit(), or KafkaAdminClient(...).reset_group_offsets('billing', {TopicPartition"
                "('orders', p): OffsetSpec.LATEST, ...}) (from kafka.admin import OffsetSpec) on "
                "drill.cluster.bootstrap_servers. drill.check() shows how far you are.")

    def run(self, cluster):
        for p, count in enumerate(self.backlog):
            expect_ok(self.client.produce(TOPIC, p, [f"late order {i}".encode()
                                                     for i in range(count)]))
        self.written = sum(self.processed) + sum(self.backlog)
        read_and_commit(cluster.bootstrap_servers, "audit", TOPIC, self.written)
        offsets = group_offsets(cluster.bootstrap_servers, "billing", TOPIC, self.partitions)
        lag = sum(end - committed for committed, end in offsets.values())
        self.expected = {"lag": lag}
        self.facts["lag"] = lag
        return [f"Producers kept writing to {TOPIC} while group billing was down; group audit "
                f"read everything and committed.", "",
                "$ kafka-consumer-groups.sh --list",
                cluster.run_tool("kafka-consumer-groups.sh --list")]

    def checks(self, cluster):
        offsets = group_offsets(cluster.bootstrap_servers, "billing", TOPIC, self.partitions)
        committed = sum(c is not None for c, _ in offsets.values())
        lag = {str(p): end - c for p, (c, end) in offsets.items() if c is not None}
        ends = sum(end for _, end in offsets.values())
        return [
            Check("offsets-kept", f"billing has a committed offset for all {self.partitions} "
                  f"partitions of {TOPIC}", committed, self.partitions, committed == self.partitions,
                  guard=True),
            Check("no-lag", f"billing's LAG is 0 on every partition of {TOPIC}", lag,
                  "0 on each", committed == self.partitions and not any(lag.values())),
            Check("records-kept", f"{TOPIC} still ends at {self.written} records in all (log end "
                  f"offsets)", ends, self.written, ends == self.written, guard=True),
        ]

    def hints(self):
        return ["kafka-consumer-groups.sh --describe --group billing prints CURRENT-OFFSET, "
                "LOG-END-OFFSET and LAG per partition; billing has no active members.",
                "The lag falls only when the group commits new offsets: a consumer that reads "
                "without commit() changes nothing, and so does a repair of another group."]

    def explain(self):
        lag = self.facts["lag"]
        return (f"Group billing had committed offsets at the end of what it had read; the "
                f"{lag} records written since are its lag (LOG-END-OFFSET minus CURRENT-OFFSET, "
                f"summed over the partitions). The lag falls only when the group commits new "
                f"offsets. A consumer of the group that reads the backlog and commits processes "
                f"those {lag} records: that is what an operator would rather do, by restarting "
                f"the service's consumers, and adding consumers (up to {self.partitions}, one per "
                f"partition) if they cannot keep up. Resetting the offsets to the latest "
                f"(--reset-offsets --to-latest --execute, or reset_group_offsets with "
                f"OffsetSpec.LATEST) is instant but skips them: billing never processes those "
                f"{lag} orders, although they stay in the topic until retention deletes them. "
                f"Kafka resets only an inactive group (Empty, no members), and without --execute "
                f"the tool only prints the plan (a dry run). Deleting the group would drop its "
                f"offsets, and its next consumer would start from auto.offset.reset.")
