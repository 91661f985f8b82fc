"""`Cluster`: a whole Kafka 4.x cluster in this Python process, started with one line.

Theory of operation
-------------------
``Cluster(brokers=3, controllers=3)`` lays out node ids and data
directories (`ClusterLayout`), formats the storage, and starts every node on
a driver: the *live* driver runs the nodes on a background thread in real
time and serves the Kafka protocol on one 127.0.0.1 port per broker; the
*simulated* driver (``simulated=True``) runs the very same node code in
virtual time, deterministically for a seed.  ``start()`` returns when a
controller leads the quorum and every broker is registered and unfenced.

The facade is also where a learner breaks things.  Fault verbs (kill,
restart, pause, resume, isolate, heal, add latency, wipe) act on the driver,
never on node internals, so a node experiences exactly what a real process
would.  Everything observable comes out as plain data: `snapshot()` (a
`ClusterSnapshot`), `events` (the `EventLog`), each node's metrics under
Kafka's MBean names (`metrics()`, `broker_metrics()`) and the brokers'
request view (`request_counts()`); widgets and lessons read only those.
Admin verbs (create a topic, reassign partitions...) are
requests to the active controller, answered once the records are committed.

Mirrors what an operator does around ``kafka-server-start.sh`` and
``kafka-storage.sh``; the admin verbs mirror ``Admin`` client calls.
``broker_config={...}`` adds ``server.properties`` settings to every node, as
``kafka-server-start.sh --override`` does; they are checked with Kafka's start-up checks
before anything is written (`cluster_layout.split_overrides`, `check_node_configs`).
``features={"eligible.leader.replicas.version": 0}`` formats the cluster with
those feature levels, as ``kafka-storage.sh format --feature`` does (the
default, as Kafka 4.1+, has eligible leader replicas on; see
`feature_control_manager`).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from minikafka.cluster.admin import ClusterAdmin
from minikafka.cluster.faults import ClusterFaults
from minikafka.cluster.metadata_log import ClusterMetadata
from minikafka.cluster.metrics import ClusterMetrics
from minikafka.cluster.layout import (DEFAULT_FIRST_CONTROLLER_ID, SIM_BROKER_PORT,
                                      SIM_CONTROLLER_PORT, ClusterLayout, default_broker_props,
                                      bootstrap_features, check_node_configs, combined_controller_ids,
                                      existing_cluster_id, generate_cluster_id, node_ids,
                                      parse_listener, split_overrides)
from minikafka.cluster.snapshot_builder import build_snapshot
from minikafka.cluster.tool_texts import ClusterTools
from minikafka.drivers.runtime import NodeState
from minikafka.runtime.events import EventLog
from minikafka.cluster.snapshot import ClusterSnapshot
from minikafka.timing import TimingProfile, profile

START_TIMEOUT_MS = 30_000


class Cluster(ClusterAdmin, ClusterFaults, ClusterTools, ClusterMetadata, ClusterMetrics):
    def __init__(self, brokers: int | Sequence[int] = 3, controllers: int | Sequence[int] = 3,
                 data_dir: str | Path | None = None, seed: int | str | None = None, *,
                 combined: bool = False, simulated: bool = False,
                 timing: str | TimingProfile | None = None,
                 broker_config: Mapping[str, Any] | None = None, host: str = "127.0.0.1",
                 port: int | None = None, cluster_id: str | None = None,
                 advertised_listeners: Mapping[int, str] | None = None,
                 features: Mapping[str, int] | None = None):
        formatted_features = bootstrap_features(features)     # checked before anything is created
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
        timing_profile, broker_config, self.unknown_configs = split_overrides(
            broker_config, profile(timing))
        self.simulated = simulated
        self.seed = None if seed is None else str(seed)
        self._temporary = data_dir is None
        root = None if data_dir is None else Path(data_dir)
        cluster_id = cluster_id or (root and existing_cluster_id(root)) or generate_cluster_id(self.seed)
        self.layout = ClusterLayout(
            root=root or Path(tempfile.gettempdir()), cluster_id=cluster_id,
            seed=self.seed if self.seed is not None else cluster_id,
            timing=timing_profile, host=host, brokers=broker_ids, controllers=controller_ids,
            broker_props=default_broker_props(len(broker_ids), broker_config),
            features=formatted_features)
        for broker_id, text in (advertised_listeners or {}).items():
            if broker_id not in broker_ids:
                raise ValueError(f"advertised_listeners names {broker_id}, which is not a broker")
            self.layout.advertised[broker_id] = parse_listener(text)
        check_node_configs(self.layout)       # Kafka's start-up checks, before anything is created
        if root is None:
            self.layout.root = Path(tempfile.mkdtemp(prefix="minikafka-"))
        self._first_port = port
        self.events = EventLog()
        self.events.subscribe(self._on_event)
        self.driver = None
        self.listeners: dict[int, Any] = {}        # broker id -> live TCP listener
        self._started = False

    # ------------------------------------------------------------------ properties
    @property
    def cluster_id(self) -> str:
        return self.layout.cluster_id

    @property
    def broker_ids(self) -> list[int]:
        return list(self.layout.brokers)

    @property
    def controller_ids(self) -> list[int]:
        return list(self.layout.controllers)

    @property
    def data_dir(self) -> Path:
        return self.layout.root

    @property
    def timing(self) -> TimingProfile:
        return self.layout.timing

    def broker_data_dir(self, broker_id: int) -> Path:
        self._check_node(broker_id, "broker")
        return self.layout.data_dir(broker_id)

    def node_data_dir(self, node_id: int) -> Path:
        self._check_node(node_id)
        return self.layout.data_dir(node_id)

    def set_advertised_listener(self, broker_id: int, listener: str | None) -> None:
        """Edit ``advertised.listeners`` in the broker's ``server.properties``: the address
        the broker tells clients to connect to (``PLAINTEXT://host:port``; None restores
        its own listener).  As with editing the file, it takes effect when the broker
        (re)starts and re-registers with the controller."""
        self._check_node(broker_id, "broker")
        if listener is None:
            self.layout.advertised.pop(broker_id, None)
        else:
            endpoint = parse_listener(listener)
            if endpoint.listener != "PLAINTEXT":
                raise ValueError(
                    f"advertised.listeners listener names must be equal to or a subset of the ones "
                    f"defined in listeners. Found {endpoint.listener}. The valid options based on "
                    f"the current configuration are PLAINTEXT")
            self.layout.advertised[broker_id] = endpoint
        if self._started:
            self.layout.write_configs()

    @property
    def bootstrap_servers(self) -> str:
        """``host:port,...`` of every broker whose process is running."""
        running = [b for b in self.layout.brokers if self._state(b) is not NodeState.DEAD]
        return ",".join(f"{self.layout.host}:{self.layout.broker_ports[b]}" for b in running)

    # ------------------------------------------------------------------ lifecycle
    def start(self, timeout_ms: int = START_TIMEOUT_MS) -> "Cluster":
        if self._started:
            return self
        self._assign_ports()
        self.layout.format_storage(self._clock_for_format())
        self.driver = self._make_driver()
        self._call(self._add_all_nodes)
        for node_id in self.layout.controllers:
            self._start_node(node_id)
        for node_id in self.layout.brokers:
            if node_id not in self.layout.controllers:
                self._start_node(node_id)
        self._started = True
        if not self._settle(self.is_ready, timeout_ms):
            raise TimeoutError(f"The cluster did not become ready within {timeout_ms} ms: "
                               f"{self._readiness_report()}")
        return self

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def stop(self, graceful: bool = True) -> None:
        """Stop every node (brokers with a controlled shutdown first), then the driver.

        A temporary data directory is removed; a given ``data_dir`` keeps the data.
        """
        if self.driver is not None and self._started:
            if graceful:
                self._graceful_stop_all()
            for node_id in self.layout.node_ids:
                if self._state(node_id) is not NodeState.DEAD:
                    clean = self._node(node_id).stopped
                    self._kill_node(node_id, "stopped" + (" (clean shutdown)" if clean else ""),
                                    "node_stopped")
            for listener in self.listeners.values():
                self._call(listener.stop)
            if not self.simulated:
                self.driver.close()
        self._started = False
        if self._temporary:
            shutil.rmtree(self.layout.root, ignore_errors=True)

    def _graceful_stop_all(self) -> None:
        stopping = {}
        brokers = [b for b in self.layout.brokers if self._state(b) is NodeState.RUNNING]
        for node_id in brokers:
            stopping[node_id] = self._begin_node_shutdown(node_id)
        self._settle(lambda: all(flag() for flag in stopping.values()), 10_000)
        controllers = [c for c in self.layout.controllers if c not in self.layout.brokers
                       and self._state(c) is NodeState.RUNNING]
        for node_id in controllers:
            stopping[node_id] = self._begin_node_shutdown(node_id, resign=False)
        self._settle(lambda: all(flag() for flag in stopping.values()), 10_000)

    # ------------------------------------------------------------------ readiness
    def is_ready(self) -> bool:
        """A controller is active and every running broker is registered and unfenced."""
        controller = self._active_controller_node()
        if controller is None:
            return False
        image = controller.controller.committed_image
        for broker_id in self.layout.brokers:
            if self._state(broker_id) is not NodeState.RUNNING:
                continue
            registration = image.cluster.broker(broker_id)
            node = self._node(broker_id)
            if registration is None or registration.fenced or node.broker.is_fenced:
                return False
            listener = self.listeners.get(broker_id)
            if listener is not None and not listener.serving:
                return False
        return True

    def _readiness_report(self) -> str:
        snap = self.snapshot()
        parts = [f"active controller: {snap.quorum.leader}"]
        parts += [f"{n.roles[0]} {n.node_id}: {n.process}/{n.registration}/{n.raft_role}"
                  for n in snap.nodes]
        return "; ".join(parts)

    def wait_until(self, condition: Callable[[], bool], timeout_ms: int) -> bool:
        """Run (simulated) or wait (live) until ``condition()`` holds; False on timeout.

        On a live cluster the condition runs in the calling thread, so it may use any verb
        of the facade (``lambda: not cluster.list_reassignments()``)."""
        if self.simulated:
            return self.driver.run_until(condition, timeout_ms)
        return self.driver.run_until(condition, timeout_ms, poll_interval_s=0.01,
                                     on_cluster_thread=False)

    def _settle(self, condition: Callable[[], bool], timeout_ms: int) -> bool:
        """Like `wait_until`, but the condition reads node internals: run it where they live."""
        return self.driver.run_until(condition, timeout_ms)

    def run_for(self, duration_ms: int, check: Callable[[], None] | None = None) -> None:
        """Let ``duration_ms`` of cluster time pass (virtual time when simulated).

        ``check`` (simulated only) runs after every single step, for invariant checks.
        """
        if check is not None and self.simulated:
            self.driver.run_for(duration_ms, after_step=check)
        else:
            self.driver.run_for(duration_ms)

    # ------------------------------------------------------------------ observation
    def snapshot(self) -> ClusterSnapshot:
        return self._call(lambda: build_snapshot(self))

    def non_default_configs(self) -> dict[str, str]:
        """The settings of this cluster's ``server.properties`` that differ from Kafka's
        defaults, by name (the timing profile's scaled timeouts included)."""
        from minikafka.common.config.broker_configs import BROKER_CONFIG_DEF
        from minikafka.timing import KAFKA_DEFAULTS
        found = {}
        for name, value in self.layout.broker_props.items():
            if name not in BROKER_CONFIG_DEF or BROKER_CONFIG_DEF.default_string(name) != value:
                found[name] = value
        for name, value in self.timing.values.items():
            if KAFKA_DEFAULTS.get(name) != value:
                found[name] = str(value)
        return dict(sorted(found.items()))

    def describe(self) -> str:
        """One paragraph about this cluster, including the timing profile in force."""
        kind = "simulated (virtual time)" if self.simulated else "live"
        return (f"minikafka cluster {self.cluster_id} ({kind}): brokers "
                f"{','.join(map(str, self.layout.brokers))}; controllers "
                f"{','.join(map(str, self.layout.controllers))}; {self.timing.describe()}")

    def __repr__(self) -> str:
        state = "running" if self._started else "stopped"
        return (f"Cluster(brokers={self.layout.brokers}, controllers={self.layout.controllers}, "
                f"{state})")
