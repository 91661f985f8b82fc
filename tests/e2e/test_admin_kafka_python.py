"""KafkaAdminClient (kafka-python) against a live cluster: topics, configs, leaders, reassignments, quorum.

One live cluster (4 brokers, 3 controllers) serves the module; each test
uses its own topics.
"""

import pytest
from kafka import TopicPartition
from kafka.admin import ConfigResource
from kafka.errors import (InvalidPartitionsError, InvalidReplicationFactorError, InvalidTopicError,
                          TopicAlreadyExistsError, UnknownTopicOrPartitionError)

from minikafka import Cluster
from minikafka.common.topic_partition import TopicPartition as TP
from tests.e2e.groups_admin_helpers import admin_client, eventually, produce_values

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=4, controllers=3, seed=104).start()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def admin(cluster):
    client = admin_client(cluster)
    yield client
    client.close()


def test_create_topics_with_defaults_and_explicit_settings(cluster, admin):
    result = admin.create_topics({"orders": {"num_partitions": 3, "replication_factor": 2,
                                             "configs": {"retention.ms": "60000"}},
                                  "defaults": {}}, wait_for_metadata=True)
    by_name = {t["name"]: t for t in result["topics"]}
    assert (by_name["orders"]["num_partitions"], by_name["orders"]["replication_factor"]) == (3, 2)
    assert by_name["orders"]["configs"]["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    assert (by_name["defaults"]["num_partitions"], by_name["defaults"]["replication_factor"]) == (1, 1)
    described = {t["name"]: t for t in admin.describe_topics(["orders"])}
    assert str(described["orders"]["topic_id"]) == str(by_name["orders"]["topic_id"])
    assert [len(p["replica_nodes"]) for p in described["orders"]["partitions"]] == [2, 2, 2]


@pytest.mark.parametrize("spec, error", [
    ({"bad name!": {}}, InvalidTopicError),
    ({"too-many-copies": {"num_partitions": 1, "replication_factor": 5}}, InvalidReplicationFactorError),
])
def test_create_topic_errors_are_raised(admin, spec, error):
    with pytest.raises(error):
        admin.create_topics(spec)


def test_existing_topic_and_validate_only(cluster, admin):
    admin.create_topics({"exists": {}})
    with pytest.raises(TopicAlreadyExistsError):
        admin.create_topics({"exists": {}})
    answer = admin.create_topics({"dry": {"num_partitions": 2}}, validate_only=True, raise_errors=False)
    assert answer["topics"][0]["error_code"] == 0
    assert "dry" not in admin.list_topics()
    messages = admin.create_topics({"exists": {}}, raise_errors=False)["topics"]
    assert messages[0]["error_message"] == "Topic 'exists' already exists."


def test_delete_topics_by_name_and_unknown(cluster, admin):
    admin.create_topics({"doomed": {}, "doomed-too": {}}, wait_for_metadata=True)
    result = admin.delete_topics(["doomed", "doomed-too"])
    assert [t["error_code"] for t in result["topics"]] == [0, 0]
    eventually(lambda: "doomed" not in admin.list_topics() and "doomed-too" not in admin.list_topics(),
               what="the topics gone from metadata")
    with pytest.raises(UnknownTopicOrPartitionError):
        admin.delete_topics(["doomed"])


def test_create_partitions(cluster, admin):
    admin.create_topics({"growing": {"num_partitions": 1, "replication_factor": 2}}, wait_for_metadata=True)
    admin.create_partitions({"growing": 4})
    eventually(lambda: len(admin.describe_topics(["growing"])[0]["partitions"]) == 4, what="four partitions")
    with pytest.raises(InvalidPartitionsError):
        admin.create_partitions({"growing": 2})


def test_describe_and_alter_topic_configs(cluster, admin):
    admin.create_topics({"tuned": {"configs": {"retention.ms": "1000"}}}, wait_for_metadata=True)
    resource = ConfigResource("TOPIC", "tuned")
    modified = admin.describe_configs([resource])["topic"]["tuned"]
    assert modified == {"retention.ms": {"value": "1000", "read_only": False, "config_source": "DYNAMIC_TOPIC_CONFIG",
                                         "is_sensitive": False, "synonyms": [], "config_type": "LONG",
                                         "documentation": None}}
    result = admin.alter_configs([ConfigResource("TOPIC", "tuned", {"retention.ms": "2000",
                                                                   "cleanup.policy": ("APPEND", "compact")})])
    assert result == {"topic": {"tuned": "OK"}}
    now = eventually(lambda: (c := admin.describe_configs([resource])["topic"]["tuned"])
                     and c.get("cleanup.policy", {}).get("value") == "delete,compact" and c, what="new configs")
    assert now["retention.ms"]["value"] == "2000"
    legacy = admin.alter_configs([ConfigResource("TOPIC", "tuned", {"segment.ms": "600000"})], incremental=False)
    assert legacy == {"topic": {"tuned": "OK"}}
    after_legacy = eventually(lambda: (c := admin.describe_configs([resource])["topic"]["tuned"])
                              and "segment.ms" in c and c, what="the legacy alter")
    assert set(after_legacy) >= {"segment.ms", "retention.ms", "cleanup.policy"}   # the client re-sent the others


def test_broker_configs_and_loggers(cluster, admin):
    broker = ConfigResource("BROKER", "2")
    result = admin.alter_configs([ConfigResource("BROKER", "2", {"log.cleaner.threads": "2"})])
    assert result == {"broker": {"2": "OK"}}
    configs = eventually(lambda: (c := admin.describe_configs([broker])["broker"]["2"])
                         and "log.cleaner.threads" in c and c, what="the dynamic broker config")
    assert configs["log.cleaner.threads"]["config_source"] == "DYNAMIC_BROKER_CONFIG"
    assert admin.alter_configs([ConfigResource("BROKER_LOGGER", "3", {"kafka": "DEBUG"})],
                               raise_on_unknown=False) == {"broker_logger": {"3": "OK"}}
    loggers = admin.describe_configs([ConfigResource("BROKER_LOGGER", "3")], config_filter="all")
    assert loggers["broker_logger"]["3"]["kafka"]["value"] == "DEBUG"
    listed = admin.list_config_resources(["BROKER", "TOPIC"])
    assert listed["broker"] == ["1", "2", "3", "4"] and "tuned" in listed["topic"]


def test_preferred_leader_election(cluster, admin):
    admin.create_topics({"elected": {"num_partitions": 1, "replication_factor": 3}}, wait_for_metadata=True)
    preferred = cluster.replicas("elected", 0)[0]
    cluster.kill(preferred)
    eventually(lambda: cluster.leader("elected", 0) not in (None, preferred), what="a failover")
    cluster.restart(preferred)
    eventually(lambda: preferred in cluster.isr("elected", 0), timeout_s=30, what="the preferred replica in sync")
    response = admin.elect_leaders(0, {"elected": [0]})
    assert [(r.topic, p.partition_id, p.error_code) for r in response.replica_election_results
            for p in r.partition_result] == [("elected", 0, 0)]
    eventually(lambda: cluster.leader("elected", 0) == preferred, what="leadership back on the preferred replica")


def test_reassignment_completes(cluster, admin):
    admin.create_topics({"moving": {"num_partitions": 1, "replication_factor": 2}}, wait_for_metadata=True)
    produce_values(cluster, "moving", [b"x" * 100] * 50)
    old = cluster.replicas("moving", 0)
    new = [b for b in cluster.broker_ids if b not in old]
    tp = TopicPartition("moving", 0)
    assert admin.alter_partition_reassignments({tp: new}) == {tp: None}
    eventually(lambda: sorted(cluster.replicas("moving", 0)) == sorted(new), timeout_s=30,
               what="the new replicas in place, the old ones removed")
    assert admin.list_partition_reassignments() == {}
    assert sorted(cluster.isr("moving", 0)) == sorted(new)

    def log_end_offset(broker):
        partitions = cluster.processes.node(broker).broker.replica_manager.partitions
        return partitions[TP("moving", 0)].log.log_end_offset
    assert [cluster.processes.call(lambda b=b: log_end_offset(b)) for b in new] == [50, 50]   # the data moved too
    eventually(lambda: not any((cluster.broker_data_dir(b) / "moving-0").exists() for b in old),
               what="the old replicas' directories removed")


def test_describe_cluster_and_quorum(cluster, admin):
    described = admin.describe_cluster()
    assert described["cluster_id"] == cluster.cluster_id
    quorum = admin.describe_metadata_quorum()
    [partition] = quorum["topics"][0]["partitions"]
    assert partition["error"] is None
    assert partition["leader_id"] == cluster.active_controller
    assert sorted(v["replica_id"] for v in partition["current_voters"]) == cluster.controller_ids
    assert sorted(o["replica_id"] for o in partition["observers"]) == cluster.broker_ids
    assert [n["node_id"] for n in quorum["nodes"]] == cluster.controller_ids
