"""Lesson 01's check helpers: which dead broker led a partition, and where a key lands."""

from __future__ import annotations

from minikafka import Cluster
from minikafka.course.lesson01 import dead_leader, killed_leader, leader_killed, where_key_lands


def orders_cluster() -> Cluster:
    cluster = Cluster(brokers=3, controllers=1, simulated=True, seed=1)
    cluster.start()
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    return cluster


def test_the_killed_leader_is_found_before_and_after_the_controller_reacts():
    with orders_cluster() as cluster:
        assert killed_leader(cluster, "orders", 1) is None
        assert leader_killed(cluster, "orders", 1).detail == \
            "every broker is running; orders-1 is led by a live broker"
        leader = cluster.leader("orders", 1)
        cluster.kill_broker(leader)
        # not fenced yet: the metadata still names the dead broker as the leader
        assert cluster.leader("orders", 1) == leader
        assert killed_leader(cluster, "orders", 1) == leader
        assert cluster.wait_until(lambda: cluster.leader("orders", 1) not in (None, leader), 20_000)
        # fenced, and leadership moved: the controller's event names the broker it moved from
        assert killed_leader(cluster, "orders", 1) == leader
        outcome = leader_killed(cluster, "orders", 1)
        assert outcome.done and outcome.detail == f"broker {leader}, which led orders-1, is dead"
        # back again: nobody dead, nothing to find
        cluster.restart_broker(leader)
        assert killed_leader(cluster, "orders", 1) is None


def test_killing_a_follower_is_not_killing_the_leader():
    with orders_cluster() as cluster:
        leader = cluster.leader("orders", 1)
        follower = next(b for b in cluster.replicas("orders", 1) if b != leader)
        cluster.kill_broker(follower)
        cluster.wait_until(lambda: follower not in cluster.isr("orders", 1), 20_000)
        outcome = leader_killed(cluster, "orders", 1)
        assert not outcome.done
        assert outcome.detail == f"broker {follower} is dead, but orders-1 is led by broker {leader}"
        assert killed_leader(cluster, "orders", 1) is None


def test_a_leader_that_lost_leadership_before_it_died_is_not_the_killed_leader():
    with orders_cluster() as cluster:
        first = cluster.leader("orders", 1)
        cluster.kill_broker(first)
        assert cluster.wait_until(lambda: cluster.leader("orders", 1) not in (None, first), 20_000)
        cluster.restart_broker(first)
        assert cluster.wait_until(lambda: first in cluster.isr("orders", 1), 20_000)
        # first is a follower now; killing it kills no leader of orders-1
        cluster.kill_broker(first)
        assert killed_leader(cluster, "orders", 1) is None
        assert not leader_killed(cluster, "orders", 1).done


class _Sent:
    def __init__(self, partition: int):
        self.partition = partition

    def get(self, timeout: float):
        return self


class FakeProducer:
    """Records what it sends; every record lands in partition 2."""

    def __init__(self):
        self.sent = []

    def send(self, topic, key=None, value=None):
        self.sent.append((topic, key, value))
        return _Sent(2)


def test_where_key_lands_sends_one_record_however_often_it_is_asked():
    producer = FakeProducer()
    assert where_key_lands(producer, "Topic-A", b"user-42") == 2
    assert where_key_lands(producer, "Topic-A", b"user-42") == 2
    assert [(topic, key) for topic, key, _ in producer.sent] == [("Topic-A", b"user-42")]
    assert where_key_lands(producer, "Topic-A", b"user-7") == 2
    assert len(producer.sent) == 2


def test_dead_leader_kills_the_leader_again_when_a_restart_brought_the_victim_back(capsys):
    with orders_cluster() as cluster:
        first = cluster.leader("orders", 1)
        cluster.kill_broker(first)
        assert dead_leader(cluster, "orders", 1) == first          # dead: found, nobody killed
        assert capsys.readouterr().out == ""
        assert cluster.wait_until(lambda: cluster.leader("orders", 1) not in (None, first), 20_000)
        cluster.restart_broker(first)                              # the dashboard's Restart
        leader_now = cluster.leader("orders", 1)
        victim = dead_leader(cluster, "orders", 1)
        assert victim == leader_now and cluster.snapshot().node(victim).process == "dead"
        assert capsys.readouterr().out == (f"No dead broker led orders-1 (a Restart press?): "
                                           f"killing its leader, broker {leader_now}, once more\n")
