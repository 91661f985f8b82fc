"""`Cluster.lose_power` against `kill`: what survives when every replica of a partition goes down.

A process crash (``kill``) keeps the page cache, so every acknowledged record survives.  A power
loss keeps only what was flushed; Kafka flushes rarely (``flush.messages`` and ``flush.ms`` are
"never" by default), so acknowledged records that no replica flushed are gone.  What is expected
is computed from the replicas' recovery points (the offset each log is flushed to) before the fault.
"""

from __future__ import annotations

import pytest

from minikafka.cluster import Cluster
from minikafka.common.topic_partition import TopicPartition
from minikafka.drivers.cluster_runtime import NodeState
from tests.server.apis.dataplane_harness import batch, fetch, only_partition, produce

TOPIC = "payments"
BATCHES = 6


def acknowledged_cluster(seed: int = 11, config: dict | None = None, **kwargs) -> Cluster:
    """Three brokers, ``payments-0`` on all three, BATCHES batches produced with acks=all."""
    cluster = Cluster(brokers=3, controllers=1, seed=seed, simulated=True, **kwargs).start()
    cluster.create_topic(TOPIC, partitions=1, replication_factor=3, config=config)
    cluster.wait_until(lambda: cluster.leader(TOPIC, 0) is not None, 5_000)
    for i in range(BATCHES):
        response = produce(cluster, cluster.leader(TOPIC, 0), TOPIC, 0,
                           batch(cluster, [f"payment {i}-{j}".encode() for j in range(3)]), acks=-1)
        assert only_partition(response).error_code == 0
    cluster.run_for(500)        # the followers learn the high watermark
    return cluster


def log_of(cluster: Cluster, broker: int):
    return cluster.processes.node(broker).broker.log_manager.get_log(TopicPartition(TOPIC, 0))


def flushed_offsets(cluster: Cluster) -> dict[int, int]:
    return {b: log_of(cluster, b).recovery_point for b in cluster.broker_ids}


def restart_all(cluster: Cluster) -> None:
    for broker in cluster.broker_ids:
        cluster.restart(broker)
    assert cluster.wait_until(lambda: cluster.leader(TOPIC, 0) is not None
                              and len(cluster.isr(TOPIC, 0)) == 3, 20_000)
    cluster.run_for(1_000)


def readable_records(cluster: Cluster) -> int:
    leader = cluster.leader(TOPIC, 0)
    data = only_partition_fetch(fetch(cluster, leader, TOPIC, 0, 0))
    return data.high_watermark


def only_partition_fetch(response):
    [topic] = response.responses
    [partition] = topic.partitions
    return partition


def test_a_power_loss_of_every_replica_loses_what_none_flushed():
    cluster = acknowledged_cluster()
    try:
        acknowledged = readable_records(cluster)
        assert acknowledged == BATCHES * 3
        flushed = flushed_offsets(cluster)
        assert max(flushed.values()) < acknowledged          # the defaults never flush by count or time
        lost = cluster.lose_power(*cluster.broker_ids)
        assert set(lost) == set(cluster.broker_ids) and all(n > 0 for n in lost.values())
        assert all(cluster.processes.state(b) is NodeState.DEAD for b in cluster.broker_ids)
        assert [e.node for e in cluster.events.since(0, {"node_lost_power"})] == cluster.broker_ids
        restart_all(cluster)
        assert readable_records(cluster) == max(flushed.values()) < acknowledged
        for broker in cluster.broker_ids:
            assert log_of(cluster, broker).log_end_offset == max(flushed.values())
    finally:
        cluster.stop()


def test_a_crash_of_every_replica_keeps_every_acknowledged_record():
    cluster = acknowledged_cluster()
    try:
        acknowledged = readable_records(cluster)
        for broker in cluster.broker_ids:
            cluster.kill(broker)
        restart_all(cluster)
        assert readable_records(cluster) == acknowledged
    finally:
        cluster.stop()


def test_flush_messages_1_keeps_every_acknowledged_record_through_a_power_loss():
    cluster = acknowledged_cluster(config={"flush.messages": 1})
    try:
        acknowledged = readable_records(cluster)
        assert set(flushed_offsets(cluster).values()) == {acknowledged}
        cluster.lose_power(*cluster.broker_ids)
        restart_all(cluster)
        assert readable_records(cluster) == acknowledged
    finally:
        cluster.stop()


def test_a_power_loss_of_one_replica_is_healed_by_the_others():
    cluster = acknowledged_cluster()
    try:
        acknowledged = readable_records(cluster)
        follower = next(b for b in cluster.broker_ids if b != cluster.leader(TOPIC, 0))
        cluster.lose_power(follower)
        cluster.restart(follower)
        assert cluster.wait_until(lambda: log_of(cluster, follower).log_end_offset == acknowledged, 20_000)
        assert readable_records(cluster) == acknowledged
    finally:
        cluster.stop()


def test_lose_power_needs_the_in_memory_storage(tmp_path):
    cluster = Cluster(brokers=1, controllers=1, seed=1, simulated=True, storage="disk").start()
    try:
        with pytest.raises(RuntimeError, match="lose_power needs the in-memory storage"):
            cluster.lose_power(1)
        assert cluster.processes.state(1) is NodeState.RUNNING
    finally:
        cluster.stop()


def test_lose_power_checks_its_arguments():
    cluster = Cluster(brokers=1, controllers=1, seed=1, simulated=True)
    with pytest.raises(ValueError, match="needs at least one node id"):
        cluster.lose_power()
    with pytest.raises(ValueError, match="No node with id 7"):
        cluster.lose_power(7)
    with pytest.raises(RuntimeError, match="the cluster is not running"):
        cluster.lose_power(1)


def test_flush_ms_keeps_what_the_flusher_flushed_before_the_power_loss():
    cluster = acknowledged_cluster(config={"flush.ms": 200},
                                   broker_config={"log.flush.scheduler.interval.ms": 100})
    try:
        acknowledged = readable_records(cluster)
        cluster.run_for(31_000)                     # the flusher's first run is 30 s after start-up
        assert set(flushed_offsets(cluster).values()) == {acknowledged}
        cluster.lose_power(*cluster.broker_ids)
        restart_all(cluster)
        assert readable_records(cluster) == acknowledged
    finally:
        cluster.stop()


def test_the_default_flusher_runs_once_30_s_after_start_up():
    plain = acknowledged_cluster()
    try:
        plain.run_for(40_000)
        assert max(flushed_offsets(plain).values()) == 0          # flush.ms: never
    finally:
        plain.stop()
    cluster = acknowledged_cluster(config={"flush.ms": 200})
    try:
        cluster.run_for(40_000)                     # its one run (log.flush.scheduler.interval.ms: never again)
        first = readable_records(cluster)
        assert set(flushed_offsets(cluster).values()) == {first}
        produce(cluster, cluster.leader(TOPIC, 0), TOPIC, 0, batch(cluster, [b"late"]), acks=-1)
        cluster.run_for(40_000)
        assert readable_records(cluster) == first + 1 and set(flushed_offsets(cluster).values()) == {first}
    finally:
        cluster.stop()
