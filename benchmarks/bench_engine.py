"""Engine benchmarks.  Prints medians; asserts nothing.

* live start: time for ``Cluster(brokers=3, controllers=3).start()`` (a controller
  leads, every broker registered and unfenced);
* topic propagation: from ``create_topic("t", 3, 3)`` being sent to the moment every
  broker's metadata image has the topic with its leaders;
* simulation speed: virtual time / wall time for a 6-node cluster while records are
  produced continuously (acks=all, RF 3);
* idle memory: RSS of a process holding an idle live 6-node cluster with 10 topics.

Run: ``.venv/bin/python benchmarks/bench_engine.py``
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from minikafka import Cluster  # noqa: E402
from minikafka.record.memory_records import SimpleRecord, build_batch  # noqa: E402


def live_start(runs: int = 5) -> float:
    times = []
    for seed in range(runs):
        started = time.perf_counter()
        cluster = Cluster(brokers=3, controllers=3, seed=seed).start()
        times.append(time.perf_counter() - started)
        cluster.stop()
    return statistics.median(times)


def topic_propagation(runs: int = 5) -> float:
    cluster = Cluster(brokers=3, controllers=3, seed=1).start()
    times = []
    try:
        for i in range(runs):
            started = time.perf_counter()
            cluster.create_topic(f"t{i}", partitions=3, replication_factor=3)   # returns when all see it
            times.append(time.perf_counter() - started)
    finally:
        cluster.stop()
    return statistics.median(times)


def simulation_speed(virtual_ms: int = 60_000) -> tuple[float, int]:
    """Virtual/wall ratio while a producer appends 20 batches/s of 10 x 100-byte records."""
    from minikafka.common.topic_partition import TopicPartition
    cluster = Cluster(brokers=3, controllers=3, seed=9, simulated=True).start()
    cluster.create_topic("load", partitions=3, replication_factor=3)
    acked = []
    batch = build_batch([SimpleRecord(value=b"x" * 100) for _ in range(10)])

    def produce_tick(i=[0]):
        leader = cluster.leader("load", i[0] % 3)
        node = cluster.processes.node(leader)
        tp = TopicPartition("load", i[0] % 3)
        node.broker.replica_manager.append_records(-1, 5000, {tp: batch},
                                                   lambda r: acked.append(r[tp].error))
        i[0] += 1

    started = time.perf_counter()
    for _ in range(virtual_ms // 50):
        cluster.processes.call(produce_tick)
        cluster.run_for(50)
    wall = time.perf_counter() - started
    cluster.stop()
    return virtual_ms / 1000 / wall, len(acked)


def idle_rss_mb() -> float:
    code = ("import time,psutil,os;from minikafka import Cluster;"
            "c=Cluster(brokers=3,controllers=3,seed=1).start();"
            "[c.create_topic(f't{i}',partitions=3,replication_factor=3) for i in range(10)];"
            "time.sleep(2);print(psutil.Process(os.getpid()).memory_info().rss/2**20);c.stop()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    results = {
        "live_start_median_s": round(live_start(), 3),
        "topic_visible_on_all_brokers_median_ms": round(topic_propagation() * 1000, 1),
    }
    ratio, acked = simulation_speed()
    results["simulated_speed_x_real_time"] = round(ratio, 1)
    results["simulated_acks_all_batches"] = acked
    results["idle_rss_mb_6_nodes_10_topics"] = round(idle_rss_mb(), 1)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
