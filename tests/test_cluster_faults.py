"""Fault verbs of the facade: a cut link between two nodes, and what the snapshot shows of it.

A follower cut from its leader (but not from the controllers) keeps its
broker session, stops fetching, holds the high watermark back while it is
still in the ISR, and leaves the ISR only after ``replica.lag.time.max.ms``
(the leader says so in the event log); once the link heals it catches up and
the leader adds it back.
"""

import pytest

from minikafka import Cluster, TopicPartition
from minikafka.common.errors import Errors
from tests.server.test_replica_manager import batch, produce

TP = TopicPartition("orders", 0)


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=21, simulated=True).start()
    c.create_topic("orders", partitions=1, replication_factor=3)
    yield c
    c.stop()


def _replicas(cluster):
    return {r.broker: r for r in cluster.snapshot().topic("orders").partitions[0].replica_states}


def test_cut_link_validates_its_nodes(cluster):
    with pytest.raises(ValueError, match="No node with id 9"):
        cluster.cut_link(1, 9)
    with pytest.raises(ValueError, match="two different nodes"):
        cluster.cut_link(2, 2)
    assert cluster.driver.network.cut_links == set()


def test_a_follower_cut_from_its_leader_holds_the_high_watermark_then_leaves_the_isr(cluster):
    leader = cluster.leader("orders", 0)
    follower, cut = [b for b in cluster.replicas("orders", 0) if b != leader]
    assert produce(cluster, batch(b"a", b"b"), acks=1).error is Errors.NONE
    cluster.run_for(1000)
    cluster.cut_link(leader, cut)
    assert cluster.snapshot().node(cut).cut_from == (leader,)
    assert cluster.snapshot().node(follower).cut_from == ()
    start = cluster.driver.now()
    assert produce(cluster, batch(b"c", b"d", b"e"), acks=1).error is Errors.NONE
    cluster.run_for(1000)
    replicas = _replicas(cluster)
    assert replicas[leader].log_end_offset == 5 and replicas[follower].log_end_offset == 5
    assert replicas[cut].log_end_offset == 2
    assert replicas[leader].high_watermark == 2          # the cut follower is still in the ISR
    assert replicas[cut].fetch_offset == 2 and replicas[follower].fetch_offset == 5
    lag_ms = cluster.timing.ms("replica.lag.time.max.ms")
    assert cluster.wait_until(lambda: cut not in cluster.isr("orders", 0), 3 * lag_ms)
    assert cluster.driver.now() - start >= lag_ms
    shrink = [e for e in cluster.events if e.kind == "isr_shrink"]
    assert [e.data["out_of_sync"] for e in shrink] == [[cut]]
    assert f"Shrinking ISR from {leader}," in shrink[0].text
    assert f"(brokerId: {cut}, endOffset: 2)" in shrink[0].text
    assert f"replica.lag.time.max.ms={lag_ms}" in shrink[0].text
    assert not [e for e in cluster.events if e.kind == "broker_fenced"]   # it kept its session
    cluster.run_for(500)
    assert _replicas(cluster)[leader].high_watermark == 5


def test_heal_restores_the_link_and_the_follower_rejoins(cluster):
    leader = cluster.leader("orders", 0)
    cut = [b for b in cluster.replicas("orders", 0) if b != leader][1]
    cluster.cut_link(cut, leader)
    assert produce(cluster, batch(b"x"), acks=1).error is Errors.NONE
    assert cluster.wait_until(lambda: cut not in cluster.isr("orders", 0), 30_000)
    cluster.heal()
    assert cluster.driver.network.cut_links == set()
    assert cluster.wait_until(lambda: cut in cluster.isr("orders", 0), 10_000)
    expand = [e for e in cluster.events if e.kind == "isr_expand"]
    assert expand and expand[-1].data["replica"] == cut
    assert _replicas(cluster)[cut].log_end_offset == 1
    kinds = [e.kind for e in cluster.events if e.kind.startswith("network")]
    assert kinds == ["network_link_cut", "network_healed"]


def test_acks_all_waits_for_a_cut_follower_until_it_leaves_the_isr(cluster):
    leader = cluster.leader("orders", 0)
    cut = [b for b in cluster.replicas("orders", 0) if b != leader][0]
    cluster.cut_link(leader, cut)
    box = []
    cluster.driver.invoke(leader, lambda node: node.broker.replica_manager.append_records(
        -1, 30_000, {TP: batch(b"w")}, box.append))
    cluster.run_for(2000)
    assert box == []                                      # parked: the ISR still holds `cut`
    assert cluster.wait_until(lambda: bool(box), 30_000)
    assert box[0][TP].error is Errors.NONE
    assert cut not in cluster.isr("orders", 0)
