"""``minikafka console-producer``: options, properties, and records that reach the topic."""

import pytest
from kafka import KafkaConsumer, TopicPartition

from minikafka import Cluster
from minikafka.cli.console_producer import build_parser, kafka_python_config, producer_props


def test_bootstrap_server_is_validated_like_kafka(cli):
    result = cli("console-producer", "--topic", "t")
    assert result.code == 1 and result.err.startswith("Error while validating the bootstrap address\n\nOption ")
    result = cli("console-producer", "--topic", "t", "--bootstrap-server", "localhost")
    assert result.err.startswith("Please provide valid host:port like host1:9091,host2:9092\n\n")
    result = cli("console-producer", "--bootstrap-server", "h:1")
    assert result.err.startswith('Missing required argument "[topic]"\n')


def test_the_console_producers_defaults_and_overrides():
    p = build_parser()
    props = producer_props(p.parse(["--bootstrap-server", "h:1", "--topic", "t", "--producer-property", "acks=1",
                                    "--producer-property", "linger.ms=5", "--timeout", "7"]))
    assert props["acks"] == "1"                  # a property wins over the option's default...
    assert props["linger.ms"] == "7"             # ...but not over the option given explicitly
    assert (props["client.id"], props["request.timeout.ms"], props["compression.type"]) == (
        "console-producer", "1500", "none")
    config = kafka_python_config(props)
    assert config["acks"] == 1 and config["bootstrap_servers"] == ["h:1"] and "buffer_memory" not in config
    assert kafka_python_config(producer_props(p.parse(["--bootstrap-server", "h:1", "--topic", "t"])))["acks"] == "all"
    assert producer_props(p.parse(["--bootstrap-server", "h:1", "--topic", "t", "--compression-codec"]))[
        "compression.type"] == "gzip"


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=1, controllers=1, seed=16).start()
    c.create_topic("lines", 1, 1)
    yield c
    c.stop()


def read_all(cluster, topic):
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, consumer_timeout_ms=3000)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    end = consumer.end_offsets([tp])[tp]
    records = []
    while consumer.position(tp) < end:
        for batch in consumer.poll(timeout_ms=500).values():
            records.extend(batch)
    consumer.close()
    return records


@pytest.mark.live
def test_lines_become_records_with_keys_and_headers(cluster, cli):
    result = cli("console-producer", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "lines",
                 "--property", "parse.key=true", "--property", "key.separator=:", "--property", "parse.headers=true",
                 "--sync", stdin="h=1\tk1:first\nh=2\tk2:second:value\n".replace("h=", "h:"))
    assert (result.code, result.out, result.err) == (0, "", "")
    records = read_all(cluster, "lines")
    assert [(r.key, r.value, r.headers) for r in records] == [(b"k1", b"first", [("h", b"1")]),
                                                                (b"k2", b"second:value", [("h", b"2")])]


@pytest.mark.live
def test_a_bad_line_stops_the_producer_after_sending_the_earlier_ones(cluster, cli):
    before = len(read_all(cluster, "lines"))
    result = cli("console-producer", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "lines",
                 "--property", "parse.key=true", stdin="k\tgood\nno tab here\nk\tnever sent\n")
    assert result.code == 1
    assert result.err == "org.apache.kafka.common.KafkaException: No key separator found on line number 2: " \
                         "'no tab here'\n"
    assert [r.value for r in read_all(cluster, "lines")[before:]] == [b"good"]
