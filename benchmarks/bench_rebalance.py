"""A fourth member joins a stable group of three: classic against consumer protocol.

On a live cluster with the teaching timings (``group.consumer.heartbeat.
interval.ms`` 1 s, ``group.initial.rebalance.delay.ms`` 600 ms), three
members share a 12-partition topic, each spending 0.3 s on every batch;
then a fourth member joins.  The members are real clients: kafka-python for
the classic protocol, confluent-kafka with ``group.protocol=consumer`` for
KIP-848.  Their rebalance callbacks say when each partition was given up and
received (`minikafka.drills.group_protocol_drills`).  Reported per protocol,
median and worst over the runs:

* partitions given up (the classic protocol's eager assignors give up all
  of them; the consumer protocol only those that move);
* the rebalance window: from the first partition given up to the moment
  every partition is owned again (target for the consumer protocol: under 2
  heartbeat intervals, 2 s);
* the longest time one partition had no owner.

The time a new client takes to start and find its coordinator is not in the
window (kafka-python's first JoinGroup comes about 2 s after it starts).
No asserts.

    .venv/bin/python benchmarks/bench_rebalance.py [runs]
"""

from __future__ import annotations

import logging
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from minikafka import Cluster  # noqa: E402
from minikafka.drills.group_protocol_drills import rebalance_once, unowned_windows  # noqa: E402

HEARTBEAT_MS = 1000      # the teaching profile's group.consumer.heartbeat.interval.ms


def measure(cluster: Cluster, protocol: str, group: str) -> tuple[int, float, float]:
    run = rebalance_once(cluster, protocol, "clicks", group)
    spans = [span for windows in unowned_windows(run).values() for span in windows]
    given_up = sum(1 for windows in unowned_windows(run).values() if windows)
    window_ms = (max(end for _, end in spans) - min(start for start, _ in spans)) * 1000
    longest_ms = max(end - start for start, end in spans) * 1000
    return given_up, window_ms, longest_ms


def main(runs: int) -> None:
    logging.getLogger("kafka").setLevel(logging.CRITICAL)
    results: dict[str, list[tuple[int, float, float]]] = {"classic": [], "consumer": []}
    with Cluster(seed=5) as cluster:
        cluster.create_topic("clicks", partitions=12, replication_factor=3)
        for i in range(runs):
            for protocol in results:
                results[protocol].append(measure(cluster, protocol, f"{protocol}-{i}"))
    print(f"{runs} runs; 12 partitions; teaching heartbeat interval {HEARTBEAT_MS} ms")
    for protocol, rows in results.items():
        given_up = sorted({r[0] for r in rows})
        windows = [r[1] for r in rows]
        longest = [r[2] for r in rows]
        print(f"{protocol:>8}: partitions given up {given_up}; rebalance window median "
              f"{statistics.median(windows):.0f} ms, worst {max(windows):.0f} ms "
              f"({max(windows) / HEARTBEAT_MS:.2f} heartbeat intervals); longest unowned partition "
              f"median {statistics.median(longest):.0f} ms, worst {max(longest):.0f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
