"""RequestsPerSec meters and the request view, after known workloads on a simulated cluster."""

import pytest

from minikafka.cluster import Cluster
from minikafka.drivers.inprocess import InProcessConnection
from tests.client_batches import client_batch
from tests.server.apis.dataplane_harness import Fetch, Metadata, Produce, cluster_topic_id

RPS = "kafka.network:type=RequestMetrics,name=RequestsPerSec,request="


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=61, simulated=True).start()
    c.create_topic("orders", partitions=3, replication_factor=3)
    yield c
    c.stop()


def produce(cluster, broker, partition, client_id="lesson-producer", acks=-1, version=9):
    request = Produce[version](
        transactional_id=None, acks=acks, timeout_ms=5000,
        topic_data=[Produce.TopicProduceData(name="orders", partition_data=[
            Produce.TopicProduceData.PartitionProduceData(index=partition, records=client_batch())])])
    return InProcessConnection(cluster, broker, client_id=client_id).send(request)


def consume(cluster, broker, partitions, client_id="lesson-consumer"):
    request = Fetch[12](
        replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
        session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="",
        topics=[Fetch.FetchTopic(topic="orders", partitions=[Fetch.FetchTopic.FetchPartition(
            partition=p, fetch_offset=0, partition_max_bytes=1 << 20, current_leader_epoch=-1,
            last_fetched_epoch=-1, log_start_offset=-1) for p in partitions])])
    return InProcessConnection(cluster, broker, client_id=client_id).send(request)


def test_clients_talk_to_each_partitions_leader(cluster):
    before = cluster.request_counts()
    leaders = {p: cluster.leader("orders", p) for p in range(3)}
    for p, leader in leaders.items():
        for _ in range(p + 1):                     # 1, 2 and 3 requests
            produce(cluster, leader, p)
    counts = cluster.request_counts(since=before)
    assert counts.by("broker", "partition", api="Produce") == {
        (leaders[p], f"orders-{p}"): p + 1 for p in sorted(leaders, key=lambda p: leaders[p])}
    assert counts.total(api="Produce", error="NONE") == 6
    assert counts.by("client_id") == {"lesson-producer": 6}


def test_requests_per_sec_counts_by_api_and_version(cluster):
    leader = cluster.leader("orders", 0)
    before = cluster.broker_metrics(leader)
    produce(cluster, leader, 0, version=9)
    produce(cluster, leader, 0, version=7)
    consume(cluster, leader, [0])
    after = cluster.broker_metrics(leader)

    def grown(name):
        old = before.get(RPS + name, {"Count": 0})["Count"]
        return after[RPS + name]["Count"] - old
    assert grown("Produce,version=9") == 1
    assert grown("Produce,version=7") == 1
    assert grown("FetchConsumer,version=12") == 1
    assert grown("Fetch,version=12") == 1       # a fetch counts under Fetch too


def test_follower_fetches_are_fetch_follower_and_left_out_of_the_view_by_default(cluster):
    leader = cluster.leader("orders", 0)
    before = cluster.request_counts(followers=True)
    produce(cluster, leader, 0)
    cluster.run_for(1_000)
    replication = cluster.request_counts(since=before, followers=True)
    followers = {f"broker-{b}-fetcher-0" for b in cluster.replicas("orders", 0) if b != leader}
    assert followers <= set(replication.by("client_id", api="Fetch", broker=leader))
    assert cluster.request_counts(since=before).total(api="Fetch") == 0
    metrics = cluster.broker_metrics(leader)
    assert metrics[RPS + "FetchFollower,version=18"]["Count"] > 0
    assert RPS + "FetchConsumer,version=18" not in metrics


def test_a_producer_at_an_old_leader_gets_not_leader_or_follower(cluster):
    old = cluster.leader("orders", 0)
    others = [b for b in cluster.replicas("orders", 0) if b != old]
    cluster.reassign_partitions({("orders", 0): others + [old]})    # new preferred leader
    cluster.elect_leaders("preferred", [("orders", 0)])
    new = cluster.leader("orders", 0)
    assert new != old
    before = cluster.request_counts()
    produce(cluster, old, 0)                        # the client's metadata is stale
    InProcessConnection(cluster, old, client_id="lesson-producer").send(Metadata[9](
        topics=[Metadata.MetadataRequestTopic(name="orders")], allow_auto_topic_creation=False,
        include_topic_authorized_operations=False))
    produce(cluster, new, 0)                        # after the metadata refresh
    counts = cluster.request_counts(since=before)
    assert counts.by("broker", "error", api="Produce") == {
        (old, "NOT_LEADER_OR_FOLLOWER"): 1, (new, "NONE"): 1}
    assert counts.total(broker=old, api="Metadata") == 1
    assert "NOT_LEADER_OR_FOLLOWER" in counts.table(api="Produce")


def test_acks_0_produce_has_no_answer_to_count_errors_from(cluster):
    leader = cluster.leader("orders", 1)
    produce(cluster, leader, 1, acks=0)
    counts = cluster.request_counts()
    [row] = [r for r in counts.partitions if r.api == "Produce"]
    assert (row.broker, str(row.partition), row.error, row.count) == (leader, "orders-1", None, 1)


def test_a_fetch_names_several_partitions(cluster):
    leader = cluster.leader("orders", 2)
    consume(cluster, leader, [2, 7])
    counts = cluster.request_counts()
    assert counts.total(broker=leader, api="Fetch") == 1         # one request...
    assert counts.by("partition", "error", api="Fetch") == {      # ... about two partitions
        ("orders-2", "NONE"): 1, ("orders-7", "UNKNOWN_TOPIC_OR_PARTITION"): 1}


def test_a_restarted_broker_counts_from_zero(cluster):
    leader = cluster.leader("orders", 0)
    produce(cluster, leader, 0)
    before = cluster.request_counts()
    cluster.kill_broker(leader)
    assert leader not in cluster.request_counts().by("broker")   # its counts died with it
    cluster.restart_broker(leader)
    assert cluster.wait_until(cluster.is_ready, 20_000)
    produce(cluster, leader, 0)
    assert cluster.request_counts(since=before).total(broker=leader, api="Produce") == 1


def test_topics_named_by_id_are_counted_by_name(cluster):
    leader = cluster.leader("orders", 0)
    request = Produce[13](
        transactional_id=None, acks=1, timeout_ms=5000,
        topic_data=[Produce.TopicProduceData(topic_id=cluster_topic_id(cluster, "orders"), partition_data=[
            Produce.TopicProduceData.PartitionProduceData(index=0, records=client_batch())])])
    InProcessConnection(cluster, leader, client_id="v13").send(request)
    assert cluster.request_counts().by("partition", "error", client_id="v13") == {("orders-0", "NONE"): 1}


def test_follower_fetches_are_counted_at_fetchs_newest_stable_version():
    from minikafka.network.api_keys import API_KEYS
    from minikafka.network.request_metrics import FETCH_KEY, FOLLOWER_FETCH_VERSION
    assert FOLLOWER_FETCH_VERSION == API_KEYS[FETCH_KEY].latest_stable()
