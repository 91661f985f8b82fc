"""``minikafka topics``: kafka-topics.sh's options and errors, and its output against a live cluster."""

import pytest

from minikafka import Cluster
from minikafka.commands.topic_command import parse_replica_assignment, parse_topic_configs
from minikafka.common.errors import ConfigException, InvalidConfigurationException


# ----------------------------------------------------------------------------- without a cluster
def test_no_arguments_prints_the_purpose_and_the_option_table(cli):
    result = cli("topics")
    assert result.code == 1 and result.out == ""
    assert result.err.startswith("Create, delete, describe, or change a topic.\nOption ")


@pytest.mark.parametrize("args", [["--list", "--describe"], ["--topic", "t"]])
def test_exactly_one_action(cli, args):
    result = cli("topics", "--bootstrap-server", "h:1", *args)
    assert result.code == 1
    assert result.err.startswith("Command must include exactly one action: --list, --describe, --create, --alter "
                                 "or --delete\n")


def test_bootstrap_server_is_required(cli):
    assert cli("topics", "--list") == type(cli("topics", "--list"))(1, "", "--bootstrap-server must be specified\n")


@pytest.mark.parametrize("args, message", [
    (["--create"], 'Missing required argument "[topic]"'),
    (["--alter", "--topic", "t"], 'Missing required argument "[partitions]"'),
    (["--create", "--topic", "t", "--replica-assignment", "1:2", "--partitions", "1"],
     'Option "[replica-assignment]" can\'t be used with option "[partitions]"'),
    (["--list", "--partitions", "3"], 'Option "[partitions]" can\'t be used with option "[list]"'),
    (["--list", "--if-exists"], 'Option "[if-exists]" can\'t be used with option "[list]"'),
    (["--describe", "--if-exists"], "--topic or --topic-id is required to describe a topic"),
    (["--alter", "--topic", "t", "--config", "a=b", "--partitions", "2"],
     'Option combination "[[bootstrap-server], [config]]" can\'t be used with option "[alter]" (To alter topic '
     'configurations, the kafka-configs tool can be used.)')])
def test_option_rules(cli, args, message):
    result = cli("topics", "--bootstrap-server", "h:1", *args)
    assert result.code == 1 and result.err.startswith(message + "\n")


def test_replica_assignment_parsing():
    assert parse_replica_assignment("1:2, 2 : 3,") == {0: [1, 2], 1: [2, 3]}
    with pytest.raises(Exception, match="^Partition replica lists may not contain duplicate entries: 1$"):
        parse_replica_assignment("1:1")
    with pytest.raises(Exception, match=r"^Partition 1 has different replication factor: \[2\]$"):
        parse_replica_assignment("1:2,2")
    with pytest.raises(ValueError, match='^For input string: "x"$'):
        parse_replica_assignment("1:x")


def test_topic_configs_are_validated_like_log_config():
    assert parse_topic_configs(["retention.ms = 1000", "cleanup.policy=compact"]) == {
        "retention.ms": "1000", "cleanup.policy": "compact"}
    with pytest.raises(ValueError, match='all configs to be added must be in the format "key=val"'):
        parse_topic_configs(["retention.ms="])
    with pytest.raises(InvalidConfigurationException, match="^Unknown topic config name: nope$"):
        parse_topic_configs(["nope=1"])
    with pytest.raises(ConfigException, match="^Invalid value x for configuration retention.ms"):
        parse_topic_configs(["retention.ms=x"])


# ----------------------------------------------------------------------------- live
@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=11).start()
    yield c
    c.stop()


@pytest.mark.live
def test_create_list_and_describe_match_the_clusters_own_view(cluster, cli):
    bs = cluster.bootstrap_servers
    assert cli("topics", "--bootstrap-server", bs, "--create", "--topic", "orders", "--partitions", "3",
               "--replication-factor", "2", "--config", "retention.ms=60000").out == "Created topic orders.\n"
    result = cli("topics", "--bootstrap-server", bs, "--create", "--topic", "my_topic.v1", "--replica-assignment",
                 "1:2,2:3")
    assert result.out.startswith("WARNING: Due to limitations in metric names") and \
        result.out.endswith("Created topic my_topic.v1.\n")
    assert cli("topics", "--bootstrap-server", bs, "--list").out == "my_topic.v1\norders\n"
    assert cli("topics", "--bootstrap-server", bs, "--list", "--topic", "ord.*").out == "orders\n"
    described = cli("topics", "--bootstrap-server", bs, "--describe", "--topic", "orders")
    assert described.code == 0
    assert described.out == cluster.describe_topic("orders") + "\n"       # over the wire == from the inside
    # beside its own retention.ms, the cluster-level min.insync.replicas an ELR bootstrap writes
    assert "\tConfigs: min.insync.replicas=1,retention.ms=60000\n" in described.out
    everything = cli("topics", "--bootstrap-server", bs, "--describe").out
    assert everything == cluster.describe_topic() + "\n"
    assert "Replicas: 2,3\tIsr: 2,3\tElr: \tLastKnownElr: \n" in everything


