"""Kafka's Java client against a live sandbox cluster, driven through Kafka 4.3.1's own client tools.

The console producer and consumer (keys, a consumer group and its committed
offsets), the producer and consumer performance tools (the counts they
report), and the delivery check of Kafka's system tests: VerifiableProducer
(idempotent, acks=all) and VerifiableConsumer (a group committing after every
poll) while partition leaders and the group coordinator are killed and
restarted.  Every expectation comes from what the tools printed and what the
cluster holds; no speed is asserted (``benchmarks/bench_java_perf.py``
measures that).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from minikafka import Cluster
from minikafka.coordinator.group_coordinator import partition_for
from minikafka.jvm import running_processes, start_kafka_tool
from tests.jvm.kafka_tools import lookalike, real
from tests.jvm.verifiable_events import consumer_report, count, events, producer_report
from tests.waiting import eventually

pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]


@pytest.fixture(scope="module")
def cluster(kafka_classpath):
    with Cluster(brokers=3, controllers=3, seed=1202) as running:
        for topic in ("lines", "perf"):
            running.create_topic(topic, partitions=3, replication_factor=3, config={"min.insync.replicas": 2})
        yield running


def high_watermarks(cluster: Cluster, topic: str) -> dict[int, int]:
    """Each partition's high watermark, as its leader reports it."""
    (snapshot,) = [t for t in cluster.snapshot().topics if t.name == topic]
    return {p.partition: next(r.high_watermark for r in p.replica_states if r.is_leader)
            for p in snapshot.partitions}


# ---------------------------------------------------------------- console producer and consumer
LINES = [f"user-{n % 7}:order {n}" for n in range(40)]  # keys repeat: each key's orders share a partition


def test_console_producer_and_consumer_carry_keyed_lines_and_commit_the_group(cluster):
    produced = real(cluster, "kafka-console-producer.sh --topic lines --reader-property parse.key=true "
                             "--reader-property key.separator=:", stdin="".join(f"{line}\n" for line in LINES))
    assert (produced.returncode, produced.text) == (0, "")
    consumed = real(cluster, f"kafka-console-consumer.sh --topic lines --from-beginning --max-messages {len(LINES)} "
                             "--group billing --formatter-property print.key=true "
                             "--formatter-property print.partition=true --formatter-property print.offset=true")
    assert consumed.returncode == 0
    assert consumed.errors.splitlines()[-1] == f"Processed a total of {len(LINES)} messages"
    rows = [re.fullmatch(r"Partition:(\d+)\tOffset:(\d+)\t([^\t]*)\t(.*)", row).groups()
            for row in consumed.stdout.splitlines()]
    assert sorted(f"{key}:{value}" for _, _, key, value in rows) == sorted(LINES)
    partitions: dict[int, list[tuple[int, str]]] = {}
    for partition, offset, key, value in rows:
        partitions.setdefault(int(partition), []).append((int(offset), f"{key}:{value}"))
    for partition, entries in partitions.items():
        offsets = [offset for offset, _ in entries]
        assert offsets == list(range(len(entries)))  # every offset once, in order, from 0
        in_partition = [line for _, line in entries]
        assert in_partition == [line for line in LINES if line in in_partition]  # the order they were typed
    assert Counter(key for _, _, key, _ in rows) == Counter(line.split(":")[0] for line in LINES)
    assert len({(key, partition) for partition, _, key, _ in rows}) == 7  # a key always lands in one partition

    described = real(cluster, "kafka-consumer-groups.sh --describe --group billing")
    assert described.errors.strip() == "Consumer group 'billing' has no active members."
    table = [row.split() for row in described.stdout.strip().splitlines()]
    assert table[0][:6] == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG"]
    assert {int(row[2]): (int(row[3]), int(row[4]), row[5]) for row in table[1:]} == {
        p: (len(partitions.get(p, [])), len(partitions.get(p, [])), "0") for p in range(3)}  # empty ones at 0
    assert described.text == lookalike(cluster, "kafka-consumer-groups.sh --describe --group billing").text


