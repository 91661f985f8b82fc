"""Spark benchmarks: Spark's Kafka connector against Kafka's own consumer, and lesson 07's cost.

Prints numbers; asserts nothing.  Two parts:

* **Batch read throughput.**  A live cluster (3 brokers, teaching timing)
  holds 100,000 records of 100 bytes in a 3-partition topic.  In the same
  run, alternately, the records are read by (a) a Spark batch query through
  Spark's own connector, ``format("kafka")`` (``count(*)`` and
  ``sum(length(value))``, so every value reaches Spark), and (b) Kafka's
  consumer performance tool, ``kafka-consumer-perf-test`` (the Java client
  4.3.1, in a JVM of its own).  Reported: medians, records/s and the ratio
  (target: Spark at >= 0.5x the Java consumer).  The tool's rate counts its
  group join as Spark's counts its planning; its fetch-only rate is shown
  too.  Spark's first read, which starts its Python workers and loads the
  connector, is reported apart.
* **Lesson 07.**  The notebook runs in a fresh kernel (nbclient, as nbval
  does) while the kernel and everything it starts (Spark's JVM and Python
  workers) are sampled: wall time, peak RSS summed over the processes, and
  peak PSS (proportional set size: a page shared by N processes counts 1/N
  in each, so the sum is the memory really in use; the RSS sum counts shared
  libraries once per process).

Run: ``.venv/bin/python benchmarks/bench_spark.py [--runs 3] [--records 100000] [--skip-lesson]``
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

TOPIC = "bench-read"
VALUE_BYTES = 100


# ---------------------------------------------------------------- batch read throughput
def fill_topic(cluster, records: int) -> None:
    from kafka import KafkaProducer

    cluster.create_topic(TOPIC, partitions=3, replication_factor=1)
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, linger_ms=5, batch_size=256 * 1024)
    value = b"x" * VALUE_BYTES
    for n in range(records):
        producer.send(TOPIC, value, partition=n % 3)
    producer.flush()
    producer.close()


def spark_read(spark, bootstrap: str) -> dict:
    df = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
          .option("subscribe", TOPIC).load())
    started = time.perf_counter()
    row = df.selectExpr("count(*) AS n", "sum(length(value)) AS size").collect()[0]
    return {"seconds": time.perf_counter() - started, "records": row.n, "bytes": row.size}


def java_read(bootstrap: str, records: int) -> dict:
    from bench_java_perf import consumer_perf  # the same tool run, read the same way

    return consumer_perf(bootstrap, TOPIC, records)


def read_throughput(runs: int, records: int) -> None:
    from minikafka import Cluster
    from minikafka.spark import get_spark

    logging.getLogger("kafka").setLevel(logging.ERROR)
    with Cluster(brokers=3, controllers=1, seed=14) as cluster:
        fill_topic(cluster, records)
        bootstrap = cluster.bootstrap_servers
        spark = get_spark(quiet=True)
        first = spark_read(spark, bootstrap)
        spark_runs, java_runs = [], []
        for _ in range(runs):  # alternate, so a noisy moment on the machine hits both alike
            java_runs.append(java_read(bootstrap, records))
            spark_runs.append(spark_read(spark, bootstrap))
        spark.stop()
    wrong = [r for r in spark_runs + [first] if r["records"] != records]
    if wrong:  # a read that missed records would make its time meaningless
        print(f"WARNING: Spark reads that did not return {records:,} records: {wrong}")
    spark_s = statistics.median(r["seconds"] for r in spark_runs)
    java_rate = statistics.median(r["records_per_s"] for r in java_runs)
    java_fetch_rate = statistics.median(r["fetch_records_per_s"] for r in java_runs)
    print(f"batch read of {records:,} records x {VALUE_BYTES} B from 3 partitions (median of {runs})")
    print(f"  Spark, format('kafka'):         {spark_s:6.2f} s  {records / spark_s:>9,.0f} records/s"
          f"   (first read, starting the workers: {first['seconds']:.2f} s)")
    print(f"  kafka-consumer-perf-test:       {records / java_rate:6.2f} s  {java_rate:>9,.0f} records/s"
          f"   (fetching only: {java_fetch_rate:,.0f} records/s)")
    print(f"  Spark / Java consumer:      {records / spark_s / java_rate:.2f}x  (target >= 0.5x)")


# ---------------------------------------------------------------- lesson 07: time and memory
def process_tree_memory(pid: int) -> dict:
    import psutil

    usage = {"kernel": [0, 0], "jvm": [0, 0], "python workers": [0, 0]}
    try:
        root = psutil.Process(pid)
        processes = [root] + root.children(recursive=True)
    except psutil.Error:  # the kernel has just exited
        return usage
    for process in processes:
        try:
            info = process.memory_full_info()
            name = process.name()
        except psutil.Error:
            continue
        part = "kernel" if process.pid == pid else "jvm" if name == "java" else "python workers"
        usage[part][0] += info.rss
        usage[part][1] += info.pss
    return usage


def run_lesson() -> None:
    import nbformat
    from nbclient import NotebookClient

    path = os.path.join(ROOT, "lessons", "07_pyspark_streaming.ipynb")
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}})
    peak = {"rss": 0, "pss": 0, "at_rss_peak": None}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            pid = getattr(getattr(client.km, "provisioner", None), "pid", None) if client.km else None
            if pid is None:
                continue
            usage = process_tree_memory(pid)
            rss = sum(part[0] for part in usage.values())
            peak["pss"] = max(peak["pss"], sum(part[1] for part in usage.values()))
            if rss > peak["rss"]:
                peak["rss"], peak["at_rss_peak"] = rss, usage

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - started
    done.set()
    sampler.join()
    mib = 2**20
    print("lesson 07 (07_pyspark_streaming.ipynb, fresh kernel)")
    print(f"  wall time: {elapsed:.1f} s  (target < 90 s)")
    print(f"  peak RSS, kernel + JVM + Python workers: {peak['rss'] / mib:,.0f} MiB;"
          f"  peak PSS: {peak['pss'] / mib:,.0f} MiB  (target < 1.5 GB)")
    if peak["at_rss_peak"]:
        parts = ", ".join(f"{name} {rss / mib:,.0f}/{pss / mib:,.0f}"
                          for name, (rss, pss) in peak["at_rss_peak"].items())
        print(f"  at the RSS peak, RSS/PSS MiB: {parts}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--skip-lesson", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    read_throughput(args.runs, args.records)
    if not args.skip_lesson:
        run_lesson()


if __name__ == "__main__":
    main()