@pytest.mark.live
def test_failures_print_error_while_executing_topic_command(cluster, cli):
    bs = cluster.bootstrap_servers
    cli("topics", "--bootstrap-server", bs, "--create", "--topic", "dup", "--partitions", "1")
    assert cli("topics", "--bootstrap-server", bs, "--create", "--topic", "dup") == type(cli("topics"))(
        1, "Error while executing topic command : Topic 'dup' already exists.\n", "")
    assert cli("topics", "--bootstrap-server", bs, "--create", "--topic", "dup", "--if-not-exists").code == 0
    missing = cli("topics", "--bootstrap-server", bs, "--describe", "--topic", "nope")
    assert (missing.code, missing.out) == (1, "Error while executing topic command : Topic 'nope' does not exist "
                                              "as expected\n")
    assert cli("topics", "--bootstrap-server", bs, "--describe", "--topic", "nope", "--if-exists").out == ""
    too_many = cli("topics", "--bootstrap-server", bs, "--create", "--topic", "x", "--replication-factor", "4")
    assert too_many.out.startswith("Error while executing topic command : Unable to replicate the partition 4 "
                                   "time(s)")
    bad = cli("topics", "--bootstrap-server", bs, "--create", "--topic", "x", "--partitions", "abc")
    assert bad.out == "Error while executing topic command : Cannot parse argument 'abc' of option partitions\n"
    assert cli("topics", "--bootstrap-server", bs, "--create", "--topic", "x", "--partitions", "0").out == \
        "Error while executing topic command : The partitions must be greater than 0\n"


@pytest.mark.live
def test_alter_adds_partitions_and_delete_removes_topics(cluster, cli, eventually):
    bs = cluster.bootstrap_servers
    cli("topics", "--bootstrap-server", bs, "--create", "--topic", "grow", "--partitions", "1")
    assert cli("topics", "--bootstrap-server", bs, "--alter", "--topic", "grow", "--partitions", "3").code == 0
    eventually(lambda: "PartitionCount: 3" in cli("topics", "--bootstrap-server", bs, "--describe", "--topic",
                                                  "grow").out, what="three partitions")
    shrink = cli("topics", "--bootstrap-server", bs, "--alter", "--topic", "grow", "--partitions", "2")
    assert shrink.code == 1 and shrink.out.startswith("Error while executing topic command : ")
    assert cli("topics", "--bootstrap-server", bs, "--delete", "--topic", "grow").code == 0
    eventually(lambda: "grow" not in cli("topics", "--bootstrap-server", bs, "--list").out.split(),
               what="topic deleted")
    assert cli("topics", "--bootstrap-server", bs, "--delete", "--topic", "grow", "--if-exists").code == 0


@pytest.mark.live
def test_report_options_keep_only_matching_partitions(cluster, cli):
    bs = cluster.bootstrap_servers
    cli("topics", "--bootstrap-server", bs, "--create", "--topic", "healthy", "--partitions", "2",
        "--replication-factor", "3")
    assert cli("topics", "--bootstrap-server", bs, "--describe", "--topic", "healthy",
               "--under-replicated-partitions").out == ""
    at_min = cli("topics", "--bootstrap-server", bs, "--describe", "--topic", "healthy",
                 "--at-min-isr-partitions").out      # min.insync.replicas=1, ISR of 3: none at the minimum
    assert at_min == ""
    cli("topics", "--bootstrap-server", bs, "--create", "--topic", "tuned", "--partitions", "1",
        "--replication-factor", "1", "--config", "retention.ms=60000")
    overrides = cli("topics", "--bootstrap-server", bs, "--describe", "--topics-with-overrides").out
    assert "Topic: tuned\t" in overrides and "retention.ms=60000" in overrides
    # As in Kafka 4.3 with ELR: the cluster-level min.insync.replicas (DYNAMIC_DEFAULT_BROKER_CONFIG) is
    # not a default, so every topic counts as having overrides.
    assert "Topic: healthy\t" in overrides and "\tConfigs: min.insync.replicas=1\n" in overrides


@pytest.mark.live
def test_without_elr_topics_with_overrides_lists_only_the_overridden_ones(cli):
    cluster = Cluster(brokers=1, controllers=1, seed=11, broker_config={"offsets.topic.replication.factor": 1},
                      features={"eligible.leader.replicas.version": 0}).start()
    try:
        bs = cluster.bootstrap_servers
        cli("topics", "--bootstrap-server", bs, "--create", "--topic", "plain", "--partitions", "1")
        cli("topics", "--bootstrap-server", bs, "--create", "--topic", "tuned", "--partitions", "1",
            "--config", "retention.ms=60000")
        overrides = cli("topics", "--bootstrap-server", bs, "--describe", "--topics-with-overrides").out
        assert overrides == ("Topic: tuned\tTopicId: " + cluster.snapshot().topic("tuned").topic_id
                             + "\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: retention.ms=60000\n")
    finally:
        cluster.stop()
