"""``minikafka configs``: option rules, config parsing, and describe/alter of topics and brokers."""

import pytest

from minikafka import Cluster
from minikafka.commands.config_command import build_parser, entity_names, parse_configs_to_be_added


def test_exactly_one_action(cli):
    result = cli("configs", "--bootstrap-server", "h:1", "--entity-type", "topics")
    assert result.code == 1 and result.err.startswith("Command must include exactly one action: --describe, "
                                                      "--alter\nOption ")


@pytest.mark.parametrize("args, message", [
    (["--entity-type", "topics", "--describe"], "Either --bootstrap-server or --bootstrap-controller must be "
                                                "specified."),
    (["--bootstrap-server", "h:1", "--describe"], "At least one entity type must be specified"),
    (["--bootstrap-server", "h:1", "--entity-type", "cats", "--describe"],
     "Invalid entity type cats, the entity type must be one of topics, clients, users, brokers, ips, client-metrics, "
     "groups, broker-loggers with a --bootstrap-server or --bootstrap-controller argument"),
    (["--bootstrap-server", "h:1", "--entity-type", "topics", "--alter", "--add-config", "a=b"],
     "An entity name must be specified with --alter of topics"),
    (["--bootstrap-server", "h:1", "--entity-type", "brokers", "--entity-name", "one", "--describe"],
     "The entity name for brokers must be a valid integer broker id, but it is: one"),
    (["--bootstrap-server", "h:1", "--entity-type", "topics", "--entity-name", "t", "--alter"],
     "At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter"),
    (["--bootstrap-server", "h:1", "--topic", "t", "--entity-name", "t", "--describe"],
     "--entity-{type,name,default} should not be used in conjunction with specific entity flags"),
    (["--bootstrap-server", "h:1", "--topic", "t", "--alter", "--add-config", "a"],
     'requirement failed: Invalid entity config: all configs to be added must be in the format "key=val" or  '
     '"key=[val1,val2]" to group values which contain commas.')])
def test_argument_errors_are_one_line_on_stderr(cli, args, message):
    assert cli("configs", *args) == type(cli("topics"))(1, "", message + "\n")


def test_add_config_groups_commas_in_square_brackets():
    options = build_parser().parse(["--add-config", "a=1, b = [x,y] ,c="])
    assert parse_configs_to_be_added(options) == {"a": "1", "b": "x,y", "c": ""}


def test_entity_default_is_the_empty_name_in_command_line_order():
    options = build_parser().parse(["--entity-type", "brokers", "--entity-default", "--entity-name", "1"])
    assert entity_names(options) == ["", "1"]


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=2, controllers=1, seed=19).start()
    c.create_topic("orders", 1, 1)
    yield c
    c.stop()


@pytest.mark.live
def test_alter_then_describe_a_topic(cluster, cli):
    bs = cluster.bootstrap_servers
    assert cli("configs", "--bootstrap-server", bs, "--entity-type", "topics", "--entity-name", "orders", "--alter",
               "--add-config", "retention.ms=60000,cleanup.policy=[compact,delete]").out == \
        "Completed updating config for topic orders.\n"
    assert cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--describe").out == (
        "Dynamic configs for topic orders are:\n"
        "  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete,"
        " DEFAULT_CONFIG:log.cleanup.policy=delete}\n"
        "  retention.ms=60000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=60000}\n")
    # Kafka 4.3.1 sends a deletion unchecked: segment.ms, never set, is a no-op.
    assert cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--alter", "--delete-config",
               "retention.ms,segment.ms") == type(cli("topics"))(0, "Completed updating config for topic orders.\n", "")
    assert cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--describe").out.endswith(
        "  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,"
        "delete, DEFAULT_CONFIG:log.cleanup.policy=delete}\n")
    assert cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--alter", "--delete-config",
               "retention.ms,cleanup.policy").code == 0
    assert cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--describe").out == \
        "Dynamic configs for topic orders are:\n"
    all_configs = cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--describe", "--all").out
    assert all_configs.startswith("All configs for topic orders are:\n  cleanup.policy=delete sensitive=false ")
    assert cli("configs", "--bootstrap-server", bs, "--topic", "nope", "--describe").out == \
        "The topic 'nope' doesn't exist and doesn't have dynamic config.\n"


