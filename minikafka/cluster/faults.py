"""`FaultVerbs`: the fault verbs of `Cluster` (kill, restart, pause, isolate, ...).

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

``lose_power`` is the machine's fault, not only the process's: each named
node's process dies as with ``kill`` and its disk keeps only what was
flushed (fsync).  ``kill`` keeps every written byte, as the operating
system's page cache survives a process crash.  Kafka flushes rarely
(``flush.messages``, ``flush.ms``: never by default) and relies on
replication instead, so a power loss of every replica at once loses
acknowledged records.  It needs the in-memory storage (`NodeDisks`, the
default of a simulated cluster), which can drop what was not flushed.

Bad targets get a clear error and change nothing: an unknown id, killing a
dead node, resuming one that is not paused, any process verb on a cluster
that is not running.

Two verbs are the sandbox's convenience, not Kafka's (an operator looks
before acting; a notebook cell cannot know which widget button was pressed
before it ran): ``ensure_dead`` and ``ensure_running`` *reach* a process
state instead of toggling it.  Each acts only when the node is not in that
state yet, through the verbs above, and prints one line saying what it did
or that there was nothing to do ("broker 3 is already dead (a button
press?): nothing to do").

The verbs receive the cluster's `NodeProcesses` (the driver and the nodes on
it) and nothing else.
"""

from __future__ import annotations

from minikafka.cluster.processes import NodeProcesses
from minikafka.drivers.cluster_runtime import NodeState


# The process states in which each fault verb can act on a node; the verbs check it, and the
# failure panel enables its buttons by it.  (isolate and heal act on the network, in any state.)
APPLIES: dict[str, tuple[NodeState, ...]] = {
    "kill": (NodeState.RUNNING, NodeState.PAUSED),
    "shutdown": (NodeState.RUNNING,),
    "restart": (NodeState.DEAD,),
    "pause": (NodeState.RUNNING,),
    "resume": (NodeState.PAUSED,),
}

