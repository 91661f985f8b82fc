"""``Cluster(broker_config=...)``: Kafka's start-up checks before anything is written, the
settings the layout owns, explicit node ids, and overrides as DescribeConfigs reports them.

The expected texts were printed by Apache Kafka 4.3.1 (``kafka.Kafka server.properties
--override ...`` and ``kafka-configs.sh --describe --all`` against that broker).
"""

import pytest

from minikafka import Cluster
from minikafka.common.config.describe import ConfigSource
from minikafka.common.errors import ConfigException
from minikafka.tools.config_command_output import ConfigSynonym, DescribedConfig, entry_line
from tests.server.apis.admin_harness import DescribeConfigs, send

BROKER = 4


@pytest.mark.parametrize("config, java_class, message", [
    ({"num.partitions": 0}, "org.apache.kafka.common.config.ConfigException",
     "Invalid value 0 for configuration num.partitions: Value must be at least 1"),
    ({"log.retention.ms": ""}, "org.apache.kafka.common.config.ConfigException",
     "Invalid value  for configuration log.retention.ms: Not a number of type LONG"),
    ({"log.cleanup.policy": "bogus"}, "org.apache.kafka.common.config.ConfigException",
     "Invalid value bogus for configuration log.cleanup.policy: String must be one of: compact, delete"),
    # a rule across two settings, checked by KafkaConfig once the whole file is known
    ({"replica.fetch.wait.max.ms": 40000}, "java.lang.IllegalArgumentException",
     "requirement failed: replica.socket.timeout.ms should always be at least "
     "replica.fetch.wait.max.ms to prevent unnecessary socket timeouts"),
])
def test_a_bad_setting_fails_with_kafkas_error_before_anything_is_written(tmp_path, config, java_class,
                                                                           message):
    with pytest.raises(ConfigException) as raised:
        Cluster(brokers=1, controllers=1, simulated=True, data_dir=tmp_path / "c", broker_config=config)
    assert (raised.value.java_class, str(raised.value)) == (java_class, message)
    assert not (tmp_path / "c").exists()


def test_a_node_id_beyond_javas_int_fails_as_kafka_parses_it(tmp_path):
    with pytest.raises(ConfigException, match="^Invalid value 2147483648 for configuration broker.id: "
                                              "Not a number of type INT$"):
        Cluster(brokers=[2147483648], controllers=1, simulated=True, data_dir=tmp_path / "c")
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("name, option", [
    ("node.id", "--broker-ids"), ("process.roles", "--combined"), ("log.dirs", "--data-dir"),
    ("controller.quorum.voters", "--controller-ids"), ("listeners", "--port"),
    ("advertised.listeners", "set_advertised_listener"),
])
def test_settings_the_layout_writes_per_node_are_refused_with_the_option_to_use(tmp_path, name, option):
    with pytest.raises(ValueError, match=f"^{name} cannot be overridden here: .*{option}"):
        Cluster(brokers=1, controllers=1, simulated=True, data_dir=tmp_path / "c",
                broker_config={name: "1"})
    assert not (tmp_path / "c").exists()


def test_combined_nodes_may_be_chosen_by_id():
    cluster = Cluster(brokers=[0, 1, 2], controllers=[2], combined=True, simulated=True)
    assert (cluster.broker_ids, cluster.controller_ids) == ([0, 1, 2], [2])
    with pytest.raises(ValueError, match=r"but \[5\] is not a broker id"):
        Cluster(brokers=[0, 1, 2], controllers=[5], combined=True, simulated=True)


def test_unknown_names_are_kept_and_reported_but_change_nothing():
    cluster = Cluster(brokers=1, controllers=1, simulated=True, broker_config={"acme.custom": "yes"})
    assert cluster.unknown_configs == ["acme.custom"]
    assert cluster.non_default_configs()["acme.custom"] == "yes"


def _described(entry) -> str:
    synonyms = tuple(ConfigSynonym(s.name, s.value, ConfigSource(s.source).name) for s in entry.synonyms)
    return entry_line(DescribedConfig(entry.name, entry.value, ConfigSource(entry.config_source).name,
                                      entry.is_sensitive, synonyms))


def test_overrides_describe_as_static_broker_configs_as_kafka_shows_them():
    cluster = Cluster(brokers=[0], controllers=[3000], seed=7, simulated=True, broker_config={
        "log.retention.ms": 60000, "controller.quorum.election.timeout.ms": 1500, "acme.custom": "yes"})
    cluster.start()
    try:
        request = DescribeConfigs[4](resources=[DescribeConfigs.DescribeConfigsResource(
            resource_type=BROKER, resource_name="0", configuration_keys=None)],
            include_synonyms=True, include_documentation=False)
        [result] = send(cluster, 0, request).results
        lines = {entry.name: _described(entry) for entry in result.configs}
    finally:
        cluster.stop()
    assert lines["log.retention.ms"] == (
        "  log.retention.ms=60000 sensitive=false synonyms={STATIC_BROKER_CONFIG:log.retention.ms=60000, "
        "DEFAULT_CONFIG:log.retention.hours=168}")
    assert lines["controller.quorum.election.timeout.ms"] == (
        "  controller.quorum.election.timeout.ms=1500 sensitive=false synonyms={STATIC_BROKER_CONFIG:"
        "controller.quorum.election.timeout.ms=1500, DEFAULT_CONFIG:controller.quorum.election.timeout.ms=1000}")
    # a name Kafka does not define: kept, described as sensitive (no type to say otherwise)
    assert lines["acme.custom"] == (
        "  acme.custom=null sensitive=true synonyms={STATIC_BROKER_CONFIG:acme.custom=null}")
