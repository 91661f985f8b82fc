"""Kafka 4.3.1's Java console consumer joins a sandbox group with the KIP-848 consumer protocol.

``--command-property group.protocol=consumer`` (4.3.1's name for the deprecated
``--consumer-property``) makes the Java consumer
heartbeat with ConsumerGroupHeartbeat (v1, a member id it made up itself)
instead of JoinGroup/SyncGroup; it reads every record of a 3-partition topic
and commits with its member epoch on close (OffsetCommit v10, topics by id).
The committed offsets are then read back with Kafka's own tool.  The sandbox's
look-alikes of ``kafka-consumer-groups`` (``--describe`` with ``--members``,
``--state``, ``--verbose``) and ``kafka-groups --list`` (with each filter, and
its refusals of bad options) print what Kafka's own tools print for the same
live groups.
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
                        "kafka-consumer-groups.sh --describe --group live-848 --members",
                        # epochs, current and target assignments: ConsumerGroupDescribe's fields
                        "kafka-consumer-groups.sh --describe --group live-848 --state --verbose",
                        "kafka-consumer-groups.sh --describe --group live-848 --members --verbose"):
            mine, theirs = lookalike(cluster, command).text, real(cluster, command).text
            assert mine == theirs, f"{command}\n--- lookalike\n{mine}\n--- kafka\n{theirs}"
        assert "tracker" in mine and "CURRENT-EPOCH" in mine   # the live member is listed, with its epochs
        for command in ("kafka-groups.sh --list", "kafka-groups.sh --list --consumer",
                        "kafka-groups.sh --list --group-type Consumer",
                        "kafka-groups.sh --list --group-type classic --protocol consumer",
                        "kafka-groups.sh --list --protocol consumer", "kafka-groups.sh --list --share",
                        "kafka-groups.sh --list --streams"):
            mine_run, theirs_run = lookalike(cluster, command), real(cluster, command)
            # Each broker lists its own groups and the admin client keeps them in the order the answers
            # arrive: the header and exit code must match, the rows as a set.
            mine_lines, theirs_lines = mine_run.stdout.splitlines(), theirs_run.stdout.splitlines()
            assert (mine_run.returncode, mine_lines[:1], sorted(mine_lines[1:]), mine_run.errors) == \
                (theirs_run.returncode, theirs_lines[:1], sorted(theirs_lines[1:]), theirs_run.errors), \
                f"{command}\n--- lookalike\n{mine_run.text}\n--- kafka\n{theirs_run.text}"
        assert any(line.startswith("live-848 ") for line in mine_lines) is False     # --streams: none
    finally:
        member.close()


@pytest.mark.parametrize("args", [
    "--list --group-type bogus",                  # IllegalArgumentException out of the tool
    "",                                           # no action
    "--list --consumer --share",
    "--list --streams --group-type streams",
    "--list --no-such-option",
])
def test_kafka_groups_refuses_bad_options_as_kafka_does(cluster, args):
    """Exit code and the tool's own first line of error (the option table after a usage error is laid out by
    jopt-simple's formatter, which the look-alike only approximates)."""
    command = f"kafka-groups.sh {args}"
    mine, theirs = lookalike(cluster, command), real(cluster, command)
    assert (mine.returncode, mine.stdout, mine.errors.splitlines()[:1]) == \
        (theirs.returncode, theirs.stdout, theirs.errors.splitlines()[:1]), \
        f"{command}\n--- lookalike\n{mine.text}\n--- kafka\n{theirs.text}"
