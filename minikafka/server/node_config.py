"""`NodeConfig`: everything one sandbox node is started with, in Kafka's terms.

Theory of operation
-------------------
A real Kafka node reads ``server.properties``.  A sandbox node is handed a
`NodeConfig` built by the `Cluster`: its ``node.id``, ``process.roles``, its
data directory (``log.dirs``, also its ``metadata.log.dir``), its listeners,
the static controller quorum (``controller.quorum.voters``), the timing
profile, and any broker settings the user chose.  ``server_properties()``
renders the same information as the ``key=value`` lines Kafka's own file
would hold, so a lesson can show learners what configures what.

Mirrors ``kafka.server.KafkaConfig`` for the settings the sandbox reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from minikafka.common.timing import TimingProfile

BROKER_LISTENER = "PLAINTEXT"
CONTROLLER_LISTENER = "CONTROLLER"


@dataclass(frozen=True)
class Endpoint:
    listener: str        # listener name, e.g. PLAINTEXT or CONTROLLER
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.listener}://{host}:{self.port}"


@dataclass(frozen=True)
class NodeConfig:
    node_id: int
    roles: tuple[str, ...]                        # process.roles: ("broker",), ("controller",) or both
    cluster_id: str
    data_dir: Path                                # log.dirs (one directory) and metadata.log.dir
    voters: Mapping[int, Endpoint]                # controller.quorum.voters
    timing: TimingProfile
    decision_seed: str                            # seeds the controller's reproducible choices
    listeners: tuple[Endpoint, ...] = ()          # listeners
    advertised_listeners: tuple[Endpoint, ...] = ()  # advertised.listeners (brokers)
    rack: str | None = None                       # broker.rack
    broker_props: Mapping[str, str] = field(default_factory=dict)  # other settings, Kafka names
    bootstrap_features: Mapping[str, int] | None = None   # feature levels formatted with (None: defaults)

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles

    @property
    def is_controller(self) -> bool:
        return "controller" in self.roles

    @property
    def broker_endpoint(self) -> Endpoint | None:
        for endpoint in self.advertised_listeners or self.listeners:
            if endpoint.listener != CONTROLLER_LISTENER:
                return endpoint
        return None

    @property
    def controller_endpoint(self) -> Endpoint | None:
        for endpoint in self.listeners:
            if endpoint.listener == CONTROLLER_LISTENER:
                return endpoint
        return None

    def prop(self, name: str, default: str | None = None) -> str | None:
        return self.broker_props.get(name, default)

    def int_prop(self, name: str, default: int) -> int:
        value = self.broker_props.get(name)
        return default if value is None else int(value)

    def server_properties(self) -> str:
        """The node's settings as the lines of a Kafka ``server.properties`` file."""
        lines = [
            f"process.roles={','.join(self.roles)}",
            f"node.id={self.node_id}",
            "controller.quorum.voters=" + ",".join(
                f"{vid}@{ep.host}:{ep.port}" for vid, ep in sorted(self.voters.items())),
            "listeners=" + ",".join(str(ep) for ep in self.listeners),
        ]
        if self.is_broker:
            lines.append("advertised.listeners=" + ",".join(
                str(ep) for ep in self.advertised_listeners or self.listeners
                if ep.listener != CONTROLLER_LISTENER))
            lines.append(f"inter.broker.listener.name={BROKER_LISTENER}")
        lines += [
            f"controller.listener.names={CONTROLLER_LISTENER}",
            f"listener.security.protocol.map={CONTROLLER_LISTENER}:PLAINTEXT,"
            f"{BROKER_LISTENER}:PLAINTEXT",
            f"log.dirs={self.data_dir}",
        ]
        if self.rack:
            lines.append(f"broker.rack={self.rack}")
        for name in sorted(self.broker_props):
            lines.append(f"{name}={self.broker_props[name]}")
        from minikafka.common.config.broker_configs import timing_static_props
        for name, value in sorted(timing_static_props(self.timing).items()):
            lines.append(f"{name}={value}")
        return "\n".join(lines) + "\n"
