import uuid

import pytest

from minikafka.common.errors import Errors
from minikafka.server.kafka_apis import dispatch
from minikafka.server.apis.metadata import (CLUSTER_AUTHORIZED_OPERATIONS,
                                                 TOPIC_AUTHORIZED_OPERATIONS,
                                                 TOPIC_AUTHORIZED_OPERATIONS_FIELD)
from minikafka.network.codec import decode_request
from minikafka.network.request_context import RequestContext
from tests.server.apis.dataplane_harness import (DescribeCluster, DescribeTopicPartitions, Metadata,
                                                      cluster_topic_id, send, start_cluster)


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=21)
    c.create_topic("orders", partitions=3, replication_factor=3)
    c.create_topic("payments", partitions=2, replication_factor=2)
    yield c
    c.stop()


def topics(cluster, broker_id, version, names, **kwargs):
    wanted = None if names is None else [Metadata.MetadataRequestTopic(name=n) for n in names]
    return send(cluster, broker_id, Metadata[version](topics=wanted, **kwargs))


@pytest.mark.parametrize("version", range(0, 14))
def test_every_version_describes_brokers_and_partitions_as_the_image_has_them(cluster, version):
    response = send(cluster, 1, Metadata[version](topics=[] if version == 0 else None))
    assert [(b.node_id, b.host, b.port) for b in response.brokers] == [
        (b, "127.0.0.1", cluster.layout.broker_ports[b]) for b in cluster.broker_ids]
    by_name = {t.name: t for t in response.topics}
    assert set(by_name) == {"orders", "payments"}
    orders = by_name["orders"]
    assert [p.partition_index for p in orders.partitions] == [0, 1, 2]
    for p in orders.partitions:
        assert p.error_code == 0
        assert p.leader_id == cluster.leader("orders", p.partition_index)
        assert p.replica_nodes == cluster.replicas("orders", p.partition_index)
        assert p.isr_nodes == cluster.isr("orders", p.partition_index)
    if version >= 1:
        assert response.controller_id in cluster.broker_ids and orders.is_internal is False
    if version >= 2:
        assert response.cluster_id == cluster.cluster_id
    if version >= 5:
        assert all(p.offline_replicas == [] for p in orders.partitions)
    if version >= 7:
        assert all(p.leader_epoch == 0 for p in orders.partitions)
    if version >= 10:
        assert orders.topic_id == cluster_topic_id(cluster, "orders")


def test_an_empty_topic_list_asks_for_no_topics_from_v1(cluster):
    assert send(cluster, 2, Metadata[1](topics=[])).topics == []


def test_requested_topics_keep_request_order_and_unknown_ones_are_reported(cluster):
    response = topics(cluster, 1, 12, ["payments", "nope", "bad name", "orders"],
                      allow_auto_topic_creation=False)
    assert [(t.name, t.error_code) for t in response.topics] == [
        ("payments", 0), ("nope", Errors.UNKNOWN_TOPIC_OR_PARTITION.code),
        ("bad name", Errors.INVALID_TOPIC_EXCEPTION.code), ("orders", 0)]
    assert response.topics[1].topic_id is None and response.topics[1].partitions == []  # the zero id


def test_auto_creation_answers_unknown_until_the_topic_exists(cluster):
    first = topics(cluster, 3, 12, ["auto-created", "bad name"], allow_auto_topic_creation=True)
    assert [(t.name, t.error_code) for t in first.topics] == [
        ("auto-created", Errors.UNKNOWN_TOPIC_OR_PARTITION.code),
        ("bad name", Errors.INVALID_TOPIC_EXCEPTION.code)]
    assert cluster.wait_until(lambda: "auto-created" in cluster.topics(), 5000)
    cluster.run_for(200)
    [topic] = topics(cluster, 3, 12, ["auto-created"], allow_auto_topic_creation=True).topics
    assert topic.error_code == 0
    assert len(topic.partitions) == 1 and len(topic.partitions[0].replica_nodes) == 1  # broker defaults
    assert "bad name" not in cluster.topics()