class FaultVerbs:
    def __init__(self, processes: NodeProcesses):
        self._processes = processes    # the driver and the nodes on it

    def _check(self, node_id: int, allowed: tuple[NodeState, ...], verb: str) -> None:
        self._processes.check_node(node_id)
        self._require_started(verb)
        self._processes.require_state(node_id, allowed, verb)

    def _require_started(self, verb: str) -> None:
        if not self._processes.started:
            raise RuntimeError(f"Cannot {verb} a node: the cluster is not running (it was stopped, "
                               f"or never started)")

    def _note(self, kind: str, text: str, node_id: int | None = None, **data) -> None:
        """Write the driver's own line about a fault (the sandbox's words, on its thread)."""
        driver = self._processes.driver
        self._processes.call(lambda: driver.note(kind, text, node_id, **data))

    def kill(self, node_id: int) -> None:
        """Crash a node (like ``kill -9``): nothing is flushed, clients are refused; every byte it
        wrote stays (the page cache survives a process crash: see `lose_power`)."""
        self._check(node_id, APPLIES["kill"], "kill")
        self._processes.kill_node(node_id)

    def lose_power(self, *node_ids: int) -> dict[int, int]:
        """Cut the power of the named nodes' machines at one instant: each process dies (as
        ``kill``; a dead node just loses its disk's unflushed bytes) and each disk keeps only
        what was flushed.  Returns node id -> bytes written but not flushed, now gone.
        ``restart`` brings a node back: with no clean-shutdown marker it recovers its logs.
        Needs the in-memory storage (``storage="memory"``, a simulated cluster's default)."""
        if not node_ids:
            raise ValueError("lose_power() needs at least one node id")
        for node_id in node_ids:
            self._processes.check_node(node_id)
        if len(set(node_ids)) != len(node_ids):
            raise ValueError(f"lose_power() names a node twice: {list(node_ids)}")
        self._require_started("cut the power of")
        if not self._processes.layout.disks.in_memory:
            raise RuntimeError("lose_power needs the in-memory storage: this cluster keeps its files "
                               "on the real disk, which cannot forget what was not flushed. Use "
                               "Cluster(..., storage='memory') (the default of simulated=True "
                               "without a data_dir); kill() is a process crash, which keeps every "
                               "written byte")
        return self._processes.lose_power(list(node_ids))

    def shutdown(self, node_id: int, timeout_ms: int = 30_000) -> None:
        """Stop a node cleanly, as ``kafka-server-stop.sh`` (SIGTERM) does: a broker first
        asks the controller for a *controlled shutdown* (its partition leaderships move to
        other in-sync replicas while it still serves), an active controller hands the
        quorum over (EndQuorumEpoch); then the node flushes, writes its clean-shutdown
        marker and exits.  ``restart`` starts it again."""
        self._check(node_id, APPLIES["shutdown"], "shut down")
        processes = self._processes
        finished = processes.begin_node_shutdown(node_id)
        if not processes.settle(finished, timeout_ms):
            raise TimeoutError(f"{processes.describe(node_id)} did not finish its shutdown within "
                               f"{timeout_ms} ms")
        processes.kill_node(node_id, "stopped (clean shutdown)", "node_stopped")

    def restart(self, node_id: int) -> None:
        """Start a dead node again on its data directory (it recovers from disk)."""
        self._check(node_id, APPLIES["restart"], "restart")
        self._processes.start_node(node_id)
        self._note("node_restarted", f"{self._processes.describe(node_id)} restarted", node_id)

    def pause(self, node_id: int) -> None:
        """Freeze a node's process (SIGSTOP): it neither answers nor heartbeats."""
        self._check(node_id, APPLIES["pause"], "pause")
        self._processes.call(lambda: self._processes.driver.pause(node_id))

    def resume(self, node_id: int) -> None:
        self._check(node_id, APPLIES["resume"], "resume")
        self._processes.call(lambda: self._processes.driver.resume(node_id))

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
                self._processes.check_node(node_id)
        text = " | ".join("{" + ",".join(map(str, sorted(g))) + "}" for g in sets)
        driver = self._processes.driver

        def apply() -> None:
            driver.network.isolate_more(sets)
            driver.note("network_isolated", f"network partition: {text} cut off from the rest",
                        None, groups=[sorted(g) for g in sets])
        self._processes.call(apply)

    def cut_link(self, a: int, b: int) -> None:
        """Drop every message between nodes ``a`` and ``b`` (both ways), while both still
        reach every other node and every client: a firewall rule between two hosts.
        A follower cut from its leader keeps heartbeating to the controller but can
        no longer fetch.  ``heal()`` restores the link."""
        processes = self._processes
        processes.check_node(a)
        processes.check_node(b)
        if a == b:
            raise ValueError(f"cut_link needs two different nodes, got {a} twice")

        def apply() -> None:
            processes.driver.network.cut_link(a, b)
            processes.driver.note(
                "network_link_cut", f"network: link {processes.describe(a)} <-> "
                                    f"{processes.describe(b)} cut (messages between them are "
                                    f"dropped)", None, nodes=sorted((a, b)))
        processes.call(apply)

    def heal(self) -> None:
        """Remove every network partition and cut link."""
        driver = self._processes.driver

        def apply() -> None:
            driver.network.heal()
            driver.note("network_healed", "network healed: every node can reach every node")
        self._processes.call(apply)

    def add_latency(self, node_id: int, ms: int) -> None:
        """Add ``ms`` one-way delay to every message to or from the node (0 removes it)."""
        self._processes.check_node(node_id)
        if ms < 0:
            raise ValueError(f"Latency must be at least 0 ms, got {ms}")
        driver, name = self._processes.driver, self._processes.describe(node_id)

        def apply() -> None:
            driver.network.extra_latency[node_id] = ms
            driver.note("latency_changed", f"{name}: +{ms} ms latency", node_id, latency_ms=ms)
        self._processes.call(apply)

    def wipe(self, node_id: int) -> None:
        """Crash the node, delete its data directory, format it again and restart it."""
        processes = self._processes
        processes.check_node(node_id)
        if processes.state(node_id) is not NodeState.DEAD:
            processes.kill_node(node_id, reason="killed for a disk wipe")
        processes.layout.disks.replace_disk(node_id)
        processes.wipes += 1
        processes.layout.format_storage(processes.now(), salt=f"wipe-{processes.wipes}")
        processes.start_node(node_id)
        self._note("node_restarted", f"{processes.describe(node_id)} restarted on an empty, newly "
                                     f"formatted data directory", node_id)

    # ------------------------------------------------------------------ verbs that reach a state
    def ensure_dead(self, node_id: int) -> None:
        """Make sure the node's process is dead: kill it (as ``kill``) if it is running or
        paused, else do nothing.  Prints one line saying which.  The sandbox's convenience
        for notebook cells that a widget button may have run ahead of; Kafka has no such verb."""
        print(self.reach_dead(node_id))

    def ensure_running(self, node_id: int) -> None:
        """Make sure the node's process is running: restart it if it is dead, resume it if it
        is paused, else do nothing.  Prints one line saying which (and whether a network
        partition still cuts the node off: ``heal`` ends that).  The sandbox's convenience;
        Kafka has no such verb."""
        print(self.reach_running(node_id))

    def reach_dead(self, node_id: int) -> str:
        """`ensure_dead` without the printing: returns its line."""
        self._processes.check_node(node_id)
        self._require_started("kill")
        name = self._processes.describe(node_id)
        if self._processes.state(node_id) is NodeState.DEAD:
            return f"{name} is already dead (a button press?): nothing to do"
        self.kill(node_id)
        return f"{name} killed"

    def reach_running(self, node_id: int) -> str:
        """`ensure_running` without the printing: returns its line."""
        processes = self._processes
        processes.check_node(node_id)
        self._require_started("restart")
        name = processes.describe(node_id)
        state = processes.state(node_id)
        if state is NodeState.DEAD:
            self.restart(node_id)
            line = f"{name} restarted"
        elif state is NodeState.PAUSED:
            self.resume(node_id)
            line = f"{name} resumed"
        else:
            line = f"{name} is already running: nothing to do"
        if processes.driver.network.is_isolated(node_id) or processes.driver.network.cut_peers(node_id):
            line += " (a network partition still cuts it off: heal() ends that)"
        return line

    # role-specific spellings used by lessons
    def kill_broker(self, broker_id: int) -> None:
        self._processes.check_node(broker_id, "broker")
        self.kill(broker_id)

    def restart_broker(self, broker_id: int) -> None:
        self._processes.check_node(broker_id, "broker")
        self.restart(broker_id)

    def pause_broker(self, broker_id: int) -> None:
        self._processes.check_node(broker_id, "broker")
        self.pause(broker_id)

    def resume_broker(self, broker_id: int) -> None:
        self._processes.check_node(broker_id, "broker")
        self.resume(broker_id)

    def kill_controller(self, controller_id: int) -> None:
        self._processes.check_node(controller_id, "controller")
        self.kill(controller_id)

    def restart_controller(self, controller_id: int) -> None:
        self._processes.check_node(controller_id, "controller")
        self.restart(controller_id)