@pytest.mark.live
def test_broker_and_cluster_default_configs(cluster, cli):
    bs = cluster.bootstrap_servers
    assert cli("configs", "--bootstrap-server", bs, "--entity-type", "brokers", "--entity-default", "--alter",
               "--add-config", "log.retention.ms=100000").out == \
        "Completed updating default config for brokers in the cluster.\n"
    assert cli("configs", "--bootstrap-server", bs, "--broker", "2", "--alter", "--add-config",
               "log.cleaner.threads=2").out == "Completed updating config for broker 2.\n"
    assert cli("configs", "--bootstrap-server", bs, "--entity-type", "brokers", "--describe").out == (
        "Dynamic configs for broker 1 are:\n"
        "Dynamic configs for broker 2 are:\n"
        "  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, "
        "DEFAULT_CONFIG:log.cleaner.threads=1}\n"
        "Default configs for brokers in the cluster are:\n"
        "  log.retention.ms=100000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=100000}\n"
        "  min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}\n")
    assert cli("configs", "--bootstrap-server", bs, "--broker", "7", "--describe").out == \
        "The broker '7' doesn't exist and doesn't have dynamic config.\n"
    for args, done in [(("--broker", "2"), "config for broker 2"),
                       (("--broker-defaults",), "default config for brokers in the cluster")]:
        unset = cli("configs", "--bootstrap-server", bs, *args, "--alter", "--delete-config", "log.cleaner.backoff.ms")
        assert unset == type(unset)(0, f"Completed updating {done}.\n", "")     # as 4.3.1: a no-op


@pytest.mark.live
def test_a_refused_value_is_reported_with_the_command_line(cluster, cli):
    args = ("--bootstrap-server", cluster.bootstrap_servers, "--topic", "orders", "--alter", "--add-config",
            "retention.ms=soon")
    result = cli("configs", *args)
    assert result.code == 1
    assert result.err == (f"Error while executing config command with args '{' '.join(args)}'\n"
                          "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors."
                          "InvalidConfigurationException: Invalid value soon for configuration retention.ms: Not a "
                          "number of type LONG\n")


@pytest.mark.live
@pytest.mark.parametrize("add_config, error", [         # the first two lines of Kafka 4.3.1's kafka-configs.sh
    ("cleanup.policy=[delete,]", "InvalidConfigurationException: Configuration 'cleanup.policy' values must not be "
                                 "empty."),
    ("retention.ms=1", "UnknownTopicOrPartitionException: The topic 'nope' does not exist."),
])
def test_refusals_of_list_values_and_missing_topics(cluster, cli, add_config, error):
    topic = "nope" if "nope" in error else "orders"
    args = ("--bootstrap-server", cluster.bootstrap_servers, "--topic", topic, "--alter", "--add-config", add_config)
    before = cli("configs", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "orders", "--describe").out
    assert cli("configs", *args) == type(cli("topics"))(
        1, "", f"Error while executing config command with args '{' '.join(args)}'\n"
               f"java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.{error}\n")
    assert cli("configs", "--bootstrap-server", cluster.bootstrap_servers, "--topic", "orders", "--describe").out \
        == before


@pytest.mark.live
def test_repeated_list_elements_are_dropped(cluster, cli):
    bs = cluster.bootstrap_servers
    assert cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--alter", "--add-config",
               "cleanup.policy=[delete,delete]").code == 0
    assert "  cleanup.policy=delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=delete, " in \
        cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--describe").out
    assert cli("configs", "--bootstrap-server", bs, "--topic", "orders", "--alter", "--delete-config",
               "cleanup.policy").code == 0
