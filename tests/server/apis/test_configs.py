"""DescribeConfigs, AlterConfigs, IncrementalAlterConfigs and ListConfigResources."""

import pytest

from tests.server.apis.admin_harness import (AlterConfigs, DescribeConfigs, IncrementalAlterConfigs,
                                                  ListConfigResources, send, start_cluster, versions)

TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
Resource = DescribeConfigs.DescribeConfigsResource
IResource = IncrementalAlterConfigs.AlterConfigsResource
LResource = AlterConfigs.AlterConfigsResource


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=61, broker_config={"log.retention.hours": "72"})
    c.create_topic("orders", 2, 2, config={"retention.ms": "1000"})
    yield c
    c.stop()


def describe(cluster, broker, *resources, version=4, synonyms=False):
    return send(cluster, broker, DescribeConfigs[version](
        resources=[Resource(resource_type=t, resource_name=n, configuration_keys=k) for t, n, k in resources],
        include_synonyms=synonyms, include_documentation=False)).results


def entries(result):
    return {e.name: e for e in result.configs}


def incremental(cluster, broker, *resources, validate_only=False):
    return [(r.resource_type, r.resource_name, r.error_code, r.error_message) for r in send(
        cluster, broker, IncrementalAlterConfigs[1](validate_only=validate_only, resources=[
            IResource(resource_type=t, resource_name=n, configs=[
                IResource.AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops])
            for t, n, ops in resources])).responses]


# ---------------------------------------------------------------------------- DescribeConfigs
def test_describe_topic_with_sources_synonyms_and_types(cluster):
    [result] = describe(cluster, 3, (TOPIC, "orders", ["retention.ms", "segment.bytes"]), synonyms=True)
    assert (result.error_code, result.error_message) == (0, "")   # ConfigHelper leaves the default ""
    found = entries(result)
    assert set(found) == {"retention.ms", "segment.bytes"}
    retention = found["retention.ms"]
    assert (retention.value, retention.config_source, retention.read_only, retention.config_type) == \
        ("1000", 1, False, 5)                                          # DYNAMIC_TOPIC_CONFIG, LONG
    assert [(s.name, s.value, s.source) for s in retention.synonyms][0] == ("retention.ms", "1000", 1)
    assert retention.documentation is None


def test_unknown_topic_has_no_message_and_a_bad_name_has_kafkas(cluster):
    unknown, bad = describe(cluster, 1, (TOPIC, "ghost", None), (TOPIC, "no way", None))
    assert (unknown.error_code, unknown.error_message, unknown.configs) == (3, "", [])
    assert bad.error_code == 17 and "no way" in bad.error_message


def test_describe_brokers_own_configs_and_cluster_defaults(cluster):
    own, default = describe(cluster, 2, (BROKER, "2", ["log.retention.hours", "broker.id"]), (BROKER, "", None))
    found = entries(own)
    assert (found["log.retention.hours"].value, found["log.retention.hours"].config_source) == ("72", 4)
    assert found["broker.id"].read_only is True
    # the only dynamic default is the cluster-level min ISR that an ELR bootstrap writes
    assert default.error_code == 0
    assert [(e.name, e.value, e.config_source, e.read_only, e.config_type) for e in default.configs] == [
        ("min.insync.replicas", "1", 3, False, 3)]                 # DYNAMIC_DEFAULT_BROKER_CONFIG, INT


def test_without_elr_the_cluster_defaults_are_empty():
    cluster = start_cluster(seed=61, features={"eligible.leader.replicas.version": 0})
    try:
        [default] = describe(cluster, 2, (BROKER, "", None))
        assert (default.error_code, default.configs) == (0, [])    # no dynamic defaults yet
    finally:
        cluster.stop()


def test_describe_another_brokers_configs_is_refused(cluster):
    [result] = describe(cluster, 2, (BROKER, "1", None))
    assert (result.error_code, result.error_message) == \
        (42, "Unexpected broker id, expected 2 or empty string, but received 1")


def test_describe_broker_loggers(cluster):
    [result] = describe(cluster, 1, (BROKER_LOGGER, "1", ["root", "kafka.request.logger"]))
    assert {(e.name, e.value, e.config_source, e.config_type, e.documentation) for e in result.configs} == {
        ("root", "INFO", 6, 0, ""), ("kafka.request.logger", "WARN", 6, 0, "")}
    empty, other, text = describe(cluster, 1, (BROKER_LOGGER, "", None), (BROKER_LOGGER, "2", None),
                                  (BROKER_LOGGER, "one", None))
    assert (empty.error_code, empty.error_message) == (42, "Broker id must not be empty")
    assert other.error_message == "Unexpected broker id, expected 1 but received 2"
    assert text.error_message == "Broker id must be an integer, but it is: one"


