"""The pure parts of lab_page: reading the diagram's SVG lines and the notebook JSON.

The diagram lines also come from the real renderer (`widgets.render`, a
simulated cluster after a failover, drawn by ``dot``), so a change in how
the boxes are drawn shows up here, in a second, before it breaks the
browser test.
"""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from lab_page import (BrokerBox, cell_stdout, error_outputs, fault_button_label, fault_done_text,
                      first_kill_cell, parse_broker_boxes, partition_leaders, poll_until,
                      unexecuted_code_cells)


def svg_nodes(svg: str) -> list[dict]:
    """What READ_DIAGRAM_JS returns in the browser, read from the SVG with ElementTree."""
    namespace = "{http://www.w3.org/2000/svg}"
    nodes = []
    for group in ElementTree.fromstring(svg).iter(f"{namespace}g"):
        if group.get("class") == "node":
            texts = ["".join(text.itertext()).strip() for text in group.iter(f"{namespace}text")]
            nodes.append({"title": group.findtext(f"{namespace}title"), "texts": texts})
    return nodes


LINES = [
    {"title": "node_1001", "texts": ["controller 1001", "alive", "active controller · leader · epoch 1",
                                     "127.0.0.1:1 · 1.9 KiB"]},
    {"title": "node_2", "texts": ["broker 2", "dead · fenced", "127.0.0.1:2 · 1.9 KiB",
                                  "orders-0", "F (out of sync)", "orders-1", "F (out of sync)"]},
    {"title": "node_1", "texts": ["broker 1", "alive", "127.0.0.1:3 · 2.3 KiB",
                                  "orders-0", "L", "orders-1", "F"]},
    {"title": "node_3", "texts": ["broker 3", "alive", "127.0.0.1:4 · 2.3 KiB",
                                  "orders-0", "F", "orders-1", "L"]},
    {"title": "legend", "texts": ["Legend", "L", "partition leader", "dead", "process killed"]},
]


def test_broker_boxes_keep_state_and_marks_and_skip_controllers_and_legend():
    boxes = parse_broker_boxes(LINES)
    assert sorted(boxes) == [1, 2, 3]
    assert boxes[2] == BrokerBox(2, "dead · fenced", {"orders-0": "F (out of sync)",
                                                      "orders-1": "F (out of sync)"})
    assert boxes[2].is_dead and not boxes[2].is_alive
    assert boxes[1].is_alive and not boxes[1].is_dead
    assert partition_leaders(boxes) == {"orders-0": 1, "orders-1": 3}


def test_a_combined_node_holds_replicas_and_a_leaderless_partition_has_no_leader():
    lines = [{"title": "node_1", "texts": ["node 1", "alive", "", "orders-0", "- (no leader)",
                                           "orders-10", "L"]}]
    boxes = parse_broker_boxes(lines)
    assert boxes[1].marks == {"orders-0": "- (no leader)", "orders-10": "L"}
    assert partition_leaders(boxes) == {"orders-10": 1}


@pytest.mark.graphviz
def test_the_real_diagram_of_a_failover_reads_back_as_the_cluster_says():
    from minikafka import Cluster
    from widgets.render import svg_document

    with Cluster(brokers=3, controllers=1, simulated=True, seed=1) as cluster:
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        victim = cluster.leader("orders", 1)
        cluster.kill_broker(victim)
        assert cluster.wait_until(lambda: cluster.leader("orders", 1) not in (None, victim), 30_000)
        boxes = parse_broker_boxes(svg_nodes(svg_document(cluster.snapshot())))
        leaders = {f"orders-{p}": cluster.leader("orders", p) for p in range(3)}

    assert sorted(boxes) == [1, 2, 3]
    assert boxes[victim].is_dead and all(boxes[b].is_alive for b in boxes if b != victim)
    assert partition_leaders(boxes) == leaders
    assert all(set(box.marks) == set(leaders) for box in boxes.values())


NOTEBOOK = {"cells": [
    {"cell_type": "markdown", "source": "Press the **Kill** button, or run the next cell."},
    {"cell_type": "code", "execution_count": 1, "source": "dashboard", "outputs": [
        {"output_type": "stream", "name": "stdout", "text": ["orders-1 is led ", "by broker 3\n"]},
        {"output_type": "execute_result", "data": {"text/plain": "Dashboard()"}}]},
    {"cell_type": "code", "execution_count": None, "outputs": [],
     "source": ['victim = cluster.leader("orders", 1)\n', "cluster.kill_broker(victim)\n"]},
    {"cell_type": "code", "execution_count": 2, "source": "1/0", "outputs": [
        {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero"}]},
]}


def test_notebook_json_readers():
    assert cell_stdout(NOTEBOOK, 1) == "orders-1 is led by broker 3\n"
    assert error_outputs(NOTEBOOK) == ["cell 3: ZeroDivisionError: division by zero"]
    assert unexecuted_code_cells(NOTEBOOK) == [2]
    assert unexecuted_code_cells(NOTEBOOK, stop=2) == []
    assert first_kill_cell(NOTEBOOK) == (2, "orders-1")


def test_a_task_whose_solution_kills_a_leader_is_a_kill_cell():
    task = ("t_kill = Task(\"Kill the broker that leads orders-1.\",\n"
            "              check=lambda: leader_killed(cluster, \"orders\", 1),\n"
            "              solution='cluster.kill_broker(cluster.leader(\"orders\", 1))', catch_up=True)")
    notebook = {"cells": [{"cell_type": "markdown", "source": "Or press its **Kill** button."},
                          {"cell_type": "code", "source": "dashboard"},
                          {"cell_type": "code", "source": task},
                          {"cell_type": "code", "source": "# Your code here"},
                          {"cell_type": "code", "source": "t_kill.check()"}]}
    assert first_kill_cell(notebook) == (2, "orders-1")


def test_a_kill_cell_must_name_the_partition_and_a_lesson_must_have_one():
    unnamed = {"cells": [{"cell_type": "code", "source": "cluster.kill(2)"}]}
    with pytest.raises(AssertionError, match="does not name the partition"):
        first_kill_cell(unnamed)
    with pytest.raises(AssertionError, match="no code cell that kills a broker"):
        first_kill_cell({"cells": [{"cell_type": "code", "source": "cluster.restart(2)"}]})


def test_poll_until_returns_the_accepted_value_or_fails_with_the_last_one():
    values = iter(range(100))
    assert poll_until(lambda: next(values), lambda v: v == 2, timeout_s=30, what="two") == 2
    with pytest.raises(AssertionError, match="waiting for never; last seen:\n'no'"):
        poll_until(lambda: "no", lambda v: False, timeout_s=0.3, what="never")


def test_the_fault_button_names_are_the_dashboards_own(monkeypatch, tmp_path):
    """The browser test finds buttons by these names: they must be what the panel shows."""
    import threading
    from pathlib import Path
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "widgets"))
    from _widget_helpers import FakeCluster, three_brokers
    from widgets import render
    from widgets.failure_panel import FailurePanel
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())
    panel = FailurePanel(FakeCluster(three_brokers()), show_log=False)
    try:
        for verb in ("kill", "restart"):
            button = panel.buttons[(verb, 2)]
            assert fault_button_label(verb, "broker 2") == button.description
            button.click()
            assert panel.status.value == fault_done_text(verb, "broker 2")
    finally:
        panel.close()
