"""Differential scenarios: classic consumer groups joined by Kafka's Java consumer, offsets committed,
described (members, state, lag), reset and deleted with ``kafka-consumer-groups``."""

from __future__ import annotations

import contextlib
import functools
import time

import pytest

from minikafka.jvm import start_kafka_tool
from tests.oracle.sides import ToolRun

pytestmark = pytest.mark.slow

RECORDS = "".join(f"k{i}:v{i}\n" for i in range(6))


def fill(side, topic: str, partitions: int = 2) -> None:
    created = side.tool("kafka-topics", "--create", "--topic", topic, "--partitions", str(partitions))
    assert created.returncode == 0, created.text()
    side.tool("kafka-console-producer", "--topic", topic, "--property", "parse.key=true",
              "--property", "key.separator=:", input=RECORDS)


def consume(side, topic: str, group: str, count: int) -> ToolRun:
    """Kafka's console consumer in ``group`` reads ``count`` records, commits and leaves."""
    return side.tool("kafka-console-consumer", "--topic", topic, "--group", group, "--from-beginning",
                     "--max-messages", str(count), "--timeout-ms", "30000")


def groups_tool(side, *args: str) -> ToolRun:
    return side.tool("kafka-consumer-groups", *args)


@contextlib.contextmanager
def active_member(side, topic: str, group: str, protocol: str = "classic"):
    """Kafka's console consumer (``group.protocol`` ``protocol``) stays in ``group``, having read the six
    records of ``topic``, while the block runs; the group is Stable when it starts."""
    with start_kafka_tool("kafka-console-consumer", ["--bootstrap-server", side.bootstrap_servers, "--topic",
                                                    topic, "--group", group, "--from-beginning",
                                                    "--command-property", f"group.protocol={protocol}"],
                          quiet=True) as consumer:
        consumer.wait_for_output(r"(?s)(v\d.*){6}", timeout=60)
        side.wait_until(lambda: "Stable" in groups_tool(side, "--describe", "--group", group, "--state").stdout,
                        what=f"group {group} Stable")
        yield consumer


def test_commit_and_describe_an_empty_group(single):
    def scenario(side):
        fill(side, "g-orders")
        read = consume(side, "g-orders", "billing", 6)
        return {"consumed": f"exit {read.returncode}, {len(read.stdout.splitlines())} records",
                "list": groups_tool(side, "--list"),
                "describe": groups_tool(side, "--describe", "--group", "billing"),
                "state": groups_tool(side, "--describe", "--group", "billing", "--state"),
                "members": groups_tool(side, "--describe", "--group", "billing", "--members")}
    single.play("groups: commit, list and describe a group with no active member", scenario, area="groups")


def test_lag(single):
    def scenario(side):
        fill(side, "g-lag", 1)
        consume(side, "g-lag", "laggard", 2)
        side.tool("kafka-console-producer", "--topic", "g-lag", input="late-1\nlate-2\n")
        return groups_tool(side, "--describe", "--group", "laggard", "--offsets")
    single.play("groups: lag after more records arrive", scenario, area="groups")


def test_active_member(single):
    def scenario(side):
        fill(side, "g-live")
        with active_member(side, "g-live", "live"):
            described = {"describe": groups_tool(side, "--describe", "--group", "live"),
                         "members": groups_tool(side, "--describe", "--group", "live", "--members", "--verbose"),
                         "state": groups_tool(side, "--describe", "--group", "live", "--state", "--verbose"),
                         "delete while active": groups_tool(side, "--delete", "--group", "live")}
        return described
    single.play("groups: describe a group with an active member (members, assignment, state)", scenario,
                area="groups")


