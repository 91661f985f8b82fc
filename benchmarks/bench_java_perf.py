"""Kafka's own performance tools (Java client 4.3.1) against the sandbox, measured against a sink broker.

Prints numbers; asserts nothing.  In the same run, alternately,
``kafka-producer-perf-test`` (100-byte records, a fixed record count,
``--throughput -1``, the first 10% as warm-up) produces to:

* the **sandbox**: a live 3-broker cluster (3 controllers, teaching timing
  profile) in this process, one partition, acks=1 on an RF 1 topic and
  acks=all (the Java client's default: idempotent) on an RF 3 topic;
* the **sink** (``sink_broker.py``, a process of its own): it acknowledges
  every batch and stores nothing, so it is the ceiling of this client against
  a Python broker on this machine.  It is a single node, so "RF 3" means
  nothing to it: the acks=all row measures the same client settings against
  it (its answer comes at once whatever the acks).

Reported per configuration: the steady-state records/s of each target
(median of the runs; the whole-run figure too), the sandbox/sink ratio, and
the CPU time each broker process spent per 100,000 records (the sandbox's
six nodes share this process's interpreter; the sink does almost nothing).
Then ``kafka-consumer-perf-test`` reads back what was produced from the
sandbox (the sink cannot serve fetches): its ``fetch.nMsg.sec``, which leaves
out the group join, and ``nMsg.sec``, which does not.

Every tool runs in its own JVM (``-Xmx256m``, the full JIT), so the client
never shares the sandbox's interpreter.

Run: ``.venv/bin/python benchmarks/bench_java_perf.py [--runs 3] [--records 200000]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

import psutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

RECORD_BYTES = 100
SUMMARY = re.compile(r"^(\d+) (steady state )?records sent, ([\d.]+) records/sec", re.MULTILINE)
CONFIGURATIONS = (("1", 1), ("all", 3))  # (acks, replication factor)


def producer_perf(bootstrap: str, topic: str, records: int, acks: str) -> dict:
    """One ``kafka-producer-perf-test`` run: records/s over the whole run and after the warm-up."""
    from minikafka.jvm import run_kafka_tool

    result = run_kafka_tool("kafka-producer-perf-test", [
        "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", str(records),
        "--warmup-records", str(records // 10), "--record-size", str(RECORD_BYTES), "--throughput", "-1",
        "--command-property", f"acks={acks}"], quiet=True, fast_start=False, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"kafka-producer-perf-test failed: {result.stderr[-2000:]}")
    rates = {bool(steady): (int(sent), float(rate)) for sent, steady, rate in SUMMARY.findall(result.stdout)}
    if rates[False][0] != records:
        raise RuntimeError(f"asked for {records} records, the tool sent {rates[False][0]}")
    return {"records_per_s": rates[True][1], "whole_run_records_per_s": rates[False][1]}


def consumer_perf(bootstrap: str, topic: str, records: int) -> dict:
    """One ``kafka-consumer-perf-test`` run over ``records`` records of ``topic``."""
    from minikafka.jvm import run_kafka_tool

    result = run_kafka_tool("kafka-consumer-perf-test", [
        "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", str(records)],
        quiet=True, fast_start=False, timeout=600)
    header, row = result.stdout.strip().splitlines()[-2:]
    values = dict(zip(header.split(", "), row.split(", ")))
    if int(values["data.consumed.in.nMsg"]) < records:  # it counts whole polls, so it may read a few more
        raise RuntimeError(f"asked for {records} records, the tool read {values['data.consumed.in.nMsg']}")
    return {"fetch_records_per_s": float(values["fetch.nMsg.sec"]), "records_per_s": float(values["nMsg.sec"]),
            "rebalance_ms": int(values["rebalance.time.ms"])}


def cpu_seconds(process: psutil.Process, run) -> tuple[dict, float]:
    """``run()``'s result and the CPU seconds (user + system, not its children) ``process`` spent meanwhile."""
    before = sum(process.cpu_times()[:2])
    result = run()
    return result, sum(process.cpu_times()[:2]) - before


def start_sink() -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, os.path.join(HERE, "sink_broker.py")], stdout=subprocess.PIPE,
                               text=True)
    port = int(process.stdout.readline().split()[1])
    return process, f"127.0.0.1:{port}"


def produce_table(cluster, sink: subprocess.Popen, sink_address: str, runs: int, records: int) -> list[dict]:
    """Sandbox and sink runs alternate, so a noisy moment on the machine hits both alike."""
    here, there = psutil.Process(), psutil.Process(sink.pid)
    rows = []
    for acks, rf in CONFIGURATIONS:
        ours, theirs, our_cpu, their_cpu = [], [], [], []
        for run in range(runs):
            result, cpu = cpu_seconds(here, lambda: producer_perf(cluster.bootstrap_servers, f"rf{rf}", records,
                                                                  acks))
            ours.append(result)
            our_cpu.append(cpu * 100_000 / records)
            result, cpu = cpu_seconds(there, lambda: producer_perf(sink_address, f"sink-{acks}-{run}", records, acks))
            theirs.append(result)
            their_cpu.append(cpu * 100_000 / records)
        sandbox, ceiling = medians(ours), medians(theirs)
        rows.append({"acks": acks, "rf": rf, "sandbox": sandbox, "sink": ceiling,
                     "ratio": sandbox["records_per_s"] / ceiling["records_per_s"],
                     "sandbox_cpu_s_per_100k": statistics.median(our_cpu),
                     "sink_cpu_s_per_100k": statistics.median(their_cpu)})
        print(f"producer perf acks={acks:<3} RF{rf}: sandbox {sandbox['records_per_s']:9.0f} rec/s "
              f"(whole run {sandbox['whole_run_records_per_s']:.0f}, {rows[-1]['sandbox_cpu_s_per_100k']:.2f} "
              f"CPU s/100k)  sink {ceiling['records_per_s']:9.0f} rec/s (whole run "
              f"{ceiling['whole_run_records_per_s']:.0f}, {rows[-1]['sink_cpu_s_per_100k']:.2f} CPU s/100k)  "
              f"ratio {rows[-1]['ratio']:.2f}", flush=True)
    return rows


def medians(results: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description="Kafka's Java perf tools against the sandbox and a sink broker")
    parser.add_argument("--runs", type=int, default=3, help="runs per produce configuration (median)")
    parser.add_argument("--records", type=int, default=200_000, help="records per produce run")
    args = parser.parse_args()
    from minikafka import Cluster
    from minikafka.jvm import kafka_classpath

    kafka_classpath()  # fetch the jars first, if they are not cached yet
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    sink, sink_address = start_sink()
    cluster = Cluster(brokers=3, controllers=3, seed=1).start()
    try:
        for rf in (1, 3):
            cluster.create_topic(f"rf{rf}", partitions=1, replication_factor=rf)
        rows = produce_table(cluster, sink, sink_address, args.runs, args.records)
        consume = {}
        for rf in (1, 3):
            consume[f"RF{rf}"] = consumer_perf(cluster.bootstrap_servers, f"rf{rf}", args.records)
            print(f"consumer perf RF{rf}: {consume[f'RF{rf}']['fetch_records_per_s']:9.0f} rec/s fetching "
                  f"({consume[f'RF{rf}']['records_per_s']:.0f} rec/s with the "
                  f"{consume[f'RF{rf}']['rebalance_ms']} ms group join)", flush=True)
        print(json.dumps({"records": args.records, "runs": args.runs, "produce": rows, "consume": consume}))
    finally:
        cluster.stop()
        sink.kill()
        sink.wait()


if __name__ == "__main__":
    main()
