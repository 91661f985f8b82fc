"""``minikafka leader-election``: option validation, JSON files, and ElectLeaders against a live cluster."""

import json

import pytest

from minikafka import Cluster
from minikafka.commands.admin_client import error_for
from minikafka.commands.leader_election_command import ADMIN_CONFIG_DEPRECATED, parse_replica_election_data, report
from minikafka.common.errors import KafkaException
from minikafka.common.topic_partition import TopicPartition


@pytest.mark.parametrize("args, message", [
    (["--election-type", "preferred"], "Missing required option(s): bootstrap-server"),
    ([], "Missing required option(s): bootstrap-server, election-type"),
    (["--bootstrap-server", "h:1", "--election-type", "preferred"],
     "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"),
    (["--bootstrap-server", "h:1", "--election-type", "preferred", "--topic", "t"],
     "Missing required option(s): partition"),
    (["--bootstrap-server", "h:1", "--election-type", "preferred", "--all-topic-partitions", "--partition", "1"],
     "Option partition is only allowed if topic is used"),
    (["--bootstrap-server", "h:1", "--election-type", "bogus", "--all-topic-partitions"],
     "Cannot parse argument 'bogus' of option election-type")])
def test_option_validation(cli, args, message):
    if not args:
        args = ["--topic", "t", "--partition", "0"]
    result = cli("leader-election", *args)
    assert (result.code, result.out, result.err) == (1, "", message + "\n")


def test_admin_config_and_command_config_are_refused_together(cli):
    result = cli("leader-election", "--bootstrap-server", "h:1", "--election-type", "preferred", "--admin.config", "a",
                 "--command-config", "b")
    assert result.code == 1 and result.out == ""
    assert result.err.startswith('Option "[admin.config]" can\'t be used with option "[command-config]"\nOption ')


@pytest.mark.parametrize("option, out", [("--admin.config", ADMIN_CONFIG_DEPRECATED + "\n"), ("--command-config", "")])
def test_a_missing_properties_file_prints_its_path(cli, tmp_path, option, out):
    missing = str(tmp_path / "admin.properties")
    result = cli("leader-election", "--bootstrap-server", "h:1", "--election-type", "preferred",
                 "--all-topic-partitions", option, missing)
    assert (result.code, result.out, result.err) == (1, out, missing + "\n")
    assert ADMIN_CONFIG_DEPRECATED == ("Option --admin.config has been deprecated and will be removed in a future "
                                       "version. Use --command-config instead.")


def test_the_json_file_is_read_before_the_deprecation_line(cli, tmp_path):
    missing = str(tmp_path / "election.json")
    result = cli("leader-election", "--bootstrap-server", "h:1", "--election-type", "preferred",
                 "--path-to-json-file", missing, "--admin.config", missing)
    assert (result.code, result.out, result.err) == (1, "", f"java.io.IOException: Unable to read file {missing}\n")


def test_json_file_partitions(tmp_path):
    path = tmp_path / "election.json"
    path.write_text(json.dumps({"partitions": [{"topic": "foo", "partition": 1}, {"topic": "bar", "partition": 0}]}))
    assert parse_replica_election_data(str(path)) == [TopicPartition("foo", 1), TopicPartition("bar", 0)]


@pytest.mark.parametrize("document, message", [
    ("not json", "Replica election data is empty"),
    ("{}", 'Replica election data is missing "partitions" field'),
    ('{"partitions": [{"topic": "a"}]}', "com.fasterxml.jackson.databind.JsonMappingException: No such field "
                                         "exists: `partition`"),
    ('{"partitions": [{"topic": "a", "partition": "0"}]}',
     'com.fasterxml.jackson.databind.JsonMappingException: Expected `Integer` value, received "0"'),
    ('{"partitions": [{"topic": "a", "partition": 0}, {"topic": "a", "partition": 0}]}',
     "Replica election data contains duplicate partitions: [a-0]")])
def test_json_file_errors(tmp_path, document, message):
    path = tmp_path / "election.json"
    path.write_text(document)
    with pytest.raises(KafkaException) as error:
        parse_replica_election_data(str(path))
    assert error.value.message == message


def test_report_groups_successes_noops_and_failures(capsys):
    code = report("PREFERRED", {TopicPartition("a", 0): None, TopicPartition("a", 1): error_for(84),
                                TopicPartition("b", 0): error_for(3, "No such topic as b")})
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ("Successfully completed leader election (PREFERRED) for partitions a-0\n"
                   "Valid replica already elected for partitions a-1\n"
                   "Error completing leader election (PREFERRED) for partition: b-0: "
                   "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: No such topic as b\n")
    assert err == "1 replica(s) could not be elected\n"


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=13).start()
    c.create_topic("orders", 2, 2)
    yield c
    c.stop()


@pytest.mark.live
def test_preferred_election_moves_leadership_to_the_first_replica(cluster, cli, eventually, tmp_path):
    bs = cluster.bootstrap_servers
    assert cli("leader-election", "--bootstrap-server", bs, "--election-type", "preferred",
               "--all-topic-partitions").out == ""                       # already balanced: nothing to report
    empty = tmp_path / "admin.properties"
    empty.write_text("")
    deprecated = cli("leader-election", "--bootstrap-server", bs, "--election-type", "preferred",
                     "--all-topic-partitions", "--admin.config", str(empty))
    assert (deprecated.code, deprecated.out, deprecated.err) == (0, ADMIN_CONFIG_DEPRECATED + "\n", "")
    noop = cli("leader-election", "--bootstrap-server", bs, "--election-type", "PREFERRED", "--topic", "orders",
               "--partition", "0")
    assert (noop.code, noop.out) == (0, "Valid replica already elected for partitions orders-0\n")
    leader = cluster.leader("orders", 0)
    others = [b for b in cluster.replicas("orders", 0) if b != leader]
    cluster.reassign_partitions({("orders", 0): others + [leader]})     # same replicas, new preferred leader
    eventually(lambda: cluster.replicas("orders", 0)[0] == others[0], what="new replica order")
    eventually(lambda: set(cluster.isr("orders", 0)) == {leader, others[0]}, what="full ISR")
    elected = cli("leader-election", "--bootstrap-server", bs, "--election-type", "preferred", "--all-topic-partitions")
    assert (elected.code, elected.out) == (
        0, "Successfully completed leader election (PREFERRED) for partitions orders-0\n")
    assert cluster.leader("orders", 0) == others[0]


@pytest.mark.live
def test_an_unknown_topic_fails_the_tool(cluster, cli, tmp_path):
    path = tmp_path / "election.json"
    path.write_text(json.dumps({"partitions": [{"topic": "nope", "partition": 0}]}))
    result = cli("leader-election", "--bootstrap-server", cluster.bootstrap_servers, "--election-type", "preferred",
                 "--path-to-json-file", str(path))
    assert result.code == 1
    assert result.out.startswith("Error completing leader election (PREFERRED) for partition: nope-0: "
                                 "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: ")
    assert result.err == "1 replica(s) could not be elected\n"
