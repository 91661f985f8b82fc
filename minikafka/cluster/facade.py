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
restart, pause, resume, isolate, heal, add latency, wipe, lose power) act on the driver,
never on node internals, so a node experiences exactly what a real process
would; ``ensure_dead`` and ``ensure_running`` (the sandbox's convenience)
reach a process state whatever a widget button did before.  Everything observable comes out as plain data: `snapshot()` (a
`ClusterSnapshot`), `events` (the `EventLog`), each node's metrics under
Kafka's MBean names (`metrics()`, `broker_metrics()`) and the brokers'
request view (`request_counts()`); widgets and lessons read only those.
Admin verbs (create a topic, reassign partitions...) are
requests to the active controller, answered once the records are committed.

Mirrors what an operator does around ``kafka-server-start.sh`` and
``kafka-storage.sh``; the admin verbs mirror ``Admin`` client calls.
``broker_config={...}`` adds ``server.properties`` settings to every node, as
``kafka-server-start.sh --override`` does; they are checked with Kafka's start-up checks
before anything is written (`layout.split_overrides`, `check_node_configs`).
``features={"eligible.leader.replicas.version": 0}`` formats the cluster with
those feature levels, as ``kafka-storage.sh format --feature`` does (the
default, as Kafka 4.1+, has eligible leader replicas on; see
`feature_control_manager`).

``storage="memory"`` (the default of a simulated cluster without a given
``data_dir``) keeps every node's
files in memory, one disk per node (`NodeDisks`), so nothing is written to
the machine and ``lose_power`` can drop what was not flushed;
``storage="disk"`` (a live cluster's default) writes real files under
``data_dir``.  ``data_dir``, ``node_data_dir`` and ``broker_data_dir`` read
either the same way.

The class is composed, not mixed in: it owns the layout and the event log,
builds one `NodeProcesses` (the driver and the nodes on it) and hands it to
each collaborator, `FaultVerbs`, `AdminVerbs`, `MetricsView`, `ToolTexts` and
the snapshot and metadata-log readers.  Every public verb is named below,
once, next to the collaborator that does it; `verb` copies that
collaborator's signature and docstring, so ``help(cluster.kill)`` reads as
before.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import minikafka.cluster.metadata_log as metadata_log
import minikafka.cluster.snapshot_builder as snapshot_builder
from minikafka.cluster.admin import AdminVerbs
from minikafka.cluster.faults import FaultVerbs
from minikafka.cluster.layout import (ClusterLayout, bootstrap_features, check_node_configs,
                                      cluster_node_ids, default_broker_props,
                                      existing_cluster_id, generate_cluster_id, parse_listener,
                                      split_overrides)
from minikafka.cluster.metrics import MetricsView
from minikafka.cluster.node_disks import NodeDisks, StoredPath, storage_choice
from minikafka.cluster.processes import NodeProcesses
from minikafka.cluster.tool_texts import ToolTexts
from minikafka.runtime.events import EventLog
from minikafka.common.timing import TimingProfile, profile

START_TIMEOUT_MS = 30_000

# Temporary data directories of clusters not stopped yet: removed when the interpreter exits, so a
# cluster that was never started or stopped (a kernel restarted mid-lesson) leaves nothing in /tmp.
_TEMPORARY_ROOTS: set[Path] = set()


_MEMORY_ROOTS = itertools.count(1)     # names of in-memory clusters' data directories

@atexit.register
def _remove_temporary_roots() -> None:
    for root in list(_TEMPORARY_ROOTS):
        shutil.rmtree(root, ignore_errors=True)


class verb:
    """A public verb of `Cluster` done by ``self.<collaborator>``: placed in the class body,
    it becomes a method with ``method``'s signature and docstring (``method`` is the
    collaborator's function, which receives the collaborator as its first argument)."""

    def __init__(self, collaborator: str, method: Callable):
        self.collaborator = collaborator    # the attribute of Cluster that holds the collaborator
        self.method = method                # its function that does the verb

    def __set_name__(self, owner: type, name: str) -> None:
        collaborator, method = self.collaborator, self.method

        @functools.wraps(method)
        def delegate(cluster, *args, **kwargs):
            return method(getattr(cluster, collaborator), *args, **kwargs)
        delegate.__name__, delegate.__qualname__ = name, f"{owner.__name__}.{name}"
        setattr(owner, name, delegate)


class Cluster:
    def __init__(self, brokers: int | Sequence[int] = 3, controllers: int | Sequence[int] = 3,
                 data_dir: str | Path | None = None, seed: int | str | None = None, *,
                 combined: bool = False, simulated: bool = False,
                 timing: str | TimingProfile | None = None,
                 broker_config: Mapping[str, Any] | None = None, host: str = "127.0.0.1",
                 port: int | None = None, cluster_id: str | None = None,
                 advertised_listeners: Mapping[int, str] | None = None,
                 features: Mapping[str, int] | None = None, storage: str | None = None):
        formatted_features = bootstrap_features(features)     # checked before anything is created
        broker_ids, controller_ids = cluster_node_ids(brokers, controllers, combined)
        timing_profile, broker_config, self.unknown_configs = split_overrides(
            broker_config, profile(timing))
        self.simulated = simulated
        self.storage = storage_choice(storage, simulated, data_dir is not None)    # "memory" or "disk"
        in_memory = self.storage == "memory"
        self.seed = None if seed is None else str(seed)
        self._temporary = data_dir is None and not in_memory   # a temporary directory is removed by stop()
        root = None if data_dir is None else Path(data_dir)
        found = None if root is None or in_memory else existing_cluster_id(root)
        cluster_id = cluster_id or found or generate_cluster_id(self.seed)
        disks = NodeDisks(self.storage, lambda: self._processes.clock_ms())
        self.layout = ClusterLayout(
            root=root or Path(tempfile.gettempdir()), cluster_id=cluster_id,
            seed=self.seed if self.seed is not None else cluster_id,
            timing=timing_profile, host=host, brokers=broker_ids, controllers=controller_ids, disks=disks,
            broker_props=default_broker_props(len(broker_ids), broker_config),
            features=formatted_features)
        for broker_id, text in (advertised_listeners or {}).items():
            if broker_id not in broker_ids:
                raise ValueError(f"advertised_listeners names {broker_id}, which is not a broker")
            self.layout.advertised[broker_id] = parse_listener(text)
        check_node_configs(self.layout)       # Kafka's start-up checks, before anything is created
        if root is None and in_memory:            # a name only: nothing is created on the machine
            self.layout.root = Path(tempfile.gettempdir(), f"minikafka-memory{next(_MEMORY_ROOTS)}")
        elif root is None:
            self.layout.root = Path(tempfile.mkdtemp(prefix="minikafka-"))
            _TEMPORARY_ROOTS.add(self.layout.root)
        self.events = EventLog()
        self._processes = NodeProcesses(self.layout, self.events, simulated, port)
        self.events.subscribe(self._processes.on_event)
        self._faults = FaultVerbs(self._processes)
        self._admin = AdminVerbs(self._processes)
        self._metrics = MetricsView(self._processes)
        self._tools = ToolTexts(self._processes)

    # ------------------------------------------------------------------ facts of the layout
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
    def data_dir(self) -> Path | StoredPath:
        """The cluster's data directory: a ``Path`` on disk; with ``storage="memory"`` a
        `StoredPath` that reads the in-memory disks the same way (``/``, ``iterdir``,
        ``read_text``, ``stat``)."""
        return self.layout.disks.path(self.layout.root)

    @property
    def timing(self) -> TimingProfile:
        return self.layout.timing

    def broker_data_dir(self, broker_id: int) -> Path | StoredPath:
        self._processes.check_node(broker_id, "broker")
        return self.layout.disks.path(self.layout.data_dir(broker_id))

    def node_data_dir(self, node_id: int) -> Path | StoredPath:
        self._processes.check_node(node_id)
        return self.layout.disks.path(self.layout.data_dir(node_id))

    def set_advertised_listener(self, broker_id: int, listener: str | None) -> None:
        """Edit ``advertised.listeners`` in the broker's ``server.properties``: the address
        the broker tells clients to connect to (``PLAINTEXT://host:port``; None restores
        its own listener).  As with editing the file, it takes effect when the broker
        (re)starts and re-registers with the controller."""
        self._processes.check_node(broker_id, "broker")
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
        if self._processes.started:
            self.layout.write_configs()

    @property
    def bootstrap_servers(self) -> str:
        """``host:port,...`` of every broker whose process is running."""
        return self._processes.bootstrap_servers()

    @property
    def active_controller(self) -> int | None:
        """Id of the active controller (the KRaft quorum leader), or None during an election."""
        return self._processes.active_controller_id()

    # ------------------------------------------------------------------ lifecycle
    def start(self, timeout_ms: int = START_TIMEOUT_MS) -> "Cluster":
        if self._processes.started:
            return self
        self._processes.start_all()
        if not self._processes.settle(self.is_ready, timeout_ms):
            raise TimeoutError(f"The cluster did not become ready within {timeout_ms} ms: "
                               f"{self._readiness_report()}")
        return self

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def stop(self, graceful: bool = True) -> None:
        """Stop every node (brokers with a controlled shutdown first), then the driver.

        A temporary data directory is removed (in memory: the files are dropped); a given
        ``data_dir`` keeps the data.  Views
        of the cluster hear of it first (`EventLog.announce_stop`) and keep their last picture.
        """
        self.events.announce_stop()
        self._processes.stop_all(graceful)
        self.layout.disks.discard()        # in memory: the files go with the cluster
        if self._temporary:
            shutil.rmtree(self.layout.root, ignore_errors=True)
            _TEMPORARY_ROOTS.discard(self.layout.root)

    is_ready = verb("_processes", NodeProcesses.is_ready)
    now = verb("_processes", NodeProcesses.now)

    @property
    def now_ms(self) -> int:
        """The cluster's clock in ms (virtual time when simulated): the time every node and
        event of this cluster reads, as `now()` returns it."""
        return self._processes.now()

    clock_origin_ms = verb("_processes", NodeProcesses.clock_origin_ms)

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

    def run_for(self, duration_ms: int, check: Callable[[], None] | None = None) -> None:
        """Let ``duration_ms`` of cluster time pass (virtual time when simulated).

        ``check`` (simulated only) runs after every single step, for invariant checks.
        """
        self._processes.run_for(duration_ms, check)

    # ------------------------------------------------------------------ fault verbs
    kill = verb("_faults", FaultVerbs.kill)
    kill_broker = verb("_faults", FaultVerbs.kill_broker)
    kill_controller = verb("_faults", FaultVerbs.kill_controller)
    shutdown = verb("_faults", FaultVerbs.shutdown)
    restart = verb("_faults", FaultVerbs.restart)
    restart_broker = verb("_faults", FaultVerbs.restart_broker)
    restart_controller = verb("_faults", FaultVerbs.restart_controller)
    pause = verb("_faults", FaultVerbs.pause)
    pause_broker = verb("_faults", FaultVerbs.pause_broker)
    resume = verb("_faults", FaultVerbs.resume)
    resume_broker = verb("_faults", FaultVerbs.resume_broker)
    isolate = verb("_faults", FaultVerbs.isolate)
    cut_link = verb("_faults", FaultVerbs.cut_link)
    heal = verb("_faults", FaultVerbs.heal)
    add_latency = verb("_faults", FaultVerbs.add_latency)
    wipe = verb("_faults", FaultVerbs.wipe)
    lose_power = verb("_faults", FaultVerbs.lose_power)
    ensure_dead = verb("_faults", FaultVerbs.ensure_dead)
    ensure_running = verb("_faults", FaultVerbs.ensure_running)

    # ------------------------------------------------------------------ admin verbs
    create_topic = verb("_admin", AdminVerbs.create_topic)
    delete_topic = verb("_admin", AdminVerbs.delete_topic)
    create_partitions = verb("_admin", AdminVerbs.create_partitions)
    add_partitions = verb("_admin", AdminVerbs.add_partitions)
    topics = verb("_admin", AdminVerbs.topics)
    alter_topic_config = verb("_admin", AdminVerbs.alter_topic_config)
    alter_broker_config = verb("_admin", AdminVerbs.alter_broker_config)
    elect_leaders = verb("_admin", AdminVerbs.elect_leaders)
    reassign_partitions = verb("_admin", AdminVerbs.reassign_partitions)
    list_reassignments = verb("_admin", AdminVerbs.list_reassignments)
    clear_reassignment_throttles = verb("_admin", AdminVerbs.clear_reassignment_throttles)
    add_broker = verb("_admin", AdminVerbs.add_broker)
    decommission_broker = verb("_admin", AdminVerbs.decommission_broker)
    leader = verb("_admin", AdminVerbs.leader)
    isr = verb("_admin", AdminVerbs.isr)
    replicas = verb("_admin", AdminVerbs.replicas)

    # ------------------------------------------------------------------ looking inside
    snapshot = verb("_processes", snapshot_builder.take_snapshot)
    metadata_records = verb("_processes", metadata_log.metadata_records)
    describe_topic = verb("_tools", ToolTexts.describe_topic)
    quorum_status = verb("_tools", ToolTexts.quorum_status)
    quorum_replication = verb("_tools", ToolTexts.quorum_replication)
    run_tool = verb("_tools", ToolTexts.run_tool)

    @property
    def tool_runs(self) -> dict[str, int]:
        """Tool name -> how many times `run_tool` ran it (it seeds the tool's random choices)."""
        return dict(self._tools.runs)

    metrics = verb("_metrics", MetricsView.metrics)
    node_metrics = verb("_metrics", MetricsView.node_metrics)
    broker_metrics = verb("_metrics", MetricsView.broker_metrics)
    controller_metrics = verb("_metrics", MetricsView.controller_metrics)
    metric = verb("_metrics", MetricsView.metric)
    request_counts = verb("_metrics", MetricsView.request_counts)

    def non_default_configs(self) -> dict[str, str]:
        """The settings of this cluster's ``server.properties`` that differ from Kafka's
        defaults, by name (the timing profile's scaled timeouts included)."""
        from minikafka.common.config.broker_configs import BROKER_CONFIG_DEF
        from minikafka.common.timing import KAFKA_DEFAULTS
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
        state = "running" if self._processes.started else "stopped"
        return (f"Cluster(brokers={self.layout.brokers}, controllers={self.layout.controllers}, "
                f"{state})")

    # ------------------------------------------------------------------ for the sandbox's own code
    # The testing hooks: the driver and the node processes, for tests, benchmarks, the
    # in-process client and the drills (``driver.muted`` for an unannounced fault), which
    # reach below the facade on purpose; lessons and widgets never do.
    @property
    def driver(self):
        return self._processes.driver

    @property
    def processes(self) -> NodeProcesses:
        """The node processes on their driver (`NodeProcesses`): ``processes.node(id)``,
        ``processes.call(fn)`` (run ``fn`` where the nodes live), ``processes.state(id)``,
        ``processes.cluster_image()``, ``processes.check_node(id, role)``.  A testing hook."""
        return self._processes

    @property
    def listeners(self) -> dict[int, Any]:
        """Broker id -> its live TCP listener (empty when simulated or not started)."""
        return {} if self.driver is None else self.driver.listeners
