"""Tests for minikafka/tools/topic_command_output.py."""

import pytest

from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.tools import topic_command_output as tc
from minikafka.tools.topic_command_output import TopicDescription, TopicPartitionInfo as P
from tests.tools._snapshots import cluster, node, partition, topic

QUICKSTART_BROKER = KafkaConfig({"node.id": "1", "process.roles": "broker,controller",
                                 "controller.listener.names": "CONTROLLER",
                                 "controller.quorum.voters": "1@localhost:9093", "log.dirs": "/tmp/kraft",
                                 # the two topic-relevant settings of Kafka 4.1.1's config/server.properties
                                 "min.insync.replicas": "1", "log.segment.bytes": "1073741824"})


def test_golden_kafka_4_1_1_quickstart_describe():
    # Observed on Kafka 4.1.1 (kafka_2.13-4.1.1, a student's public lab notes), verbatim:
    expected = ("Topic: test-topic\tTopicId: i2MC2bl0S6y0cd_PoC_ZgQ\tPartitionCount: 3\tReplicationFactor: 1\t"
                "Configs: min.insync.replicas=1,segment.bytes=1073741824\n"
                "\tTopic: test-topic\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n"
                "\tTopic: test-topic\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n"
                "\tTopic: test-topic\tPartition: 2\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n")
    snapshot = cluster([topic("test-topic", "i2MC2bl0S6y0cd_PoC_ZgQ",
                              [partition("test-topic", p, [1]) for p in (2, 0, 1)])], [node(1)])
    topics = tc.from_snapshot(snapshot, QUICKSTART_BROKER)
    out = tc.describe(topics, topic="test-topic")
    assert out.text == expected
    assert out.stdout == expected and out.exit_code == 0
    assert tc.list_topics([t.name for t in topics]).text == "test-topic\n"      # observed as well
    assert tc.create("test-topic").text == "Created topic test-topic.\n"


def test_configs_column_follows_the_admin_clients_order():
    # Observed on a 4.x cluster: "Configs: min.insync.replicas=2,cleanup.policy=delete,segment.bytes=1073741824"
    snapshot = cluster([topic("performance-test", "AMNt6PcpRZOktSh6v-u00A", [partition("performance-test", 0, [1])],
                              {"cleanup.policy": "delete", "min.insync.replicas": "2"})], [node(1)])
    (description,) = tc.from_snapshot(snapshot, QUICKSTART_BROKER)
    assert tc.format_topic_line(description).endswith(
        "\tConfigs: min.insync.replicas=2,cleanup.policy=delete,segment.bytes=1073741824")
    assert description.min_insync_replicas == 2
    (plain,) = tc.from_snapshot(snapshot)        # a broker on Kafka's defaults: only the overrides
    assert tc.format_topic_line(plain).endswith("Configs: min.insync.replicas=2,cleanup.policy=delete")


def test_topic_id_leader_none_and_reassignment_columns():
    zero = TopicDescription("t", tc.ZERO_UUID, (P(0, None, (1, 2, 3, 4), (3,), adding_replicas=(4,),
                                                  removing_replicas=(1,)),))
    assert tc.format_topic_line(zero) == "Topic: t\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: "
    assert tc.format_partition_line("t", zero.partitions[0]) == (
        "\tTopic: t\tPartition: 0\tLeader: none\tReplicas: 1,2,3,4\tIsr: 3\tAdding Replicas: 4\t"
        "Removing Replicas: 1\tElr: \tLastKnownElr: ")
    fallback = P(0, 2, (2, 1), (1, 2), elr=None, last_known_elr=None)       # Metadata API fallback
    assert tc.format_partition_line("t", fallback).endswith("\tReplicas: 2,1\tIsr: 1,2\tElr: N/A\tLastKnownElr: N/A")
    assert tc.format_partition_line("t", P(0, 2, (2, 1, 3), (2,), elr=(1,), last_known_elr=(3,))).endswith(
        "\tElr: 1\tLastKnownElr: 3")


def test_several_topics_come_out_in_the_admin_clients_hashmap_order():
    # Observed (Kafka 3.x on MSK, same admin client code): __amazon_msk_canary, example-topic, __consumer_offsets.
    assert tc.describe_order(["example-topic", "__consumer_offsets", "__amazon_msk_canary"]) == [
        "__amazon_msk_canary", "example-topic", "__consumer_offsets"]
    topics = [TopicDescription(n, "AAAAAAAAAAAAAAAAAAAAAQ", (P(0, 1, (1,), (1,)),))
              for n in ("example-topic", "__consumer_offsets", "__amazon_msk_canary")]
    lines = [line for line in tc.describe(topics).text.splitlines() if line.startswith("Topic:")]
    assert [line.split("\t")[0] for line in lines] == [
        "Topic: __amazon_msk_canary", "Topic: example-topic", "Topic: __consumer_offsets"]
    excluded = tc.describe(topics, exclude_internal=True).text
    assert "__consumer_offsets" not in excluded and "example-topic" in excluded


