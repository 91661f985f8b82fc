"""DescribeConfigs for topics and brokers: values, sources, synonyms, errors, admin order."""

from __future__ import annotations

from minikafka.common.config.config_def import Type
from minikafka.common.config.describe import (
    ConfigSource, DescribeConfigsSynonym as Syn, admin_order, describe_broker, describe_topic,
    resolve_effective_topic_configs, topic_configs_column)
from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.errors import Errors

BASE = {"process.roles": "broker", "node.id": "1", "controller.quorum.voters": "1001@localhost:9093",
        "controller.listener.names": "CONTROLLER"}
S, D = ConfigSource.STATIC_BROKER_CONFIG, ConfigSource.DEFAULT_CONFIG


def node(**static) -> KafkaConfig:
    return KafkaConfig({**BASE, **{k.replace("_", "."): v for k, v in static.items()}})


def test_quickstart_configs_column():
    # Kafka 4.1.1's quickstart prints "Configs: min.insync.replicas=1,segment.bytes=1073741824":
    # server.properties sets log.segment.bytes, and a 4.1 controller with ELR enabled writes a
    # cluster-level min.insync.replicas ConfigRecord when the cluster is first activated.
    broker = node(log_segment_bytes="1073741824").with_dynamic({"min.insync.replicas": "1"}, {})
    result = describe_topic("test-topic", {}, broker)
    assert result.error is Errors.NONE
    assert result.entry("min.insync.replicas").source is ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
    assert topic_configs_column(result) == "min.insync.replicas=1,segment.bytes=1073741824"
    assert topic_configs_column(describe_topic("t", {}, node())) == ""


def test_every_public_topic_config_is_listed_with_its_type():
    result = describe_topic("t", {}, node())
    assert len(result.entries) == 33
    assert all(e.source is D and e.is_default and not e.read_only and not e.is_sensitive for e in result.entries)
    ratio = result.entry("min.cleanable.dirty.ratio")
    assert ratio.value == "0.5" and ratio.config_type is Type.DOUBLE and ratio.config_type_id == 6
    assert result.entry("leader.replication.throttled.replicas").value == ""
    assert "internal.segment.bytes" not in {e.name for e in result.entries}


def test_topic_override_is_the_first_synonym_and_prints_parsed():
    result = describe_topic("t", {"segment.bytes": " 2097152 "}, node(log_segment_bytes="1073741824"),
                            include_synonyms=True)
    entry = result.entry("segment.bytes")
    assert entry.value == "2097152" and entry.source is ConfigSource.DYNAMIC_TOPIC_CONFIG
    assert entry.synonyms == (Syn("segment.bytes", "2097152", ConfigSource.DYNAMIC_TOPIC_CONFIG),
                              Syn("log.segment.bytes", "1073741824", S),
                              Syn("log.segment.bytes", "1073741824", D))


def test_retention_quirk_synonyms_start_at_the_first_broker_name():
    plain = describe_topic("t", {}, node(), include_synonyms=True).entry("retention.ms")
    assert plain.value == "604800000" and plain.source is D and plain.synonyms == ()
    # log.retention.hours in server.properties changes the value but, as in Kafka, not the source.
    hours = describe_topic("t", {}, node(log_retention_hours="24"), include_synonyms=True).entry("retention.ms")
    assert hours.value == "86400000" and hours.source is D and hours.synonyms == ()
    ms = describe_topic("t", {}, node(log_retention_ms="5000", log_retention_hours="24"),
                        include_synonyms=True).entry("retention.ms")
    assert ms.value == "5000" and ms.source is S
    assert ms.synonyms == (Syn("log.retention.ms", "5000", S), Syn("log.retention.hours", "24", S),
                           Syn("log.retention.hours", "168", D))


