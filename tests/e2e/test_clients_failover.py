"""kafka-python when brokers die or lie: leader failover under an idempotent acks=all producer,
a bootstrap list naming a dead broker, and a broker advertising an address nobody listens on."""

from __future__ import annotations

import socket

import pytest
from kafka import KafkaProducer
from kafka.errors import KafkaTimeoutError

from tests.e2e.dataplane_helpers import consumer, drain, eventually, live_cluster, producer, wait_for_leaders

pytestmark = pytest.mark.live


def test_leader_kill_during_an_idempotent_produce_loop_loses_and_duplicates_nothing():
    c = live_cluster(seed=111)
    try:
        c.create_topic("ledger", partitions=1, replication_factor=3, config={"min.insync.replicas": 2})
        first_leader = c.leader("ledger", 0)
        p = producer(c, acks="all", enable_idempotence=True, linger_ms=5, request_timeout_ms=5000,
                     delivery_timeout_ms=60_000, retry_backoff_ms=50)
        futures = []
        for i in range(600):
            futures.append(p.send("ledger", value=str(i).encode()))
            if i == 150:
                futures[-1].get(timeout=20)              # some records are surely committed
                c.kill(first_leader)
        p.flush(timeout=60)
        offsets = [f.get(timeout=1).offset for f in futures]
        p.close()
        assert c.leader("ledger", 0) not in (first_leader, None, -1)
        assert offsets == sorted(offsets) and len(set(offsets)) == 600
        reader = consumer(c, ("ledger", 0))
        records = drain(reader, 600, timeout_s=30)
        extra = reader.poll(timeout_ms=300)
        reader.close()
        assert [r.value for r in records] == [str(i).encode() for i in range(600)]
        assert not any(extra.values())                   # nothing beyond the 600: no duplicates
    finally:
        c.stop()


def test_a_bootstrap_list_with_a_dead_broker_still_connects():
    c = live_cluster(seed=112)
    try:
        c.create_topic("survivors", partitions=1, replication_factor=3)
        dead = 3
        dead_address = f"127.0.0.1:{c.layout.broker_ports[dead]}"
        c.kill(dead)
        servers = [dead_address] + [f"127.0.0.1:{c.layout.broker_ports[b]}" for b in (1, 2)]
        eventually(lambda: c.leader("survivors", 0) in (1, 2), what="a live leader")
        for attempt in range(3):                         # kafka-python picks a random bootstrap server
            p = KafkaProducer(bootstrap_servers=servers, request_timeout_ms=5000)
            p.send("survivors", value=b"attempt-%d" % attempt).get(timeout=20)
            p.close()
        reader = consumer(c, ("survivors", 0), bootstrap_servers=servers)
        assert {r.value for r in drain(reader, 3)} == {b"attempt-0", b"attempt-1", b"attempt-2"}
        reader.close()
    finally:
        c.stop()


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_wrong_advertised_listener_strands_that_brokers_partitions():
    bogus = unused_port()
    c = live_cluster(seed=113, advertised_listeners={2: f"PLAINTEXT://127.0.0.1:{bogus}"})
    try:
        c.create_topic("split", replica_assignment={0: [1], 1: [2]})
        wait_for_leaders(c, "split", 2)
        p = producer(c, request_timeout_ms=1000, delivery_timeout_ms=3000, linger_ms=0, retries=0)
        assert p.send("split", value=b"fine", partition=0).get(timeout=10).offset == 0
        stranded = p.send("split", value=b"lost", partition=1)
        with pytest.raises(KafkaTimeoutError) as failure:
            stranded.get(timeout=15)
        p.close()
        # kafka-python connects to what Metadata advertises: 127.0.0.1:<bogus> refuses, the batch expires
        assert "Expiring 1 record(s) for TopicPartition(topic='split', partition=1)" in str(failure.value)
        assert [b.port for b in c.processes.call(lambda: _advertised(c))] == [bogus]
    finally:
        c.stop()


def _advertised(c):
    return [e for e in c.processes.node(1).broker.image.cluster.broker(2).listeners]
