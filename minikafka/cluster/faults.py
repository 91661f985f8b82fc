"""Node lifecycle and the fault verbs of `Cluster` (kill, restart, pause, isolate, ...).

Theory of operation
-------------------
Every verb acts where a real fault acts: on the process or the network,
through the driver.  ``kill`` drops the node object without letting it write
anything (a crash: whatever reached the files stays, nothing is flushed or
checkpointed) and, on the live driver, closes its listener so clients get
"connection refused".  ``restart`` builds a new node from the same data
directory, which recovers from disk.  ``pause`` freezes a process (SIGSTOP):
messages to it queue up and its timers stop, so its session with the
controller expires.  ``isolate`` cuts a node off from the other nodes (not
from clients), ``add_latency`` slows its links, ``wipe`` deletes its data
directory and formats it again (a replaced disk).

Bad targets get a clear error and change nothing: an unknown id, killing a
dead node, resuming one that is not paused.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import time
from typing import Any, Callable, Iterable

from minikafka.cluster.layout import SIM_BROKER_PORT, SIM_CONTROLLER_PORT
from minikafka.drivers.runtime import NodeState
from minikafka.drivers.simulated import SIM_EPOCH_MS, SimulatedDriver
from minikafka.storage.meta_properties import META_PROPERTIES_NAME


class ClusterFaults:
    # ------------------------------------------------------------------ driver plumbing
    def _make_driver(self):
        factory = self._node_factory
        if self.simulated:
            return SimulatedDriver(factory, self.events)
        from minikafka.drivers.live import LiveDriver
        return LiveDriver(factory, self.events)

    def _node_factory(self, node_id: int, incarnation: int, now: int):
        from minikafka.server.kafka_node import KafkaNode
        rng = random.Random(f"{self.layout.seed}:{node_id}:{incarnation}")
        return KafkaNode(self.layout.node_config(node_id), rng, now)

    def _clock_for_format(self) -> int:
        return SIM_EPOCH_MS if self.simulated else int(time.time() * 1000)

    def _assign_ports(self) -> None:
        layout = self.layout
        if self.simulated:
            for index, broker in enumerate(layout.brokers):
                layout.broker_ports[broker] = SIM_BROKER_PORT + 100 * index
            for index, controller in enumerate(layout.controllers):
                layout.controller_ports[controller] = SIM_CONTROLLER_PORT + 100 * index
            return
        from minikafka.drivers.tcp import reserve_port
        self._reserved = {}
        next_port = self._first_port
        for broker in layout.brokers:
            sock = reserve_port(layout.host, next_port or 0)
            layout.broker_ports[broker] = sock.getsockname()[1]
            self._reserved[broker] = sock
            next_port = next_port + 1 if next_port else None
        for controller in layout.controllers:
            probe = reserve_port(layout.host, next_port or 0)
            layout.controller_ports[controller] = probe.getsockname()[1]
            probe.close()      # the controller listener is not served: the number is what matters
            next_port = next_port + 1 if next_port else None

    def _call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` where the nodes live (the cluster thread when live)."""
        if self.simulated:
            with self.driver.lock:          # widgets may snapshot from their own thread
                return fn()
        return self.driver.submit(fn)

    def _add_all_nodes(self) -> None:
        for node_id in self.layout.node_ids:
            self.driver.add_node(node_id, self.layout.roles(node_id))

    def _start_node(self, node_id: int) -> None:
        if not self.simulated and node_id in self.layout.brokers:
            from minikafka.drivers.tcp import BrokerListener
            listener = self.listeners.get(node_id)
            if listener is None:
                sock = self._reserved.pop(node_id, None)
                listener = BrokerListener(self.driver, node_id, self.layout.host,
                                          self.layout.broker_ports[node_id], sock)
                self.listeners[node_id] = listener
            asyncio.run_coroutine_threadsafe(listener.start(serve=False),
                                             self.driver.loop).result(10)
        self._call(lambda: self.driver.start(node_id))

    def _on_event(self, event) -> None:
        """A broker that became unfenced for the first time opens its listener to clients."""
        if event.kind == "broker_started":
            listener = self.listeners.get(event.node)
            if listener is not None:
                listener.enable()          # called on the cluster's loop thread

    def _kill_node(self, node_id: int, reason: str = "killed", kind: str = "node_killed") -> None:
        listener = self.listeners.get(node_id)
        if listener is not None:
            self._call(listener.stop)
        self._call(lambda: self.driver.kill(node_id, reason, kind))

    def _begin_node_shutdown(self, node_id: int, resign: bool = True) -> Callable[[], bool]:
        done = []
        self._call(lambda: self._node(node_id).shutdown(lambda: done.append(True), resign))
        return lambda: bool(done)

    def _state(self, node_id: int) -> NodeState:
        if self.driver is None:
            return NodeState.DEAD
        return self.driver.handles[node_id].state

    def _node(self, node_id: int):
        return self.driver.handles[node_id].node

    def _active_controller_node(self):
        for node_id in self.layout.controllers:
            if self._state(node_id) is not NodeState.RUNNING:
                continue
            node = self._node(node_id)
            if node.controller is not None and node.controller.is_active:
                return node
        return None

    @property
    def active_controller(self) -> int | None:
        """Id of the active controller (the KRaft quorum leader), or None during an election."""
        node = self._call(self._active_controller_node)
        return None if node is None else node.node_id

    # ------------------------------------------------------------------ argument checks
    def _check_node(self, node_id: int, role: str | None = None) -> None:
        if not isinstance(node_id, int) or node_id not in self.layout.node_ids:
            raise ValueError(f"No node with id {node_id!r} in this cluster (brokers "
                             f"{_ids(self.layout.brokers)}; controllers {_ids(self.layout.controllers)})")
        if role is not None and role not in self.layout.roles(node_id):
            raise ValueError(f"Node {node_id} is not a {role} (its process.roles is "
                             f"{','.join(self.layout.roles(node_id))})")

    def _require_state(self, node_id: int, allowed: Iterable[NodeState], verb: str) -> None:
        state = self._state(node_id)
        if state not in allowed:
            hint = {NodeState.DEAD: "it is dead; restart it first",
                    NodeState.PAUSED: "it is paused; resume it first",
                    NodeState.RUNNING: "it is running"}[state]
            raise RuntimeError(f"Cannot {verb} {self._describe(node_id)}: {hint}")

    def _describe(self, node_id: int) -> str:
        roles = self.layout.roles(node_id)
        return f"{'node' if len(roles) == 2 else roles[0]} {node_id}"

    # ------------------------------------------------------------------ fault verbs
    def kill(self, node_id: int) -> None:
        """Crash a node (like ``kill -9``): nothing is flushed, clients are refused."""
        self._check_node(node_id)
        self._require_state(node_id, (NodeState.RUNNING, NodeState.PAUSED), "kill")
        self._kill_node(node_id)

    def shutdown(self, node_id: int, timeout_ms: int = 30_000) -> None:
        """Stop a node cleanly, as ``kafka-server-stop.sh`` (SIGTERM) does: a broker first
        asks the controller for a *controlled shutdown* (its partition leaderships move to
        other in-sync replicas while it still serves), an active controller hands the
        quorum over (EndQuorumEpoch); then the node flushes, writes its clean-shutdown
        marker and exits.  ``restart`` starts it again."""
        self._check_node(node_id)
        self._require_state(node_id, (NodeState.RUNNING,), "shut down")
        finished = self._begin_node_shutdown(node_id)
        if not self._settle(finished, timeout_ms):
            raise TimeoutError(f"{self._describe(node_id)} did not finish its shutdown within "
                               f"{timeout_ms} ms")
        self._kill_node(node_id, "stopped (clean shutdown)", "node_stopped")

    def restart(self, node_id: int) -> None:
        """Start a dead node again on its data directory (it recovers from disk)."""
        self._check_node(node_id)
        self._require_state(node_id, (NodeState.DEAD,), "restart")
        self._start_node(node_id)
        self._call(lambda: self.driver.note("node_restarted",
                                            f"{self._describe(node_id)} restarted", node_id))

    def pause(self, node_id: int) -> None:
        """Freeze a node's process (SIGSTOP): it neither answers nor heartbeats."""
        self._check_node(node_id)
        self._require_state(node_id, (NodeState.RUNNING,), "pause")
        self._call(lambda: self.driver.pause(node_id))

    def resume(self, node_id: int) -> None:
        self._check_node(node_id)
        self._require_state(node_id, (NodeState.PAUSED,), "resume")
        self._call(lambda: self.driver.resume(node_id))

    def isolate(self, *groups) -> None:
        """Network partition between nodes.  ``isolate(2)`` cuts node 2 off from every
        other node; ``isolate([1, 1001], [2, 3])`` splits the cluster into those groups
        (nodes not named stay together).  Partitions add up: isolating 2 and then 3
        leaves both cut off (from everyone and from each other) until ``heal()``.
        Clients still reach every broker."""
        sets = [{g} if isinstance(g, int) else set(g) for g in groups]
        if not sets:
            raise ValueError("isolate() needs at least one node id or group of ids")
        for group in sets:
            for node_id in group:
                self._check_node(node_id)
        text = " | ".join("{" + ",".join(map(str, sorted(g))) + "}" for g in sets)

        def apply() -> None:
            self.driver.network.isolate_more(sets)
            self.driver.note("network_isolated", f"network partition: {text} cut off from the rest",
                             None, groups=[sorted(g) for g in sets])
        self._call(apply)

    def cut_link(self, a: int, b: int) -> None:
        """Drop every message between nodes ``a`` and ``b`` (both ways), while both still
        reach every other node and every client: a firewall rule between two hosts.
        A follower cut from its leader keeps heartbeating to the controller but can
        no longer fetch.  ``heal()`` restores the link."""
        self._check_node(a)
        self._check_node(b)
        if a == b:
            raise ValueError(f"cut_link needs two different nodes, got {a} twice")

        def apply() -> None:
            self.driver.network.cut_link(a, b)
            self.driver.note("network_link_cut",
                             f"network: link {self._describe(a)} <-> {self._describe(b)} cut "
                             f"(messages between them are dropped)", None, nodes=sorted((a, b)))
        self._call(apply)

    def heal(self) -> None:
        """Remove every network partition and cut link."""
        def apply() -> None:
            self.driver.network.heal()
            self.driver.note("network_healed", "network healed: every node can reach every node")
        self._call(apply)

    def add_latency(self, node_id: int, ms: int) -> None:
        """Add ``ms`` one-way delay to every message to or from the node (0 removes it)."""
        self._check_node(node_id)
        if ms < 0:
            raise ValueError(f"Latency must be at least 0 ms, got {ms}")

        def apply() -> None:
            self.driver.network.extra_latency[node_id] = ms
            self.driver.note("latency_changed", f"{self._describe(node_id)}: +{ms} ms latency",
                             node_id, latency_ms=ms)
        self._call(apply)

    def wipe(self, node_id: int) -> None:
        """Crash the node, delete its data directory, format it again and restart it."""
        self._check_node(node_id)
        if self._state(node_id) is not NodeState.DEAD:
            self._kill_node(node_id, reason="killed for a disk wipe")
        directory = self.layout.data_dir(node_id)
        shutil.rmtree(directory, ignore_errors=True)
        self._wipes = getattr(self, "_wipes", 0) + 1
        self.layout.format_storage(self._call(self.driver.now), salt=f"wipe-{self._wipes}")
        self._start_node(node_id)
        self._call(lambda: self.driver.note(
            "node_restarted", f"{self._describe(node_id)} restarted on an empty, newly "
                              f"formatted data directory", node_id))

    # role-specific spellings used by lessons
    def kill_broker(self, broker_id: int) -> None:
        self._check_node(broker_id, "broker")
        self.kill(broker_id)

    def restart_broker(self, broker_id: int) -> None:
        self._check_node(broker_id, "broker")
        self.restart(broker_id)

    def pause_broker(self, broker_id: int) -> None:
        self._check_node(broker_id, "broker")
        self.pause(broker_id)

    def resume_broker(self, broker_id: int) -> None:
        self._check_node(broker_id, "broker")
        self.resume(broker_id)

    def kill_controller(self, controller_id: int) -> None:
        self._check_node(controller_id, "controller")
        self.kill(controller_id)

    def restart_controller(self, controller_id: int) -> None:
        self._check_node(controller_id, "controller")
        self.restart(controller_id)


def _ids(ids) -> str:
    return ",".join(map(str, ids))


_ = META_PROPERTIES_NAME
