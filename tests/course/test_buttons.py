"""undo_button_presses: a cell that breaks the cluster first undoes what the widget buttons did."""

import pytest

from minikafka import Cluster
from minikafka.course.buttons import undo_button_presses


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=23, simulated=True).start()
    c.create_topic("orders", partitions=3, replication_factor=3)
    yield c
    c.stop()


def test_nothing_to_undo_says_so_and_changes_nothing(cluster, capsys):
    before = len(cluster.events)
    undo_button_presses(cluster)
    assert capsys.readouterr().out == ("No button press to undo: every node is running and the "
                                       "network is whole.\n")
    assert len(cluster.events) == before


def test_every_press_is_undone_and_the_cluster_settles(cluster, capsys):
    cluster.kill(2)
    cluster.pause(1002)
    cluster.isolate(3)
    cluster.run_for(5_000)      # the controller fences broker 2 and shrinks the ISRs
    assert any(p.under_replicated for p in cluster.snapshot().topic("orders").partitions)
    undo_button_presses(cluster)
    assert capsys.readouterr().out == ("Undid earlier button presses: healed the network, "
                                       "restarted broker 2, resumed controller 1002.\n")
    snapshot = cluster.snapshot()
    assert all(n.process == "running" and not n.isolated for n in snapshot.nodes)
    assert not any(p.under_replicated for p in snapshot.topic("orders").partitions)
    assert cluster.is_ready()


def test_keep_dead_leaves_the_lessons_own_victim_dead(cluster, capsys):
    cluster.kill(3)
    undo_button_presses(cluster, keep_dead=[3])
    assert capsys.readouterr().out.startswith("No button press to undo")
    assert cluster.snapshot().node(3).process == "dead"
