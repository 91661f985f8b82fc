"""A real Apache Kafka 4.3.1 cluster for the differential tests: formatted, started and stopped here.

Theory of operation
-------------------
`RealKafkaCluster` does what an operator does with Kafka's tarball, with the
jars `minikafka.jvm` fetches from Maven Central instead:

* it picks free loopback ports, writes one ``server.properties`` per node
  (KRaft, a static quorum: ``controller.quorum.voters``, as the sandbox's is),
  and formats every data directory with ``kafka-storage format`` and one
  cluster id, two formats at a time;
* it starts the controllers, then the brokers (``kafka-server-start``, 256 MiB
  of heap, the client compiler only: a 2-core machine is shared), and waits
  until every node has logged ``Kafka Server started``;
* `stop_node` is a SIGTERM (a controlled shutdown, as ``kafka-server-stop.sh``),
  `kill_node` a SIGKILL (a crash), `start_node` starts a node again on its data;
  `stop` stops them all and leaves no JVM behind.

Two shapes are used: one combined ``broker,controller`` node with id 1 (what
``bin/kafka-server-start.sh config/server.properties`` runs), and brokers 1, 2,
3 beside a dedicated controller 1001 (the sandbox's first controller id).

A node that fails to start raises `RealKafkaStartError`: one line naming the
node and the last error its log shows, after every node of the cluster has
been stopped.

This is test plumbing; nothing in Kafka corresponds to it.
"""

from __future__ import annotations

import re
import random
import socket
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from minikafka.common.uuid import Uuid
from minikafka.jvm import JavaProcess, run_kafka_tool, start_kafka_tool

BROKER_HEAP = "256m"
START_TIMEOUT_S = 90.0
STARTED = r"Kafka Server started"
HOST = "127.0.0.1"


class RealKafkaStartError(RuntimeError):
    """A real Kafka node did not start; the message is one line with its log's last error."""


@dataclass
class RealNode:
    node_id: int
    roles: tuple[str, ...]                  # ("broker",), ("controller",) or both
    broker_port: int | None                 # PLAINTEXT listener
    controller_port: int | None             # CONTROLLER listener
    data_dir: Path                          # log.dirs
    config_path: Path                       # its server.properties
    log_dir: Path                           # where its stdout and stderr (log4j at INFO) go
    process: JavaProcess | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.alive()

    def log(self) -> str:
        return self.process.stderr() if self.process is not None else ""


