"""``minikafka groups`` (``kafka-groups.sh``): option rules in Kafka 4.3.1's order, and --list on a live cluster."""

import time

import pytest
from kafka import KafkaConsumer

from minikafka import Cluster

BS = ["--bootstrap-server", "h:1"]


@pytest.mark.parametrize("args, message", [
    ([], "Missing required option(s) [bootstrap-server]"),
    (["--list"], "Missing required option(s) [bootstrap-server]"),
    (["--list", "--bootstrap-server"], "Option bootstrap-server requires an argument"),
    (["--list", "--state"] + BS, "state is not a recognized option"),
    (BS, "Command must include exactly one action: --list."),
    (BS + ["--consumer"], "Command must include exactly one action: --list."),
    (BS + ["--list", "--consumer", "--group-type", "classic"],
     'Option "[consumer]" can\'t be used with option "[group-type]"'),
    (BS + ["--list", "--consumer", "--protocol", "consumer"],
     'Option "[consumer]" can\'t be used with option "[protocol]"'),
    (BS + ["--list", "--share", "--streams"], 'Option "[share]" can\'t be used with option "[streams]"'),
    (BS + ["--list", "--streams", "--protocol", "x"], 'Option "[streams]" can\'t be used with option "[protocol]"'),
])
def test_usage_errors_print_the_message_and_the_options(cli, args, message):
    result = cli("groups", *args)
    assert result.code == 1 and result.out == "" and result.err.startswith(message + "\nOption ")
    assert "--group-type <String: type>" in result.err


def test_help_needs_no_bootstrap_server(cli):
    result = cli("groups", "--help")
    assert result.code == 1 and result.err.startswith("This tool helps to list groups of all types.\nOption ")


def test_an_unknown_group_type_escapes_the_tool(cli):
    # IllegalArgumentException out of the options' constructor: its message alone (the stack trace is left out).
    result = cli("groups", *BS, "--list", "--group-type", "modern")
    assert (result.code, result.out, result.err) == (1, "", "--group-type must be a valid group type.\n")


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=1, controllers=1, seed=26).start()
    c.create_topic("orders", 2, 1)
    yield c
    c.stop()


@pytest.mark.live
def test_list_classic_and_consumer_protocol_groups(cluster, cli):
    confluent_kafka = pytest.importorskip("confluent_kafka")
    classic = KafkaConsumer("orders", bootstrap_servers=cluster.bootstrap_servers, group_id="classic-g",
                            heartbeat_interval_ms=200)
    modern = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "modern-g",
                                       "group.protocol": "consumer"})
    try:
        modern.subscribe(["orders"])
        deadline = time.monotonic() + 30
        while not classic.assignment() or len(modern.assignment()) < 2:
            assert time.monotonic() < deadline, "the groups did not form"
            classic.poll(100)
            modern.poll(0.1)
        bs = ["--bootstrap-server", cluster.bootstrap_servers]
        result = cli("groups", *bs, "--list")
        assert result.code == 0 and result.err == ""
        lines = result.out.splitlines()
        assert lines[0] == "GROUP                TYPE                 PROTOCOL            "
        assert sorted(lines[1:]) == ["classic-g            Classic              consumer             ",
                                     "modern-g             Consumer             consumer             "]
        assert cli("groups", *bs, "--list", "--group-type", "CONSUMER").out.splitlines()[1:] == [
            "modern-g             Consumer             consumer             "]
        assert cli("groups", *bs, "--list", "--share").out.splitlines()[1:] == []
        assert cluster.run_tool("kafka-groups.sh --list --group-type classic").splitlines()[1].split() == [
            "classic-g", "Classic", "consumer"]
    finally:
        modern.close()
        classic.close()


def test_no_broker_answers(cli, monkeypatch):
    # Kafka's get(30, SECONDS) gives up with a message-less TimeoutException (here after 1 s).
    from minikafka.commands import groups_command
    monkeypatch.setattr(groups_command, "LIST_TIMEOUT_MS", 1000)
    result = cli("groups", "--bootstrap-server", "127.0.0.1:1", "--list")
    assert (result.code, result.out) == (1, "Error while executing groups command : null\n")
