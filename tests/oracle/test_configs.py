"""Differential scenarios: DescribeConfigs of a topic and a broker (values, sources, synonyms, read-only
flags), IncrementalAlterConfigs (good and bad), and the defaults both clusters report."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS = 32, 44
TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def describe_raw(side, resource_type: int, name: str, keys=None, documentation: bool = False,
                 by_name: bool = False) -> list[dict]:
    """DescribeConfigs v4 with synonyms; ``by_name`` sorts each result's entries (to compare content
    where the order is not the point)."""
    with side.raw() as connection:
        response = connection.request(DESCRIBE_CONFIGS, 4, include_synonyms=True,
                                      include_documentation=documentation,
                                      resources=[{"resource_type": resource_type, "resource_name": name,
                                                  "configuration_keys": keys}])
    results = response["results"]
    if by_name:
        for result in results:
            result["configs"].sort(key=lambda entry: entry["name"])
    return results


def alter_raw(side, resources: list[tuple[int, str, list[tuple[str, int, str | None]]]],
              validate_only: bool = False) -> list[dict]:
    with side.raw() as connection:
        response = connection.request(INCREMENTAL_ALTER_CONFIGS, 1, validate_only=validate_only, resources=[
            {"resource_type": kind, "resource_name": name,
             "configs": [{"name": k, "config_operation": op, "value": v} for k, op, v in configs]}
            for kind, name, configs in resources])
    return response["responses"]


def create(side, name: str, *configs: str) -> None:
    args = [arg for config in configs for arg in ("--config", config)]
    result = side.tool("kafka-topics", "--create", "--topic", name, "--partitions", "1", *args)
    assert result.returncode == 0, result.text()


def test_topic_describe_all(single):
    def scenario(side):
        create(side, "configs-all", "retention.ms=86400000")
        return side.tool("kafka-configs", "--describe", "--entity-type", "topics", "--entity-name", "configs-all",
                         "--all")
    single.play("configs: kafka-configs --describe --all of a topic", scenario, area="configs")


def test_topic_describe_configs_raw(single):
    def scenario(side):
        create(side, "configs-raw", "retention.ms=86400000", "cleanup.policy=compact,delete")
        return describe_raw(side, TOPIC, "configs-raw")
    single.play("configs: DescribeConfigs of a topic (order, values, sources, synonyms, types)", scenario,
                area="configs")


def test_topic_describe_configs_documentation(single):
    def scenario(side):
        return describe_raw(side, TOPIC, "configs-raw", ["retention.ms"], documentation=True)
    single.play("configs: DescribeConfigs with documentation", scenario, area="configs")


def test_broker_describe_tool(single):
    def scenario(side):
        return {"dynamic": side.tool("kafka-configs", "--describe", "--entity-type", "brokers", "--entity-name", "1"),
                "default": side.tool("kafka-configs", "--describe", "--entity-type", "brokers", "--entity-default")}
    single.play("configs: kafka-configs --describe of a broker and the broker default", scenario, area="configs")


def test_broker_describe_all(single):
    def scenario(side):
        return side.tool("kafka-configs", "--describe", "--entity-type", "brokers", "--entity-name", "1", "--all")
    single.play("configs: kafka-configs --describe --all of a broker", scenario, area="configs")


def test_broker_describe_configs_raw(single):
    keys = ["log.retention.hours", "log.retention.ms", "log.segment.bytes", "min.insync.replicas",
            "num.partitions", "default.replication.factor", "offsets.topic.replication.factor", "node.id",
            "process.roles", "log.dirs", "listeners", "advertised.listeners", "auto.create.topics.enable",
            "unclean.leader.election.enable", "message.max.bytes", "broker.session.timeout.ms",
            "replica.lag.time.max.ms", "controller.quorum.voters", "group.initial.rebalance.delay.ms",
            "log.cleaner.enable", "no.such.key"]

    def scenario(side):
        return describe_raw(side, BROKER, "1", keys, by_name=True)
    single.play("configs: DescribeConfigs of a broker (chosen keys, read-only flags, synonyms)", scenario,
                area="configs")


def test_incremental_alter(single):
    def scenario(side):
        create(side, "incremental", "cleanup.policy=delete", "retention.ms=1000")
        results = alter_raw(side, [(TOPIC, "incremental", [("cleanup.policy", APPEND, "compact"),
                                                           ("retention.ms", DELETE, None),
                                                           ("max.message.bytes", SET, "2000000")])])
        # The answer comes once the controller has the change; the broker describes it a moment later.
        side.wait_until(lambda: value(side, "incremental", "max.message.bytes") == "2000000", what="SET applied")
        after = describe_raw(side, TOPIC, "incremental", ["cleanup.policy", "retention.ms", "max.message.bytes"])
        results += alter_raw(side, [(TOPIC, "incremental", [("cleanup.policy", SUBTRACT, "delete")])])
        side.wait_until(lambda: value(side, "incremental", "cleanup.policy") != "delete,compact",
                        what="SUBTRACT applied")
        after += describe_raw(side, TOPIC, "incremental", ["cleanup.policy"])
        return {"responses": results, "after": after}
    single.play("configs: IncrementalAlterConfigs SET, DELETE, APPEND, SUBTRACT", scenario, area="configs")


def test_incremental_alter_bad_input(single):
    def scenario(side):
        create(side, "alter-bad")
        cases = [[(TOPIC, "alter-bad", [("no.such.config", SET, "1")])],
                 [(TOPIC, "alter-bad", [("retention.ms", SET, "soon")])],
                 [(TOPIC, "alter-bad", [("retention.ms", APPEND, "5")])],
                 [(TOPIC, "alter-bad", [("retention.ms", SET, "5"), ("retention.ms", SET, "6")])],
                 [(TOPIC, "alter-bad", [("min.insync.replicas", SET, "0")])],
                 [(TOPIC, "no-such-topic", [("retention.ms", SET, "5")])],
                 [(TOPIC, "", [("retention.ms", SET, "5")])],
                 [(BROKER, "1", [("log.dirs", SET, "/elsewhere")])],
                 [(BROKER, "7", [("log.retention.ms", SET, "5")])],
                 [(BROKER, "one", [("log.retention.ms", SET, "5")])]]
        return [alter_raw(side, case, validate_only=True) for case in cases]
    single.play("configs: IncrementalAlterConfigs bad input (unknown, invalid, duplicate, read-only, unknown "
                "resource)", scenario, area="configs")


def test_cluster_default_and_synonyms(single):
    def scenario(side):
        create(side, "inherits")
        alter = side.tool("kafka-configs", "--alter", "--entity-type", "brokers", "--entity-default",
                          "--add-config", "log.retention.ms=7200000")
        # The tool returns once the controller has the change; the broker answers with it a moment later.
        side.wait_until(lambda: retention(side) == "7200000", what="the broker applies the cluster default")
        described = describe_raw(side, TOPIC, "inherits", ["retention.ms"])
        broker = describe_raw(side, BROKER, "1", ["log.retention.ms"])
        side.tool("kafka-configs", "--alter", "--entity-type", "brokers", "--entity-default", "--delete-config",
                  "log.retention.ms")
        side.wait_until(lambda: retention(side) != "7200000", what="the broker drops the cluster default")
        return {"alter": alter, "topic": described, "broker": broker,
                "after-delete": describe_raw(side, TOPIC, "inherits", ["retention.ms"])}
    single.play("configs: a cluster-wide default and the synonyms a topic shows", scenario, area="configs")


def value(side, topic: str, name: str) -> str:
    """The value a broker describes for one config of ``topic`` now."""
    return describe_raw(side, TOPIC, topic, [name])[0]["configs"][0]["value"]


def retention(side) -> str:
    return value(side, "inherits", "retention.ms")


def test_delete_absent_config(single):
    def scenario(side):
        create(side, "nothing-to-delete")
        return side.tool("kafka-configs", "--alter", "--entity-type", "topics", "--entity-name", "nothing-to-delete",
                         "--delete-config", "retention.ms")
    single.play("configs: --delete-config of a key that is not set (a no-op since 4.3)", scenario, area="configs")
