"""Differential scenarios: topics created, described, listed, altered, grown and deleted, and every bad input.

Each scenario runs Kafka's own ``kafka-topics`` / ``kafka-configs`` (4.3.1)
or a raw CreateTopics / CreatePartitions request against a real combined
node and against the sandbox's, and compares what comes back: the tools'
text, or each topic's error code and message.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

CREATE_TOPICS, CREATE_PARTITIONS, DELETE_TOPICS = 19, 37, 20


def create_raw(side, topics: list[dict], validate_only: bool = False) -> list[dict]:
    """CreateTopics v7; per topic: name, error code and message (and the counts when it worked)."""
    with side.raw() as connection:
        response = connection.request(CREATE_TOPICS, 7, topics=topics, timeout_ms=30_000,
                                      validate_only=validate_only)
    return [{key: topic[key] for key in ("name", "error_code", "error_message", "num_partitions",
                                          "replication_factor")} for topic in response["topics"]]


def topic(name: str, partitions: int = 1, replication_factor: int = 1, configs: dict | None = None,
          assignments: dict | None = None) -> dict:
    return {"name": name, "num_partitions": partitions, "replication_factor": replication_factor,
            "assignments": [{"partition_index": p, "broker_ids": ids} for p, ids in (assignments or {}).items()],
            "configs": [{"name": k, "value": v} for k, v in (configs or {}).items()]}


def test_create_and_describe(single):
    def scenario(side):
        return {"create": side.tool("kafka-topics", "--create", "--topic", "orders", "--partitions", "3",
                                    "--replication-factor", "1"),
                "describe": side.tool("kafka-topics", "--describe", "--topic", "orders")}
    single.play("topics: create and describe", scenario, area="topics")


def test_create_with_configs_and_describe(single):
    def scenario(side):
        return {"create": side.tool("kafka-topics", "--create", "--topic", "audit", "--partitions", "2",
                                    "--config", "retention.ms=3600000", "--config", "cleanup.policy=compact"),
                "describe": side.tool("kafka-topics", "--describe", "--topic", "audit")}
    single.play("topics: create with --config and describe", scenario, area="topics")


def test_list(single):
    def scenario(side):
        side.tool("kafka-topics", "--create", "--topic", "list-b", "--partitions", "1")
        side.tool("kafka-topics", "--create", "--topic", "list-a", "--partitions", "1")
        return side.tool("kafka-topics", "--list")
    single.play("topics: list", scenario, area="topics")


def test_alter_config(single):
    def scenario(side):
        side.tool("kafka-topics", "--create", "--topic", "alter-me", "--partitions", "1")
        return {"alter": side.tool("kafka-configs", "--alter", "--entity-type", "topics", "--entity-name",
                                   "alter-me", "--add-config", "retention.ms=1000,segment.bytes=2000000"),
                "delete-config": side.tool("kafka-configs", "--alter", "--entity-type", "topics", "--entity-name",
                                           "alter-me", "--delete-config", "segment.bytes"),
                "describe": side.tool("kafka-configs", "--describe", "--entity-type", "topics",
                                      "--entity-name", "alter-me"),
                "topics": side.tool("kafka-topics", "--describe", "--topic", "alter-me")}
    single.play("topics: alter configs", scenario, area="topics")


def test_add_partitions(single):
    def scenario(side):
        side.tool("kafka-topics", "--create", "--topic", "grow", "--partitions", "2")
        return {"alter": side.tool("kafka-topics", "--alter", "--topic", "grow", "--partitions", "5"),
                "describe": side.tool("kafka-topics", "--describe", "--topic", "grow")}
    single.play("topics: add partitions", scenario, area="topics")


def test_delete(single):
    def scenario(side):
        side.tool("kafka-topics", "--create", "--topic", "doomed", "--partitions", "1")
        deleted = side.tool("kafka-topics", "--delete", "--topic", "doomed")
        side.wait_until(lambda: "doomed" not in side.tool("kafka-topics", "--list").stdout.split(),
                        what="doomed gone")
        return {"delete": deleted,
                "describe-after": side.tool("kafka-topics", "--describe", "--topic", "doomed"),
                "delete-again": side.tool("kafka-topics", "--delete", "--topic", "doomed")}
    single.play("topics: delete", scenario, area="topics")


BAD_NAMES = ["bad/name", "bad name", "ünicode", "x" * 250, ".", "..", ""]


def test_bad_names(single):
    def scenario(side):
        return create_raw(side, [topic(name) for name in BAD_NAMES])
    single.play("topics: illegal, too long, '.', '..' and empty names (CreateTopics)", scenario, area="topics")


def test_bad_names_with_the_tool(single):
    def scenario(side):
        return {name or "(empty)": side.tool("kafka-topics", "--create", "--topic", name)
                for name in ["bad/name", "x" * 250, ".."]}
    single.play("topics: bad names with kafka-topics", scenario, area="topics")


def test_bad_counts(single):
    def scenario(side):
        return create_raw(side, [topic("rf-too-big", 1, 2), topic("zero-partitions", 0, 1),
                                 topic("negative-partitions", -2, 1), topic("zero-rf", 1, 0),
                                 topic("negative-rf", 1, -2), topic("defaults", -1, -1)], validate_only=True)
    single.play("topics: replication factor and partition counts (CreateTopics)", scenario, area="topics")


def test_bad_counts_with_the_tool(single):
    def scenario(side):
        return {"rf": side.tool("kafka-topics", "--create", "--topic", "rf-3", "--replication-factor", "3"),
                "partitions": side.tool("kafka-topics", "--create", "--topic", "p-0", "--partitions", "0")}
    single.play("topics: replication factor and partitions with kafka-topics", scenario, area="topics")


def test_bad_configs(single):
    def scenario(side):
        return create_raw(side, [topic("unknown-config", configs={"no.such.config": "1"}),
                                 topic("bad-number", configs={"retention.ms": "soon"}),
                                 topic("bad-choice", configs={"cleanup.policy": "sometimes"}),
                                 topic("out-of-range", configs={"min.insync.replicas": "0"}),
                                 topic("small-segment", configs={"segment.bytes": "100"}),
                                 topic("null-value", configs={"retention.ms": None})], validate_only=True)
    single.play("topics: unknown and invalid configs (CreateTopics)", scenario, area="topics")


def test_bad_configs_with_the_tool(single):
    def scenario(side):
        return {"unknown": side.tool("kafka-topics", "--create", "--topic", "c1", "--config", "no.such=1"),
                "invalid": side.tool("kafka-topics", "--create", "--topic", "c2", "--config",
                                     "cleanup.policy=sometimes"),
                "alter-unknown": side.tool("kafka-configs", "--alter", "--entity-type", "topics", "--entity-name",
                                           "orders", "--add-config", "no.such=1"),
                "alter-invalid": side.tool("kafka-configs", "--alter", "--entity-type", "topics",
                                           "--entity-name", "orders", "--add-config", "retention.ms=soon")}
    single.play("topics: bad configs with kafka-topics and kafka-configs", scenario, area="topics")


def test_existing_and_colliding(single):
    def scenario(side):
        side.tool("kafka-topics", "--create", "--topic", "dup.name")
        return {"raw": create_raw(side, [topic("dup.name"), topic("dup_name"), topic("twice"), topic("twice")]),
                "tool": side.tool("kafka-topics", "--create", "--topic", "dup.name"),
                "if-not-exists": side.tool("kafka-topics", "--create", "--topic", "dup.name", "--if-not-exists")}
    single.play("topics: existing, colliding and duplicated names", scenario, area="topics")


def test_shrinking_and_bad_partition_changes(single):
    def scenario(side):
        side.tool("kafka-topics", "--create", "--topic", "three", "--partitions", "3")
        with side.raw() as connection:
            raw = connection.request(CREATE_PARTITIONS, 3, timeout_ms=30_000, validate_only=True, topics=[
                {"name": "three", "count": 2, "assignments": None},
                {"name": "missing", "count": 4, "assignments": None}])["results"]
            same = connection.request(CREATE_PARTITIONS, 3, timeout_ms=30_000, validate_only=True, topics=[
                {"name": "three", "count": 3, "assignments": None}])["results"]
            bad_broker = connection.request(CREATE_PARTITIONS, 3, timeout_ms=30_000, validate_only=True, topics=[
                {"name": "three", "count": 4, "assignments": [{"broker_ids": [7]}]}])["results"]
        return {"raw": raw + same + bad_broker,
                "tool-shrink": side.tool("kafka-topics", "--alter", "--topic", "three", "--partitions", "2"),
                "tool-missing": side.tool("kafka-topics", "--alter", "--topic", "missing", "--partitions", "2")}
    single.play("topics: shrinking, unchanged and unknown partition changes", scenario, area="topics")


def test_describe_unknown_topic(single):
    def scenario(side):
        return {"describe": side.tool("kafka-topics", "--describe", "--topic", "nowhere"),
                "configs": side.tool("kafka-configs", "--describe", "--entity-type", "topics",
                                     "--entity-name", "nowhere")}
    single.play("topics: describe an unknown topic", scenario, area="topics")
