from minikafka.storage.log_config import LogConfig


def test_kafka_4_defaults_used_by_storage():
    config = LogConfig()
    assert (config.segment_bytes, config.segment_index_bytes, config.index_interval_bytes) == (1073741824, 10485760, 4096)
    assert (config.max_message_bytes, config.file_delete_delay_ms) == (1048588, 60000)
    assert (config.message_timestamp_before_max_ms, config.message_timestamp_after_max_ms) == (2**63 - 1, 3600000)
