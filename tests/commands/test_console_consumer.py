"""``minikafka console-consumer``: options, DefaultMessageFormatter output and the closing count."""

import re

import pytest
from kafka import KafkaProducer

from minikafka import Cluster
from minikafka.commands.console_consumer import PROTOCOL_HINT, build_parser, consumer_props, maybe_print_protocol_hint

DEPRECATED = "Option --{} is deprecated and will be removed in a future version. Use --{} instead.\n"


@pytest.mark.parametrize("args, message", [
    (["--bootstrap-server", "h:1"], "Exactly one of the following arguments is required: [topic], [include]"),
    (["--bootstrap-server", "h:1", "--topic", "t", "--include", "x"],
     "Exactly one of the following arguments is required: [topic], [include]"),
    (["--bootstrap-server", "h:1", "--topic", "t", "--consumer-property", "a=b", "--command-property", "c=d",
      "--consumer.config", "x", "--command-config", "y"],
     "Options --consumer-property and --command-property cannot be specified together."),
    (["--bootstrap-server", "h:1", "--topic", "t", "--consumer.config", "x", "--command-config", "y"],
     "Options --consumer.config and --command-config cannot be specified together."),
    (["--bootstrap-server", "h:1", "--topic", "t", "--offset", "3"], "The partition is required when offset is "
                                                                      "specified."),
    (["--bootstrap-server", "h:1", "--include", "t", "--partition", "0"], "The topic is required when partition is "
                                                                           "specified."),
    (["--topic", "t"], 'Missing required argument "[bootstrap-server]"'),
    (["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--offset", "-3"],
     "The provided offset value '-3' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long."),
    (["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--group", "g"],
     "Options group and partition cannot be specified together.")])
def test_option_rules(cli, args, message):
    result = cli("console-consumer", *args)
    assert result.code == 1 and result.out == "" and result.err.startswith(message + "\nOption ")


def test_a_deprecated_option_is_warned_about_on_stdout_before_later_checks(cli):
    result = cli("console-consumer", "--bootstrap-server", "h:1", "--topic", "t", "--consumer-property", "a=b",
                 "--property", "print.key=true", "--formatter-property", "print.value=true")
    assert result.code == 1
    assert result.out == DEPRECATED.format("consumer-property", "command-property")
    assert result.err.startswith("Options --property and --formatter-property cannot be specified together.\nOption ")


def test_the_new_options_are_used_as_their_deprecated_synonyms(tmp_path):
    config = tmp_path / "consumer.properties"
    config.write_text("group.id=g\nmax.poll.records=7\n")
    p = build_parser()
    for prop, conf in (("--command-property", "--command-config"), ("--consumer-property", "--consumer.config")):
        props = consumer_props(p, p.parse(["--bootstrap-server", "h:1", "--topic", "t", prop, "max.poll.records=5",
                                           conf, str(config)]))
        assert (props["group.id"], props["max.poll.records"]) == ("g", "5")


@pytest.mark.parametrize("args, hinted", [
    ([], True), (["--command-property", "group.protocol=CLASSIC"], True),
    (["--command-property", "group.protocol=consumer"], False), (["--partition", "0"], False)])
def test_the_kip_848_hint_needs_a_subscription_on_the_classic_protocol(capsys, args, hinted):
    p = build_parser()
    o = p.parse(["--bootstrap-server", "h:1", "--topic", "t", *args])
    maybe_print_protocol_hint(o, consumer_props(p, o))
    assert capsys.readouterr() == ("", PROTOCOL_HINT + "\n" if hinted else "")
    assert PROTOCOL_HINT == ("The consumer rebalance protocol (KIP-848) is production-ready! Set "
                             "group.protocol=consumer to try it out. See "
                             "https://kafka.apache.org/documentation/#consumer_rebalance_protocol")