class RealKafkaCluster:
    """Apache Kafka 4.3.1 in KRaft mode on loopback ports, data under ``root``."""

    def __init__(self, root: str | Path, brokers: Sequence[int] = (1,), controllers: Sequence[int] = (1,),
                 config: Mapping[str, object] | None = None):
        self.root = Path(root)
        self.cluster_id = str(Uuid.random(random.Random()))
        self.config = {key: str(value) for key, value in (config or {}).items()}  # every node's extra settings
        ports = iter(free_ports(len(brokers) + len(controllers)))
        self.nodes: dict[int, RealNode] = {}
        for node_id in dict.fromkeys([*controllers, *brokers]):
            roles = tuple(role for role, ids in (("broker", brokers), ("controller", controllers)) if node_id in ids)
            name = "node" if len(roles) == 2 else roles[0]
            self.nodes[node_id] = RealNode(
                node_id, roles, next(ports) if "broker" in roles else None,
                next(ports) if "controller" in roles else None, self.root / f"{name}-{node_id}",
                self.root / "config" / f"{name}-{node_id}.properties", self.root / "logs" / f"{name}-{node_id}")

    # ------------------------------------------------------------------ layout
    @property
    def broker_ids(self) -> list[int]:
        return [n.node_id for n in self.nodes.values() if "broker" in n.roles]

    @property
    def controller_ids(self) -> list[int]:
        return [n.node_id for n in self.nodes.values() if "controller" in n.roles]

    @property
    def bootstrap_servers(self) -> str:
        """``host:port,...`` of the brokers whose JVM runs."""
        return ",".join(f"{HOST}:{n.broker_port}" for n in self.nodes.values()
                        if "broker" in n.roles and n.running)

    def broker_port(self, node_id: int) -> int:
        return self.nodes[node_id].broker_port

    def server_properties(self, node: RealNode) -> str:
        voters = ",".join(f"{n.node_id}@{HOST}:{n.controller_port}" for n in self.nodes.values()
                          if "controller" in n.roles)
        listeners = [f"PLAINTEXT://{HOST}:{node.broker_port}"] if node.broker_port else []
        listeners += [f"CONTROLLER://{HOST}:{node.controller_port}"] if node.controller_port else []
        props = {
            "process.roles": ",".join(node.roles),
            "node.id": str(node.node_id),
            "controller.quorum.voters": voters,
            "listeners": ",".join(listeners),
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(node.data_dir),
        }
        if "broker" in node.roles:
            props["advertised.listeners"] = f"PLAINTEXT://{HOST}:{node.broker_port}"
            props["inter.broker.listener.name"] = "PLAINTEXT"
        props.update(self.config)
        return "".join(f"{key}={value}\n" for key, value in props.items())

    # ------------------------------------------------------------------ lifecycle
    def format(self) -> None:
        """``kafka-storage format -t <id> -c <props>`` for every node (static quorum: no voter flags)."""
        for node in self.nodes.values():
            node.config_path.parent.mkdir(parents=True, exist_ok=True)
            node.config_path.write_text(self.server_properties(node), encoding="utf-8")
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(self._format_node, self.nodes.values()))
        for node, result in zip(self.nodes.values(), results):
            if result.returncode != 0:
                raise RealKafkaStartError(f"kafka-storage format of node {node.node_id} failed: "
                                          f"{last_error(result.stderr + result.stdout)}")

    def _format_node(self, node: RealNode) -> subprocess.CompletedProcess[str]:
        return run_kafka_tool("kafka-storage", ["format", "-t", self.cluster_id, "-c", str(node.config_path)],
                              quiet=True)

    def start(self, timeout_s: float = START_TIMEOUT_S) -> RealKafkaCluster:
        """Format every node and start the controllers, then the brokers; returns when all have started."""
        try:
            self.format()
            order = [n for n in self.nodes.values() if "broker" not in n.roles]
            order += [n for n in self.nodes.values() if "broker" in n.roles]
            for node in order:
                self._launch(node)
            for node in order:
                self._wait_started(node, timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def start_node(self, node_id: int, timeout_s: float = START_TIMEOUT_S) -> None:
        """Start a stopped node again on its data directory; returns once it has started."""
        node = self.nodes[node_id]
        if node.running:
            raise ValueError(f"Node {node_id} is running")
        self._launch(node)
        try:
            self._wait_started(node, timeout_s)
        except BaseException:
            self.stop()
            raise

    def stop_node(self, node_id: int, grace_s: float = 60) -> int:
        """SIGTERM: a broker moves its leaderships away first (controlled shutdown); the exit code."""
        node = self.nodes[node_id]
        return node.process.stop(grace_s) if node.process is not None else 0

    def kill_node(self, node_id: int) -> int:
        """SIGKILL, as a crash: the controller notices when the broker's session expires."""
        node = self.nodes[node_id]
        return node.process.kill() if node.process is not None else 0

    def stop(self) -> None:
        """Stop the brokers, then the controllers; no JVM of this cluster is left running."""
        order = [n for n in self.nodes.values() if "controller" not in n.roles]
        order += [n for n in self.nodes.values() if "controller" in n.roles]
        for node in order:
            if node.process is not None:
                node.process.stop(grace=20)

    def __enter__(self) -> RealKafkaCluster:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def _launch(self, node: RealNode) -> None:
        node.process = start_kafka_tool("kafka-server-start", [str(node.config_path)], quiet=True, heap=BROKER_HEAP,
                                        log_level="INFO", output_dir=node.log_dir)

    def _wait_started(self, node: RealNode, timeout_s: float) -> None:
        try:
            node.process.wait_for_output(STARTED, timeout=timeout_s, stream="stderr")
        except TimeoutError:
            state = "exited" if not node.process.alive() else f"did not start within {timeout_s:g} s"
            error = last_error(node.log())
            raise RealKafkaStartError(f"Kafka node {node.node_id} ({','.join(node.roles)}) {state}: "
                                      f"{error}") from None


def free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports nobody listens on right now."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind((HOST, 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


_LOG_LINE = re.compile(r"^\[[^\]]*\] (?P<level>[A-Z]+) (?P<message>.*?)(?: \([\w.$]+\))?$")
_EXCEPTION_LINE = re.compile(r"^(?:Caused by: )?[\w.$]+(?:Exception|Error)(?:: .*)?$")


def last_error(log: str) -> str:
    """The last ERROR line of a Kafka log with the most telling exception under it, as one line."""
    lines = log.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        match = _LOG_LINE.match(lines[index])
        if match and match.group("level") in ("ERROR", "FATAL"):
            causes = []
            for line in lines[index + 1:]:
                if _LOG_LINE.match(line):
                    break                               # the next log line: the stack trace is over
                if _EXCEPTION_LINE.match(line.strip()):
                    causes.append(line.strip().removeprefix("Caused by: "))
            message = match.group("message")
            return f"{message} ({_telling_cause(causes)})" if causes else message
    tail = [line for line in lines if line.strip()]
    return tail[-1].strip() if tail else "its log is empty"


def _telling_cause(causes: list[str]) -> str:
    """The root cause, or the outermost cause that only adds context to the root's text
    ("Socket server failed to bind to ...: Address already in use." over "Address already in use")."""
    best = causes[-1]
    for cause in reversed(causes[:-1]):
        if best.partition(": ")[2] and best.partition(": ")[2].rstrip(".") in cause:
            best = cause
        else:
            break
    return best
