"""The plain-text picture (widgets/topology_text.py): goldens for every situation."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from _widget_helpers import big_cluster, failure_states, make_snapshot, node, three_brokers, topic
from widgets.topology_text import topology_text

GOLDENS = Path(__file__).parent / "goldens"


def test_leaders_and_out_of_sync_follower():
    assert topology_text(three_brokers()) == """\
KRaft quorum: voters [1001] · active controller 1001 · epoch 1

controller 1001: alive
  active controller · leader · epoch 1
  localhost:19093 · 4.0 KiB

broker 1: alive
  localhost:9092 · 12.3 KiB
  orders-0  L
  orders-1  F
  orders-2  F

broker 2: alive
  localhost:9093 · 900 B
  orders-0  F
  orders-1  L
  orders-2  F (out of sync)

broker 3: alive
  localhost:9094 · 3.0 MiB
  orders-0  F
  orders-1  F
  orders-2  L
"""


def test_dead_fenced_paused_isolated_no_leader_and_reassignment():
    assert topology_text(failure_states()) == """\
KRaft quorum: voters [1001, 1002, 1003] · active controller 1001 · epoch 2

controller 1001: alive
  active controller · leader · epoch 2
  localhost:19093 · 0 B

controller 1002: dead
  localhost:19094 · 0 B

controller 1003: isolated
  leader · epoch 1
  localhost:19095 · 0 B

broker 1: dead · unfenced
  localhost:9092 · 0 B
  orders-0    F (out of sync)
  payments-0  L (removing)

broker 2: fenced
  localhost:9093 · 0 B
  orders-0  L
  orders-1  - (no leader)

broker 3: paused · unfenced
  localhost:9094 · 0 B
  orders-0  F
  orders-1  - (no leader, out of sync)

broker 4: isolated · fenced
  localhost:9095 · 0 B
  orders-1  - (no leader, out of sync)

broker 5: alive · in controlled shutdown
  localhost:9096 · 0 B
  payments-0  F (out of sync, adding)
"""


def test_combined_node_no_leader_election_and_legend():
    snapshot = make_snapshot([node(1, ("broker", "controller"), raft_role="candidate",
                                   raft_epoch=2), node(2)],
                             [topic("orders", [((1,), (1,), 1)])], voters=(1,), leader=None,
                             epoch=2)
    assert topology_text(snapshot, legend=True) == """\
KRaft quorum: voters [1] · no active controller (election in progress) · epoch 2

node 1 (broker+controller): alive
  candidate · epoch 2
  localhost:9092 · 0 B
  orders-0  L

broker 2: alive
  localhost:9093 · 0 B
  no replicas

Marks: L = leader, F = follower in the ISR, F (out of sync) = follower not in the ISR, \
- (no leader) = partition without a leader.
"""


def test_hidden_partitions_and_unknown_topics_are_noted():
    text = topology_text(big_cluster(), topics=["orders", "nope"], max_partitions=2)
    assert text.startswith("KRaft quorum: voters [1001, 1002, 1003] · active controller 1001"
                           " · epoch 3\nno topic named 'nope'\n"
                           "orders: showing 2 of 20 partitions\n")
    assert "broker 5: alive\n  localhost:9096 · 4.8 MiB\n  + 12 more replicas not shown\n" in text
    assert "broker 1: alive\n  localhost:9092 · 976.6 KiB\n  orders-0  L\n  + 11 more" in text


def test_offsets_column_golden():
    assert topology_text(big_cluster(), offsets=True) == \
        (GOLDENS / "big_cluster_offsets.txt").read_text()


def test_internal_topics_only_on_request():
    assert "__consumer_offsets" not in topology_text(big_cluster())
    shown = topology_text(big_cluster(), show_internal=True)
    assert re.search(r"\n  __consumer_offsets-0 +L\n", shown)


def test_deterministic_for_equal_snapshots_in_any_order():
    snapshot = failure_states()
    shuffled = dataclasses.replace(snapshot, nodes=tuple(reversed(snapshot.nodes)),
                                   topics=tuple(reversed(snapshot.topics)))
    assert topology_text(snapshot) == topology_text(shuffled) == topology_text(failure_states())


def test_no_line_is_wider_than_a_narrow_output():
    text = topology_text(big_cluster(), offsets=True, show_internal=True, max_partitions=50)
    assert max(len(line) for line in text.splitlines()) <= 80