def test_consumer_protocol_member(single):
    def scenario(side):
        fill(side, "g-next")
        with active_member(side, "g-next", "next", protocol="consumer"):
            described = {"describe": groups_tool(side, "--describe", "--group", "next"),
                         "members": groups_tool(side, "--describe", "--group", "next", "--members", "--verbose"),
                         "state": groups_tool(side, "--describe", "--group", "next", "--state", "--verbose"),
                         "list": groups_tool(side, "--list", "--type"),
                         "delete while active": groups_tool(side, "--delete", "--group", "next")}
        # the console consumer was stopped with SIGTERM: its shutdown hook leaves the group (epoch -1)
        side.wait_until(lambda: "Empty" in groups_tool(side, "--describe", "--group", "next", "--state").stdout,
                        what="group next Empty once its member left")
        described["state after the member left"] = groups_tool(side, "--describe", "--group", "next", "--state",
                                                               "--verbose")
        described["members after the member left"] = groups_tool(side, "--describe", "--group", "next",
                                                                 "--members")
        described["offsets after the member left"] = groups_tool(side, "--describe", "--group", "next")
        return described
    single.play("groups: a consumer-protocol (KIP-848) member: describe (members, assignment, epochs, state), "
                "list with types, then the member leaves", scenario, area="groups")


def test_reset_offsets(single):
    def scenario(side):
        fill(side, "g-reset")
        consume(side, "g-reset", "rewind", 6)
        return {"dry run": groups_tool(side, "--reset-offsets", "--group", "rewind", "--topic", "g-reset",
                                       "--to-earliest", "--dry-run"),
                "execute": groups_tool(side, "--reset-offsets", "--group", "rewind", "--topic", "g-reset:0",
                                       "--to-offset", "1", "--execute"),
                "after": groups_tool(side, "--describe", "--group", "rewind", "--offsets")}
    single.play("groups: reset offsets (dry run, execute)", scenario, area="groups")


def test_delete_and_unknown_groups(single):
    def scenario(side):
        fill(side, "g-gone", 1)
        consume(side, "g-gone", "gone", 1)
        return {"delete": groups_tool(side, "--delete", "--group", "gone"),
                "delete again": groups_tool(side, "--delete", "--group", "gone"),
                "describe unknown": groups_tool(side, "--describe", "--group", "never-was"),
                "list": groups_tool(side, "--list")}
    single.play("groups: delete a group, and unknown groups", scenario, area="groups")


def test_kafka_python_group(single):
    def scenario(side):
        from kafka import KafkaConsumer, TopicPartition

        fill(side, "g-python", 2)
        consumer = KafkaConsumer("g-python", group_id="py", auto_offset_reset="earliest", enable_auto_commit=False,
                                 **side.client_options())
        try:
            seen: list[str] = []
            deadline = time.monotonic() + 30
            while len(seen) < 6 and time.monotonic() < deadline:
                for records in consumer.poll(timeout_ms=500).values():
                    seen.extend(record.value.decode() for record in records)
            seen.sort()
            consumer.commit()
            committed = {p: consumer.committed(TopicPartition("g-python", p)) for p in (0, 1)}
            assignment = sorted(tp.partition for tp in consumer.assignment())
        finally:
            consumer.close()
        return {"records": seen, "committed": committed, "assignment": assignment,
                "describe": groups_tool(side, "--describe", "--group", "py")}
    single.play("groups: a kafka-python consumer joins, reads and commits", scenario, area="groups")


def test_deleting_a_topic_deletes_its_committed_offsets(single):
    def scenario(side):
        fill(side, "g-doomed", 1)
        fill(side, "g-lasting", 1)
        consume(side, "g-doomed", "two-topics", 6)
        consume(side, "g-lasting", "two-topics", 6)
        before = groups_tool(side, "--describe", "--group", "two-topics", "--offsets")
        deleted = side.tool("kafka-topics", "--delete", "--topic", "g-doomed")
        # the coordinator deletes the offsets once its broker has the metadata: poll for it
        after = side.wait_until(
            lambda: (lambda run: run if "g-doomed" not in run.stdout else None)(
                groups_tool(side, "--describe", "--group", "two-topics", "--offsets")),
            timeout_s=30, what="the deleted topic's offsets gone")
        return {"before": before, "delete": deleted, "after": after}
    single.play("groups: deleting a topic deletes the groups' committed offsets for it", scenario, area="groups")


