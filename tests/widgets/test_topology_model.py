"""What the picture shows: marks, states, filters and limits (widgets/topology_model.py)."""

from __future__ import annotations

import pytest

from _widget_helpers import (big_cluster, failure_states, make_snapshot, node, partition,
                                   three_brokers, topic)
from widgets.topology_model import build_topology, human_bytes, replica_mark, short_name


def marks(topology, broker_id):
    box = next(b for b in topology.brokers if b.node_id == broker_id)
    return [(m.name, m.mark) for m in box.replicas]


@pytest.mark.parametrize("size, text", [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
    (3 * 1024 ** 2, "3.0 MiB"), (5 * 1024 ** 3, "5.0 GiB"), (2048 * 1024 ** 4, "2048.0 TiB"),
])
def test_human_bytes_uses_binary_units(size, text):
    assert human_bytes(size) == text


def test_short_name_keeps_short_names_and_the_partition_number():
    assert short_name("orders", 12) == "orders-12"
    long = short_name("a-really-long-topic-name-for-testing", 7)
    assert long.endswith("-7") and "…" in long and len(long) == 24
    assert long.startswith("a-really-long-") and long[:-2].endswith("testing")


def test_leader_and_followers_in_the_course_picture():
    topology = build_topology(three_brokers())
    assert marks(topology, 1) == [("orders-0", "L"), ("orders-1", "F"), ("orders-2", "F")]
    assert marks(topology, 2) == [("orders-0", "F"), ("orders-1", "L"),
                                  ("orders-2", "F (out of sync)")]
    assert marks(topology, 3) == [("orders-0", "F"), ("orders-1", "F"), ("orders-2", "L")]


def test_a_partition_without_leader_has_no_followers():
    p = partition("orders", 0, ((1, 2, 3), (2,), None))
    assert replica_mark(p, 2).mark == "- (no leader)"
    assert replica_mark(p, 1).mark == "- (no leader, out of sync)"
    assert replica_mark(p, 1).kind == "offline"


def test_reassignment_marks_adding_and_removing_replicas():
    p = partition("payments", 0, ((1, 5), (1,), 1), adding=(5,), removing=(1,))
    assert replica_mark(p, 1).mark == "L (removing)"
    assert replica_mark(p, 5).mark == "F (out of sync, adding)"
    assert replica_mark(p, 5).kind == "out_of_sync"


def test_replica_offsets_come_from_the_replica_states():
    p = partition("orders", 0, ((1, 2), (1, 2), 1), leo=42)
    assert replica_mark(p, 2).offsets == "LEO 42 HW 42"
    assert replica_mark(partition("orders", 0, ((1,), (1,), 1)), 1).offsets == "LEO ? HW ?"


def test_node_status_adds_the_registration_only_when_it_says_more():
    topology = build_topology(failure_states())
    status = {b.node_id: b.status for b in topology.controllers + topology.brokers}
    assert status == {
        1001: "alive", 1002: "dead", 1003: "isolated",
        1: "dead · unfenced",            # killed, session not yet timed out
        2: "fenced", 3: "paused · unfenced", 4: "isolated · fenced",
        5: "alive · in controlled shutdown",
    }


def test_controllers_show_their_own_raft_view_and_the_active_one_is_marked():
    topology = build_topology(failure_states())
    by_id = {c.node_id: c for c in topology.controllers}
    assert by_id[1001].active_controller
    assert by_id[1001].raft == "active controller · leader · epoch 2"
    assert by_id[1003].raft == "leader · epoch 1" and not by_id[1003].active_controller
    assert by_id[1002].raft is None
    assert topology.quorum == ("KRaft quorum: voters [1001, 1002, 1003] · active controller 1001"
                               " · epoch 2")


def test_quorum_line_without_an_active_controller():
    snapshot = make_snapshot([node(1)], [], leader=None, epoch=4)
    assert build_topology(snapshot).quorum == (
        "KRaft quorum: voters [1001] · no active controller (election in progress) · epoch 4")


def test_combined_nodes_are_brokers_with_a_raft_line():
    snapshot = make_snapshot([node(1, ("broker", "controller"), raft_role="leader", raft_epoch=1)],
                             [topic("orders", [((1,), (1,), 1)])], voters=(1,), leader=1)
    topology = build_topology(snapshot)
    assert topology.controllers == ()
    (box,) = topology.brokers
    assert box.title == "node 1 (broker+controller)" and box.is_broker
    assert box.raft == "active controller · leader · epoch 1"
    assert marks(topology, 1) == [("orders-0", "L")]


def test_internal_topics_are_hidden_unless_asked_for():
    assert all(m.name.startswith("orders") for b in build_topology(big_cluster()).brokers
               for m in b.replicas)
    shown = build_topology(big_cluster(), show_internal=True, max_partitions=50)
    assert ("__consumer_offsets-49", "L") in marks(shown, 1)


def test_topic_filter_accepts_a_name_or_names_and_notes_unknown_ones():
    snapshot = failure_states()
    assert {m.name for b in build_topology(snapshot, topics="payments").brokers
            for m in b.replicas} == {"payments-0"}
    topology = build_topology(snapshot, topics=["orders", "nope"])
    assert topology.notes == ("no topic named 'nope'",)
    assert {m.name for b in topology.brokers for m in b.replicas} == {"orders-0", "orders-1"}


def test_max_partitions_caps_each_topic_and_counts_hidden_replicas():
    topology = build_topology(big_cluster(), max_partitions=5)
    assert topology.notes == ("orders: showing 5 of 20 partitions",)
    shown = sum(len(b.replicas) for b in topology.brokers)
    hidden = sum(b.hidden_replicas for b in topology.brokers)
    assert (shown, hidden) == (15, 45)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "20"])
def test_bad_max_partitions_is_refused(bad):
    with pytest.raises(ValueError, match="max_partitions must be a positive integer"):
        build_topology(three_brokers(), max_partitions=bad)


def test_non_string_topic_names_are_refused():
    with pytest.raises(ValueError, match="topic names must be strings"):
        build_topology(three_brokers(), topics=[1])