def test_unmodelled_and_unknown_resource_types(cluster):
    group, metrics = describe(cluster, 1, (GROUP, "g", None), (CLIENT_METRICS, "", None))
    assert (group.error_code, group.error_message) == (42, "Unsupported resource type: GROUP")
    assert metrics.error_message == "Client metrics subscription name must not be empty"
    results = describe(cluster, 1, (TOPIC, "orders", None), (99, "x", None), version=1)
    assert [(r.resource_type, r.error_code, r.configs) for r in results] == [(2, 42, []), (99, 42, [])]


# ---------------------------------------------------------------------------- IncrementalAlterConfigs
def test_incremental_topic_changes_reach_every_broker(cluster):
    answer = incremental(cluster, 1, (TOPIC, "orders", [("retention.ms", SET, "2000"),
                                                        ("cleanup.policy", APPEND, "compact")]))
    assert answer == [(TOPIC, "orders", 0, None)]
    assert cluster.wait_until(lambda: entries(describe(cluster, 3, (TOPIC, "orders", None))[0])
                              ["cleanup.policy"].value == "delete,compact", 5000)
    assert entries(describe(cluster, 3, (TOPIC, "orders", ["retention.ms"]))[0])["retention.ms"].value == "2000"


def test_broker_side_preprocessing_answers_without_the_controller(cluster):
    answer = incremental(
        cluster, 1,
        (BROKER, "2", [("log.cleaner.threads", SET, "2")]),
        (BROKER, "1", [("log.dirs", SET, "/elsewhere")]),
        (BROKER, "x", [("log.cleaner.threads", SET, "2")]),
        (TOPIC, "orders", [("retention.ms", SET, None)]),
        (TOPIC, "payments", [("a", SET, "1"), ("a", DELETE, None)]),
        (77, "?", []))
    assert answer == [
        (BROKER, "2", 42, "Unexpected broker id, expected 1, but received 2"),
        (BROKER, "1", 42, "Cannot update these configs dynamically: [log.dirs]"),
        (BROKER, "x", 42, "Node id must be an integer, but it is: x"),
        (TOPIC, "orders", 42, "Null value not supported for : retention.ms"),
        (TOPIC, "payments", 42, "Error due to duplicate config keys"),
        (77, "?", 42, "Unknown resource type 77")]


def test_a_resource_named_twice_is_refused_everywhere(cluster):
    twice = (TOPIC, "orders", [("retention.ms", SET, "5")])
    refused = (TOPIC, "orders", 42, "Each resource must appear at most once.")
    assert incremental(cluster, 1, twice, twice) == [refused, refused]


def test_cluster_default_and_errors_from_the_controller_in_request_order(cluster):
    answer = incremental(cluster, 2, (TOPIC, "ghost", [("retention.ms", SET, "5")]),
                         (BROKER, "", [("log.retention.ms", SET, "5000")]),
                         (TOPIC, "orders", [("no.such.config", SET, "1")]))
    assert answer[0] == (TOPIC, "ghost", 3, "The topic 'ghost' does not exist.")
    assert answer[1] == (BROKER, "", 0, None)
    assert answer[2][:3] == (TOPIC, "orders", 40)                  # INVALID_CONFIG
    assert cluster.wait_until(lambda: entries(describe(cluster, 3, (BROKER, "", None))[0]).get("log.retention.ms")
                              is not None, 5000)


def test_broker_logger_levels_change_on_that_broker_only(cluster):
    assert incremental(cluster, 3, (BROKER_LOGGER, "3", [("kafka", SET, "DEBUG")])) == [(BROKER_LOGGER, "3", 0, None)]
    assert entries(describe(cluster, 3, (BROKER_LOGGER, "3", ["kafka"]))[0])["kafka"].value == "DEBUG"
    assert entries(describe(cluster, 2, (BROKER_LOGGER, "2", ["kafka"]))[0])["kafka"].value == "INFO"
    assert incremental(cluster, 3, (BROKER_LOGGER, "3", [("kafka", SET, "TRACE")]), validate_only=True)[0][2] == 0
    assert entries(describe(cluster, 3, (BROKER_LOGGER, "3", ["kafka"]))[0])["kafka"].value == "DEBUG"
    assert incremental(cluster, 3, (BROKER_LOGGER, "3", [("kafka", DELETE, None)]))[0][2] == 0
    assert entries(describe(cluster, 3, (BROKER_LOGGER, "3", ["kafka"]))[0])["kafka"].value == "INFO"  # root's


