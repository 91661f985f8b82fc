"""The two sides of a differential scenario: a real Kafka 4.3.1 cluster and a live sandbox cluster.

Theory of operation
-------------------
A scenario is a function of a `Side`; it is played once against real Kafka
(`RealSide`) and once against the sandbox (`SandboxSide`) with the very same
calls, and what it returns is compared.  Both sides offer the same handles:

* ``tool(name, *args)``: one of Kafka's own command-line tools (the 4.3.1
  jars, through `minikafka.jvm`), its exit code, stdout and stderr;
  ``lookalike(name, *args)``: the sandbox's own version of that tool;
* ``raw(broker_id)``: a `RawConnection` sending one request at a chosen
  version (kafka-python's message classes) and returning the decoded answer
  as plain data;
* kafka-python's producer, consumer and admin client (`client_options`);
* broker faults: ``stop_broker`` (a clean stop: controlled shutdown),
  ``kill_broker``, ``start_broker``;
* where things are: node data directories, the normalisation context
  (which port is which broker, the data root, the cluster id).

Both sides use node id 1 for a single combined node, brokers 1-3 and
controller 1001 for the multi-broker shape, Kafka's own timing
(``timing="kafka"``), and the same extra settings.
"""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from kafka.protocol.parser import KafkaProtocol

from minikafka.jvm import run_kafka_tool
from minikafka.network.codec import REQUEST_CLASSES
from tests.oracle.real_kafka import HOST, RealKafkaCluster

TOOL_TIMEOUT_S = 120


@dataclass(frozen=True)
class ToolRun:
    """What one run of a Kafka tool printed."""

    returncode: int
    stdout: str
    stderr: str

    def text(self) -> str:
        """Exit code, stdout, and the tool's own stderr lines (log4j WARN/INFO records dropped)."""
        errors = tool_stderr(self.stderr)
        return f"exit {self.returncode}\n{self.stdout}" + (f"--- stderr\n{errors}" if errors else "")


def tool_stderr(stderr: str) -> str:
    """A tool's stderr without log records below ERROR (their presence depends on timing), and
    without stack frames; ERROR records keep their message, minus the time prefix."""
    kept, skipping = [], False
    for line in stderr.splitlines():
        if line.startswith("[") and "] " in line:       # a log4j record: [time] LEVEL message (logger)
            level, _, message = line.split("] ", 1)[1].partition(" ")
            skipping = level not in ("ERROR", "FATAL")
            if not skipping:
                kept.append(f"{level} {message}")
            continue
        if line.startswith(("\tat ", "\t... ")) or (skipping and line.strip()):
            continue
        kept.append(line)
    return "".join(f"{line}\n" for line in kept)


