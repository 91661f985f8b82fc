"""Cluster(features=...): the feature levels a new cluster is formatted with (kafka-storage.sh format --feature)."""

import pytest

from minikafka import Cluster


def finalized(cluster):
    return dict(cluster.processes.cluster_image().features.finalized_versions)


def test_level_0_keeps_eligible_leader_replicas_off():
    cluster = Cluster(brokers=1, controllers=1, seed=3, simulated=True,
                      features={"eligible.leader.replicas.version": 0}).start()
    try:
        assert "eligible.leader.replicas.version" not in finalized(cluster)     # level 0: no record
    finally:
        cluster.stop()


def test_features_turn_eligible_leader_replicas_on():
    cluster = Cluster(brokers=1, controllers=1, seed=3, simulated=True,
                      features={"eligible.leader.replicas.version": 1}).start()
    try:
        assert finalized(cluster)["eligible.leader.replicas.version"] == 1
        assert finalized(cluster)["group.version"] == 1             # the others keep their defaults
    finally:
        cluster.stop()


def test_share_and_streams_groups_are_finalized_as_kafka_4_3_formats_a_cluster_and_can_be_left_out():
    cluster = Cluster(brokers=1, controllers=1, seed=3, simulated=True).start()
    try:
        levels = finalized(cluster)
        assert (levels["share.version"], levels["streams.version"]) == (1, 1)
        assert cluster.processes.cluster_image().features.metadata_version == 30            # 4.3-IV0
    finally:
        cluster.stop()
    cluster = Cluster(brokers=1, controllers=1, seed=3, simulated=True,
                      features={"share.version": 0, "streams.version": 0}).start()
    try:
        assert "share.version" not in finalized(cluster) and "streams.version" not in finalized(cluster)
    finally:
        cluster.stop()


@pytest.mark.parametrize("features, message", [
    ({"metadata.version": 30}, "'metadata.version' cannot be set at format time here"),
    ({"kraft.version": 1}, "'kraft.version' cannot be set at format time here"),
    ({"streams.version": 2}, "streams.version must be a level from 0 to 1"),
    ({"eligible.leader.replicas.version": 2}, "eligible.leader.replicas.version must be a level from 0 to 1"),
    ({"eligible.leader.replicas.version": "1"}, "must be a level from 0 to 1, not '1'"),
])
def test_bad_features_are_refused_before_anything_is_created(features, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        Cluster(brokers=1, controllers=1, data_dir=tmp_path / "c", simulated=True, features=features)
    assert not (tmp_path / "c").exists()
