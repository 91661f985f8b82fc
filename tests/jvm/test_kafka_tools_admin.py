"""Apache Kafka 4.3.1's admin tools against a live sandbox cluster, next to the sandbox's own texts.

Each test puts the cluster in a state, runs Kafka's real tool (a JVM, over
the Kafka protocol) and compares what it printed with the sandbox's
look-alike (``minikafka <tool>``, `Cluster.run_tool`) and the `Cluster`
texts for the same state.  Where a value moves between two runs (the
metadata log's end offset, a time stamp), the test says which and only that
is replaced; where the two differ for a reason, docs/fidelity.md says why.
"""

from __future__ import annotations

import json
import re

import pytest
from kafka import KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition

from minikafka import Cluster
from minikafka.network.api_versions import BROKER_SUPPORTED_FEATURES
from minikafka.tools.broker_api_versions_command_output import BrokerNode
from minikafka.tools.java_hash_codes import keyed_order, node_hash, string_order
from tests.jvm.kafka_tools import lookalike, real
from tests.waiting import CLIENT_TIMEOUTS, eventually

pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]


@pytest.fixture(scope="module")
def cluster(kafka_classpath):
    with Cluster(brokers=3, controllers=3, seed=1201) as running:
        running.create_topic("orders", partitions=3, replication_factor=3, config={"min.insync.replicas": 2})
        producer = KafkaProducer(bootstrap_servers=running.bootstrap_servers, **CLIENT_TIMEOUTS)
        for n in range(30):
            producer.send("orders", key=f"k{n}".encode(), value=f"order-{n}".encode(), timestamp_ms=1_000 * n)
        producer.flush()
        producer.close()
        yield running


def same(cluster: Cluster, command: str) -> str:
    """Run ``command`` with Kafka's tool and the look-alike; assert they printed the same; the text."""
    kafka, sandbox = real(cluster, command), lookalike(cluster, command)
    assert (kafka.stdout, kafka.errors, kafka.returncode) == (sandbox.stdout, sandbox.errors, sandbox.returncode), \
        command
    return kafka.text


def java17_topic_order(names: list[str]) -> list[str]:
    """The order ``kafka-topics.sh --describe`` lists several topics in when it runs on Java 17.

    The admin client's three HashMaps (`topic_command_output.describe_order`) with the copy constructor of
    Java 17, which sizes the copy for ``size / 0.75 + 1`` entries; the look-alike models Java 19+'s
    ``ceil(size / 0.75)`` (Kafka's own image runs Java 21), so from 6 topics on the two can differ."""
    n = len(names)
    futures = string_order(sorted(names), max(n, 1))
    return string_order(string_order(futures, int(n / 0.75 + 1.0)), max(n, 1))


def topic_blocks(text: str) -> dict[str, list[str]]:
    blocks: dict[str, list[str]] = {}
    for line in text.splitlines():
        blocks.setdefault(line.split("\t")[0 if line.startswith("Topic:") else 1], []).append(line)
    return blocks


def same_topics(cluster: Cluster, command: str) -> None:
    """Like `same` for a description of several topics: the same lines, and Kafka's order is Java 17's."""
    kafka, sandbox = real(cluster, command), lookalike(cluster, command)
    assert (kafka.errors, kafka.returncode) == (sandbox.errors, sandbox.returncode)
    assert topic_blocks(kafka.stdout) == topic_blocks(sandbox.stdout), command
    shown = [name.removeprefix("Topic: ") for name in topic_blocks(kafka.stdout)]
    expected = [t for t in java17_topic_order(cluster.topics(include_internal=True)) if t in shown]
    assert shown == expected


def test_topics_describe_list_and_errors_match(cluster):
    described = same(cluster, "kafka-topics.sh --describe --topic orders")
    assert described == cluster.describe_topic("orders")
    assert same(cluster, "kafka-topics.sh --list") == "orders"
    same_topics(cluster, "kafka-topics.sh --describe")
    same(cluster, "kafka-topics.sh --create --topic orders --partitions 1")  # already exists
    same(cluster, "kafka-topics.sh --describe --topic nope")  # does not exist
    created = real(cluster, "kafka-topics.sh --create --topic made-by-kafka --partitions 2 --replication-factor 2")
    assert (created.returncode, created.text) == (0, "Created topic made-by-kafka.")
    assert "made-by-kafka" in cluster.topics()
    assert same(cluster, "kafka-topics.sh --describe --topic made-by-kafka") == cluster.describe_topic("made-by-kafka")


def test_configs_describe_and_alter_match(cluster):
    same(cluster, "kafka-configs.sh --describe --entity-type topics --entity-name orders")
    altered = real(cluster, "kafka-configs.sh --alter --entity-type topics --entity-name orders "
                            "--add-config retention.ms=86400000,cleanup.policy=compact")
    assert altered.text == "Completed updating config for topic orders."
    text = same(cluster, "kafka-configs.sh --describe --entity-type topics --entity-name orders")
    assert "retention.ms=86400000 sensitive=false" in text
    same(cluster, "kafka-configs.sh --describe --entity-type brokers --entity-name 1")
    same(cluster, "kafka-configs.sh --describe --entity-type brokers --entity-name 2 --all")
    same(cluster, "kafka-configs.sh --describe --entity-type brokers --entity-default")


