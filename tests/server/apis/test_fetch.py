import uuid

import pytest

from minikafka.common.errors import Errors
from minikafka.record import record_batch as rb
from tests.server.apis.dataplane_harness import (Fetch, batch, fetch, follower_of, leader_of, now,
                                                      produce, send, start_cluster)


@pytest.fixture(scope="module")
def cluster():
    c = start_cluster(seed=41)
    c.create_topic("events", partitions=2, replication_factor=3)
    c.create_topic("lonely", replica_assignment={0: [3]})
    leader = leader_of(c, "events", 0)
    for values in ([b"a", b"b"], [b"c"]):
        produce(c, leader, "events", 0, batch(c, values))
    yield c
    c.stop()


def only(response):
    [topic] = response.responses
    [partition] = topic.partitions
    return partition


def stored_bytes(cluster, topic, partition):
    broker = cluster.processes.node(leader_of(cluster, topic, partition)).broker
    log = broker.replica_manager.partitions[(topic, partition)].log
    return b"".join(broker.log_manager.directory.read_bytes(s.log.path) for s in log.log_segments())


def test_the_leader_returns_its_stored_batches_and_offsets(cluster):
    response = fetch(cluster, leader_of(cluster, "events", 0), "events", 0, 0)
    assert (response.error_code, response.session_id) == (0, 0)
    data = only(response)
    assert (data.error_code, data.high_watermark, data.last_stable_offset, data.log_start_offset) == (0, 3, 3, 0)
    assert data.records == stored_bytes(cluster, "events", 0)
    assert data.preferred_read_replica == -1 and data.aborted_transactions is None
    later = only(fetch(cluster, leader_of(cluster, "events", 0), "events", 0, 2))
    assert [b.base_offset for b in rb.iter_batches(later.records)] == [2]


def test_every_requested_partition_is_echoed_even_when_empty_or_unknown(cluster):
    leader = leader_of(cluster, "events", 0)
    partitions = [Fetch.FetchTopic.FetchPartition(partition=p, fetch_offset=0, partition_max_bytes=1 << 20,
                                                  current_leader_epoch=-1, last_fetched_epoch=-1,
                                                  log_start_offset=-1) for p in (1, 7, 0)]
    request = Fetch[12](replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                        session_id=0, session_epoch=0,
                        topics=[Fetch.FetchTopic(topic="events", partitions=partitions),
                                Fetch.FetchTopic(topic="nope", partitions=partitions[:1])],
                        forgotten_topics_data=[], rack_id="")
    response = send(cluster, leader, request)
    shape = [(t.topic, [(p.partition_index, p.error_code) for p in t.partitions]) for t in response.responses]
    unknown = Errors.UNKNOWN_TOPIC_OR_PARTITION.code
    # partitions read come first, in request order, then the ones refused up front; consecutive
    # entries of one topic share a topic entry (FetchResponse.toMessage)
    assert shape == [("events", [(1, 0), (0, 0), (7, unknown)]), ("nope", [(1, unknown)])]
    missing = next(p for t in response.responses for p in t.partitions if p.partition_index == 7)
    assert (missing.high_watermark, missing.log_start_offset, missing.records) == (-1, -1, b"")


def test_incremental_fetches_find_no_session(cluster):
    request = Fetch[12](replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                        session_id=123, session_epoch=1, topics=[], forgotten_topics_data=[], rack_id="")
    response = send(cluster, 1, request)
    assert (response.error_code, response.session_id, response.responses) == (
        Errors.FETCH_SESSION_ID_NOT_FOUND.code, 0, [])


def test_out_of_range_and_epoch_checks(cluster):
    leader = leader_of(cluster, "events", 0)
    beyond = only(fetch(cluster, leader, "events", 0, 99))
    assert (beyond.error_code, beyond.high_watermark, beyond.records) == (Errors.OFFSET_OUT_OF_RANGE.code, -1, b"")
    newer = only(fetch(cluster, leader, "events", 0, 0, current_leader_epoch=5))
    assert newer.error_code == Errors.UNKNOWN_LEADER_EPOCH.code


