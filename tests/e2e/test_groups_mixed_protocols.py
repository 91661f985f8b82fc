"""One group, two protocols: a kafka-python (classic) consumer and a librdkafka consumer with
``group.protocol=consumer``, against a live cluster (``group.consumer.migration.policy`` at its
default, ``bidirectional``).

The classic consumer forms the group alone (a classic group).  When the librdkafka member
joins with ConsumerGroupHeartbeat, the coordinator converts the group online to a consumer
group: the classic member stays, is told to rejoin (REBALANCE_IN_PROGRESS) and from then on
gets its partitions from the coordinator's assignment through JoinGroup/SyncGroup.  The two
members end up with disjoint partitions covering the topic, and every record is read once.
When the librdkafka member leaves, only a classic member is left: the group turns back into a
classic group, and the classic member, after rejoining, owns every partition.
"""

import time

import pytest
from minikafka import Cluster
from tests.e2e.groups_admin_helpers import group_consumer, produce_values

confluent_kafka = pytest.importorskip("confluent_kafka")
pytestmark = pytest.mark.live

TOPIC, PARTITIONS, GROUP = "orders", 6, "mixed-app"


def conversions(cluster, mark: int) -> list[str]:
    """The group_converted events since ``mark``: "<from>-><to>"."""
    return [f"{e.data['source']}->{e.data['target']}" for e in cluster.events.since(mark, {"group_converted"})
            if e.data.get("group") == GROUP]


def test_a_classic_and_a_consumer_protocol_member_share_a_group_and_it_converts_both_ways():
    cluster = Cluster(brokers=3, controllers=1, seed=8481).start()
    classic = modern = None
    try:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        mark = cluster.events.last_seq
        classic = group_consumer(cluster, GROUP, TOPIC, client_id="classic")
        deadline = time.monotonic() + 30
        while {tp.partition for tp in classic.assignment()} != set(range(PARTITIONS)):
            assert time.monotonic() < deadline, "the classic consumer never got every partition"
            classic.poll(timeout_ms=100)

        modern = confluent_kafka.Consumer({
            "bootstrap.servers": cluster.bootstrap_servers, "group.id": GROUP, "client.id": "modern",
            "group.protocol": "consumer", "auto.offset.reset": "earliest", "enable.auto.commit": False,
            "fetch.wait.max.ms": 100})
        modern.subscribe([TOPIC])

        def owned():
            return ({tp.partition for tp in classic.assignment()},
                    {tp.partition for tp in modern.assignment()})

        def split():
            a, b = owned()
            return a and b and not a & b and a | b == set(range(PARTITIONS))
        produce_values(cluster, TOPIC, [f"o-{i}".encode() for i in range(60)])
        seen: dict = {}
        deadline = time.monotonic() + 60
        while not (split() and len(seen) == 60):
            assert time.monotonic() < deadline, f"no split covering the topic: {owned()}, {len(seen)} records"
            for batch in classic.poll(timeout_ms=50).values():
                for r in batch:
                    seen.setdefault((r.partition, r.offset), []).append("classic")
            message = modern.poll(0.05)
            if message is not None and message.error() is None:
                seen.setdefault((message.partition(), message.offset()), []).append("modern")
        assert all(len(names) == 1 for names in seen.values())            # each record read once
        assert conversions(cluster, mark) == ["classic->consumer"]         # upgraded online

        modern.close()                                                     # the last consumer-protocol member
        modern = None
        deadline = time.monotonic() + 60
        while {tp.partition for tp in classic.assignment()} != set(range(PARTITIONS)):
            assert time.monotonic() < deadline, "the classic consumer never took every partition back"
            classic.poll(timeout_ms=100)
        assert conversions(cluster, mark) == ["classic->consumer", "consumer->classic"]
    finally:
        if modern is not None:
            modern.close()
        if classic is not None:
            classic.close()
        cluster.stop()
