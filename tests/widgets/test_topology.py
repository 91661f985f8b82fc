"""The diagram's DOT source (widgets/topology.py): goldens, determinism, legibility."""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from _widget_helpers import big_cluster, failure_states, make_snapshot, node, three_brokers, topic
from widgets.render import dot_to_svg
from widgets.topology import topology_dot

GOLDENS = Path(__file__).parent / "goldens"
SVG = "{http://www.w3.org/2000/svg}"

MINIMAL_DOT = '''\
digraph minikafka {
  graph [fontname="Helvetica", fontsize=11, labelloc=t, labeljust=l, nodesep=0.3, ranksep=0.3, newrank=true,
         label=<<B>KRaft quorum: voters [1001] · active controller 1001 · epoch 1</B><BR ALIGN="LEFT"/>>];
  node [shape=plain, fontname="Helvetica", fontsize=10];
  edge [style=invis];
  subgraph cluster_quorum {
    label="KRaft controller quorum"; style="rounded,dashed"; color="#9e9e9e";
    node_1001 [label=<<TABLE BORDER="3" CELLBORDER="0" CELLSPACING="1" CELLPADDING="3" COLOR="#2e7d32" BGCOLOR="#ffffff" STYLE="rounded">
      <TR><TD COLSPAN="2" BGCOLOR="#ffd54f"><FONT COLOR="#212121"><B>controller 1001</B></FONT></TD></TR>
      <TR><TD COLSPAN="2" BGCOLOR="#ffd54f"><FONT COLOR="#212121">alive</FONT></TD></TR>
      <TR><TD COLSPAN="2" BGCOLOR="#ffd54f"><FONT COLOR="#212121">active controller</FONT></TD></TR>
      <TR><TD COLSPAN="2" BGCOLOR="#ffd54f"><FONT COLOR="#212121">leader · epoch 1</FONT></TD></TR>
      <TR><TD COLSPAN="2"><FONT POINT-SIZE="9">localhost:19093 · 0 B</FONT></TD></TR></TABLE>>];
  }
  node_1 [label=<<TABLE BORDER="2" CELLBORDER="0" CELLSPACING="1" CELLPADDING="3" COLOR="#2e7d32" BGCOLOR="#ffffff" STYLE="rounded">
      <TR><TD COLSPAN="2" BGCOLOR="#c8e6c9"><FONT COLOR="#212121"><B>broker 1</B></FONT></TD></TR>
      <TR><TD COLSPAN="2" BGCOLOR="#c8e6c9"><FONT COLOR="#212121">alive</FONT></TD></TR>
      <TR><TD COLSPAN="2"><FONT POINT-SIZE="9">localhost:9092 · 2.0 KiB</FONT></TD></TR>
      <TR><TD ALIGN="LEFT">orders-0</TD><TD BGCOLOR="#1565c0" ALIGN="LEFT"><FONT COLOR="#ffffff"><B>L</B></FONT></TD></TR></TABLE>>];
  { rank=same; node_1001; }
  { rank=same; node_1; }
  node_1001 -> node_1;
}
'''


def minimal():
    return make_snapshot([node(1001, ("controller",), raft_role="leader", raft_epoch=1),
                          node(1, disk_bytes=2048)], [topic("orders", [((1,), (1,), 1)])])


def test_minimal_cluster_golden():
    assert topology_dot(minimal(), legend=False) == MINIMAL_DOT


def test_three_brokers_golden():
    assert topology_dot(three_brokers()) == (GOLDENS / "three_brokers.dot").read_text()


def test_same_snapshot_gives_the_same_bytes_whatever_the_input_order():
    snapshot = failure_states()
    shuffled = dataclasses.replace(snapshot, nodes=tuple(reversed(snapshot.nodes)),
                                   topics=tuple(reversed(snapshot.topics)))
    assert topology_dot(snapshot) == topology_dot(failure_states()) == topology_dot(shuffled)


def test_every_state_has_its_word_and_its_style():
    dot = topology_dot(failure_states())
    for word, style in [("dead · unfenced", "rounded,dashed"), ("fenced", "rounded"),
                        ("paused · unfenced", "rounded,dotted"),
                        ("isolated · fenced", "rounded,dashed")]:
        assert re.search(rf'STYLE="{style}">\s*<TR><TD[^>]*><FONT COLOR="#212121"><B>broker \d</B>'
                         rf'</FONT></TD></TR>\s*<TR><TD[^>]*><FONT COLOR="#212121">{word}</FONT></TD>',
                         dot), word


def test_replica_marks_are_text_not_only_colour():
    dot = topology_dot(failure_states())
    for text in ("F (out of sync)", "- (no leader)", "L (removing)", "F (out of sync, adding)"):
        assert html.escape(text) in dot


def test_brokers_are_laid_out_in_balanced_rows():
    dot = topology_dot(big_cluster())
    assert "{ rank=same; node_1; node_2; node_3; }" in dot
    assert "{ rank=same; node_4; node_5; }" in dot
    assert "node_2 -> node_5;" in dot                    # second row centred below the first
    one_row = topology_dot(big_cluster(), brokers_per_row=5)
    assert "{ rank=same; node_1; node_2; node_3; node_4; node_5; }" in one_row


def test_legend_can_be_left_out():
    assert "Legend" in topology_dot(three_brokers())
    assert "Legend" not in topology_dot(three_brokers(), legend=False)


def test_offsets_add_a_column():
    dot = topology_dot(big_cluster(), offsets=True)
    assert dot.count("LEO 42 HW 42") == 60
    assert 'COLSPAN="3"' in dot and 'COLSPAN="2" BGCOLOR' not in dot


def test_labels_are_escaped_for_graphviz_html():
    snapshot = make_snapshot([node(1)], [topic("a&b", [((1,), (1,), 1)])])
    dot = topology_dot(snapshot)
    assert "a&amp;b-0" in dot and "a&b" not in dot


@pytest.mark.parametrize("bad", [0, 1.5, None])
def test_bad_brokers_per_row_is_refused(bad):
    with pytest.raises(ValueError, match="brokers_per_row must be a positive integer"):
        topology_dot(three_brokers(), brokers_per_row=bad)


def _node_texts(svg: str) -> list[tuple[float, str]]:
    """(font size, text) of every text dot wrote inside a node (not the graph title)."""
    root = ElementTree.fromstring(svg)
    found = []
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "node":
            found += [(float(t.get("font-size")), t.text or "") for t in group.iter(f"{SVG}text")]
    return found


@pytest.mark.graphviz
def test_five_brokers_twenty_partitions_stay_legible():
    snapshot = big_cluster(brokers=5, partitions=20)
    svg = dot_to_svg(topology_dot(snapshot, offsets=True))
    width, height = (float(v) for v in
                     re.search(r'viewBox="0\.00 0\.00 ([\d.]+) ([\d.]+)"', svg).groups())
    # Limits chosen so the picture fits a notebook output (about 1000 px =
    # 750 pt wide) at its natural size, and stays about one screen tall.
    assert width <= 750 and height <= 1000, (width, height)
    texts = _node_texts(svg)
    assert min(size for size, _ in texts) >= 9.0
    assert max(len(text) for _, text in texts) <= 40
    drawn = {text for _, text in texts}
    for index in range(20):
        assert f"orders-{index}" in drawn, index
    assert {"L", "F", "F (out of sync)", "Legend", "broker 5", "controller 1003"} <= drawn
