"""MetadataCache: Metadata's view of brokers and partitions, on hand-built images."""

import random

from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.metadata.broker_registration import BrokerRegistration
from minikafka.metadata.image import ClusterImage, MetadataImage, TopicImage, TopicsImage
from minikafka.metadata.partition_registration import DirectoryId, PartitionRegistration
from minikafka.metadata.records import BrokerEndpoint
from minikafka.server import metadata_cache as cache

DIR = {1: Uuid(1, 10), 2: Uuid(1, 20), 3: Uuid(1, 30)}


def broker(broker_id, fenced=False, listeners=("PLAINTEXT",), rack=None):
    endpoints = tuple(BrokerEndpoint(name, "127.0.0.1", 9000 + broker_id) for name in listeners)
    return BrokerRegistration(broker_id, 100 + broker_id, Uuid(9, broker_id), endpoints, (), rack, fenced,
                              False, directories=(DIR[broker_id],))


def partition(replicas, isr, leader, directories=None):
    dirs = directories or tuple(DIR.get(r, DirectoryId.MIGRATING) for r in replicas)
    return PartitionRegistration(tuple(replicas), dirs, tuple(isr), (), (), leader, 0, 3, 5)


def image(brokers, partitions):
    topic = TopicImage("t", Uuid(7, 7), dict(enumerate(partitions)))
    return MetadataImage(cluster=ClusterImage(brokers={b.id: b for b in brokers}),
                         topics=TopicsImage({topic.topic_id: topic}, {"t": topic}))


def test_alive_brokers_are_unfenced_and_have_the_listener():
    img = image([broker(3), broker(1, rack="r1"), broker(2, fenced=True), ], [])
    assert [(n.node_id, n.port, n.rack) for n in cache.alive_brokers(img, "PLAINTEXT")] == [(1, 9001, "r1"), (3, 9003, None)]
    assert cache.alive_brokers(img, "EXTERNAL") == []
    assert [n.is_fenced for n in cache.all_brokers(img, "PLAINTEXT")] == [False, True, False]


def test_random_controller_id_is_an_alive_broker_or_minus_one():
    img = image([broker(1), broker(2, fenced=True), broker(3)], [])
    rng = random.Random(5)
    assert {cache.random_alive_broker_id(img, rng) for _ in range(50)} == {1, 3}
    assert cache.random_alive_broker_id(image([broker(2, fenced=True)], []), rng) == -1


def test_partition_errors_by_leader_state():
    img = image([broker(1), broker(2, listeners=("OTHER",)), broker(3, fenced=True)],
                [partition([1, 2, 3], [1, 2], 1), partition([2, 1], [2], 2), partition([4, 1], [1], -1)])
    ok, no_listener, leaderless = cache.topic_partitions_metadata(img, "t", "PLAINTEXT")
    assert (ok.error, ok.leader_id, ok.offline_replicas) == (Errors.NONE, 1, (2, 3))
    assert (no_listener.error, no_listener.leader_id) == (Errors.LISTENER_NOT_FOUND, -1)
    old = cache.topic_partitions_metadata(img, "t", "PLAINTEXT", error_unavailable_listeners=False)
    assert old[1].error is Errors.LEADER_NOT_AVAILABLE
    assert (leaderless.error, leaderless.offline_replicas, leaderless.leader_epoch) == (
        Errors.LEADER_NOT_AVAILABLE, (4,), 3)
    assert cache.topic_partitions_metadata(img, "missing", "PLAINTEXT") is None


def test_v0_drops_unavailable_replicas_and_says_so():
    img = image([broker(1), broker(3, fenced=True)], [partition([1, 3], [1, 3], 1)])
    [p] = cache.topic_partitions_metadata(img, "t", "PLAINTEXT", error_unavailable_endpoints=True)
    assert (p.error, p.replica_nodes, p.isr_nodes) == (Errors.REPLICA_NOT_AVAILABLE, (1,), (1,))


def test_directory_online_rules():
    assert cache.is_online_dir(DirectoryId.UNASSIGNED, (DIR[1],))
    assert cache.is_online_dir(DirectoryId.MIGRATING, (DIR[1],))
    assert not cache.is_online_dir(DirectoryId.LOST, (DIR[1],))
    assert cache.is_online_dir(Uuid(5, 5), ())             # no directories registered: assume online
    assert not cache.is_online_dir(Uuid(5, 5), (DIR[1],))
    img = image([broker(1), broker(2)], [partition([1, 2], [1, 2], 1, directories=(DIR[1], Uuid(5, 5)))])
    assert cache.topic_partitions_metadata(img, "t", "PLAINTEXT")[0].offline_replicas == (2,)
