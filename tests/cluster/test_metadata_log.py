"""Cluster.metadata_records() and replay_metadata(): the metadata log a lesson can print and replay."""

import pytest

from minikafka import Cluster, MetadataRecordEntry, replay_metadata


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=11, simulated=True).start()
    yield c
    c.stop()


def test_records_are_committed_in_offset_order_and_start_with_the_bootstrap(cluster):
    entries = cluster.metadata_records()
    offsets = [e.offset for e in entries]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    assert all(isinstance(e, MetadataRecordEntry) for e in entries)
    types = [e.type_name for e in entries]
    # Offset 0 is the new leader's LeaderChange control record, which is not a metadata record;
    # the first controller then writes the bootstrap feature levels as one atomic transaction.
    assert entries[0].offset == 1
    assert types[:2] == ["BEGIN_TRANSACTION_RECORD", "FEATURE_LEVEL_RECORD"]
    assert entries[1].record.name == "metadata.version"
    assert "END_TRANSACTION_RECORD" in types
    assert types.count("REGISTER_BROKER_RECORD") >= 3
    assert "NO_OP_RECORD" not in types


def test_noops_are_only_listed_when_asked_for(cluster):
    cluster.run_for(5_000)
    with_noops = [e.type_name for e in cluster.metadata_records(include_noops=True)]
    assert "NO_OP_RECORD" in with_noops
    assert [t for t in with_noops if t != "NO_OP_RECORD"] == \
        [e.type_name for e in cluster.metadata_records()]


def test_topic_creation_writes_one_topic_record_and_a_partition_record_each(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    entries = cluster.metadata_records()
    topic_records = [e for e in entries if e.type_name == "TOPIC_RECORD"
                     and e.record.name == "orders"]
    assert len(topic_records) == 1
    topic_id = topic_records[0].record.topic_id
    partition_records = [e.record for e in entries if e.type_name == "PARTITION_RECORD"
                         and e.record.topic_id == topic_id]
    assert sorted(r.partition_id for r in partition_records) == [0, 1, 2]
    assert [list(r.replicas) for r in sorted(partition_records, key=lambda r: r.partition_id)] == \
        [cluster.replicas("orders", p) for p in range(3)]
    assert '"name":"orders"' in topic_records[0].to_json()
    assert "orders" in topic_records[0].describe()


def test_replaying_the_log_rebuilds_leaders_and_isr_after_a_failure(cluster):
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    old_leader = cluster.leader("orders", 0)
    cluster.kill_broker(old_leader)
    cluster.run_for(15_000, lambda: cluster.leader("orders", 0) not in (None, old_leader))
    image = replay_metadata(cluster.metadata_records())
    for p in range(3):
        registration = image.partition("orders", p)
        assert registration.leader == cluster.leader("orders", p)
        assert sorted(registration.isr) == sorted(cluster.isr("orders", p))
        assert old_leader not in registration.isr
    changes = [e.record for e in cluster.metadata_records()
               if e.type_name == "PARTITION_CHANGE_RECORD"]
    assert changes, "the failover must be recorded as PartitionChangeRecords"


def test_replay_accepts_bare_records_and_entries_alike(cluster):
    cluster.create_topic("t", partitions=1, replication_factor=2)
    entries = cluster.metadata_records()
    assert replay_metadata(entries).topics == replay_metadata(e.record for e in entries).topics
    assert replay_metadata([]).is_empty()


def test_a_restarted_broker_reports_cordoned_log_dirs_only_once_it_has_caught_up(cluster):
    # Kafka's BrokerLifecycleManager puts cordonedLogDirs (KIP-1066) into its heartbeats only after
    # the controller has said it caught up; the first heartbeats of a new process carry none, so
    # the report is never written before the broker has caught up with its own registration.
    cluster.shutdown(2)
    cluster.restart_broker(2)
    assert cluster.wait_until(lambda: cluster.snapshot().node(2).registration == "unfenced", 20_000)
    entries = cluster.metadata_records()
    registered = max(e.offset for e in entries if e.type_name == "REGISTER_BROKER_RECORD"
                     and e.record.broker_id == 2)
    reports = [e for e in entries if e.offset > registered and e.type_name == "BROKER_REGISTRATION_CHANGE_RECORD"
               and e.record.broker_id == 2 and e.record.cordoned_log_dirs is not None]
    unfenced = next(e for e in entries if e.offset > registered and e.type_name == "BROKER_REGISTRATION_CHANGE_RECORD"
                    and e.record.broker_id == 2 and e.record.fenced == -1)
    assert [e.record.cordoned_log_dirs for e in reports] == [()]      # reported once, never cordoned
    # The sandbox's broker is ready to unfence the moment it has caught up, so its first heartbeat
    # after catching up carries both, and the controller writes the unfencing first.
    assert reports[0].offset == unfenced.offset + 1
