"""Tests for minikafka/tools/config_command_output.py."""

from minikafka.common.config.describe import describe_broker, describe_topic
from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.tools import config_command_output as cc
from minikafka.tools.config_command_output import ConfigSynonym as S, DescribedConfig as E


def _broker(**props):
    base = {"node.id": "1", "process.roles": "broker", "controller.listener.names": "CONTROLLER",
            "controller.quorum.voters": "1001@localhost:9093", "log.dirs": "/tmp/kafka-logs"}
    return KafkaConfig({**base, **props})


def test_golden_topic_describe_and_alter():
    # Observed (public course notes): kafka-configs.sh --entity-type topics --entity-name configured-topic --describe
    result = describe_topic("configured-topic", {"max.message.bytes": "64000"}, _broker(), include_synonyms=True)
    out = cc.describe(cc.TOPICS, [("configured-topic", cc.from_describe_result(result))])
    assert out.text == ("Dynamic configs for topic configured-topic are:\n"
                        "  max.message.bytes=64000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:max.message.bytes="
                        "64000, DEFAULT_CONFIG:message.max.bytes=1048588}\n")
    assert cc.alter_completed(cc.TOPICS, "configured-topic").text == "Completed updating config for topic configured-topic.\n"


def test_golden_entries_sorted_with_static_broker_synonyms():
    # Observed (public tutorial, topic "payments", broker with min.insync.replicas=1 in server.properties):
    result = describe_topic("payments", {"retention.ms": "2592000000", "min.insync.replicas": "2",
                                         "compression.type": "lz4"}, _broker(**{"min.insync.replicas": "1"}),
                            include_synonyms=True)
    assert cc.format_entity(cc.TOPICS, "payments", cc.from_describe_result(result)) == (
        "Dynamic configs for topic payments are:\n"
        "  compression.type=lz4 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:compression.type=lz4, "
        "DEFAULT_CONFIG:compression.type=producer}\n"
        "  min.insync.replicas=2 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=2, "
        "STATIC_BROKER_CONFIG:min.insync.replicas=1, DEFAULT_CONFIG:min.insync.replicas=1}\n"
        "  retention.ms=2592000000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=2592000000}\n")


def test_no_override_prints_only_the_heading_and_all_shows_everything():
    result = describe_topic("reviews.raw", {}, _broker(), include_synonyms=True)
    entries = cc.from_describe_result(result)
    assert cc.format_entity(cc.TOPICS, "reviews.raw", entries) == "Dynamic configs for topic reviews.raw are:\n"
    every = cc.format_entity(cc.TOPICS, "reviews.raw", entries, describe_all=True).splitlines()
    assert every[0] == "All configs for topic reviews.raw are:"
    names = [line.split("=")[0].strip() for line in every[1:]]
    assert names == sorted(names) and "cleanup.policy" in names
    assert "  retention.ms=604800000 sensitive=false synonyms={}" in every


def test_brokers_default_and_sensitive_values():
    entries = [E("log.cleaner.threads", "2", "DYNAMIC_BROKER_CONFIG", False,
                 (S("log.cleaner.threads", "2", "DYNAMIC_BROKER_CONFIG"), S("log.cleaner.threads", "1", "DEFAULT_CONFIG"))),
               E("ssl.key.password", None, "DYNAMIC_BROKER_CONFIG", True,
                 (S("ssl.key.password", None, "DYNAMIC_BROKER_CONFIG"),)),
               E("log.retention.ms", "1000", "DYNAMIC_DEFAULT_BROKER_CONFIG", False)]
    assert cc.describe(cc.BROKERS, [("1", entries)]).text == (
        "Dynamic configs for broker 1 are:\n"
        "  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, "
        "DEFAULT_CONFIG:log.cleaner.threads=1}\n"
        "  ssl.key.password=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:ssl.key.password=null}\n")
    assert cc.describe(cc.BROKERS, [("", entries)]).text == (
        "Default configs for brokers in the cluster are:\n  log.retention.ms=1000 sensitive=false synonyms={}\n")
    assert cc.alter_completed(cc.BROKERS, "").text == "Completed updating default config for brokers in the cluster.\n"


def test_describe_all_brokers_lists_each_then_the_default():
    assert cc.entity_order(cc.BROKERS, ["3", "1", "2"]) == ["1", "2", "3", ""]
    broker = _broker(**{"node.id": "1"})
    text = cc.describe(cc.BROKERS, [(n, cc.from_describe_result(describe_broker(n, broker, True))) for n in ("1", "")]).text
    assert text == "Dynamic configs for broker 1 are:\nDefault configs for brokers in the cluster are:\n"
    assert cc.entity_order(cc.TOPICS, ["b", "a"]) == ["a", "b"]


def test_missing_entities_and_bad_broker_ids():
    missing = cc.describe(cc.TOPICS, [("nope", None)])
    assert (missing.stdout, missing.exit_code) == (
        "The topic 'nope' doesn't exist and doesn't have dynamic config.\n", 0)
    assert cc.does_not_exist(cc.BROKERS, "7") == "The broker '7' doesn't exist and doesn't have dynamic config."
    not_an_id = cc.describe(cc.BROKERS, [("x", [])])
    assert (not_an_id.stderr, not_an_id.exit_code) == (
        "The entity name for brokers must be a valid integer broker id, found: x\n", 1)