def test_dynamic_layers_in_precedence_order():
    broker = node(log_retention_ms="100").with_dynamic({"log.retention.ms": "200"}, {"log.retention.ms": "300"})
    entry = describe_topic("t", {}, broker, include_synonyms=True).entry("retention.ms")
    assert entry.value == "300" and entry.source is ConfigSource.DYNAMIC_BROKER_CONFIG
    assert [(s.value, s.source) for s in entry.synonyms] == [
        ("300", ConfigSource.DYNAMIC_BROKER_CONFIG), ("200", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
        ("100", S), ("168", D)]


def test_internal_segment_bytes_only_when_set():
    entry = describe_topic("t", {"internal.segment.bytes": "4096"}, node()).entry("internal.segment.bytes")
    assert entry.value == "4096" and entry.source is ConfigSource.DYNAMIC_TOPIC_CONFIG
    assert entry.config_type is Type.INT and entry.synonyms == ()


def test_filters_and_synonym_switch():
    result = describe_topic("t", {}, node(), config_names=["cleanup.policy", "nope"])
    assert [e.name for e in result.entries] == ["cleanup.policy"]
    assert result.entries[0].synonyms == ()


def test_topic_errors():
    bad = describe_topic("a/b", {}, node())
    assert bad.error is Errors.INVALID_TOPIC_EXCEPTION and bad.entries == ()
    assert bad.error_message == ("Topic name is invalid: 'a/b' contains one or more characters other than "
                                 "ASCII alphanumerics, '.', '_' and '-'")
    missing = describe_topic("ghost", None, node())
    assert missing.error is Errors.UNKNOWN_TOPIC_OR_PARTITION and missing.error_message is None


def test_describe_this_broker():
    broker = node(log_retention_hours="24", my_custom="x").with_dynamic({"log.retention.ms": "1000"}, {})
    result = describe_broker("1", broker, include_synonyms=True)
    assert result.error is Errors.NONE
    hours = result.entry("log.retention.hours")
    assert hours.value == "24" and hours.source is S and hours.read_only
    ms = result.entry("log.retention.ms")
    assert ms.value == "1000" and ms.source is ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG and not ms.read_only
    assert [s.name for s in ms.synonyms] == ["log.retention.ms", "log.retention.hours", "log.retention.hours"]
    roll = result.entry("log.roll.ms")
    assert roll.value is None and roll.source is D and roll.synonyms == ()
    custom = result.entry("my.custom")
    assert custom.is_sensitive and custom.value is None and custom.config_type is None and custom.read_only
    assert "unclean.leader.election.interval.ms" not in {e.name for e in result.entries}   # internal
    # Kafka 4.x types these as LIST (DescribeConfigs config_type 7), as a 4.3.1 broker reports them.
    listed = describe_broker("1", node(log_dirs="/a,/b", advertised_listeners="PLAINTEXT://h:1"))
    assert {n: listed.entry(n).config_type_id for n in ("listeners", "advertised.listeners", "log.dirs")} == {
        "listeners": 7, "advertised.listeners": 7, "log.dirs": 7}
    assert listed.entry("log.dirs").value == "/a,/b"


def test_describe_cluster_default_resource():
    broker = node(log_retention_ms="5").with_dynamic({"log.retention.ms": "1000"}, {"log.retention.ms": "7"})
    result = describe_broker("", broker, include_synonyms=True)
    assert [e.name for e in result.entries] == ["log.retention.ms"]
    entry = result.entries[0]
    assert entry.value == "1000" and entry.source is ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
    assert entry.synonyms == (Syn("log.retention.ms", "1000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),)


def test_broker_resource_errors():
    assert describe_broker("x", node()).error_message == "Broker id must be an integer, but it is: x"
    other = describe_broker("2", node())
    assert other.error is Errors.INVALID_REQUEST
    assert other.error_message == "Unexpected broker id, expected 1 or empty string, but received 2"


def test_controller_view_follows_all_synonyms_with_conversion():
    configs = resolve_effective_topic_configs({"log.retention.hours": "24"}, {}, {}, {"cleanup.policy": "compact"})
    assert (configs["retention.ms"].value, configs["retention.ms"].source) == ("86400000", S)
    assert configs["cleanup.policy"].source is ConfigSource.DYNAMIC_TOPIC_CONFIG
    assert (configs["segment.bytes"].value, configs["segment.bytes"].source) == ("1073741824", D)
    assert "internal.segment.bytes" not in configs
    layered = resolve_effective_topic_configs({"log.segment.bytes": "1"}, {"log.segment.bytes": "2"},
                                              {"log.segment.bytes": "3"}, {"internal.segment.bytes": "9"})
    assert layered["segment.bytes"].source is ConfigSource.DYNAMIC_BROKER_CONFIG
    assert layered["internal.segment.bytes"].value == "9"


def test_admin_order_is_java_hashmap_order():
    entries = describe_topic("t", {}, node()).entries
    ordered = [e.name for e in admin_order(entries)]
    assert ordered[:5] == ["compression.type", "remote.log.delete.on.disable",
                           "leader.replication.throttled.replicas", "remote.storage.enable", "min.insync.replicas"]


def test_source_ids():
    assert ConfigSource.DYNAMIC_TOPIC_CONFIG.id == 1 and ConfigSource.DEFAULT_CONFIG.id == 5
    assert ConfigSource.STATIC_BROKER_CONFIG.id == 4


def test_configs_column_order_matches_published_outputs():
    # Published kafka-topics.sh outputs of KRaft clusters list, e.g.,
    # "min.insync.replicas=3,cleanup.policy=delete,segment.bytes=1073741824,retention.ms=2592000000,
    #  unclean.leader.election.enable=false" -- whatever order the overrides were given in.
    overrides = {"unclean.leader.election.enable": "false", "retention.ms": "2592000000",
                 "cleanup.policy": "delete", "min.insync.replicas": "3"}
    column = topic_configs_column(describe_topic("t", overrides, node(log_segment_bytes="1073741824")))
    assert column == ("min.insync.replicas=3,cleanup.policy=delete,segment.bytes=1073741824,"
                      "retention.ms=2592000000,unclean.leader.election.enable=false")
    throttled = {"follower.replication.throttled.replicas": "*", "retention.ms": "604800000",
                 "cleanup.policy": "delete", "min.insync.replicas": "2"}
    column = topic_configs_column(describe_topic("t", throttled, node(log_segment_bytes="1073741824")))
    assert column == ("min.insync.replicas=2,cleanup.policy=delete,follower.replication.throttled.replicas=*,"
                      "segment.bytes=1073741824,retention.ms=604800000")


def test_topic_entries_come_in_the_brokers_hashmap_order():
    # What a Kafka 4.3.1 broker sent for a topic with retention.ms set (tests/oracle: DescribeConfigs
    # of a topic): its nonInternalValues map iterated, entries of one bucket in definition order.
    names = [e.name for e in describe_topic("t", {"retention.ms": "5"}, node()).entries]
    assert names[:9] == ["compression.type", "remote.log.delete.on.disable", "leader.replication.throttled.replicas",
                         "remote.storage.enable", "min.insync.replicas", "segment.jitter.ms",
                         "remote.log.copy.disable", "local.retention.ms", "cleanup.policy"]
    assert names[12:15] == ["segment.bytes", "retention.ms", "compression.gzip.level"]   # one bucket
    asked = describe_topic("t", {}, node(), config_names=["retention.ms", "cleanup.policy", "segment.bytes",
                                                          "min.insync.replicas"])
    assert [e.name for e in asked.entries] == ["min.insync.replicas", "cleanup.policy", "segment.bytes",
                                               "retention.ms"]
