"""Seeded fault scenarios on the simulated driver, with every invariant checked after every step.

Each seed draws a different sequence of crashes, restarts, pauses, network
partitions and latency spikes (one fault at a time, as in "any single
failure"), and the cluster must keep every invariant in `invariants.py` at
every step and converge afterwards: every partition led, every replica back
in the ISR.  A failing seed can be replayed exactly: ``pytest -k "seed-<n>"``.
"""

import random

import pytest

from minikafka import Cluster
from minikafka.drivers.cluster_runtime import NodeState
from tests.sim.invariants import InvariantChecker

FAULTS = ("kill", "pause", "isolate", "latency")


def _one_fault(cluster: Cluster, rng: random.Random, check) -> str:
    node = rng.choice(cluster.broker_ids + cluster.controller_ids)
    fault = rng.choice(FAULTS)
    if fault == "kill":
        cluster.kill(node)
        cluster.run_for(rng.randrange(500, 4000), check)
        cluster.restart(node)
    elif fault == "pause":
        cluster.pause(node)
        cluster.run_for(rng.randrange(500, 4000), check)
        cluster.resume(node)
    elif fault == "isolate":
        cluster.isolate(node)
        cluster.run_for(rng.randrange(500, 4000), check)
        cluster.heal()
    else:
        cluster.add_latency(node, rng.choice((50, 200, 800)))
        cluster.run_for(rng.randrange(500, 3000), check)
        cluster.add_latency(node, 0)
    return f"{fault} {node}"


def _converged(cluster: Cluster) -> bool:
    snap = cluster.snapshot()
    if snap.quorum.leader is None:
        return False
    for topic in snap.topics:
        for p in topic.partitions:
            if p.leader is None or len(p.isr) != len(p.replicas):
                return False
    return all(n.process == "running" for n in snap.nodes)


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed-{s}") for s in range(8)])
def test_single_faults_keep_invariants_and_heal(seed):
    rng = random.Random(seed)
    cluster = Cluster(brokers=3, controllers=3, seed=seed, simulated=True).start()
    check = InvariantChecker(cluster)
    try:
        cluster.create_topic("orders", partitions=3, replication_factor=3,
                             config={"min.insync.replicas": "2"})
        history = []
        for _ in range(4):
            history.append(_one_fault(cluster, rng, check))
            cluster.run_for(rng.randrange(200, 2000), check)
        healed = cluster.wait_until(lambda: _converged(cluster), 30_000)
        check.check_log_matching()
        assert healed, f"did not heal after {history}: {cluster.snapshot().topics}"
        assert check.steps > 0
    finally:
        cluster.stop()


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed-{s}") for s in range(4)])
def test_cut_links_keep_invariants_and_heal(seed):
    """One link at a time cut between two nodes (broker-broker, broker-controller or
    controller-controller), each node still reaching all the others."""
    rng = random.Random(1000 + seed)
    cluster = Cluster(brokers=3, controllers=3, seed=seed, simulated=True).start()
    check = InvariantChecker(cluster)
    try:
        cluster.create_topic("orders", partitions=3, replication_factor=3,
                             config={"min.insync.replicas": "2"})
        history = []
        for _ in range(4):
            a, b = rng.sample(cluster.broker_ids + cluster.controller_ids, 2)
            cluster.cut_link(a, b)
            history.append(f"cut {a}-{b}")
            cluster.run_for(rng.randrange(500, 9000), check)
            cluster.heal()
            cluster.run_for(rng.randrange(200, 2000), check)
        healed = cluster.wait_until(lambda: _converged(cluster), 30_000)
        check.check_log_matching()
        assert healed, f"did not heal after {history}: {cluster.snapshot().topics}"
    finally:
        cluster.stop()


def test_controller_failover_elects_exactly_one_new_leader():
    cluster = Cluster(brokers=3, controllers=3, seed=42, simulated=True).start()
    check = InvariantChecker(cluster)
    try:
        first = cluster.active_controller
        first_epoch = cluster.snapshot().quorum.epoch
        cluster.kill_controller(first)
        cluster.run_for(3000, check)
        second = cluster.active_controller
        assert second not in (None, first)
        elected = [e for e in cluster.events if e.kind == "controller_elected"]
        assert elected[-1].data["leader"] == second
        assert elected[-1].data["epoch"] > first_epoch
        assert cluster.processes.state(first) is NodeState.DEAD
    finally:
        cluster.stop()