def test_without_a_group_the_consumer_gets_a_throwaway_one():
    p = build_parser()
    props = consumer_props(p, p.parse(["--bootstrap-server", "h:1", "--topic", "t"]))
    assert re.fullmatch(r"console-consumer-\d{1,5}", props["group.id"])
    assert (props["enable.auto.commit"], props["auto.offset.reset"], props["client.id"]) == (
        "false", "latest", "console-consumer")
    props = consumer_props(p, p.parse(["--bootstrap-server", "h:1", "--topic", "t", "--group", "g",
                                       "--from-beginning"]))
    assert (props["group.id"], props["auto.offset.reset"]) == ("g", "earliest") and "enable.auto.commit" not in props


def test_conflicting_offset_reset_is_refused(cli):
    result = cli("console-consumer", "--bootstrap-server", "h:1", "--topic", "t", "--from-beginning",
                 "--consumer-property", "auto.offset.reset=latest")
    assert (result.code, result.err) == (1, "Can't simultaneously specify --from-beginning and "
                                            "'auto.offset.reset=latest', please remove one option\n")


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=1, controllers=1, seed=17).start()
    c.create_topic("events", 1, 1)
    producer = KafkaProducer(bootstrap_servers=c.bootstrap_servers, acks="all")
    for i in range(5):
        producer.send("events", key=f"k{i}".encode(), value=f"v{i}".encode(), headers=[("n", str(i).encode())])
    producer.send("events", key=b"gone", value=None)
    producer.flush()
    producer.close()
    yield c
    c.stop()


@pytest.mark.live
def test_max_messages_prints_records_with_the_requested_fields(cluster, cli):
    result = cli("console-consumer", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "events",
                 "--from-beginning", "--max-messages", "3", "--formatter-property", "print.key=true",
                 "--formatter-property", "print.partition=true", "--formatter-property", "print.offset=true",
                 "--formatter-property", "print.headers=true")
    assert result.code == 0
    assert result.out == ("Partition:0\tOffset:0\tn:0\tk0\tv0\n"
                          "Partition:0\tOffset:1\tn:1\tk1\tv1\n"
                          "Partition:0\tOffset:2\tn:2\tk2\tv2\n")
    assert result.err == PROTOCOL_HINT + "\nProcessed a total of 3 messages\n"


@pytest.mark.live
def test_timeout_ends_with_kafkas_error_line_and_the_count(cluster, cli):
    result = cli("console-consumer", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "events",
                 "--partition", "0", "--offset", "4", "--timeout-ms", "1000", "--property", "print.key=true")
    assert result.code == 0
    assert result.out == DEPRECATED.format("property", "formatter-property") + "k4\tv4\ngone\tnull\n"
    lines = result.err.splitlines()
    assert re.fullmatch(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ERROR Error processing message, terminating "
                        r"consumer process:  \(org\.apache\.kafka\.tools\.consumer\.ConsoleConsumer\)", lines[0])
    assert lines[1:] == ["org.apache.kafka.common.errors.TimeoutException", "Processed a total of 2 messages"]


@pytest.mark.live
def test_a_group_commits_what_it_printed(cluster, cli):
    cli("console-consumer", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "events", "--group", "reader",
        "--from-beginning", "--max-messages", "2")
    described = cli("consumer-groups", "--bootstrap-server", cluster.bootstrap_servers, "--describe", "--group",
                    "reader").out
    assert re.search(r"\nreader +events +0 +2 +6 +4 +- +- +-\n", described)


@pytest.mark.parametrize("option, out", [("--consumer.config", DEPRECATED.format("consumer.config", "command-config")),
                                         ("--command-config", "")])
def test_a_missing_consumer_config_file_escapes_main(cli, tmp_path, option, out):
    missing = str(tmp_path / "consumer.properties")
    result = cli("console-consumer", "--bootstrap-server", "h:1", "--topic", "t", option, missing)
    assert (result.code, result.out, result.err) == (1, out, f'Exception in thread "main" '
                                                             f'java.nio.file.NoSuchFileException: {missing}\n')