def test_a_client_that_forbids_auto_creation_creates_nothing(cluster):
    topics(cluster, 1, 12, ["not-wanted"], allow_auto_topic_creation=False)
    cluster.run_for(500)
    assert "not-wanted" not in cluster.topics()


def test_auto_creation_of_consumer_offsets_uses_the_offsets_topic_settings(cluster):
    topics(cluster, 1, 12, ["__consumer_offsets"], allow_auto_topic_creation=True)
    assert cluster.wait_until(lambda: "__consumer_offsets" in cluster.topics(include_internal=True), 5000)
    cluster.run_for(200)
    [topic] = topics(cluster, 1, 12, ["__consumer_offsets"]).topics
    assert topic.is_internal is True and len(topic.partitions) == 50
    assert len(topic.partitions[0].replica_nodes) == 3


def test_topic_ids_v12_known_and_unknown(cluster):
    unknown = uuid.UUID(int=12345)
    request = Metadata[12](topics=[Metadata.MetadataRequestTopic(topic_id=cluster_topic_id(cluster, "orders"),
                                                                 name=None),
                                   Metadata.MetadataRequestTopic(topic_id=unknown, name=None)])
    response = send(cluster, 1, request)
    assert [(t.name, t.topic_id, t.error_code) for t in response.topics] == [
        (None, unknown, Errors.UNKNOWN_TOPIC_ID.code),
        ("orders", cluster_topic_id(cluster, "orders"), 0)]


def test_topic_ids_before_v12_are_an_invalid_request(cluster):
    request = Metadata[10](topics=[Metadata.MetadataRequestTopic(topic_id=uuid.UUID(int=5), name="orders")])
    response = send(cluster, 1, request)
    assert response.brokers == [] and response.controller_id == -1
    assert [(t.name, t.error_code) for t in response.topics] == [("orders", Errors.INVALID_REQUEST.code)]


def test_authorized_operations_without_an_authorizer_are_all_supported_ones(cluster):
    response = topics(cluster, 1, 8, ["orders"], include_cluster_authorized_operations=True,
                      include_topic_authorized_operations=True)
    assert response.authorized_operations == set(CLUSTER_AUTHORIZED_OPERATIONS)
    assert response.topics[0].authorized_operations == set(TOPIC_AUTHORIZED_OPERATIONS)
    plain = topics(cluster, 1, 11, ["orders"])
    assert plain.topics[0].authorized_operations is None          # -2147483648: not requested


def test_a_listener_the_leader_lacks_gives_listener_not_found_from_v6(cluster):
    broker = cluster.processes.node(1).broker
    for version, expected in ((5, Errors.LEADER_NOT_AVAILABLE), (6, Errors.LISTENER_NOT_FOUND)):
        request = Metadata[version](topics=[Metadata.MetadataRequestTopic(name="orders")])
        ctx = RequestContext("c", "127.0.0.1", "EXTERNAL", 3, version, 1, "client")
        response = dispatch(ctx, _decoded(request), broker)
        assert response.brokers == []
        assert {p.error_code for p in response.topics[0].partitions} == {expected.code}
        assert {p.leader_id for p in response.topics[0].partitions} == {-1}
        assert all(p.offline_replicas == p.replica_nodes for p in response.topics[0].partitions)


def _decoded(request):
    from kafka.protocol.parser import KafkaProtocol
    client = KafkaProtocol(client_id="client")
    client.send_request(request)
    return decode_request(bytes(client.send_bytes())[4:])


