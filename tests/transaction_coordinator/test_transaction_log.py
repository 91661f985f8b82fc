"""``__transaction_state`` records and configs (the bytes themselves: tests/jvm/test_transaction_log_jvm.py)."""

from __future__ import annotations

import pytest

from minikafka.common.errors import ConfigException
from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_log import (
    TxnRecord, TxnTombstone, UnknownKeyVersion, UnknownValueVersion, key_to_bytes, partition_for,
    partitions_in_kafka_order, read, read_txn_record_key, value_to_bytes, value_version,
)
from minikafka.transaction_coordinator.transaction_log_config import TransactionLogConfig
from minikafka.transaction_coordinator.transaction_state import IllegalStateException, TransactionState
from minikafka.transaction_coordinator.transaction_state_manager_config import TransactionStateManagerConfig
from minikafka.transaction_coordinator.transaction_version import TransactionVersion
from minikafka.transaction_coordinator.txn_transit_metadata import TxnTransitMetadata

TV0, TV1, TV2 = TransactionVersion.TV_0, TransactionVersion.TV_1, TransactionVersion.TV_2


def ongoing(tv: TransactionVersion = TV2) -> TxnTransitMetadata:
    return TxnTransitMetadata(1000, 999, 2000, 3, 2, 60000, TransactionState.ONGOING,
                              frozenset({TopicPartition("a", 0), TopicPartition("b", 1)}), 5, 6, tv)


def test_the_key_is_record_type_0_and_the_id():
    assert key_to_bytes("t") == b"\x00\x00\x00\x01t"
    assert read_txn_record_key(key_to_bytes("t")) == "t"
    with pytest.raises(IllegalStateException, match="Unknown version 3 from the transaction log message key"):
        read_txn_record_key(b"\x00\x03\x00\x01t")


@pytest.mark.parametrize("level, version", [(TV0, 0), (TV1, 1), (TV2, 1)])
def test_the_value_version_follows_the_cluster_level(level, version):
    assert value_version(level) == version
    assert value_to_bytes(ongoing(), level)[:2] == version.to_bytes(2, "big")


@pytest.mark.parametrize("level", [TV0, TV2])
def test_a_value_reads_back(level):
    record = read(key_to_bytes("t"), value_to_bytes(ongoing(), level))
    assert isinstance(record, TxnRecord)
    md = record.metadata
    assert (md.producer_id, md.producer_epoch, md.state, md.txn_start_timestamp, md.txn_last_update_timestamp) == (
        1000, 3, TransactionState.ONGOING, 5, 6)
    assert md.topic_partitions == {TopicPartition("a", 0), TopicPartition("b", 1)}
    # version 0 has no tagged fields: the previous/next ids and the client's version are lost
    expected = (999, 2000, TV2) if level == TV2 else (-1, -1, TV0)
    assert (md.prev_producer_id, md.next_producer_id, md.client_transaction_version) == expected
    assert md.pending_state is None and md.last_producer_epoch == -1


def test_tombstones_and_unknown_versions_are_told_apart():
    assert read(key_to_bytes("t"), None) == TxnTombstone("t")
    assert read(b"\x00\x01\x00\x01t", b"") == UnknownKeyVersion(1)
    assert read(key_to_bytes("t"), b"\x00\x02" + value_to_bytes(ongoing(), TV2)[2:]) == UnknownValueVersion(2)


def test_an_empty_transaction_with_partitions_is_refused():
    bad = TxnTransitMetadata(1, 1, -1, 0, -1, 1, TransactionState.EMPTY, frozenset({TopicPartition("a", 0)}),
                             -1, 0, TV2)
    with pytest.raises(IllegalStateException, match="Transaction is not expected to have any partitions since "
                                                    "its state is EMPTY"):
        value_to_bytes(bad, TV2)


def test_partitions_are_grouped_by_topic():
    order = partitions_in_kafka_order({TopicPartition("orders", p) for p in range(3)} | {TopicPartition("z", 1)})
    assert sorted(order) == [("orders", [0, 1, 2]), ("z", [1])]


def test_partition_for_uses_java_string_hash():
    assert partition_for("my-txn", 50) == 45          # Utils.abs("my-txn".hashCode()) % 50, from the JVM test
    assert all(0 <= partition_for(f"id-{i}", 50) < 50 for i in range(200))


def test_configs_default_to_kafkas():
    log = TransactionLogConfig.from_configs({})
    assert (log.transaction_topic_partitions, log.transaction_topic_replication_factor, log.transaction_topic_min_isr,
            log.transaction_topic_segment_bytes) == (50, 3, 2, 104857600)
    assert log.scaled_to(1).transaction_topic_replication_factor == 1 and log.scaled_to(1).transaction_topic_min_isr == 1
    manager = TransactionStateManagerConfig.from_configs({})
    assert (manager.transaction_max_timeout_ms, manager.transactional_id_expiration_ms,
            manager.abort_timed_out_transactions_interval_ms) == (900000, 604800000, 10000)
    assert TransactionLogConfig.from_configs({"transaction.state.log.num.partitions": "5"}).transaction_topic_partitions == 5
    with pytest.raises(ConfigException, match="Invalid value 0 for configuration transaction.state.log.min.isr: "
                                              "Value must be at least 1"):
        TransactionLogConfig.from_configs({"transaction.state.log.min.isr": "0"})