def test_pre_v11_consumers_must_fetch_from_the_leader_later_ones_may_use_a_follower(cluster):
    follower = follower_of(cluster, "events", 0)
    assert cluster.wait_until(
        lambda: cluster.processes.node(follower).broker.replica_manager.partitions[("events", 0)].log.high_watermark == 3,
        2000)
    assert only(fetch(cluster, follower, "events", 0, 0, version=10)).error_code == \
        Errors.NOT_LEADER_OR_FOLLOWER.code
    served = only(fetch(cluster, follower, "events", 0, 0, version=11))
    assert served.error_code == 0 and served.records == stored_bytes(cluster, "events", 0)


def test_v16_tells_who_leads_when_this_broker_is_no_replica(cluster):
    response = fetch(cluster, 1, "lonely", 0, 0, version=16)
    data = only(response)
    assert data.error_code == Errors.NOT_LEADER_OR_FOLLOWER.code
    assert (data.current_leader.leader_id, data.current_leader.leader_epoch) == (3, 0)
    assert [(e.node_id, e.port) for e in response.node_endpoints] == [(3, cluster.layout.broker_ports[3])]


def test_topic_ids_from_v13(cluster):
    leader = leader_of(cluster, "events", 0)
    assert only(fetch(cluster, leader, "events", 0, 0, version=13)).high_watermark == 3
    request = Fetch[13](replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                        session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="",
                        topics=[Fetch.FetchTopic(topic_id=uuid.UUID(int=77), partitions=[
                            Fetch.FetchTopic.FetchPartition(partition=0, fetch_offset=0,
                                                            partition_max_bytes=100)])])
    assert only(send(cluster, leader, request)).error_code == Errors.UNKNOWN_TOPIC_ID.code


def test_read_committed_lists_no_aborted_transactions(cluster):
    leader = leader_of(cluster, "events", 0)
    request = Fetch[12](replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=1,
                        session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="",
                        topics=[Fetch.FetchTopic(topic="events", partitions=[
                            Fetch.FetchTopic.FetchPartition(partition=0, fetch_offset=0,
                                                            partition_max_bytes=100)])])
    data = only(send(cluster, leader, request))
    assert data.aborted_transactions == [] and data.last_stable_offset == 3


def test_a_long_poll_waits_max_wait_ms_when_nothing_arrives(cluster):
    leader = leader_of(cluster, "events", 1)
    start = now(cluster)
    data = only(fetch(cluster, leader, "events", 1, 0, max_wait_ms=500))
    assert data.records == b"" and data.error_code == 0
    assert now(cluster) - start >= 500                    # virtual time: the purgatory held it


def test_divergence_and_fenced_epochs_after_a_leader_change():
    c = start_cluster(seed=42)
    try:
        c.create_topic("moving", replica_assignment={0: [1, 2, 3]})
        produce(c, 1, "moving", 0, batch(c, [b"e0-a", b"e0-b", b"e0-c"]))
        c.kill(1)
        assert c.wait_until(lambda: c.leader("moving", 0) in (2, 3), 10_000)
        c.run_for(300)
        leader = c.leader("moving", 0)
        produce(c, leader, "moving", 0, batch(c, [b"e1"]))
        diverged = only(fetch(c, leader, "moving", 0, 4, last_fetched_epoch=0, current_leader_epoch=1))
        assert diverged.error_code == 0 and diverged.records == b""
        assert (diverged.diverging_epoch.epoch, diverged.diverging_epoch.end_offset) == (0, 3)
        fenced = fetch(c, leader, "moving", 0, 0, version=16, current_leader_epoch=0)
        data = only(fenced)
        assert data.error_code == Errors.FENCED_LEADER_EPOCH.code
        assert (data.current_leader.leader_id, data.current_leader.leader_epoch) == (leader, 1)
        assert [e.node_id for e in fenced.node_endpoints] == [leader]
    finally:
        c.stop()


@pytest.mark.parametrize("version", range(4, 19))
def test_every_advertised_version_reads_the_same_batches(cluster, version):
    leader = leader_of(cluster, "events", 0)
    data = only(fetch(cluster, leader, "events", 0, 0, version=version))
    assert (data.error_code, data.high_watermark) == (0, 3)
    assert data.records == stored_bytes(cluster, "events", 0)
    if version >= 5:
        assert data.log_start_offset == 0