def test_console_consumer_reads_one_partition_from_an_offset(cluster):
    cluster.create_topic("journal", partitions=1, replication_factor=3)
    entries = [f"entry {n}" for n in range(10)]
    produced = real(cluster, "kafka-console-producer.sh --topic journal", stdin="".join(f"{e}\n" for e in entries))
    assert produced.returncode == 0
    consumed = real(cluster, "kafka-console-consumer.sh --topic journal --partition 0 --offset 4 --max-messages 3 "
                             "--formatter-property print.offset=true")
    assert consumed.returncode == 0
    assert consumed.stdout.splitlines() == [f"Offset:{n}\t{entries[n]}" for n in (4, 5, 6)]
    assert high_watermarks(cluster, "journal") == {0: len(entries)}


# ---------------------------------------------------------------- performance tools
PRODUCER_SUMMARY = re.compile(
    r"(\d+) records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency, [\d.]+ ms max latency, "
    r"\d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.")
CONSUMER_COLUMNS = ["start.time", "end.time", "data.consumed.in.MB", "MB.sec", "data.consumed.in.nMsg",
                    "nMsg.sec", "rebalance.time.ms", "fetch.time.ms", "fetch.MB.sec", "fetch.nMsg.sec"]


def test_producer_and_consumer_performance_tools_move_the_records_asked_for(cluster):
    records, size = 20_000, 100
    produced = real(cluster, f"kafka-producer-perf-test.sh --topic perf --num-records {records} --record-size {size} "
                             f"--throughput -1 --command-property acks=all")
    assert produced.returncode == 0, produced.errors
    summary = PRODUCER_SUMMARY.fullmatch(produced.stdout.splitlines()[-1])
    assert summary, produced.stdout
    assert int(summary.group(1)) == records
    assert sum(high_watermarks(cluster, "perf").values()) == records  # every record acknowledged and committed

    consumed = real(cluster, f"kafka-consumer-perf-test.sh --topic perf --num-records {records}")
    assert consumed.returncode == 0, consumed.errors
    header, row = consumed.stdout.splitlines()
    assert header.split(", ") == CONSUMER_COLUMNS
    values = dict(zip(CONSUMER_COLUMNS, row.split(", ")))
    assert int(values["data.consumed.in.nMsg"]) == records
    assert values["data.consumed.in.MB"] == f"{records * size / 1024 / 1024:.4f}"


# ---------------------------------------------------------------- delivery through leader kills
MESSAGES, THROUGHPUT = 10_000, 400  # 25 s of sending: three kills take about 11 s of it here
# Keys "0".."5" go to partitions 2, 0, 2, 2, 1, 0 (murmur2), so every partition takes records all the
# time; without keys the sticky partitioner feeds one partition for over a thousand records at a time.
REPEATING_KEYS = 6
IDEMPOTENT = ("enable.idempotence=true\n"
              "retries=2147483647\n"       # the tool sets retries=0, which idempotence refuses
              "max.in.flight.requests.per.connection=5\n")


@pytest.fixture
def delivery_cluster(kafka_classpath):
    # No initial rebalance delay for an empty group, as in Kafka's own integration tests: each
    # VerifiableConsumer joins 3 s sooner.
    with Cluster(brokers=3, controllers=3, seed=1203, broker_config={"group.initial.rebalance.delay.ms": 0}) as c:
        c.create_topic("verified", partitions=3, replication_factor=3, config={"min.insync.replicas": 2})
        yield c


def kill_leader_and_restart(cluster: Cluster, topic: str, partition: int, progress) -> int:
    """Kill the leader of ``topic-partition``; once another broker leads and ``progress()`` holds,
    restart it and wait until every replica of every partition is back in sync.  The victim."""
    victim = cluster.leader(topic, partition)
    cluster.kill(victim)
    eventually(lambda: cluster.leader(topic, partition) not in (None, victim), timeout_s=30,
               what=f"a new leader for {topic}-{partition}")
    eventually(progress, timeout_s=60, what=f"the clients to move on after broker {victim} died")
    cluster.restart(victim)
    eventually(lambda: not any(p.under_replicated for t in cluster.snapshot().topics for p in t.partitions),
               timeout_s=60, what=f"broker {victim} to rejoin every ISR")
    return victim


