"""Four KIP-848 members share a 12-partition topic exactly once through a leave, a coordinator
kill and a Java member joining.

Four librdkafka consumers with ``group.protocol=consumer`` split the topic
(each partition owned by exactly one member) and commit every record right
after they handle it, retrying a commit the coordinator could not take, as an
application that wants each record once must.  Then, batch by batch, with the
members polling all the time:

1. the fourth member leaves (``close``): the three left get its partitions and
   go on from its committed offsets;
2. the broker that coordinates the group is killed: another broker loads the
   group from ``__consumer_offsets`` and the members keep their partitions;
3. Kafka 4.3.1's Java console consumer joins the same group with
   ``--command-property group.protocol=consumer``: the coordinator gives it a
   share of the partitions (taken from the others), it reads exactly the
   records written to its partitions after it joined, commits and leaves; the
   others take its partitions back from its offsets.

After every batch, each record has been handled by exactly one member, and
every record written has been handled.
"""

from __future__ import annotations

import threading
import time

import pytest

from minikafka import Cluster
from tests.e2e.groups_admin_helpers import produce_values
from tests.jvm.kafka_tools import real

confluent_kafka = pytest.importorskip("confluent_kafka")
pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]

TOPIC, PARTITIONS, GROUP = "ledger", 12, "quad-848"


def member(cluster: Cluster, name: str):
    consumer = confluent_kafka.Consumer({
        "bootstrap.servers": cluster.bootstrap_servers, "group.id": GROUP, "client.id": name,
        "group.protocol": "consumer", "auto.offset.reset": "earliest", "enable.auto.commit": False,
        "fetch.wait.max.ms": 100})
    consumer.subscribe([TOPIC])
    return consumer


def owned(consumer) -> set[int]:
    return {tp.partition for tp in consumer.assignment()}


def commit(consumer, message, deadline: float) -> None:
    """Commit past ``message``, retrying while the coordinator moves (as an application would)."""
    while True:
        try:
            consumer.commit(message=message, asynchronous=False)
            return
        except confluent_kafka.KafkaException as error:
            assert time.monotonic() < deadline, f"commit kept failing: {error}"
            time.sleep(0.1)


def poll_until(members: dict, done, what: str, seen: dict, timeout_s: float = 45.0) -> None:
    """Poll every member until ``done()``; each record handled goes to ``seen[value] -> [names]``."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        for name, consumer in members.items():
            message = consumer.poll(0.05)
            if message is None or message.error() is not None:
                continue
            seen.setdefault(message.value().decode(), []).append(name)
            commit(consumer, message, deadline)


def split_between(members: dict) -> bool:
    shares = [owned(c) for c in members.values()]
    return (all(shares) and sum(len(s) for s in shares) == PARTITIONS
            and set().union(*shares) == set(range(PARTITIONS)))


def write(cluster: Cluster, prefix: str, per_partition: int, partitions=range(PARTITIONS)) -> list[str]:
    values = [f"{prefix}-{p}-{i}" for p in partitions for i in range(per_partition)]
    for p in partitions:
        produce_values(cluster, TOPIC, [v.encode() for v in values if v.startswith(f"{prefix}-{p}-")],
                       partition=p)
    return values


def all_handled_once(seen: dict, written: list[str]) -> None:
    assert sorted(seen) == sorted(written)
    twice = {value: names for value, names in seen.items() if len(names) != 1}
    assert not twice, f"handled more than once: {twice}"


def test_four_members_share_the_topic_exactly_once_through_a_leave_a_coordinator_kill_and_a_java_member(
        kafka_classpath):
    from minikafka.coordinator.group_coordinator import partition_for
    cluster = Cluster(brokers=3, controllers=1, seed=4848).start()
    members: dict = {}
    seen: dict[str, list[str]] = {}
    written: list[str] = []
    try:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        members.update((name, member(cluster, name)) for name in "abcd")
        poll_until(members, lambda: split_between(members), "four members split the partitions", seen)
        written += write(cluster, "first", 5)
        poll_until(members, lambda: len(seen) == len(written), "the first batch handled", seen)
        all_handled_once(seen, written)

        members.pop("d").close()                                      # 1. a member leaves
        poll_until(members, lambda: split_between(members), "three members split the partitions", seen)
        written += write(cluster, "second", 5)
        poll_until(members, lambda: len(seen) == len(written), "the second batch handled", seen)
        all_handled_once(seen, written)

        offsets_partition = partition_for(GROUP, 50)                  # 2. the coordinator's broker dies
        old = cluster.leader("__consumer_offsets", offsets_partition)
        cluster.kill(old)
        poll_until(members, lambda: cluster.leader("__consumer_offsets", offsets_partition) not in (None, old),
                   "a new coordinator", seen)
        written += write(cluster, "third", 5)
        poll_until(members, lambda: len(seen) == len(written) and split_between(members),
                   "the third batch handled after the failover", seen)
        all_handled_once(seen, written)

        java: dict = {}                                               # 3. a Java member joins
        runner = threading.Thread(target=lambda: java.update(run=real(
            cluster, f"kafka-console-consumer.sh --topic {TOPIC} --group {GROUP} --timeout-ms 60000 "
                     f"--max-messages {3 * 4} --command-property group.protocol=consumer")))
        runner.start()
        try:
            poll_until(members, lambda: sum(len(owned(c)) for c in members.values()) < PARTITIONS,
                       "the Java member given partitions", seen, timeout_s=60)
            poll_until(members, lambda: sum(len(owned(c)) for c in members.values()) == PARTITIONS - 3,
                       "the three librdkafka members down to 9 partitions", seen, timeout_s=30)
            theirs = set(range(PARTITIONS)) - set().union(*(owned(c) for c in members.values()))
            java_values = write(cluster, "fourth", 4, sorted(theirs))
            ours = write(cluster, "fourth", 4, sorted(set(range(PARTITIONS)) - theirs))
            poll_until(members, lambda: "run" in java and all(v in seen for v in ours),
                       "the Java member done and the others' share handled", seen, timeout_s=90)
        finally:
            runner.join(timeout=120)
        run = java["run"]
        assert run.returncode == 0, run.text
        assert run.errors.splitlines()[-1] == "Processed a total of 12 messages", run.errors
        assert sorted(run.stdout.splitlines()) == sorted(java_values)  # only what came after it joined
        # the Java member committed and left: its partitions go back to the three, from its offsets
        poll_until(members, lambda: split_between(members), "the three members own everything again", seen)
        settle = time.monotonic() + 2
        poll_until(members, lambda: time.monotonic() > settle, "two more seconds of polling", seen)
        for value in java_values:
            seen.setdefault(value, []).append("java")
        written += java_values + ours
        all_handled_once(seen, written)
    finally:
        for consumer in members.values():
            consumer.close()
        cluster.stop()
