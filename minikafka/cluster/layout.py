"""`ClusterLayout`: which nodes a sandbox cluster has, where their data lives, how they are configured.

Theory of operation
-------------------
Before a real KRaft cluster starts, an operator picks node ids and roles,
writes a ``server.properties`` per node, generates a cluster id
(``kafka-storage.sh random-uuid``) and formats every data directory with it
(``kafka-storage.sh format``, which writes ``meta.properties``).  The layout
does the same for the sandbox:

* brokers default to ids 1..N and dedicated controllers to 1001..1000+M; any
  distinct ids may be given, and ``combined=True`` makes the first M brokers
  ``broker,controller`` nodes (the single-node quickstart is
  ``Cluster(brokers=1, controllers=1, combined=True)``);
* each node gets ``<root>/broker-<id>``, ``controller-<id>`` or ``node-<id>``
  and a ``config/<name>.properties`` next to them, so learners can read the
  settings that made the node what it is;
* every file goes to the node's disk chosen by `NodeDisks` (real files, or
  memory for a simulated cluster): ``meta.properties`` on the node's own
  `LogDirectory`, the ``config/`` files on the operator's (``disks.host``);
* a directory that is already formatted is left alone: the node itself checks
  at start-up that it belongs to this cluster and this node id, and refuses to
  start otherwise, as Kafka does.

A seed makes everything reproducible: the cluster id, directory ids and the
nodes' random choices come from it.
"""

from __future__ import annotations

import os
import random
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Sequence

from minikafka.cluster.node_disks import NodeDisks
from minikafka.common.uuid import Uuid
from minikafka.drivers.simulated import SIM_BROKER_PORT, SIM_CONTROLLER_PORT
from minikafka.server.node_config import BROKER_LISTENER, CONTROLLER_LISTENER, Endpoint, NodeConfig
from minikafka.storage.log_directory import LogDirectory
from minikafka.storage.meta_properties import META_PROPERTIES_NAME, MetaProperties
from minikafka.common.timing import TimingProfile

DEFAULT_FIRST_CONTROLLER_ID = 1001


def node_ids(spec: int | Sequence[int], first: int, what: str) -> list[int]:
    """Turn ``3`` into ``[first, first+1, first+2]``; check a given list of ids."""
    if isinstance(spec, int):
        if spec < 0:
            raise ValueError(f"The number of {what} must be at least 0, got {spec}")
        return list(range(first, first + spec))
    ids = [int(i) for i in spec]
    if len(set(ids)) != len(ids):
        raise ValueError(f"Duplicate {what[:-1]} ids in {ids}")
    for node_id in ids:
        if node_id < 0:
            raise ValueError(f"Invalid value {node_id} for configuration node.id: "
                             f"Value must be at least 0")
    return ids


def combined_controller_ids(broker_ids: list[int], controllers: int | Sequence[int]) -> list[int]:
    """The broker,controller nodes of ``combined=True``: the first ``controllers`` brokers, or
    the given ids, each of which must be a broker."""
    if isinstance(controllers, int):
        if controllers > len(broker_ids):
            raise ValueError(f"combined=True makes the first {controllers} brokers controllers too, "
                             f"but there are only {len(broker_ids)} brokers")
        return broker_ids[:max(controllers, 0)]
    ids = node_ids(controllers, 0, "controllers")
    strangers = [i for i in ids if i not in broker_ids]
    if strangers:
        raise ValueError(f"combined=True makes controllers of brokers, but {strangers} "
                         f"{'is not a broker id' if len(strangers) == 1 else 'are not broker ids'} "
                         f"(brokers: {broker_ids})")
    return ids