def test_broker_logger_refusals(cluster):
    answer = incremental(cluster, 1, (BROKER_LOGGER, "1", [("kafka", SET, "LOUD")]))
    assert answer[0][2:] == (40, "Cannot set the log level of kafka to LOUD as it is not a supported log level. "
                                 "Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN")
    assert incremental(cluster, 1, (BROKER_LOGGER, "1", [("root", DELETE, None)]))[0][2:] == \
        (42, "Removing the log level of the root logger is not allowed")
    assert incremental(cluster, 1, (BROKER_LOGGER, "2", [("kafka", SET, "INFO")]))[0][2:] == \
        (42, "Unexpected node id. Expected 1, but received 2")
    assert incremental(cluster, 1, (BROKER_LOGGER, "1", [("kafka", APPEND, "x")]))[0][2:] == \
        (42, "APPEND operation is not allowed for the BROKER_LOGGER resource")


# ---------------------------------------------------------------------------- AlterConfigs (legacy)
def test_legacy_alter_replaces_the_whole_set(cluster):
    cluster.create_topic("legacy", 1, 1, config={"retention.ms": "100", "segment.ms": "100000"})
    answer = send(cluster, 2, AlterConfigs[2](validate_only=False, resources=[
        LResource(resource_type=TOPIC, resource_name="legacy",
                  configs=[LResource.AlterableConfig(name="retention.ms", value="300")]),
        LResource(resource_type=BROKER_LOGGER, resource_name="2", configs=[])]))
    assert [(r.resource_name, r.error_code, r.error_message) for r in answer.responses] == [
        ("legacy", 0, None), ("2", 42, "Unknown resource type 8")]
    assert cluster.wait_until(lambda: "segment.ms" not in cluster.processes.cluster_image().configs.topic_config("legacy"),
                              5000)
    assert dict(cluster.processes.cluster_image().configs.topic_config("legacy")) == {"retention.ms": "300"}


# ---------------------------------------------------------------------------- ListConfigResources
def test_list_config_resources(cluster):
    everything = send(cluster, 1, ListConfigResources[1](resource_types=[]))
    listed = [(r.resource_type, r.resource_name) for r in everything.config_resources]
    assert listed[:6] == [(8, "1"), (8, "2"), (8, "3"), (4, "1"), (4, "2"), (4, "3")]
    assert (2, "orders") in listed[6:]
    topics = send(cluster, 1, ListConfigResources[1](resource_types=[TOPIC]))
    assert {r.resource_type for r in topics.config_resources} == {TOPIC}
    v0 = send(cluster, 1, ListConfigResources[0]())
    assert (v0.error_code, v0.config_resources) == (0, [])
    unsupported = send(cluster, 1, ListConfigResources[1](resource_types=[1]))
    assert (unsupported.error_code, unsupported.config_resources) == (35, [])


def test_every_advertised_version(cluster):
    for version in versions(32):
        [result] = describe(cluster, 1, (TOPIC, "orders", ["retention.ms"]), version=version)
        assert [e.name for e in result.configs] == ["retention.ms"], version
    for version in versions(44):
        answer = send(cluster, 1, IncrementalAlterConfigs[version](validate_only=True, resources=[
            IResource(resource_type=TOPIC, resource_name="orders", configs=[
                IResource.AlterableConfig(name="retention.ms", config_operation=SET, value="7")])]))
        assert [r.error_code for r in answer.responses] == [0], version
    for version in versions(33):
        answer = send(cluster, 1, AlterConfigs[version](validate_only=True, resources=[
            LResource(resource_type=TOPIC, resource_name="orders",
                      configs=[LResource.AlterableConfig(name="retention.ms", value="7")])]))
        assert [r.error_code for r in answer.responses] == [0], version
    for version in versions(74):
        assert send(cluster, 1, ListConfigResources[version](resource_types=[])).error_code == 0, version
