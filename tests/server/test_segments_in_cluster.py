"""Segment rolling and retention on a running (simulated) cluster, driven by topic configs."""

from minikafka import Cluster
from minikafka.common.errors import Errors
from tests.server.test_replica_manager import batch, log_of, produce


def segment_names(cluster, broker):
    return sorted(p.name for p in (cluster.broker_data_dir(broker) / "orders-0").iterdir()
                  if p.suffix == ".log")


def test_segment_ms_rolls_and_retention_ms_deletes_whole_segments():
    cluster = Cluster(brokers=1, controllers=1, seed=4, simulated=True).start()
    try:
        cluster.create_topic("orders", partitions=1, replication_factor=1,
                             config={"segment.ms": "1000", "retention.ms": "5000"})
        for i in range(6):
            assert produce(cluster, batch(f"r{i}".encode())).error is Errors.NONE
            cluster.run_for(1100)                       # older than segment.ms: the next append rolls
        leader = cluster.leader("orders", 0)
        assert len(segment_names(cluster, leader)) >= 5
        assert segment_names(cluster, leader)[0] == "00000000000000000000.log"
        seq = cluster.events.last_seq
        # retention runs every log.retention.check.interval.ms (60 s in the teaching profile)
        cluster.run_for(cluster.timing.ms("log.retention.check.interval.ms") + 1000)
        deleted = [e for e in cluster.events.since(seq) if e.kind == "segments_deleted"]
        assert deleted, "retention.ms must delete the old segments"
        log = log_of(cluster, leader)
        assert log.log_start_offset > 0
        assert "00000000000000000000.log" not in segment_names(cluster, leader)
        assert log.log_end_offset == 6                  # offsets are never reused
    finally:
        cluster.stop()


def test_altering_a_topic_config_reaches_the_logs():
    cluster = Cluster(brokers=1, controllers=1, seed=4, simulated=True).start()
    try:
        cluster.create_topic("orders", partitions=1, replication_factor=1)
        cluster.alter_topic_config("orders", set={"retention.bytes": "1", "segment.ms": "500"})
        leader = cluster.leader("orders", 0)
        assert cluster.wait_until(lambda: log_of(cluster, leader).config.retention_bytes == 1, 5000)
        assert log_of(cluster, leader).config.segment_ms == 500
        cluster.alter_topic_config("orders", delete=["retention.bytes"])
        assert cluster.wait_until(lambda: log_of(cluster, leader).config.retention_bytes == -1, 5000)
    finally:
        cluster.stop()