def cluster_node_ids(brokers: int | Sequence[int], controllers: int | Sequence[int],
                     combined: bool) -> tuple[list[int], list[int]]:
    """The broker ids and controller ids of a new cluster, checked (``Cluster(brokers=...,
    controllers=..., combined=...)``)."""
    broker_ids = node_ids(brokers, 1, "brokers")
    if combined:
        controller_ids = combined_controller_ids(broker_ids, controllers)
    else:
        controller_ids = node_ids(controllers, DEFAULT_FIRST_CONTROLLER_ID, "controllers")
        clash = sorted(set(broker_ids) & set(controller_ids))
        if clash:
            raise ValueError(f"Node ids {clash} are used by both a broker and a controller; "
                             f"use combined=True for broker,controller nodes")
    if not broker_ids:
        raise ValueError("A cluster needs at least one broker")
    if not controller_ids:
        raise ValueError("A KRaft cluster needs at least one controller")
    return broker_ids, controller_ids


@dataclass
class ClusterLayout:
    root: Path
    cluster_id: str
    seed: str
    timing: TimingProfile
    host: str
    brokers: list[int]                          # every node with the broker role
    controllers: list[int]                      # every node with the controller role (the voters)
    disks: NodeDisks                            # each node's disk (files or memory) and the operator's
    broker_ports: dict[int, int] = field(default_factory=dict)      # PLAINTEXT listener ports
    controller_ports: dict[int, int] = field(default_factory=dict)  # CONTROLLER listener ports
    broker_props: dict[str, str] = field(default_factory=dict)
    advertised: dict[int, Endpoint] = field(default_factory=dict)   # advertised.listeners overrides
    features: dict[str, int] | None = None      # bootstrap feature levels (None: the release's defaults)

    def roles(self, node_id: int) -> tuple[str, ...]:
        return tuple(r for r, ids in (("broker", self.brokers), ("controller", self.controllers))
                     if node_id in ids)

    @property
    def node_ids(self) -> list[int]:
        ordered = list(self.controllers)
        ordered += [b for b in self.brokers if b not in ordered]
        return ordered

    def data_dir(self, node_id: int) -> Path:
        roles = self.roles(node_id)
        prefix = "node" if len(roles) == 2 else roles[0]
        return self.root / f"{prefix}-{node_id}"

    def directory(self, node_id: int) -> LogDirectory:
        """The `LogDirectory` node ``node_id`` keeps its files in (its machine's disk)."""
        return self.disks.directory(node_id, self.data_dir(node_id))

    def voters(self) -> dict[int, Endpoint]:
        return {c: Endpoint(CONTROLLER_LISTENER, self.host, self.controller_ports[c])
                for c in self.controllers}

    def node_config(self, node_id: int) -> NodeConfig:
        roles = self.roles(node_id)
        listeners = []
        if "broker" in roles:
            listeners.append(Endpoint(BROKER_LISTENER, self.host, self.broker_ports[node_id]))
        if "controller" in roles:
            listeners.append(Endpoint(CONTROLLER_LISTENER, self.host, self.controller_ports[node_id]))
        advertised = tuple(e for e in listeners if e.listener == BROKER_LISTENER)
        if node_id in self.advertised:
            advertised = (self.advertised[node_id],)
        props = dict(self.broker_props)   # controllers read topic defaults from the same settings
        return NodeConfig(node_id, roles, self.cluster_id, self.data_dir(node_id), self.voters(),
                          self.timing, f"{self.seed}:controller", tuple(listeners), advertised,
                          broker_props=props, bootstrap_features=self.features)

    # ------------------------------------------------------------------ formatting
    def format_storage(self, now_ms: int, salt: str = "") -> list[int]:
        """``kafka-storage.sh format`` for every unformatted node; returns the ids formatted.

        Each node's directory.id is drawn for that node (and ``salt``, which a disk wipe
        changes), so two nodes never share one, as Kafka's registration requires.
        """
        formatted = []
        for node_id in self.node_ids:
            data_dir, disk = str(self.data_dir(node_id)), self.directory(node_id)
            directory_id = Uuid.random(random.Random(f"{self.seed}:format:{node_id}:{salt}"))
            if disk.exists(os.path.join(data_dir, META_PROPERTIES_NAME)):
                continue
            disk.make_dirs(data_dir)
            MetaProperties(1, self.cluster_id, node_id, directory_id).write(data_dir, now_ms, disk)
            formatted.append(node_id)
        self.write_configs()
        return formatted

    def config_path(self, node_id: int) -> str:
        """Where the node's ``server.properties`` is written: ``<root>/config/<name>.properties``."""
        return os.path.join(self.root, "config", f"{self.data_dir(node_id).name}.properties")

    def write_configs(self) -> None:
        self.disks.host.make_dirs(os.path.join(self.root, "config"))
        for node_id in self.node_ids:
            text = self.node_config(node_id).server_properties()
            self.disks.host.write_bytes(self.config_path(node_id), text.encode("utf-8"))


