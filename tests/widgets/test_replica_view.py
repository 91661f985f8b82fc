"""One partition's replicas side by side (widgets/replica_view.py), on a simulated cluster."""

from __future__ import annotations

import pytest

from minikafka import Cluster
from minikafka.common.errors import Errors
from tests.server.test_replica_manager import batch, produce
from widgets import ReplicaView, replica_table


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=21, simulated=True).start()
    c.create_topic("orders", partitions=1, replication_factor=3)
    yield c
    c.stop()


def test_a_follower_cut_from_the_leader_shows_behind_and_holds_the_high_watermark(cluster):
    leader = cluster.leader("orders", 0)
    follower, cut = [b for b in cluster.replicas("orders", 0) if b != leader]
    assert produce(cluster, batch(b"a", b"b"), acks=1).error is Errors.NONE
    cluster.run_for(1000)
    cluster.cut_link(leader, cut)
    assert produce(cluster, batch(b"c", b"d", b"e"), acks=1).error is Errors.NONE
    cluster.run_for(1000)
    lines = replica_table(cluster.snapshot(), "orders", 0).splitlines()
    assert lines[0] == f"orders-0: leader {leader}, leader epoch 0, ISR [{leader},{follower},{cut}]"
    assert lines[1].split("  ")[0] == "broker"
    rows = {int(line.split()[0]): line.split() for line in lines[2:]}
    assert rows[leader][1:5] == ["leader", "yes", "5", "2"]
    assert rows[follower][1:6] == ["follower", "yes", "5", "2", "0"]
    assert rows[cut][1:6] == ["follower", "yes", "2", "2", "3"]
    cluster.heal()
    cluster.run_for(1000)


def test_caught_up_column_is_the_leaders_view(cluster):
    text = replica_table(cluster.snapshot(), "orders", 0, caught_up=True)
    header, *rows = text.splitlines()[1:]
    assert header.endswith("caught up")
    followers = [r for r in rows if "follower" in r]
    assert len(followers) == 2 and all(r.endswith("ms ago") for r in followers)
    assert not [r for r in rows if "leader" in r][0].endswith("ms ago")


def test_a_dead_broker_is_named_in_its_row(cluster):
    leader = cluster.leader("orders", 0)
    victim = [b for b in cluster.replicas("orders", 0) if b != leader][0]
    cluster.kill_broker(victim)
    try:
        row = [r for r in replica_table(cluster.snapshot(), "orders", 0).splitlines()
               if r.startswith(str(victim))][0]
        assert "follower (dead)" in row and row.split()[-1] == "-"
    finally:
        cluster.restart_broker(victim)
        assert cluster.wait_until(lambda: victim in cluster.isr("orders", 0), 20_000)


def test_unknown_topic_or_partition_is_a_clear_error(cluster):
    with pytest.raises(ValueError, match="Topic 'nope' does not exist"):
        replica_table(cluster.snapshot(), "nope", 0)
    with pytest.raises(ValueError, match="has no partition 4"):
        replica_table(cluster.snapshot(), "orders", 4)
    with pytest.raises(ValueError, match="has no partition 4"):
        ReplicaView(cluster, "orders", 4)


def test_the_widget_draws_the_table_and_stops_cleanly(cluster):
    view = ReplicaView(cluster, "orders", 0, refresh_s=0.05, min_interval_s=0)
    try:
        assert "<table" in view.table.value and "high watermark" in view.table.value
        assert repr(view) == "ReplicaView(topic='orders', partition=0)"
        assert view.wait_idle(5)
    finally:
        view.close()
    view._ticker.join(2)
    assert not view._ticker.is_alive()
    assert view._worker.closed
    with pytest.raises(ValueError, match="refresh_s"):
        ReplicaView(cluster, "orders", 0, refresh_s=0)