def moving_numbers(text: str) -> str:
    """The quorum's numbers that move by themselves between two runs: the metadata log grows (the
    controller appends a record every 500 ms) and fetch times pass."""
    text = re.sub(r"(HighWatermark|MaxFollowerLag|MaxFollowerLagTimeMs):( +)\d+", r"\1:\2N", text)
    return re.sub(r"(?m)^(\d+ *\t\S+ *\t)\d+( *\t)\d+( *\t)\d+( *\t)\d+", r"\1N\2N\3N\4N", text)


def test_metadata_quorum_matches_apart_from_moving_numbers(cluster):
    for command in ("kafka-metadata-quorum.sh describe --status", "kafka-metadata-quorum.sh describe --replication"):
        kafka = real(cluster, command)
        assert kafka.returncode == 0
        assert moving_numbers(kafka.text) == moving_numbers(lookalike(cluster, command).text), command
    assert moving_numbers(real(cluster, "kafka-metadata-quorum.sh describe --status").text) == moving_numbers(
        cluster.quorum_status())


def broker_blocks(stdout: str) -> list[tuple[BrokerNode, str]]:
    """Each broker's node and its whole block, in the order the tool printed them."""
    blocks = []
    for block in re.split(r"\n(?=\S+:\d+ \(id: )", stdout.strip()):
        host, port, node_id, fenced = re.match(r"(\S+):(\d+) \(id: (\d+) rack: null isFenced: (\w+)\)",
                                               block).groups()
        blocks.append((BrokerNode(int(node_id), host, int(port), None, fenced == "true"), block))
    return blocks


def test_broker_api_versions_match(cluster):
    kafka = real(cluster, "kafka-broker-api-versions.sh")
    sandbox = lookalike(cluster, "kafka-broker-api-versions.sh")
    assert (kafka.errors, kafka.returncode) == (sandbox.errors, sandbox.returncode)
    printed = broker_blocks(kafka.stdout)
    assert len(printed) == 3
    assert sorted(block for _, block in printed) == sorted(block for _, block in broker_blocks(sandbox.stdout))
    # Kafka's Cluster shuffles its nodes before the tool fills its HashMap, so two brokers whose
    # nodes share a bucket come out in either order; apart from that, both print the buckets in
    # order: inserting the nodes in the order printed must give back that order.
    def node_key(node):
        return node_hash(node.host, node.id, node.port, node.rack, node.is_fenced)
    for text in (kafka.stdout, sandbox.stdout):
        nodes = [node for node, _ in broker_blocks(text)]
        assert keyed_order(nodes, node_key) == nodes


def test_reassignment_execute_verify_and_preferred_election_match(cluster, tmp_path):
    for topic in ("moved-by-kafka", "moved-by-sandbox"):
        cluster.create_topic(topic, partitions=2, replication_factor=2)
    plans = {}
    for topic in ("moved-by-kafka", "moved-by-sandbox"):
        # same brokers, another order: the preferred leader (first replica) changes, the leader does not
        replicas = {p: cluster.replicas(topic, p) for p in (0, 1)}
        plan = {"version": 1, "partitions": [{"topic": topic, "partition": p, "replicas": replicas[p][::-1]}
                                             for p in (0, 1)]}
        plans[topic] = tmp_path / f"{topic}.json"
        plans[topic].write_text(json.dumps(plan))
    before = {p: cluster.replicas("moved-by-kafka", p) for p in (0, 1)}
    kafka = real(cluster, f"kafka-reassign-partitions.sh --execute --reassignment-json-file {plans['moved-by-kafka']}")
    sandbox = lookalike(cluster, f"kafka-reassign-partitions.sh --execute "
                                 f"--reassignment-json-file {plans['moved-by-sandbox']}").text
    # Kafka 4.3 names each current replica's log directory in the rollback JSON, and so does the look-alike.
    rollback = json.loads(kafka.text.split("\n\n")[1])
    assert [entry["log_dirs"] for entry in rollback["partitions"]] == [
        [str(cluster.broker_data_dir(b)) for b in before[p]] for p in (0, 1)]
    assert kafka.text == sandbox.replace("moved-by-sandbox", "moved-by-kafka")
    for topic in plans:
        eventually(lambda: cluster.list_reassignments() == {}, what="the reassignments to finish")
        command = f"kafka-reassign-partitions.sh --verify --reassignment-json-file {plans[topic]}"
        assert real(cluster, command).text == lookalike(cluster, command).text
    kafka = real(cluster, "kafka-leader-election.sh --election-type preferred --topic moved-by-kafka --partition 0")
    sandbox = lookalike(cluster, "kafka-leader-election.sh --election-type preferred --topic moved-by-sandbox "
                                 "--partition 0").text
    assert kafka.text == sandbox.replace("moved-by-sandbox", "moved-by-kafka")
    assert kafka.text == "Successfully completed leader election (PREFERRED) for partitions moved-by-kafka-0"
    same(cluster, "kafka-leader-election.sh --election-type preferred --topic moved-by-kafka --partition 0")  # no-op