def parse_listener(text: str) -> Endpoint:
    """``PLAINTEXT://host:port`` (the form of ``advertised.listeners``) as an `Endpoint`."""
    name, sep, rest = text.partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or not colon or not port.isdigit() or not name:
        raise ValueError(f"Error creating broker listeners from '{text}': Unable to parse {text} "
                         f"to a broker endpoint")
    return Endpoint(name, host.strip("[]"), int(port))


def generate_cluster_id(seed: str | None) -> str:
    """A 22-character base64 Uuid, as ``kafka-storage.sh random-uuid`` prints."""
    rng = random.Random(f"{seed}:cluster-id") if seed is not None else random.Random(
        secrets.randbits(64))
    return str(Uuid.random(rng))


def existing_cluster_id(root: Path) -> str | None:
    """The cluster.id found in the root's formatted node directories, if they agree on one."""
    found = set()
    if root.is_dir():
        for meta in root.glob(f"*/{META_PROPERTIES_NAME}"):
            try:
                found.add(MetaProperties.read(str(meta.parent)).cluster_id)
            except Exception:
                continue
    return found.pop() if len(found) == 1 else None


def default_broker_props(brokers: int, overrides: Mapping[str, object] | None) -> dict[str, str]:
    props = {
        # A cluster with fewer than three brokers cannot host a three-way replicated
        # __consumer_offsets; Kafka's single-node sample configs set this to 1 too.
        "offsets.topic.replication.factor": str(max(1, min(3, brokers))),
    }
    for name, value in (overrides or {}).items():
        props[name] = _property_string(value)
    return props