def test_verifiable_producer_and_consumer_lose_and_duplicate_nothing_through_leader_kills(delivery_cluster,
                                                                                       tmp_path):
    c = delivery_cluster
    config = tmp_path / "producer.properties"
    config.write_text(IDEMPOTENT)
    group = "auditors"
    consumer_args = ["--bootstrap-server", c.bootstrap_servers, "--topic", "verified", "--group-id", group,
                     "--verbose"]
    producer = start_kafka_tool("kafka-verifiable-producer", [
        "--bootstrap-server", c.bootstrap_servers, "--topic", "verified", "--max-messages", str(MESSAGES),
        "--throughput", str(THROUGHPUT), "--repeating-keys", str(REPEATING_KEYS), "--acks", "-1",
        "--command-config", str(config)], quiet=True)
    first = start_kafka_tool("kafka-verifiable-consumer", consumer_args, quiet=True)
    second = None
    try:
        acked = lambda partition=None: count(producer, "producer_send_success", partition)  # noqa: E731
        consumed = lambda consumer, partition=None: count(consumer, "record_data", partition)  # noqa: E731
        # 1. The leader of partition 0 dies while the producer sends and the first consumer reads;
        #    both go on with partition 0 at its new leader.
        eventually(lambda: acked() >= 200 and consumed(first) > 0, timeout_s=60,
                   what="the producer and the first consumer to be under way")
        before = (acked(0), consumed(first, 0))
        kill_leader_and_restart(c, "verified", 0,
                                lambda: acked(0) > before[0] + 50 and consumed(first, 0) > before[1])
        # 2. The first consumer leaves (committing); the group coordinator dies; a second consumer
        #    joins the group while the coordinator moves, and goes on from the committed offsets.
        first.stop()
        offsets_partition = partition_for(group, len(_partitions(c, "__consumer_offsets")))  # the coordinator's
        second = start_kafka_tool("kafka-verifiable-consumer", consumer_args, quiet=True)
        before = (acked(), 0)
        kill_leader_and_restart(c, "__consumer_offsets", offsets_partition,
                                lambda: acked() > before[0] + 200 and consumed(second) > 0)
        # 3. The leader of partition 1 dies while the second consumer reads.
        before = (acked(1), consumed(second, 1))
        kill_leader_and_restart(c, "verified", 1,
                                lambda: acked(1) > before[0] + 50 and consumed(second, 1) > before[1])
        assert producer.wait(timeout=120) == 0, producer.stderr()[-3000:]
        sent = producer_report(events(producer))
        eventually(lambda: consumed(first) + consumed(second) >= len(sent.acked), timeout_s=60,
                   what="the second consumer to read everything acknowledged")
    finally:
        for process in (producer, first, second):
            if process is not None:
                process.stop()
    assert running_processes() == []

    # The producer: every value acknowledged exactly once, at its own offset; no send given up.
    assert sent.errors == [] and sent.acked_more_than_once == []
    assert set(sent.acked) == {str(n) for n in range(MESSAGES)}
    assert (sent.tool_data["sent"], sent.tool_data["acked"]) == (MESSAGES, MESSAGES)
    assert len(set(sent.acked.values())) == MESSAGES
    assert len({(key, p) for key, p, _ in sent.acked.values()}) == REPEATING_KEYS  # a key stays in its partition
    assert high_watermarks(c, "verified") == {p: 1 + max(o for _, q, o in sent.acked.values() if q == p)
                                              for p in range(3)}
    # The consumers: together every acknowledged value once, each where the producer was told it is.
    reports = [consumer_report(events(consumer)) for consumer in (first, second)]
    records = [record for report in reports for record in report.records]
    assert Counter(records) == Counter((value, *place) for value, place in sent.acked.items())
    for report in reports:
        assert report.failed_commits == [] and report.names["shutdown_complete"] == 1
    # The second consumer began exactly where the first committed (at the start where it had not
    # committed), and between them the group committed the end of every partition.
    ends = high_watermarks(c, "verified")
    starts = {p: reports[0].committed.get(p, 0) for p in range(3)}
    assert reports[1].first_offsets == {p: start for p, start in starts.items() if start < ends[p]}
    assert {**reports[0].committed, **reports[1].committed} == ends


def _partitions(cluster: Cluster, topic: str) -> list[int]:
    (snapshot,) = [t for t in cluster.snapshot().topics if t.name == topic]
    return [p.partition for p in snapshot.partitions]
