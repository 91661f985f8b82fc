"""Kafka 4.3.1's ``kafka-metadata-shell`` reading the sandbox's own ``__cluster_metadata`` log.

The shell loads a metadata log segment with Kafka's own ``MetadataLoader``,
the code a broker uses to build its metadata image, and shows the image as a
file tree.  Pointed at a sandbox controller's segment, it must rebuild the
same cluster the sandbox reports: the same topics and ids, the same
partition registrations, brokers, controllers, configs and finalized
features.  Every expectation below is computed from the sandbox (its
snapshot and the image it replays from its own records), never written out.
"""

from __future__ import annotations

import re

import pytest

from minikafka import Cluster
from minikafka.cluster.metadata_log import replay_metadata
from minikafka.jvm import run_kafka_tool

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


@pytest.fixture(scope="module")
def cluster(kafka_classpath):
    # Kafka's own shell reads the metadata log from the real disk: a simulated cluster on disk
    with Cluster(brokers=3, controllers=1, simulated=True, seed=1207, storage="disk") as running:
        running.create_topic("orders", partitions=3, replication_factor=3, config={"retention.ms": "60000"})
        running.create_topic("payments", partitions=1, replication_factor=2)
        running.kill_broker(2)                 # fenced: its partitions lose it from the ISR
        running.wait_until(lambda: 2 not in running.isr("orders", 0), timeout_ms=30_000)
        yield running


def shell(cluster: Cluster, command: str, path: str) -> str:
    """What ``kafka-metadata-shell --snapshot <segment> cat|ls <path>`` prints once the whole segment is loaded.

    Kafka's MetadataShell runs its command as soon as its MetadataLoader has applied anything past
    offset 0 (``MetadataShell.waitUntilCaughtUp``) while the loader goes on reading the file, so a
    command may see the image of only the first batches (4.3.1 printed ``0`` for a feature at level 2
    that way, once in four runs), or even the empty image before any batch: its provenance then reads
    ``offset -1, epoch -1`` (once in 40 runs).  Each run therefore shows ``/image/provenance`` first, in the same
    command, and runs again until that image holds the segment's last record; the image only grows
    while the command runs.  ``ls`` is asked as ``tree`` so that it can show the provenance too, and
    the names are the tree's top-level entries.
    """
    segment = cluster.node_data_dir(cluster.controller_ids[0]) / "__cluster_metadata-0" / "00000000000000000000.log"
    last = cluster.metadata_records(include_noops=True)[-1].offset
    verb = {"cat": "cat", "ls": "tree"}[command]
    for _ in range(10):
        result = run_kafka_tool("kafka-metadata-shell", ["--snapshot", str(segment), verb, "/image/provenance", path],
                                quiet=True)
        assert result.returncode == 0, result.stderr[-2000:]
        provenance, _, text = result.stdout.partition("\n")
        if int(re.match(r"offset (-?\d+),", provenance).group(1)) >= last:
            if command == "ls":
                return "\n".join(line[:-1] for line in text.splitlines() if line.endswith(":")
                                 and not line.startswith(" "))
            return text
    pytest.fail(f"kafka-metadata-shell never showed the whole segment (up to offset {last}): {provenance}")


def test_the_shell_lists_the_sandboxs_topics_and_nodes(cluster):
    snapshot = cluster.snapshot()
    assert shell(cluster, "ls", "/image/topics/byName").split() == sorted(t.name for t in snapshot.topics)
    assert shell(cluster, "ls", "/image/cluster/brokers").split() == [str(b) for b in sorted(cluster.broker_ids)]
    assert shell(cluster, "ls", "/image/cluster/controllers").split() == [str(c) for c in cluster.controller_ids]


def test_partition_registrations_match_the_sandboxs_snapshot(cluster):
    for topic in cluster.snapshot().topics:
        assert shell(cluster, "cat", f"/image/topics/byName/{topic.name}/id").strip() == topic.topic_id
        for partition in topic.partitions:
            text = shell(cluster, "cat", f"/image/topics/byName/{topic.name}/{partition.partition}")
            fields = dict(re.findall(r"(\w+)=(\[[^\]]*\]|[^,)]+)", text))
            ids = lambda values: "[" + ", ".join(str(v) for v in values) + "]"  # noqa: E731
            assert (fields["replicas"], fields["isr"], fields["elr"], fields["lastKnownElr"]) == (
                ids(partition.replicas), ids(partition.isr), ids(partition.elr), ids(partition.last_known_elr))
            assert (int(fields["leader"]), int(fields["leaderEpoch"]), int(fields["partitionEpoch"])) == (
                -1 if partition.leader is None else partition.leader, partition.leader_epoch,
                partition.partition_epoch)


def test_broker_registrations_show_who_is_fenced(cluster):
    image = replay_metadata(cluster.metadata_records())
    for broker_id, registration in image.cluster.brokers.items():
        text = shell(cluster, "cat", f"/image/cluster/brokers/{broker_id}")
        assert f"id={broker_id}, epoch={registration.epoch}," in text
        assert f"fenced={str(registration.fenced).lower()}," in text
    assert "fenced=true," in shell(cluster, "cat", "/image/cluster/brokers/2")


def test_configs_and_finalized_features_match_the_sandboxs_image(cluster):
    image = replay_metadata(cluster.metadata_records())
    assert shell(cluster, "cat", "/image/configs/TOPIC:orders/retention.ms").strip() == \
        cluster.snapshot().topic("orders").configs["retention.ms"]
    listed = shell(cluster, "ls", "/image/features").split()
    expected = sorted(f"finalized_{name}" for name, level in image.features.finalized_versions.items() if level > 0)
    assert [name for name in listed if name != "metadataVersion"] == expected
    for name in expected:
        level = image.features.finalized_versions[name.removeprefix("finalized_")]
        assert shell(cluster, "cat", f"/image/features/{name}").strip() == str(level)
