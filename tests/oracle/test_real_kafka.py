"""The real-Kafka fixture: a start failure is one line with the log's last error, and no JVM is left."""

from __future__ import annotations

import socket

import pytest

from tests.oracle.real_kafka import RealKafkaCluster, RealKafkaStartError, last_error

BIND_FAILURE_LOG = """\
[2026-11-23 23:36:46,900] INFO [BrokerServer id=1] Transition from SHUTDOWN to STARTING (kafka.server.BrokerServer)
[2026-11-23 23:36:46,952] ERROR Unable to start acceptor for PLAINTEXT (kafka.network.DataPlaneAcceptor)
org.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:5: Address already in use.
\tat kafka.network.Acceptor.openServerSocket(SocketServer.scala:1)
Caused by: java.net.BindException: Address already in use
\tat java.base/sun.nio.ch.Net.bind0(Native Method)
[2026-11-23 23:36:47,171] ERROR Exiting Kafka due to fatal exception during startup. (kafka.Kafka$)
java.lang.RuntimeException: Received a fatal error while waiting for all of the SocketServer Acceptors to be started
\tat kafka.server.BrokerServer.startup(BrokerServer.scala:1)
Caused by: java.lang.RuntimeException: Unable to start acceptor for PLAINTEXT
Caused by: org.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:5: Address already in use.
Caused by: java.net.BindException: Address already in use
\tat java.base/sun.nio.ch.Net.bind0(Native Method)
[2026-11-23 23:36:47,318] INFO [QuorumController id=1] writeNoOpRecord: event unable to start (org.apache.kafka.controller.QuorumController)
"""


def test_last_error_is_the_last_error_record_with_its_telling_cause():
    assert last_error(BIND_FAILURE_LOG) == (
        "Exiting Kafka due to fatal exception during startup. (org.apache.kafka.common.KafkaException: "
        "Socket server failed to bind to 127.0.0.1:5: Address already in use.)")


def test_last_error_without_error_records_is_the_last_line():
    assert last_error("[2026-11-23 23:36:46,900] INFO starting (kafka.Kafka$)\nkilled\n") == "killed"
    assert last_error("") == "its log is empty"


def test_a_cluster_lays_out_kafka_s_properties(tmp_path):
    cluster = RealKafkaCluster(tmp_path, brokers=(1, 2, 3), controllers=(1001,), config={"num.partitions": 2})
    assert (cluster.broker_ids, cluster.controller_ids) == ([1, 2, 3], [1001])
    controller = cluster.server_properties(cluster.nodes[1001])
    broker = dict(line.split("=", 1) for line in cluster.server_properties(cluster.nodes[2]).splitlines())
    assert "process.roles=controller\n" in controller and "advertised.listeners" not in controller
    assert broker["process.roles"] == "broker" and broker["num.partitions"] == "2"
    assert broker["controller.quorum.voters"] == f"1001@127.0.0.1:{cluster.nodes[1001].controller_port}"
    assert broker["advertised.listeners"] == f"PLAINTEXT://127.0.0.1:{cluster.broker_port(2)}"
    assert broker["log.dirs"] == str(tmp_path / "broker-2")


@pytest.mark.slow
def test_a_node_that_cannot_bind_fails_in_one_line_and_leaves_no_jvm(real_kafka_available, tmp_path):
    from minikafka.jvm import running_processes

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        cluster = RealKafkaCluster(tmp_path)
        cluster.nodes[1].broker_port = taken.getsockname()[1]
        with pytest.raises(RealKafkaStartError) as error:
            cluster.start()
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("Kafka node 1 (broker,controller) exited: ")
    assert f"Socket server failed to bind to 127.0.0.1:{cluster.nodes[1].broker_port}: Address already in use" \
        in message
    assert running_processes() == []
