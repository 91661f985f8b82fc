"""``minikafka console-producer``: options, properties, and records that reach the topic."""

import pytest
from kafka import KafkaConsumer, TopicPartition

from minikafka import Cluster
from minikafka.commands.console_producer import build_parser, kafka_python_config, producer_props, reader_props


def warning(option: str, replacement: str, until: str = "a future version") -> str:
    return f"Warning: --{option} is deprecated and will be removed in {until}. Use --{replacement} instead.\n"


def test_bootstrap_server_is_validated_like_kafka(cli):
    result = cli("console-producer", "--topic", "t")
    assert result.code == 1 and result.err.startswith("Error while validating the bootstrap address\n\nOption ")
    result = cli("console-producer", "--topic", "t", "--bootstrap-server", "localhost")
    assert result.err.startswith("Please provide valid host:port like host1:9091,host2:9092\n\n")
    result = cli("console-producer", "--bootstrap-server", "h:1")
    assert result.err.startswith('Missing required argument "[topic]"\n')


@pytest.mark.parametrize("extra, message", [
    (["--command-config", "x", "--producer.config", "y", "--command-property", "a=b", "--producer-property", "c=d"],
     "Options --command-config and --producer.config cannot be specified together."),
    (["--command-property", "a=b", "--producer-property", "c=d", "--reader-property", "a=b", "--property", "c=d"],
     "Options --command-property and --producer-property cannot be specified together."),
    (["--reader-property", "a=b", "--property", "c=d", "--producer-property", "x=y"],
     "Options --reader-property and --property cannot be specified together.")])
def test_an_option_and_its_deprecated_synonym_are_refused_together(cli, extra, message):
    result = cli("console-producer", "--bootstrap-server", "h:1", "--topic", "t", *extra)
    assert result.code == 1 and result.out == "" and result.err.startswith(message + "\nOption ")


def test_deprecated_options_are_warned_about_on_stdout_before_the_bootstrap_check(cli):
    result = cli("console-producer", "--topic", "t", "--max-partition-memory-bytes", "100", "--property", "a=b",
                 "--producer.config", "p", "--producer-property", "a=b")
    assert result.code == 1
    assert result.out == (warning("producer-property", "command-property")
                          + warning("producer.config", "command-config") + warning("property", "reader-property")
                          + warning("max-partition-memory-bytes", "batch-size", "Apache Kafka 5.0"))
    assert result.err.startswith("Error while validating the bootstrap address\n\nOption ")


@pytest.mark.parametrize("option, out", [("--producer.config", warning("producer.config", "command-config")),
                                         ("--command-config", "")])
def test_a_missing_producer_config_file(cli, tmp_path, option, out):
    missing = str(tmp_path / "producer.properties")
    result = cli("console-producer", "--bootstrap-server", "h:1", "--topic", "t", option, missing)
    assert (result.code, result.out, result.err) == (1, out, f"java.nio.file.NoSuchFileException: {missing}\n")


def test_the_new_options_are_used_as_their_deprecated_synonyms(tmp_path):
    config = tmp_path / "producer.properties"
    config.write_text("acks=0\nlinger.ms=9\n")
    p = build_parser()
    for prop, conf, reader in (("--command-property", "--command-config", "--reader-property"),
                               ("--producer-property", "--producer.config", "--property")):
        o = p.parse(["--bootstrap-server", "h:1", "--topic", "t", prop, "acks=1", conf, str(config), reader,
                     "parse.key=true"])
        assert (producer_props(o)["acks"], producer_props(o)["linger.ms"]) == ("1", "9")
        assert reader_props(o) == {"topic": "t", "parse.key": "true"}


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
                 "--reader-property", "parse.key=true", "--reader-property", "key.separator=:", "--reader-property",
                 "parse.headers=true", "--sync", stdin="h=1\tk1:first\nh=2\tk2:second:value\n".replace("h=", "h:"))
    assert (result.code, result.out, result.err) == (0, "", "")
    records = read_all(cluster, "lines")
    assert [(r.key, r.value, r.headers) for r in records] == [(b"k1", b"first", [("h", b"1")]),
                                                                (b"k2", b"second:value", [("h", b"2")])]


@pytest.mark.live
def test_a_bad_line_stops_the_producer_after_sending_the_earlier_ones(cluster, cli):
    before = len(read_all(cluster, "lines"))
    result = cli("console-producer", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "lines",
                 "--property", "parse.key=true", stdin="k\tgood\nno tab here\nk\tnever sent\n")
    assert result.code == 1 and result.out == warning("property", "reader-property")
    assert result.err == "org.apache.kafka.common.KafkaException: No key separator found on line number 2: " \
                         "'no tab here'\n"
    assert [r.value for r in read_all(cluster, "lines")[before:]] == [b"good"]