class RawConnection:
    """One TCP connection to a broker; `request` sends a request and returns its decoded answer."""

    def __init__(self, host: str, port: int, client_id: str = "oracle"):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.protocol = KafkaProtocol(client_id=client_id)

    def request(self, api_key: int, version: int, **fields) -> dict[str, Any]:
        """``fields`` as kafka-python names them (snake_case); nested structs as plain dicts."""
        cls = REQUEST_CLASSES[api_key]
        request = cls[version](**build_fields(cls[version], fields))
        self.protocol.send_request(request)
        self.sock.sendall(bytes(self.protocol.send_bytes()))
        while True:
            size = struct.unpack(">i", self._read(4))[0]
            responses = self.protocol.receive_bytes(struct.pack(">i", size) + self._read(size))
            if responses:
                return plain(responses[0][1])

    def _read(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            data += chunk
        return data

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawConnection:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def build_fields(container: type, values: Mapping[str, Any]) -> dict[str, Any]:
    """Turn nested dicts and lists of dicts into kafka-python's data classes for ``container``."""
    built = {}
    for name, value in values.items():
        field = container.fields[name]
        if field.is_struct_array() and value is not None:
            built[name] = [field.data_class(**build_fields(field.data_class, item)) for item in value]
        elif field.is_struct() and isinstance(value, Mapping):
            built[name] = field.data_class(**build_fields(field.data_class, value))
        else:
            built[name] = value
    return built


def plain(value: Any) -> Any:
    """A decoded kafka-python message as dicts, lists and scalars (fields of its version only)."""
    if hasattr(value, "_struct") and value._struct is not None:
        version = value.version
        return {field.name: plain(getattr(value, field.name)) for field in value._struct._fields
                if version is None or field.for_version_q(version)}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if hasattr(value, "bytes") and hasattr(value, "hex") and not isinstance(value, str):  # uuid.UUID
        from minikafka.commands.admin_client import kafka_uuid
        return kafka_uuid(value)
    return value


class Side:
    """What a scenario may do to a cluster; `RealSide` and `SandboxSide` implement it."""

    name: str = ""
    broker_ids: list[int]
    controller_ids: list[int]

    @property
    def bootstrap_servers(self) -> str:
        raise NotImplementedError

    def broker_port(self, broker_id: int) -> int:
        raise NotImplementedError

    def node_dir(self, node_id: int) -> Path:
        raise NotImplementedError

    @property
    def data_root(self) -> Path:
        raise NotImplementedError

    @property
    def cluster_id(self) -> str:
        raise NotImplementedError

    def stop_broker(self, broker_id: int) -> None:
        raise NotImplementedError

    def kill_broker(self, broker_id: int) -> None:
        raise NotImplementedError

    def start_broker(self, broker_id: int) -> None:
        raise NotImplementedError

    def controller_ports(self) -> dict[int, int]:
        raise NotImplementedError

    # ------------------------------------------------------------------ shared
    def tool(self, name: str, *args: str, input: str | None = None, bootstrap: bool = True) -> ToolRun:
        """Kafka's ``bin/<name>.sh``; ``--bootstrap-server`` is added first when ``bootstrap``."""
        argv = (["--bootstrap-server", self.bootstrap_servers] if bootstrap else []) + list(args)
        result = run_kafka_tool(name, argv, input=input, timeout=TOOL_TIMEOUT_S, quiet=True)
        return ToolRun(result.returncode, result.stdout, result.stderr)

    def lookalike(self, name: str, *args: str) -> ToolRun:
        """The sandbox's own look-alike of Kafka's ``bin/<name>.sh`` (``minikafka <tool>``), run in this process
        against this side's cluster (it speaks the Kafka protocol, so it works against real Kafka too)."""
        import contextlib
        import io

        from minikafka.commands import tool_commands
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = tool_commands.run_named(name.removeprefix("kafka-"),
                                           ["--bootstrap-server", self.bootstrap_servers, *args])
        return ToolRun(code, out.getvalue(), err.getvalue())

    def raw(self, broker_id: int | None = None) -> RawConnection:
        broker_id = self.broker_ids[0] if broker_id is None else broker_id
        return RawConnection(HOST, self.broker_port(broker_id))

    def client_options(self, **options) -> dict[str, Any]:
        return {"bootstrap_servers": self.bootstrap_servers.split(","), "request_timeout_ms": 30_000, **options}

    def context(self) -> dict[str, str]:
        """Exact texts that must differ between sides, and the placeholder each becomes."""
        names = {f"{HOST}:{self.broker_port(b)}": f"<broker {b} address>" for b in self.broker_ids}
        names.update({f"{HOST}:{port}": f"<controller {c} address>" for c, port in self.controller_ports().items()})
        names.update({str(self.broker_port(b)): f"<broker {b} port>" for b in self.broker_ids})
        names.update({str(port): f"<controller {c} port>" for c, port in self.controller_ports().items()})
        names[str(self.data_root)] = "<data root>"
        names[self.cluster_id] = "<cluster id>"
        return names

    def wait_until(self, condition: Callable[[], Any], timeout_s: float = 60, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                value = condition()
                if value:
                    return value
            except Exception:
                value = None
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: {what} did not happen within {timeout_s:g} s")
            time.sleep(0.1)


class RealSide(Side):
    name = "kafka"

    def __init__(self, cluster: RealKafkaCluster):
        self.cluster = cluster
        self.broker_ids = cluster.broker_ids
        self.controller_ids = cluster.controller_ids

    @property
    def bootstrap_servers(self) -> str:
        return self.cluster.bootstrap_servers

    def broker_port(self, broker_id: int) -> int:
        return self.cluster.broker_port(broker_id)

    def controller_ports(self) -> dict[int, int]:
        return {c: self.cluster.nodes[c].controller_port for c in self.controller_ids}

    def node_dir(self, node_id: int) -> Path:
        return self.cluster.nodes[node_id].data_dir

    @property
    def data_root(self) -> Path:
        return self.cluster.root

    @property
    def cluster_id(self) -> str:
        return self.cluster.cluster_id

    def stop_broker(self, broker_id: int) -> None:
        self.cluster.stop_node(broker_id)

    def kill_broker(self, broker_id: int) -> None:
        self.cluster.kill_node(broker_id)

    def start_broker(self, broker_id: int) -> None:
        self.cluster.start_node(broker_id)


class SandboxSide(Side):
    name = "sandbox"

    def __init__(self, cluster):
        self.cluster = cluster                  # a started live minikafka.Cluster
        self.broker_ids = cluster.broker_ids
        self.controller_ids = cluster.controller_ids

    @property
    def bootstrap_servers(self) -> str:
        return self.cluster.bootstrap_servers

    def broker_port(self, broker_id: int) -> int:
        return self.cluster.layout.broker_ports[broker_id]

    def controller_ports(self) -> dict[int, int]:
        return dict(self.cluster.layout.controller_ports)

    def node_dir(self, node_id: int) -> Path:
        return self.cluster.node_data_dir(node_id)

    @property
    def data_root(self) -> Path:
        return self.cluster.data_dir

    @property
    def cluster_id(self) -> str:
        return self.cluster.cluster_id

    def stop_broker(self, broker_id: int) -> None:
        self.cluster.shutdown(broker_id)

    def kill_broker(self, broker_id: int) -> None:
        self.cluster.kill(broker_id)

    def start_broker(self, broker_id: int) -> None:
        self.cluster.restart(broker_id)
        self.wait_until(self.cluster.is_ready, what=f"broker {broker_id} ready again")