def test_describe_cluster_versions_and_endpoint_types(cluster):
    response = send(cluster, 2, DescribeCluster[2](include_cluster_authorized_operations=True,
                                                   endpoint_type=1, include_fenced_brokers=True))
    assert response.error_code == 0 and response.cluster_id == cluster.cluster_id
    assert [(b.broker_id, b.is_fenced) for b in response.brokers] == [(1, False), (2, False), (3, False)]
    assert response.controller_id in cluster.broker_ids and response.endpoint_type == 1
    assert response.authorized_operations == set(CLUSTER_AUTHORIZED_OPERATIONS)
    mismatched = send(cluster, 2, DescribeCluster[1](endpoint_type=2))
    assert (mismatched.error_code, mismatched.error_message) == (
        114, "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER")
    unknown = send(cluster, 2, DescribeCluster[1](endpoint_type=7))
    assert (unknown.error_code, unknown.error_message) == (115, "Unsupported endpoint type 7")
    assert send(cluster, 2, DescribeCluster[0]()).brokers[0].broker_id == 1


def test_describe_topic_partitions_pages_with_a_cursor(cluster):
    named = [DescribeTopicPartitions.TopicRequest(name=n) for n in ("payments", "orders")]
    first = send(cluster, 1, DescribeTopicPartitions[0](topics=named, response_partition_limit=4))
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in first.topics] == [
        ("orders", [0, 1, 2]), ("payments", [0])]
    assert (first.next_cursor.topic_name, first.next_cursor.partition_index) == ("payments", 1)
    for topic in first.topics:
        assert topic.topic_authorized_operations == TOPIC_AUTHORIZED_OPERATIONS_FIELD
        for p in topic.partitions:
            assert p.eligible_leader_replicas == [] and p.last_known_elr == [] and p.error_code == 0
            assert p.leader_id == cluster.leader(topic.name, p.partition_index)
    cursor = DescribeTopicPartitions.Cursor(topic_name="payments", partition_index=1)
    second = send(cluster, 1, DescribeTopicPartitions[0](topics=named, response_partition_limit=2000,
                                                        cursor=cursor))
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in second.topics] == [
        ("payments", [1])]
    assert second.next_cursor is None
    everything = send(cluster, 1, DescribeTopicPartitions[0](topics=[], response_partition_limit=2000))
    assert [t.name for t in everything.topics] == sorted(t.name for t in everything.topics)
    assert {"orders", "payments"} <= {t.name for t in everything.topics}


def test_describe_topic_partitions_named_topics_and_bad_cursors(cluster):
    named = [DescribeTopicPartitions.TopicRequest(name=n) for n in ("orders", "missing", "bad name")]
    response = send(cluster, 1, DescribeTopicPartitions[0](topics=named, response_partition_limit=10))
    assert [(t.name, t.error_code) for t in response.topics] == [
        ("bad name", Errors.INVALID_TOPIC_EXCEPTION.code), ("missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code),
        ("orders", 0)]
    bad = DescribeTopicPartitions.Cursor(topic_name="payments", partition_index=0)
    refused = send(cluster, 1, DescribeTopicPartitions[0](topics=named[:1], response_partition_limit=10,
                                                         cursor=bad))
    assert [(t.name, t.error_code) for t in refused.topics] == [("orders", Errors.INVALID_REQUEST.code)]


def test_a_dead_brokers_partitions_have_no_leader_and_it_is_not_listed():
    c = start_cluster(seed=22)
    try:
        c.create_topic("solo", replica_assignment={0: [3]})
        c.kill(3)
        assert c.wait_until(lambda: c.leader("solo", 0) in (None, -1), 10_000)
        c.run_for(300)
        response = send(c, 1, Metadata[12](topics=[Metadata.MetadataRequestTopic(name="solo")]))
        assert [b.node_id for b in response.brokers] == [1, 2]
        [p] = response.topics[0].partitions
        assert (p.error_code, p.leader_id, p.offline_replicas) == (Errors.LEADER_NOT_AVAILABLE.code, -1, [3])
        assert p.leader_epoch >= 1
        fenced = send(c, 1, DescribeCluster[2](endpoint_type=1, include_fenced_brokers=True))
        assert [(b.broker_id, b.is_fenced) for b in fenced.brokers] == [(1, False), (2, False), (3, True)]
        alive = send(c, 1, DescribeCluster[2](endpoint_type=1, include_fenced_brokers=False))
        assert [b.broker_id for b in alive.brokers] == [1, 2]
    finally:
        c.stop()
