from kafka.protocol.broker_version_data import BROKER_API_VERSIONS

from minikafka.network.api_keys import (API_KEYS, KAFKA_RELEASE, PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION,
                                        api_key, broker_api_versions)


def test_release_and_key_range():
    assert KAFKA_RELEASE == "4.3.1"
    assert sorted(API_KEYS) == list(range(93))      # 4.3 defines keys 0..92, no gaps
    assert api_key(93) is None


def test_names_and_java_enum_names():
    assert API_KEYS[0].name == "Produce"
    assert API_KEYS[18].enum_name == "API_VERSIONS"
    assert API_KEYS[23].enum_name == "OFFSET_FOR_LEADER_EPOCH"
    assert API_KEYS[74].name == "ListConfigResources"           # renamed from ListClientMetricsResources (KIP-1142)
    assert API_KEYS[74].enum_name == "LIST_CONFIG_RESOURCES"


def test_kip_896_minimums():
    assert (API_KEYS[0].oldest, API_KEYS[1].oldest, API_KEYS[2].oldest) == (3, 4, 1)
    assert (API_KEYS[19].oldest, API_KEYS[20].oldest, API_KEYS[23].oldest) == (2, 1, 2)
    assert API_KEYS[11].oldest == 0          # JoinGroup v0-v1 came back in 4.0.1/4.1.0 (KAFKA-19444)


def test_zookeeper_era_keys_have_no_valid_version():
    for key in (4, 5, 6, 7):
        assert not API_KEYS[key].has_valid_version()
        assert not API_KEYS[key].is_version_supported(0)


def test_header_versions():
    produce = API_KEYS[0]
    assert produce.request_header_version(8) == 1 and produce.response_header_version(8) == 0
    assert produce.request_header_version(9) == 2 and produce.response_header_version(9) == 1
    api_versions = API_KEYS[18]
    assert api_versions.request_header_version(3) == 2
    assert api_versions.response_header_version(4) == 0          # always v0 (KIP-511)
    assert api_versions.request_header_version(99) == 2          # unknown versions read as flexible
    # an API flexible in every valid version is flexible whatever the version says
    assert API_KEYS[60].is_flexible(-1) and API_KEYS[60].is_flexible(7)
    assert not API_KEYS[17].is_flexible(1)                       # SaslHandshake is never flexible


def test_unstable_latest_versions_are_not_enabled_by_default():
    assert API_KEYS[22].latest == 6 and API_KEYS[22].latest_stable() == 5     # InitProducerId v6 (KIP-939)
    assert API_KEYS[8].latest_stable() == 10         # OffsetCommit v10 (topic ids) is stable since 4.2
    assert API_KEYS[88].latest_stable() == 0         # StreamsGroupHeartbeat: stable since 4.2


def test_broker_table_matches_the_4_3_table_kafka_python_recorded_from_a_broker():
    assert broker_api_versions() == BROKER_API_VERSIONS[(4, 3)]


def test_produce_is_advertised_from_v0_but_parsed_from_v3():
    table = broker_api_versions()
    assert PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION == 0
    assert table[0] == (0, 13)
    assert not API_KEYS[0].is_version_supported(2)


def test_controller_only_and_telemetry_apis_are_not_on_the_broker_table():
    table = broker_api_versions()
    for key in (52, 53, 54, 56, 58, 59, 62, 63, 67, 70, 73, 82):   # controller listener only
        assert key not in table
    assert 71 not in table and 72 not in table                      # KIP-714 without a reporter