class LookalikePairs:
    """Kafka's ``kafka-consumer-groups`` and minikafka's look-alike run with the same arguments on one side:
    both outputs join the scenario's results, and `assert_same` then requires that on each side the
    look-alike printed what Kafka's tool printed."""

    def __init__(self):
        self.runs: list[tuple[str, str, str, str]] = []     # (side, label, Kafka's text, look-alike's text)

    def run(self, side, out: dict, label: str, *args: str) -> None:
        kafka, lookalike = groups_tool(side, *args), side.lookalike("kafka-consumer-groups", *args)
        out[f"{label}: kafka-consumer-groups"], out[f"{label}: minikafka consumer-groups"] = kafka, lookalike
        self.runs.append((side.name, label, kafka.text(), lookalike.text()))

    def assert_same(self) -> None:
        for side, label, kafka, lookalike in self.runs:
            assert lookalike == kafka, (f"{side}, {label}: minikafka's tool printed\n{lookalike}\n"
                                        f"Kafka's printed\n{kafka}")


def test_reset_offsets_lookalike(single):
    """minikafka's own ``consumer-groups --reset-offsets`` next to Kafka's tool, on each side: both tools print the
    same plan (dry run, no action, execute) and the same refusal for an active group; the sandbox's tool's commits
    show in Kafka's ``--describe``."""
    pairs = LookalikePairs()

    def scenario(side):
        fill(side, "g-rewind", 5)      # five partitions: row orders are not left to chance
        consume(side, "g-rewind", "rewinder", 6)
        out: dict[str, ToolRun] = {}

        both = functools.partial(pairs.run, side, out)

        reset = ("--reset-offsets", "--group", "rewinder", "--topic", "g-rewind")
        both("dry run, to earliest", *reset, "--to-earliest", "--dry-run")
        both("no action, shift by -2", *reset, "--shift-by", "-2")
        out["execute, shift by -2: minikafka"] = side.lookalike("kafka-consumer-groups", *reset, "--shift-by", "-2",
                                                                "--execute")
        out["described by kafka-consumer-groups"] = groups_tool(side, "--describe", "--group", "rewinder", "--offsets")
        both("execute, to earliest", *reset, "--to-earliest", "--execute")
        both("described after", "--describe", "--group", "rewinder", "--offsets")
        with active_member(side, "g-rewind", "rewind-live"):
            both("active group, execute", "--reset-offsets", "--group", "rewind-live", "--topic", "g-rewind",
                 "--to-earliest", "--execute")
        return out
    single.play("groups: minikafka's reset-offsets next to Kafka's (dry run, execute, active group refused)", scenario,
                area="groups")
    pairs.assert_same()


def test_delete_offsets(single):
    """Kafka's ``kafka-consumer-groups --delete-offsets`` on each side (an Empty group, an unknown topic and
    partition, an unknown group, an active member's subscribed topic and another topic), with minikafka's own
    tool run beside it and printing the same on each side."""
    pairs = LookalikePairs()

    def scenario(side):
        fill(side, "g-prune")
        fill(side, "g-other", 1)
        consume(side, "g-prune", "pruned", 6)
        out: dict[str, ToolRun] = {}

        both = functools.partial(pairs.run, side, out)

        out["described before"] = groups_tool(side, "--describe", "--group", "pruned", "--offsets")
        out["empty group, whole topic"] = groups_tool(side, "--delete-offsets", "--group", "pruned",
                                                      "--topic", "g-prune")
        out["described after"] = groups_tool(side, "--describe", "--group", "pruned", "--offsets")
        both("empty group, offsets already deleted", "--delete-offsets", "--group", "pruned", "--topic", "g-prune")
        both("unknown topic", "--delete-offsets", "--group", "pruned", "--topic", "g-nowhere")
        both("unknown partition", "--delete-offsets", "--group", "pruned", "--topic", "g-prune:0,7")
        both("unknown group", "--delete-offsets", "--group", "never-was", "--topic", "g-prune")
        with active_member(side, "g-prune", "busy"):
            both("active member subscribed to the topic", "--delete-offsets", "--group", "busy",
                 "--topic", "g-prune")
            # Succeeds only if the coordinator read the Java consumer's subscription (v3) right.
            both("active member, a topic it does not subscribe to", "--delete-offsets", "--group", "busy",
                 "--topic", "g-other")
        return out
    single.play("groups: delete offsets (Empty group, unknown topic and partition, unknown group, subscribed topic)",
                scenario, area="groups")
    pairs.assert_same()