def _cluster_topics():
    return [TopicDescription("orders", "AAAAAAAAAAAAAAAAAAAAAQ", (
        P(0, 1, (1, 2, 3), (1, 2, 3)),      # healthy
        P(1, 2, (2, 3, 1), (2, 3)),          # under-replicated, at min ISR 2
        P(2, None, (3, 1, 2), ()),           # offline
        P(3, 3, (3, 1, 2), (3,)),            # under min ISR, leader 3 dead
    ), (("min.insync.replicas", "2"),), 2),
        TopicDescription("plain", "AAAAAAAAAAAAAAAAAAAAAg", (P(0, 1, (1,), (1,)),))]


@pytest.mark.parametrize("option, partitions", [
    ("under_replicated_partitions", ["orders 1", "orders 2", "orders 3"]),
    ("under_min_isr_partitions", ["orders 2", "orders 3"]),
    ("at_min_isr_partitions", ["orders 1", "plain 0"]),     # plain: ISR 1 == default min ISR 1
    ("unavailable_partitions", ["orders 2", "orders 3"]),
])
def test_report_options_print_only_matching_partitions(option, partitions):
    out = tc.describe(_cluster_topics(), live_brokers=[1, 2], **{option: True}).text
    assert "Topic: orders\tTopicId" not in out                     # no topic lines
    printed = [f"{line.split(chr(9))[1][7:]} {line.split(chr(9))[2][11:]}" for line in out.splitlines()]
    assert printed == partitions


def test_topics_with_overrides_prints_topic_lines_only():
    out = tc.describe(_cluster_topics(), topics_with_overrides=True).text
    assert out == ("Topic: orders\tTopicId: AAAAAAAAAAAAAAAAAAAAAQ\tPartitionCount: 4\tReplicationFactor: 3\t"
                   "Configs: min.insync.replicas=2\n")


def test_missing_topic_errors_in_kafkas_words():
    out = tc.describe(_cluster_topics(), topic="payments")
    assert out.text == "Error while executing topic command : Topic 'payments' does not exist as expected\n"
    assert out.exit_code == 1 and out.stderr == ""
    assert tc.describe(_cluster_topics(), topic="payments", if_exists=True).text == ""
    assert tc.describe(_cluster_topics(), topic_id="AAAAAAAAAAAAAAAAAAAAAw").text == (
        "Error while executing topic command : TopicId 'AAAAAAAAAAAAAAAAAAAAAw' does not exist as expected\n")
    assert tc.describe(_cluster_topics(), topic_id="AAAAAAAAAAAAAAAAAAAAAg").text.startswith("Topic: plain\t")
    assert tc.describe(_cluster_topics(), topic="(").text == (
        "Error while executing topic command : ( is an invalid regex.\n")


def test_topic_option_is_a_whole_name_regex_list():
    names = ["orders", "orders-eu", "payments", "__consumer_offsets"]
    assert tc.select_topics(names, "orders") == ["orders"]
    assert tc.select_topics(names, " 'orders.*' ") == ["orders", "orders-eu"]
    assert tc.select_topics(names, "payments,orders") == ["orders", "payments"]
    assert tc.select_topics(names, ".*", exclude_internal=True) == ["orders", "orders-eu", "payments"]


def test_list_includes_internal_topics_unless_excluded_and_prints_a_line_when_empty():
    names = ["orders", "__consumer_offsets", "Apples"]
    assert tc.list_topics(names).text == "Apples\n__consumer_offsets\norders\n"    # Java's String order
    assert tc.list_topics(names, exclude_internal=True).text == "Apples\norders\n"
    assert tc.list_topics([]).text == "\n"
    assert tc.list_topics(names, topic="nothing").text == "\n"


def test_create_warns_about_collision_characters():
    warning = ("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could "
               "collide. To avoid issues it is best to use either, but not both.\n")
    assert tc.create("my.topic").text == warning + "Created topic my.topic.\n"
    assert tc.create("my_topic").text == warning + "Created topic my_topic.\n"
    failed = tc.error("Topic 'my.topic' already exists.", warning_for="my.topic")
    assert failed.text == warning + "Error while executing topic command : Topic 'my.topic' already exists.\n"
    assert failed.exit_code == 1


def test_snapshot_adapters():
    snapshot = cluster([topic("orders", "AAAAAAAAAAAAAAAAAAAAAQ",
                              [partition("orders", 0, [1, 2, 3, 4], isr=[2, 1], adding=[4], removing=[3])])],
                       [node(1), node(2, registration="fenced"), node(3, registration="controlled_shutdown"),
                        node(1001, roles=("controller",), registration=None)])
    assert tc.live_brokers_from_snapshot(snapshot) == [1, 3]
    (description,) = tc.from_snapshot(snapshot)
    assert description.partitions[0].replication_factor == 3
    assert tc.describe([description]).text.splitlines()[1] == (
        "\tTopic: orders\tPartition: 0\tLeader: 2\tReplicas: 1,2,3,4\tIsr: 2,1\tAdding Replicas: 4\t"
        "Removing Replicas: 3\tElr: \tLastKnownElr: ")