def _property_string(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


_IDS = "brokers=[...] and controllers=[...] (minikafka up --broker-ids, --controller-ids)"
_LISTENERS = ("the sandbox's fixed listeners (PLAINTEXT for clients and brokers, CONTROLLER for the "
              "quorum) on host= and port= (minikafka up --port)")
# Settings the layout writes into each node's server.properties itself: one value for every
# node would break the cluster (one node.id for all), so they are chosen another way.
LAYOUT_CONFIGS = {
    "node.id": _IDS, "broker.id": _IDS,
    "process.roles": "combined=True (minikafka up --combined) for broker,controller nodes",
    "controller.quorum.voters": "controllers=[...] (minikafka up --controller-ids)",
    "controller.quorum.bootstrap.servers": "controllers=[...] (minikafka up --controller-ids)",
    "listeners": _LISTENERS, "inter.broker.listener.name": _LISTENERS,
    "controller.listener.names": _LISTENERS, "listener.security.protocol.map": _LISTENERS,
    "advertised.listeners": "advertised_listeners={id: 'PLAINTEXT://host:port'} or "
                            "cluster.set_advertised_listener()",
    "log.dirs": "data_dir= (minikafka up --data-dir)", "log.dir": "data_dir= (minikafka up --data-dir)",
    "metadata.log.dir": "data_dir= (minikafka up --data-dir)",
}


def split_overrides(overrides: Mapping[str, object] | None,
                    timing: TimingProfile) -> tuple[TimingProfile, dict[str, object], list[str]]:
    """Check ``server.properties`` overrides as a Kafka node does at start-up, before anything
    is written: a known config with a bad value raises Kafka's ``ConfigException``.  Time
    settings the engine reads from the timing profile (``replica.lag.time.max.ms``...) go
    into the profile; the rest stay broker properties.  Returns the profile, the remaining
    overrides and the names the sandbox does not define (a real node starts with those
    silently).  The rules across settings are checked once the layout exists
    (`check_node_configs`)."""
    from minikafka.common.config.broker_configs import BROKER_CONFIG_DEF
    timed, rest, unknown = {}, {}, []
    for name, value in (overrides or {}).items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"A configuration name must be a non-empty string, not {name!r}")
        if name in LAYOUT_CONFIGS:
            raise ValueError(f"{name} cannot be overridden here: minikafka writes it into each node's "
                             f"server.properties from the cluster's layout (a sandbox rule, not "
                             f"Kafka's); use {LAYOUT_CONFIGS[name]}")
        text = _property_string(value)
        if name in BROKER_CONFIG_DEF:
            BROKER_CONFIG_DEF.parse_value(BROKER_CONFIG_DEF[name], text, True)
        else:
            unknown.append(name)
        if name in timing.values:
            timed[name] = int(timing_value(name, text))
        else:
            rest[name] = value
    return (timing.with_overrides(timed, name=f"{timing.name}+overrides") if timed else timing,
            rest, unknown)


def timing_value(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        from minikafka.common.config.config_def import ConfigException
        raise ConfigException(f"Invalid value {text} for configuration {name}: Not a number of "
                              f"type LONG") from None


def check_node_configs(layout: ClusterLayout) -> None:
    """Parse every node's ``server.properties`` as its ``KafkaConfig`` will at start-up, so
    that a bad combination (``replica.fetch.wait.max.ms`` above ``replica.lag.time.max.ms``,
    a node id beyond Java's int...) fails with Kafka's error before anything is written.
    Ports are not reserved yet: the check uses the simulated driver's, which no rule looks at."""
    from minikafka.common.config.kafka_config import KafkaConfig
    from minikafka.common.utils import parse_properties
    probe = replace(layout,
                    broker_ports={b: SIM_BROKER_PORT + 100 * i for i, b in enumerate(layout.brokers)},
                    controller_ports={c: SIM_CONTROLLER_PORT + 100 * i
                                      for i, c in enumerate(layout.controllers)})
    from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
    for node_id in probe.node_ids:
        config = KafkaConfig(parse_properties(probe.node_config(node_id).server_properties()))
        if node_id in probe.brokers:       # the group coordinator's own checks run on brokers
            GroupCoordinatorConfig.from_configs(config.values, probe.timing)


def bootstrap_features(features: Mapping[str, int] | None) -> dict[str, int] | None:
    """The feature levels a new cluster is formatted with (``kafka-storage.sh format --feature``).

    Only features other than ``metadata.version`` and ``kraft.version``, each at a
    level this release supports; the others keep the release's defaults.
    """
    if features is None:
        return None
    from minikafka.controller.feature_control_manager import BOOTSTRAP_FEATURES_4_3, SUPPORTED_FEATURES_4_3
    levels = dict(BOOTSTRAP_FEATURES_4_3)
    for name, level in features.items():
        if name not in BOOTSTRAP_FEATURES_4_3:
            raise ValueError(f"features: {name!r} cannot be set at format time here; choose from "
                             f"{', '.join(sorted(BOOTSTRAP_FEATURES_4_3))}")
        low, high = SUPPORTED_FEATURES_4_3[name]
        if not isinstance(level, int) or isinstance(level, bool) or not low <= level <= high:
            raise ValueError(f"features: {name} must be a level from {low} to {high}, not {level!r}")
        levels[name] = level
    return levels
