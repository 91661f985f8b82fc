"""A real Apache Kafka 4.3.1 node of the differential suite: time to start and memory.

Prints numbers; asserts nothing.  Each run formats and starts, in a fresh
temporary directory, the reference the differential suite (tests/oracle)
compares the sandbox with: one combined ``broker,controller`` node, then
three brokers and a controller.  Reported per shape: the time
``kafka-storage format`` took (one JVM per node, two at a time), the time
from launching the nodes until every one logged that it started, and the
resident memory of each node's JVM a second after that (``-Xmx`` as the
suite gives it).  Targets (issue 13): a node up in under 20 s and under
400 MB RSS.

The suite's own time is the summary line of its run
(``make test-oracle`` or the serial pass of ``make test``).

Run: ``.venv/bin/python benchmarks/bench_real_kafka.py [--runs 3]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import psutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

SHAPES = {"combined node": ((1,), (1,)), "3 brokers + 1 controller": ((1, 2, 3), (1001,))}


def one_start(brokers: tuple[int, ...], controllers: tuple[int, ...]) -> dict:
    from tests.oracle.real_kafka import RealKafkaCluster

    with tempfile.TemporaryDirectory(prefix="bench-real-kafka-") as root:
        cluster = RealKafkaCluster(root, brokers=brokers, controllers=controllers)
        started = time.perf_counter()
        cluster.format()
        formatted = time.perf_counter()
        try:
            order = [n for n in cluster.nodes.values() if "broker" not in n.roles]
            order += [n for n in cluster.nodes.values() if "broker" in n.roles]
            for node in order:
                cluster._launch(node)
            for node in order:
                cluster._wait_started(node, 120)
            up = time.perf_counter()
            time.sleep(1.0)
            rss = [psutil.Process(node.process.pid).memory_info().rss for node in order]
        finally:
            cluster.stop()
    return {"format_s": formatted - started, "start_s": up - formatted, "max_rss": max(rss)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from minikafka.jvm import kafka_classpath

    kafka_classpath(quiet=True)  # fetch the jars first, so no run counts the download
    for shape, (brokers, controllers) in SHAPES.items():
        runs = [one_start(brokers, controllers) for _ in range(args.runs)]
        median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        print(f"{shape} (median of {args.runs}): format {median['format_s']:.1f} s, "
              f"launch to started {median['start_s']:.1f} s (target < 20 s), "
              f"largest JVM {median['max_rss'] / 2**20:,.0f} MiB RSS (target < 400 MB)")


if __name__ == "__main__":
    main()