def test_consumer_groups_match(cluster):
    consumer = KafkaConsumer("orders", bootstrap_servers=cluster.bootstrap_servers, group_id="billing",
                             auto_offset_reset="earliest", enable_auto_commit=False, **CLIENT_TIMEOUTS)
    eventually(lambda: consumer.poll(timeout_ms=200) or len(consumer.assignment()) == 3,
               what="the consumer to join and be assigned")
    consumer.commit({TopicPartition("orders", p): OffsetAndMetadata(4, "", -1) for p in range(3)})
    consumer.close()
    assert same(cluster, "kafka-consumer-groups.sh --list") == "billing"
    for options in ("--describe", "--describe --state", "--describe --members", "--describe --offsets"):
        same(cluster, f"kafka-consumer-groups.sh {options} --group billing")
    missing = real(cluster, "kafka-consumer-groups.sh --describe --group nobody")
    assert missing.text == lookalike(cluster, "kafka-consumer-groups.sh --describe --group nobody").text
    assert missing.logged_errors == ("java.util.concurrent.ExecutionException: org.apache.kafka.common.errors."
                                     "GroupIdNotFoundException: Group nobody not found.",)  # + its stack trace
    deleted = real(cluster, "kafka-consumer-groups.sh --delete --group billing")
    assert deleted.text == "Deletion of requested consumer groups ('billing') was successful."
    same(cluster, "kafka-consumer-groups.sh --delete --group billing")  # now both fail: no such group


def test_get_offsets_agree_with_the_brokers(cluster):
    client = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, **CLIENT_TIMEOUTS)
    partitions = [TopicPartition("orders", p) for p in range(3)]
    latest = client.end_offsets(partitions)
    at_10s = client.offsets_for_times({tp: 10_000 for tp in partitions})
    client.close()
    assert real(cluster, "kafka-get-offsets.sh --topic orders").text == "\n".join(
        f"orders:{tp.partition}:{latest[tp]}" for tp in partitions)
    assert real(cluster, "kafka-get-offsets.sh --topic orders --time -2").text == "\n".join(
        f"orders:{p}:0" for p in range(3))
    assert real(cluster, "kafka-get-offsets.sh --topic orders --time 10000").text == "\n".join(
        f"orders:{tp.partition}:{at_10s[tp].offset}" for tp in partitions if at_10s[tp] is not None)


def test_log_dirs_report_the_sandbox_s_directories_and_sizes(cluster):
    kafka = real(cluster, "kafka-log-dirs.sh --describe --topic-list orders")
    heading, brokers, report = kafka.stdout.splitlines()
    assert heading == "Querying brokers for log directories information"
    assert brokers == "Received log directory information from brokers 1,2,3"
    for broker in json.loads(report)["brokers"]:
        (log_dir,) = broker["logDirs"]
        directory = cluster.broker_data_dir(broker["broker"])
        assert (log_dir["logDir"], log_dir["error"]) == (str(directory), None)
        on_disk = {f"orders-{p}": sum(f.stat().st_size for f in (directory / f"orders-{p}").glob("*.log"))
                   for p in range(3)}
        assert {p["partition"]: p["size"] for p in log_dir["partitions"]} == on_disk


def test_features_are_those_the_sandbox_supports_and_finalized(cluster):
    kafka = real(cluster, "kafka-features.sh describe")
    rows = [dict(re.findall(r"(\w+): (\S+)", line)) for line in kafka.stdout.splitlines()]
    assert [row["Feature"] for row in rows] == sorted(BROKER_SUPPORTED_FEATURES)
    versions = {"7": "3.3-IV3", "30": "4.3-IV0"}  # metadata.version levels as the tool names them
    for row in rows:
        low, high = BROKER_SUPPORTED_FEATURES[row["Feature"]]
        if row["Feature"] == "metadata.version":
            low, high = versions[str(low)], versions[str(high)]
        assert (row["SupportedMinVersion"], row["SupportedMaxVersion"]) == (str(low), str(high))
    finalized = {row["Feature"]: row["FinalizedVersionLevel"] for row in rows}
    assert finalized["metadata.version"] == "4.3-IV0"
    assert (finalized["share.version"], finalized["streams.version"]) == ("1", "1")   # 4.3's format defaults


def test_a_dead_broker_shows_in_both_topic_descriptions(cluster):
    cluster.create_topic("fragile", partitions=2, replication_factor=2)
    victim = cluster.leader("fragile", 0)
    cluster.kill_broker(victim)
    eventually(lambda: not any(str(victim) in isr.split(",") for isr in re.findall(r"Isr: ([\d,]*)",
                                                                                    cluster.describe_topic())),
               what="every ISR to drop the dead broker")
    same(cluster, "kafka-topics.sh --describe --topic fragile")
    for options in ("--describe --under-replicated-partitions", "--describe --under-min-isr-partitions",
                    "--describe --unavailable-partitions"):
        same_topics(cluster, f"kafka-topics.sh {options}")
    assert real(cluster, "kafka-topics.sh --describe --topic fragile").text == cluster.describe_topic("fragile")
