"""Kafka 4.3.1's Java console consumer joins a sandbox group with the KIP-848 consumer protocol.

``--command-property group.protocol=consumer`` (4.3.1's name for the deprecated
``--consumer-property``) makes the Java consumer
heartbeat with ConsumerGroupHeartbeat (v1, a member id it made up itself)
instead of JoinGroup/SyncGroup; it reads every record of a 3-partition topic
and commits with its member epoch on close (OffsetCommit v10, topics by id).
The committed offsets are then read back with Kafka's own tool.
"""

from __future__ import annotations

import time

import pytest

from minikafka import Cluster
from tests.jvm.kafka_tools import lookalike, real

pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]

LINES = [f"line {n}" for n in range(30)]


@pytest.fixture(scope="module")
def cluster(kafka_classpath):
    with Cluster(brokers=3, controllers=1, seed=848) as running:
        running.create_topic("events", partitions=3, replication_factor=3)
        yield running


def test_console_consumer_with_the_consumer_protocol_reads_everything_and_commits(cluster):
    produced = real(cluster, "kafka-console-producer.sh --topic events",
                    stdin="".join(f"{line}\n" for line in LINES))
    assert produced.returncode == 0, produced.text
    consumed = real(cluster, f"kafka-console-consumer.sh --topic events --from-beginning "
                             f"--max-messages {len(LINES)} --group java-848 "
                             "--command-property group.protocol=consumer")
    assert consumed.returncode == 0, consumed.text
    assert consumed.errors.splitlines()[-1] == f"Processed a total of {len(LINES)} messages"
    assert sorted(consumed.stdout.splitlines()) == sorted(LINES)

    described = real(cluster, "kafka-consumer-groups.sh --describe --group java-848")
    table = [row.split() for row in described.stdout.strip().splitlines()]
    assert table[0][:6] == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG"]
    offsets = {int(row[2]): (int(row[3]), int(row[4])) for row in table[1:]}
    assert sorted(offsets) == [0, 1, 2]
    assert all(current == end for current, end in offsets.values())    # everything committed
    assert sum(end for _, end in offsets.values()) == len(LINES)

    listed = real(cluster, "kafka-groups.sh --list")
    assert listed.returncode == 0, listed.text
    rows = {row.split()[0]: row.split()[1:] for row in listed.stdout.strip().splitlines()[1:]}
    assert rows["java-848"] == ["Consumer", "consumer"], listed.stdout                   # not a classic group


def test_the_lookalikes_print_the_consumer_protocol_group_as_kafkas_tools_do(cluster):
    real(cluster, "kafka-console-producer.sh --topic events", stdin="x\n")
    consumed = real(cluster, "kafka-console-consumer.sh --topic events --from-beginning --max-messages 1 "
                             "--group java-848-b --command-property group.protocol=consumer")
    assert consumed.returncode == 0, consumed.text
    for command in (
                    "kafka-consumer-groups.sh --describe --group java-848-b",
                    "kafka-consumer-groups.sh --describe --group java-848-b --state",
                    "kafka-consumer-groups.sh --describe --group java-848-b --members"):
        mine, theirs = lookalike(cluster, command).text, real(cluster, command).text
        assert mine == theirs, f"{command}\n--- lookalike\n{mine}\n--- kafka\n{theirs}"


def test_the_lookalikes_describe_a_live_consumer_protocol_member_as_kafkas_tools_do(cluster):
    confluent_kafka = pytest.importorskip("confluent_kafka")
    member = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "live-848",
                                       "client.id": "tracker", "group.protocol": "consumer",
                                       "auto.offset.reset": "earliest"})
    try:
        member.subscribe(["events"])
        deadline = time.monotonic() + 30
        while len(member.assignment()) < 3:
            assert time.monotonic() < deadline, "the member got no assignment"
            member.poll(0.1)
        for command in ("kafka-consumer-groups.sh --describe --group live-848",
                        "kafka-consumer-groups.sh --describe --group live-848 --state",
                        "kafka-consumer-groups.sh --describe --group live-848 --members"):
            mine, theirs = lookalike(cluster, command).text, real(cluster, command).text
            assert mine == theirs, f"{command}\n--- lookalike\n{mine}\n--- kafka\n{theirs}"
        assert "tracker" in mine                              # the live member is listed
    finally:
        member.close()
