"""The active controller a snapshot names is the one the quorum follows (issue 24): after the
leader is cut off from the other controllers, a majority elects another in a later epoch, and the
old leader (which may still believe it leads, then resigns) is neither the snapshot's active
controller nor the diagram's."""

from __future__ import annotations

import pytest

from minikafka import Cluster
from widgets.topology_text import topology_text


@pytest.mark.parametrize("seed", [1, 5])     # seeds whose first leader is 1001, the lowest id
@pytest.mark.parametrize("settle_ms", [0, 3_000])   # at once, and once the old leader gave up
def test_an_isolated_leader_is_not_the_active_controller_once_another_is_elected(seed, settle_ms):
    cluster = Cluster(brokers=3, controllers=3, seed=seed, simulated=True).start()
    try:
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        before = cluster.snapshot().quorum
        old = before.leader
        assert old == 1001
        cluster.isolate(old)
        others = [c for c in cluster.controller_ids if c != old]
        # a majority elects one of the others, whose controller then becomes active (until
        # then the snapshot names no active controller: an election is in progress)
        assert cluster.wait_until(lambda: any(
            n.raft_role == "leader" and n.node_id in others for n in cluster.snapshot().nodes)
            and cluster.snapshot().quorum.leader is not None, 20_000)
        cluster.run_for(settle_ms)
        snapshot = cluster.snapshot()
        quorum = snapshot.quorum
        new = quorum.leader
        assert new in others and quorum.epoch > before.epoch
        assert quorum.epoch == snapshot.node(new).raft_epoch
        assert snapshot.node(new).raft_role == "leader"
        stale = snapshot.node(old)
        assert stale.isolated and stale.raft_epoch < quorum.epoch
        header = topology_text(snapshot).splitlines()[0]
        assert f"active controller {new}" in header and f"active controller {old}" not in header
        # requests go to the new active controller: a topic can still be created
        cluster.create_topic("payments", partitions=1, replication_factor=3)
        assert "payments" in cluster.topics()
    finally:
        cluster.heal()
        cluster.stop()
