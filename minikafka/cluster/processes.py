"""`NodeProcesses`: the node processes of one cluster, on the driver that runs them.

Theory of operation
-------------------
An operator's cluster is a set of processes (``kafka-server-start.sh`` per
node) on machines with ports and disks.  In the sandbox the processes are
node objects on a driver (``minikafka.drivers``): the simulated one in
virtual time, the live one on a background thread with TCP listeners.  This
class is the facade's only door to them:

* ``start_all`` builds the driver, has it choose (and, live, reserve) every
  node's port, formats the storage at the driver's clock and starts the
  controllers, then the brokers; ``stop_all`` stops them again;
* ``start_node``, ``kill_node``, ``lose_power`` and ``begin_node_shutdown``
  act on one process (``lose_power`` also on its disk, `NodeDisks`); a
  broker's client listener opens and closes with it;
* ``call(fn)`` runs ``fn`` where the nodes live (the driver's thread when
  live), and ``node``, ``state``, ``active_controller_node`` and
  ``cluster_image`` read them there;
* ``check_node``, ``require_state`` and ``describe`` are the argument checks
  and the names every verb shares.

It reads no clock and opens no socket: time, ports and listeners come from
the driver.  The verbs (`FaultVerbs`, `AdminVerbs`) and the views receive
this object and use nothing else of the facade.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable

from minikafka.cluster.layout import ClusterLayout
from minikafka.drivers.cluster_runtime import NodeState
from minikafka.drivers.simulated import SIM_EPOCH_MS
from minikafka.runtime.events import EventLog


class NodeProcesses:
    def __init__(self, layout: ClusterLayout, events: EventLog, simulated: bool,
                 first_port: int | None):
        self.layout = layout
        self.events = events
        self.simulated = simulated          # virtual time (SimulatedDriver) or live (LiveDriver)
        self.first_port = first_port        # the first listener port asked for; None: any free port
        self.driver = None                  # the driver, from start_all() on
        self.started = False                # between start_all() and stop_all()
        self.wipes = 0                      # disk wipes so far: each formats a new directory id

    # ------------------------------------------------------------------ the driver
    def _make_driver(self):
        if self.simulated:
            from minikafka.drivers.simulated import SimulatedDriver
            return SimulatedDriver(self._node_factory, self.events)
        from minikafka.drivers.live import LiveDriver
        return LiveDriver(self._node_factory, self.events)

    def _node_factory(self, node_id: int, incarnation: int, now: int):
        from minikafka.server.kafka_node import KafkaNode
        rng = random.Random(f"{self.layout.seed}:{node_id}:{incarnation}")
        return KafkaNode(self.layout.node_config(node_id), rng, now, self.layout.directory(node_id))

    def _assign_ports(self) -> None:
        """Every node's listener port, chosen by the driver (``first_port`` and up, if given)."""
        layout, wanted = self.layout, self.first_port
        for index, broker in enumerate(layout.brokers):
            layout.broker_ports[broker] = self.driver.broker_port(layout.host, broker, index, wanted)
            wanted = wanted + 1 if wanted else None
        for index, controller in enumerate(layout.controllers):
            layout.controller_ports[controller] = self.driver.controller_port(
                layout.host, controller, index, wanted)
            wanted = wanted + 1 if wanted else None

    def start_all(self) -> None:
        """Build the driver, lay out ports, format storage and start every node."""
        self.driver = self._make_driver()
        try:
            self._assign_ports()
            self.layout.format_storage(self.driver.now())
        except BaseException:
            if not self.simulated:
                self.driver.close()
            self.driver = None
            raise
        self.call(self._add_all_nodes)
        for node_id in self.layout.controllers:
            self.start_node(node_id)
        for node_id in self.layout.brokers:
            if node_id not in self.layout.controllers:
                self.start_node(node_id)
        self.started = True

    def _add_all_nodes(self) -> None:
        for node_id in self.layout.node_ids:
            self.driver.add_node(node_id, self.layout.roles(node_id))

    def stop_all(self, graceful: bool) -> None:
        """Stop every node (brokers with a controlled shutdown first), then the driver."""
        if self.driver is not None and self.started:
            if graceful:
                self._graceful_stop_all()
            for node_id in self.layout.node_ids:
                if self.state(node_id) is not NodeState.DEAD:
                    clean = self.node(node_id).stopped
                    self.kill_node(node_id, "stopped" + (" (clean shutdown)" if clean else ""),
                                   "node_stopped")
            for broker_id in list(self.driver.listeners):
                self.driver.close_listener(broker_id)
            if not self.simulated:
                self.driver.close()
        self.started = False

    def _graceful_stop_all(self) -> None:
        stopping = {}
        brokers = [b for b in self.layout.brokers if self.state(b) is NodeState.RUNNING]
        for node_id in brokers:
            stopping[node_id] = self.begin_node_shutdown(node_id)
        self.settle(lambda: all(flag() for flag in stopping.values()), 10_000)
        controllers = [c for c in self.layout.controllers if c not in self.layout.brokers
                       and self.state(c) is NodeState.RUNNING]
        for node_id in controllers:
            stopping[node_id] = self.begin_node_shutdown(node_id, resign=False)
        self.settle(lambda: all(flag() for flag in stopping.values()), 10_000)

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` where the nodes live (the cluster thread when live)."""
        if self.simulated:
            with self.driver.lock:          # widgets may snapshot from their own thread
                return fn()
        return self.driver.submit(fn)

    def settle(self, condition: Callable[[], bool], timeout_ms: int) -> bool:
        """Run or wait until ``condition()``, which reads node internals: run it where they live."""
        return self.driver.run_until(condition, timeout_ms)

    def run_for(self, duration_ms: int, check: Callable[[], None] | None = None) -> None:
        if check is not None and self.simulated:
            self.driver.run_for(duration_ms, after_step=check)
        else:
            self.driver.run_for(duration_ms)

    def now(self) -> int:
        """The cluster's clock, read where the nodes live."""
        return self.call(lambda: self.driver.now())

    def clock_origin_ms(self) -> int | None:
        """Where a simulated cluster's virtual clock starts (2026-01-01T00:00:00Z); None for
        a live cluster, whose clock is the machine's."""
        return SIM_EPOCH_MS if self.simulated else None

    def on_event(self, event) -> None:
        """A broker that became unfenced for the first time opens its listener to clients."""
        if event.kind == "broker_started" and self.driver is not None:
            self.driver.serve_clients(event.node)          # called on the driver's thread

    # ------------------------------------------------------------------ one process
    def start_node(self, node_id: int) -> None:
        if node_id in self.layout.brokers:
            self.driver.open_listener(node_id, self.layout.host, self.layout.broker_ports[node_id])
        self.call(lambda: self.driver.start(node_id))

    def kill_node(self, node_id: int, reason: str = "killed", kind: str = "node_killed") -> None:
        driver = self.driver

        def crash() -> None:          # one trip to the cluster's thread: a busy kernel delays each
            driver.close_listener(node_id)
            driver.kill(node_id, reason, kind)
            self.layout.disks.crash(node_id)      # the page cache survives the process
        self.call(crash)

    def lose_power(self, node_ids: list[int]) -> dict[int, int]:
        """The nodes' machines lose power at one instant: each process dies (as `kill_node`,
        unless it is dead already) and each disk goes back to what was flushed.  Returns, per
        node, the bytes that were written but not flushed (now gone)."""
        driver, disks = self.driver, self.layout.disks

        def power_off() -> dict[int, int]:
            lost = {}
            for node_id in node_ids:
                if self.state(node_id) is not NodeState.DEAD:
                    driver.close_listener(node_id)
                    driver.kill(node_id, "lost power", "node_killed")
                lost[node_id] = disks.lose_power(node_id)
                driver.note("node_lost_power",
                            f"{self.describe(node_id)} lost power: {lost[node_id]} bytes written since "
                            f"their last flush are gone from its disk (flushed bytes survive)",
                            node_id, lost_bytes=lost[node_id])
            return lost
        return self.call(power_off)

    def clock_ms(self) -> int:
        """The driver's clock where it exists (the time stamped on in-memory files); before the
        cluster starts, where a simulated clock will start (0 for a live cluster)."""
        driver = self.driver
        if driver is not None:
            return driver.now()
        return SIM_EPOCH_MS if self.simulated else 0

    def begin_node_shutdown(self, node_id: int, resign: bool = True) -> Callable[[], bool]:
        done = []
        self.call(lambda: self.node(node_id).shutdown(lambda: done.append(True), resign))
        return lambda: bool(done)

    def state(self, node_id: int) -> NodeState:
        if self.driver is None:
            return NodeState.DEAD
        return self.driver.handles[node_id].state

    def node(self, node_id: int):
        return self.driver.handles[node_id].node

    # ------------------------------------------------------------------ reading the nodes
    def active_controller_node(self):
        """The controller the quorum follows now: among running controllers that lead their
        Raft epoch (role Leader) with an active QuorumController, the one of the highest epoch.
        A leader cut off from the others keeps thinking it is active until it resigns, and
        a resigned one may still hold its controller's state; neither is the active
        controller once a majority has elected another in a later epoch."""
        best = None
        for node_id in self.layout.controllers:
            if self.state(node_id) is not NodeState.RUNNING:
                continue
            node = self.node(node_id)
            if node.controller is None or not node.controller.is_active \
                    or node.raft.role != "Leader":
                continue
            if best is None or node.raft.epoch > best.raft.epoch:
                best = node
        return best

    def active_controller_id(self) -> int | None:
        node = self.call(self.active_controller_node)
        return None if node is None else node.node_id

    def metadata_node(self):
        """Where the facade reads committed metadata: the active controller, else the first
        running node (None when nothing runs).  Call it on the driver's thread."""
        active = self.active_controller_node()
        if active is not None:
            return active
        return next((self.node(n) for n in self.layout.node_ids if self.state(n) is NodeState.RUNNING), None)

    @staticmethod
    def image_of(node):
        """The committed image a node holds: the controller's when it is active, else the broker's
        (a controller-only node has only its controller's)."""
        if node.controller is not None and (node.controller.is_active or node.broker is None):
            return node.controller.committed_image
        return node.broker.image

    def cluster_image(self):
        """The committed metadata as the active controller has it (else any running node's)."""
        def pick():
            node = self.metadata_node()
            if node is None:
                raise RuntimeError("No node of the cluster is running")
            return self.image_of(node)
        return self.call(pick)

    def is_ready(self) -> bool:
        """A controller is active and every running broker is registered and unfenced."""
        controller = self.active_controller_node()
        if controller is None:
            return False
        image = controller.controller.committed_image
        for broker_id in self.layout.brokers:
            if self.state(broker_id) is not NodeState.RUNNING:
                continue
            registration = image.cluster.broker(broker_id)
            node = self.node(broker_id)
            if registration is None or registration.fenced or node.broker.is_fenced:
                return False
            if not self.driver.serving(broker_id):
                return False
        return True

    def bootstrap_servers(self) -> str:
        running = [b for b in self.layout.brokers if self.state(b) is not NodeState.DEAD]
        return ",".join(f"{self.layout.host}:{self.layout.broker_ports[b]}" for b in running)

    # ------------------------------------------------------------------ argument checks
    def check_node(self, node_id: int, role: str | None = None) -> None:
        layout = self.layout
        if not isinstance(node_id, int) or node_id not in layout.node_ids:
            raise ValueError(f"No node with id {node_id!r} in this cluster (brokers "
                             f"{_ids(layout.brokers)}; controllers {_ids(layout.controllers)})")
        if role is not None and role not in layout.roles(node_id):
            raise ValueError(f"Node {node_id} is not a {role} (its process.roles is "
                             f"{','.join(layout.roles(node_id))})")

    def require_state(self, node_id: int, allowed: Iterable[NodeState], verb: str) -> None:
        state = self.state(node_id)
        if state not in allowed:
            hint = {NodeState.DEAD: "it is dead; restart it first",
                    NodeState.PAUSED: "it is paused; resume it first",
                    NodeState.RUNNING: "it is running"}[state]
            raise RuntimeError(f"Cannot {verb} {self.describe(node_id)}: {hint}")

    def describe(self, node_id: int) -> str:
        roles = self.layout.roles(node_id)
        return f"{'node' if len(roles) == 2 else roles[0]} {node_id}"


def _ids(ids) -> str:
    return ",".join(map(str, ids))
