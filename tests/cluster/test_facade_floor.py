"""The facade is a floor: public hooks instead of privates (issue 25)."""

from __future__ import annotations

import io
import sys

import pytest

from minikafka.commands import tool_commands
from minikafka.cluster import Cluster
from minikafka.cluster.processes import NodeProcesses
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.utils import parse_properties
from minikafka.server.kafka_node_snapshot import KafkaNodeSnapshot
from minikafka.tools.tool_output import system_out, writing_to


@pytest.fixture(scope="module")
def sim():
    cluster = Cluster(brokers=2, controllers=1, simulated=True, seed=5).start()
    cluster.create_topic("floor", partitions=1, replication_factor=2)
    yield cluster
    cluster.stop()


def test_the_facade_keeps_no_private_door_for_others():
    for name in ("_call", "_node", "_state", "_check_node", "_cluster_image", "_started"):
        assert not hasattr(Cluster, name), name


def test_now_ms_is_the_cluster_clock(sim):
    assert sim.now_ms == sim.now()
    before = sim.now_ms
    sim.run_for(250)
    assert sim.now_ms == before + 250


def test_the_testing_hook_is_the_node_processes(sim):
    assert isinstance(sim.processes, NodeProcesses)
    assert sim.processes.call(lambda: sim.processes.node(1).node_id) == 1
    assert "floor" in sim.processes.cluster_image().topic_names()


def test_muted_notes_stay_out_of_the_event_log(sim):
    seq = sim.events.last_seq
    with sim.driver.muted({"node_paused"}):
        sim.processes.call(lambda: sim.driver.note("node_paused", "hidden", 1))
        sim.processes.call(lambda: sim.driver.note("latency_changed", "shown", 1))
    sim.processes.call(lambda: sim.driver.note("node_paused", "shown again", 1))
    assert [e.text for e in sim.events.since(seq)] == ["shown", "shown again"]
    assert sim.driver.muted_kinds == frozenset()


def test_a_node_describes_itself_as_plain_data(sim):
    leader = sim.leader("floor", 0)
    mine = sim.processes.call(lambda: sim.processes.node(leader).snapshot(sim.driver.now()))
    assert isinstance(mine, KafkaNodeSnapshot) and mine.node_id == leader and mine.metrics == {}
    replica = mine.replicas[TopicPartition("floor", 0)]
    follower = next(b for b in sim.replicas("floor", 0) if b != leader)
    assert set(replica.followers) == {follower}
    assert sim.snapshot().topic("floor").partitions[0].replica_states[0].log_end_offset is not None


def test_a_tool_prints_to_the_stream_it_is_given_and_leaves_sys_stdout_alone(capsys):
    out = io.StringIO()
    stdout = sys.stdout
    assert tool_commands.run_named("topics", ["--help"], out) == 1
    assert sys.stdout is stdout
    assert "This tool helps to create, delete, describe, or change a topic." in out.getvalue()
    assert capsys.readouterr() == ("", "")
    with writing_to(out):
        assert system_out() is out
    assert system_out() is sys.stdout


def test_properties_are_parsed_in_common():
    assert parse_properties("# comment\n a = 1 \n\nb=x=y\n") == {"a": "1", "b": "x=y"}
