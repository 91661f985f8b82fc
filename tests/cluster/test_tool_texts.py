"""Kafka-tool texts from the facade: run_tool (the CLI look-alikes in-process) and advertised.listeners."""

import pytest

from minikafka import Cluster


@pytest.fixture(scope="module")
def live():
    cluster = Cluster(brokers=3, controllers=1, seed=12).start()
    cluster.create_topic("orders", partitions=3, replication_factor=3)
    yield cluster
    cluster.stop()


@pytest.mark.live
def test_run_tool_prints_what_the_tool_prints(live):
    text = live.run_tool("kafka-topics.sh --describe --topic orders")
    assert text == live.describe_topic("orders")
    assert live.run_tool("kafka-topics --list") == "orders"


@pytest.mark.live
def test_run_tool_keeps_an_explicit_bootstrap_server(live):
    second = live.bootstrap_servers.split(",")[1]
    assert live.run_tool(f"kafka-topics.sh --bootstrap-server {second} --list") == "orders"


@pytest.mark.live
def test_run_tool_returns_the_tools_own_error_text(live):
    # The first group request makes the brokers create __consumer_offsets; like Java's Admin client,
    # the tool asks FindCoordinator again while it answers COORDINATOR_NOT_AVAILABLE (until --timeout).
    text = live.run_tool("kafka-consumer-groups.sh --describe --group nobody")
    assert text.endswith("GroupIdNotFoundException: Group nobody not found.")


def test_run_tool_rejects_unknown_tools_and_empty_commands():
    cluster = Cluster(brokers=1, controllers=1, seed=1, simulated=True)
    with pytest.raises(ValueError, match="No such tool 'kafka-streams.sh'"):
        cluster.run_tool("kafka-streams.sh --help")
    with pytest.raises(ValueError, match="needs a command"):
        cluster.run_tool("   ")


def test_run_tool_refuses_a_simulated_cluster_at_once():
    cluster = Cluster(brokers=1, controllers=1, seed=1, simulated=True).start()
    try:
        for real in (False, True):
            with pytest.raises(RuntimeError, match=r"^run_tool needs a live cluster: tools talk to the brokers over "
                                                   r"TCP; start the cluster without simulated=True$"):
                cluster.run_tool("kafka-topics.sh --list", real=real)
    finally:
        cluster.stop()


def test_advertised_listener_takes_effect_at_the_next_registration():
    cluster = Cluster(brokers=2, controllers=1, seed=3, simulated=True).start()
    try:
        cluster.set_advertised_listener(2, "PLAINTEXT://kafka-2.example.com:9092")
        properties = (cluster.data_dir / "config" / "broker-2.properties").read_text()
        assert "advertised.listeners=PLAINTEXT://kafka-2.example.com:9092" in properties
        cluster.shutdown(2)
        cluster.restart(2)
        assert cluster.wait_until(lambda: cluster.snapshot().node(2).registration == "unfenced",
                                  20_000)
        registrations = [e.record for e in cluster.metadata_records()
                         if e.type_name == "REGISTER_BROKER_RECORD" and e.record.broker_id == 2]
        endpoint = registrations[-1].end_points[0]
        assert (endpoint.host, endpoint.port) == ("kafka-2.example.com", 9092)
        cluster.set_advertised_listener(2, None)
        assert "advertised.listeners=PLAINTEXT://127.0.0.1:" in \
            (cluster.data_dir / "config" / "broker-2.properties").read_text()
    finally:
        cluster.stop()


def test_bad_advertised_listeners_are_refused_in_kafkas_words():
    cluster = Cluster(brokers=2, controllers=1, seed=3, simulated=True)
    with pytest.raises(ValueError, match="Unable to parse kafka-2:9092 to a broker endpoint"):
        cluster.set_advertised_listener(2, "kafka-2:9092")
    with pytest.raises(ValueError, match="listener names must be equal to or a subset of the ones "
                                         "defined in listeners. Found SSL"):
        cluster.set_advertised_listener(2, "SSL://kafka-2:9093")
    with pytest.raises(ValueError, match="not a broker"):
        cluster.set_advertised_listener(1001, "PLAINTEXT://x:1")
    assert cluster.layout.advertised == {}


@pytest.mark.live
def test_a_wait_condition_may_call_blocking_verbs_on_a_live_cluster(live):
    # The condition runs in the caller's thread: a verb that waits for the controller
    # inside it must not deadlock the cluster's thread.
    assert live.wait_until(lambda: live.list_reassignments() == {}, 5_000)
    assert live.wait_until(lambda: "orders" in live.run_tool("kafka-topics.sh --list").split(), 10_000)


@pytest.mark.live
def test_run_tool_proposes_the_same_reassignment_for_the_same_seed(live, tmp_path):
    topics = tmp_path / "topics.json"
    topics.write_text('{"version": 1, "topics": [{"topic": "orders"}]}')
    command = f"kafka-reassign-partitions.sh --topics-to-move-json-file {topics} --broker-list 1,2,3 --generate"
    again = Cluster(brokers=3, controllers=1, seed=12).start()     # the same seed, a new cluster
    try:
        again.create_topic("orders", partitions=3, replication_factor=3)
        skipped = live.tool_runs.get("reassign-partitions", 0)
        for _ in range(skipped):                                   # line the call counts up
            again.run_tool(command)
        # The current assignment names each replica's log directory (as Kafka 4.3's tool does),
        # which lives under each cluster's own temporary directory; the proposal must match.
        assert live.run_tool(command).replace(str(live.data_dir), "DATA") == \
            again.run_tool(command).replace(str(again.data_dir), "DATA")
        assert "Proposed partition reassignment configuration" in live.run_tool(command)
    finally:
        again.stop()


def test_tools_draw_from_the_seeded_generator_when_their_caller_sets_one():
    import random

    from minikafka.commands import tool_commands
    token = tool_commands.TOOL_RANDOM.set(random.Random("seed"))
    try:
        drawn = [tool_commands.tool_random().random() for _ in range(3)]
    finally:
        tool_commands.TOOL_RANDOM.reset(token)
    expected = random.Random("seed")
    assert drawn == [expected.random() for _ in range(3)]
    assert tool_commands.TOOL_RANDOM.get() is None and tool_commands.tool_random() is not tool_commands.tool_random()
