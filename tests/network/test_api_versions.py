from kafka.protocol.broker_version_data import BrokerVersionData, infer_broker_version_from_api_versions

from minikafka.network.api_keys import API_KEYS, broker_api_versions
from minikafka.network.api_versions import (ACL_API_KEYS, ADVERTISED_API_VERSIONS,
                                            BROKER_SUPPORTED_FEATURES, SANDBOX_API_KEYS,
                                            FinalizedFeatures, is_api_enabled,
                                            supported_feature_keys)

SANDBOX_APIS = {
    "ApiVersions", "Metadata", "DescribeCluster", "DescribeTopicPartitions", "Produce",
    "InitProducerId", "Fetch", "ListOffsets", "OffsetForLeaderEpoch", "FindCoordinator",
    "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit", "OffsetFetch",
    "ListGroups", "DescribeGroups", "DeleteGroups", "CreateTopics", "DeleteTopics",
    "CreatePartitions", "DeleteRecords", "DescribeConfigs", "AlterConfigs",
    "IncrementalAlterConfigs", "ListConfigResources", "DescribeLogDirs", "AlterReplicaLogDirs",
    "ElectLeaders", "AlterPartitionReassignments", "ListPartitionReassignments", "DescribeQuorum",
    "DescribeAcls", "CreateAcls", "DeleteAcls", "OffsetDelete",
    "ConsumerGroupHeartbeat", "ConsumerGroupDescribe",
}


def test_advertised_apis_are_the_sandbox_set():
    assert {API_KEYS[key].name for key in ADVERTISED_API_VERSIONS} == SANDBOX_APIS
    assert set(ADVERTISED_API_VERSIONS) == SANDBOX_API_KEYS
    assert list(ADVERTISED_API_VERSIONS) == sorted(ADVERTISED_API_VERSIONS)


def test_every_advertised_range_is_the_real_4_3_range():
    real = broker_api_versions()
    for key, versions in ADVERTISED_API_VERSIONS.items():
        assert versions == real[key], API_KEYS[key].name


def test_some_ranges_spelled_out():
    assert ADVERTISED_API_VERSIONS[0] == (0, 13)      # Produce
    assert ADVERTISED_API_VERSIONS[1] == (4, 18)      # Fetch
    assert ADVERTISED_API_VERSIONS[2] == (1, 11)      # ListOffsets (v11: KIP-1023)
    assert ADVERTISED_API_VERSIONS[8] == (2, 10)      # OffsetCommit (v10: topic ids, stable since 4.2)
    assert ADVERTISED_API_VERSIONS[35] == (1, 5)      # DescribeLogDirs (v5: cordoned dirs)
    assert ADVERTISED_API_VERSIONS[18] == (0, 4)      # ApiVersions
    assert ADVERTISED_API_VERSIONS[74] == (0, 1)      # ListConfigResources
    assert ADVERTISED_API_VERSIONS[47] == (0, 0)      # OffsetDelete (one version)
    assert ADVERTISED_API_VERSIONS[68] == (0, 1)      # ConsumerGroupHeartbeat (v1: client-made member ids)
    assert ADVERTISED_API_VERSIONS[69] == (0, 1)      # ConsumerGroupDescribe (v1: member type)


def test_transactions_and_other_unimplemented_apis_are_not_advertised():
    for key in (24, 25, 26, 27, 28, 65, 66, 61, 17, 36, 76):
        assert key not in ADVERTISED_API_VERSIONS, API_KEYS[key].name
    assert ACL_API_KEYS <= set(ADVERTISED_API_VERSIONS)


def test_kafka_python_infers_kafka_4_3():
    assert infer_broker_version_from_api_versions(dict(ADVERTISED_API_VERSIONS)) == (4, 3)
    assert BrokerVersionData(api_versions=dict(ADVERTISED_API_VERSIONS)).broker_version == (4, 3)


def test_enabled_versions():
    assert is_api_enabled(0, 3) and is_api_enabled(0, 13)
    assert not is_api_enabled(0, 2)               # advertised, but refused (KAFKA-18659)
    assert not is_api_enabled(0, 14)
    assert is_api_enabled(18, 4) and is_api_enabled(18, 99) and is_api_enabled(18, -1)
    assert is_api_enabled(8, 10) and not is_api_enabled(8, 11)
    assert not is_api_enabled(22, 6)              # InitProducerId v6: an unstable latest version
    assert is_api_enabled(47, 0) and not is_api_enabled(47, 1)   # OffsetDelete: v0 only
    assert not is_api_enabled(52, 0)              # Vote: controller listener only
    assert not is_api_enabled(1000, 0)


def test_enabled_versions_follow_a_custom_table():
    older = {3: (0, 12), 18: (0, 3)}
    assert is_api_enabled(3, 12, older) and not is_api_enabled(3, 13, older)
    assert not is_api_enabled(0, 9, older)


def test_supported_features_of_4_3_1():
    assert BROKER_SUPPORTED_FEATURES["metadata.version"] == (7, 30)
    assert BROKER_SUPPORTED_FEATURES["streams.version"] == (0, 1)
    assert sorted(name for name, _, _ in supported_feature_keys(4)) == sorted(BROKER_SUPPORTED_FEATURES)
    assert supported_feature_keys(3) == [("metadata.version", 7, 30)]   # KAFKA-17492


def test_finalized_keys_leave_out_level_zero_and_put_metadata_version_into_a_copied_hash_map():
    features = FinalizedFeatures({"metadata.version": 30, "share.version": 0, "group.version": 1}, 9)
    assert features.finalized_keys() == [("group.version", 1), ("metadata.version", 30)]
    assert FinalizedFeatures().epoch == -1
    # ELR off: the copy of four features has 8 buckets: group.version and streams.version share
    # bucket 0, transaction.version is in 2, share.version in 7, and metadata.version, put last, joins 7.
    off = FinalizedFeatures({"metadata.version": 30, "group.version": 1, "transaction.version": 2,
                             "share.version": 1, "streams.version": 1}, 9)
    assert [name for name, _ in off.finalized_keys()] == [
        "group.version", "streams.version", "transaction.version", "share.version", "metadata.version"]
