"""What the broker metrics cost: kafka-python produce throughput with and without them.

Prints numbers; asserts nothing.  The target is that metrics (meters,
gauges, the request view) add under 5% to produce throughput.

Each run is a fresh process holding a live cluster (3 brokers, 1 controller,
teaching timing) with one topic of 3 partitions, RF 3; a kafka-python
producer in its own child process (so client and brokers never share a GIL)
sends 100-byte records with acks=all and with acks=1, after a warm-up
producer.  Runs alternate between the modes, so a busy spell on a shared
machine hits both:

* ``with``: the engine as it is;
* ``without``: the same code with every metrics hook replaced by a no-op
  (meter marks, the BrokerTopicStats calls, the request view, the bytes-out
  count); what remains is the cost of calling an empty function;
* ``baseline`` (only with ``--baseline DIR``): another source tree, e.g. the
  commit before the metrics existed, exported with
  ``git archive <commit> | tar -x -C DIR``.

Reported per mode (medians, with the spread):

* produce throughput (records/s).  On a 2-core machine shared with other
  work this swings by tens of percent from run to run, far more than 5%;
* the CPU time of the cluster's process per record produced (the brokers'
  share of the work, which is what the metrics add to): a steadier measure;
* the engine alone: acks=all produce requests sent in-process to one
  simulated cluster, in blocks with the metrics switched on and off in turn,
  CPU time per request (no client, no sockets, both modes in the same
  process and state);
* the metrics hooks alone: every outermost hook call made during a block of
  produce requests is recorded with its arguments and replayed in a tight
  loop (best of 5): the steadiest figure for what the metrics add to the
  brokers' work per request.
  A kafka-python producer packs many records into one request, so its
  per-record share is smaller still.

Run: ``.venv/bin/python benchmarks/bench_metrics.py [--runs 5] [--records 30000]
[--baseline /tmp/minikafka-base]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WARMUP_RECORDS = 3000
SIZE = 100


# ---------------------------------------------------------------- client (a child of a run)
def client(bootstrap: str, records: int, acks: str) -> dict:
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1 if acks == "1" else "all",
                             linger_ms=5, batch_size=64 * 1024)
    value = b"x" * SIZE
    for i in range(100):                             # connections, metadata
        producer.send("bench", value, partition=i % 3)
    producer.flush()
    started = time.perf_counter()
    for i in range(records):
        producer.send("bench", value, partition=i % 3)
    producer.flush()
    elapsed = time.perf_counter() - started
    producer.close()
    return {"records_per_s": records / elapsed}


# ---------------------------------------------------------------- one run (a child of main)
_HOOKS = ("produce_requested", "produce_failed", "appended", "fetch_requested", "bytes_out",
          "replication_bytes_in")


def _hook_owners():
    from minikafka.metrics.broker_topic_stats import BrokerTopicStats
    from minikafka.metrics.meter import Meter
    from minikafka.network.request_metrics import RequestMetrics
    from minikafka.server.replica_manager import ReplicaManager
    return ([(Meter, "mark")] + [(BrokerTopicStats, name) for name in _HOOKS]
            + [(RequestMetrics, "client_request_completed"), (RequestMetrics, "follower_fetch_completed"),
               (ReplicaManager, "_count_bytes_out")])


_ORIGINALS: dict = {}


def disable_metrics() -> None:
    """Replace every metrics hook on the produce and fetch paths by a no-op."""
    def nothing(*args, **kwargs) -> None:
        return None
    for owner, name in _hook_owners():
        _ORIGINALS.setdefault((owner, name), getattr(owner, name))
        setattr(owner, name, nothing)


def enable_metrics() -> None:
    for (owner, name), original in _ORIGINALS.items():
        setattr(owner, name, original)


def _client(bootstrap: str, records: int, acks: str) -> dict:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "client", bootstrap,
                          str(records), acks],
                         capture_output=True, text=True, check=True, env=_env(ROOT))
    return json.loads(out.stdout)


def run(mode: str, records: int) -> dict:
    """Throughput and the brokers' CPU per record (this process: the cluster's thread)."""
    if mode == "without":
        disable_metrics()
    from minikafka import Cluster
    cluster = Cluster(brokers=3, controllers=1, seed=7, timing="teaching").start()
    try:
        cluster.create_topic("bench", partitions=3, replication_factor=3)
        results = {}
        for acks in ("all", "1"):
            _client(cluster.bootstrap_servers, WARMUP_RECORDS, acks)       # warm-up
            before = resource.getrusage(resource.RUSAGE_SELF)
            measured = _client(cluster.bootstrap_servers, records, acks)
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            results[acks] = {"records_per_s": measured["records_per_s"],
                             "cpu_us_per_record": cpu / records * 1e6}
        return results
    finally:
        cluster.stop()


def engine_produce(blocks: int, requests: int) -> dict:
    """The engine alone, in one process: blocks of acks=all produce requests to a simulated
    cluster, metrics on and off in turn; CPU time per request of each block."""
    from minikafka import Cluster
    from minikafka.network.codec import request_class
    from minikafka.drivers.inprocess import InProcessConnection
    from minikafka.record.memory_records import SimpleRecord, build_batch
    produce = request_class(0)
    cluster = Cluster(brokers=3, controllers=1, seed=7, simulated=True).start()
    results: dict[str, list[float]] = {"with": [], "without": []}
    try:
        cluster.create_topic("bench", partitions=3, replication_factor=3)
        batch = build_batch([SimpleRecord(value=b"x" * SIZE) for _ in range(10)])
        connections = {p: InProcessConnection(cluster, cluster.leader("bench", p), "bench") for p in range(3)}

        def send(i: int) -> None:
            p = i % 3
            connections[p].send(produce[9](transactional_id=None, acks=-1, timeout_ms=5000, topic_data=[
                produce.TopicProduceData(name="bench", partition_data=[
                    produce.TopicProduceData.PartitionProduceData(index=p, records=batch)])]))
        for i in range(requests):                     # warm-up
            send(i)
        for block in range(2 * blocks):
            mode = "with" if block % 2 == 0 else "without"
            enable_metrics() if mode == "with" else disable_metrics()
            started = time.process_time()
            for i in range(requests):
                send(i)
            results[mode].append((time.process_time() - started) / requests * 1e6)
        enable_metrics()
        results["hooks_us_per_request"] = _time_hooks(send, requests)
        return results
    finally:
        cluster.stop()


def _time_hooks(send, requests: int, repeats: int = 5) -> float:
    """CPU cost of the metrics hooks per request: the outermost hook calls made while
    ``requests`` requests run are recorded with their arguments, then replayed in a tight loop
    (timeit's way: the best of ``repeats``, so another process taking the CPU counts least)."""
    from minikafka.metrics.broker_topic_stats import BrokerTopicStats
    from minikafka.network.request_metrics import RequestMetrics
    from minikafka.server.replica_manager import ReplicaManager
    outer = ([(BrokerTopicStats, n) for n in _HOOKS if n != "bytes_out"]
             + [(RequestMetrics, "client_request_completed"), (RequestMetrics, "follower_fetch_completed"),
                (ReplicaManager, "_count_bytes_out")])
    calls: list = []
    originals = {}

    def recording(original):
        def wrapper(*args):
            calls.append((original, args))
            return original(*args)
        return wrapper
    for owner, name in outer:
        originals[(owner, name)] = getattr(owner, name)
        setattr(owner, name, recording(originals[(owner, name)]))
    try:
        for i in range(requests):
            send(i)
    finally:
        for (owner, name), original in originals.items():
            setattr(owner, name, original)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for function, args in calls:
            function(*args)
        best = min(best, time.perf_counter() - started)
    return best / requests * 1e6


# ---------------------------------------------------------------- main
def _env(tree: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _one(kind: str, mode: str, amount: int, tree: str) -> dict:
    command = [sys.executable, os.path.abspath(__file__), kind, "with" if mode == "baseline" else mode,
               str(amount)]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=_env(tree),
                         cwd=tree)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _report(samples: dict, modes: list[str], key: str, unit: str, lower_is_better: bool) -> None:
    for acks in sorted(samples[modes[0]]):
        medians = {m: statistics.median(s[key] for s in samples[m][acks]) for m in modes}
        for mode in modes:
            values = [s[key] for s in samples[mode][acks]]
            print(f"  acks={acks:3} {mode:8} median {medians[mode]:9.1f} {unit}  "
                  f"(min {min(values):.1f}, max {max(values):.1f})")
        for other in modes[1:]:
            change = (medians["with"] - medians[other]) / medians[other] * 100
            cost = change if lower_is_better else -change
            print(f"  acks={acks:3} metrics cost vs {other}: {cost:+.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--records", type=int, default=30_000)
    parser.add_argument("--requests", type=int, default=500, help="engine-only requests per block")
    parser.add_argument("--blocks", type=int, default=20, help="engine-only blocks per mode")
    parser.add_argument("--baseline", help="a source tree without the metrics (git archive)")
    args = parser.parse_args()
    trees = {"with": ROOT, "without": ROOT}
    if args.baseline:
        trees["baseline"] = os.path.abspath(args.baseline)
    modes = list(trees)
    live = {m: {"all": [], "1": []} for m in modes}
    for _ in range(args.runs):
        for mode, tree in trees.items():
            for acks, value in _one("run", mode, args.records, tree).items():
                live[mode][acks].append(value)
    blocks = _one("engine", str(args.blocks), args.requests, ROOT)
    engine = {m: {"all": [{"us_per_request": v} for v in blocks[m]]} for m in ("with", "without")}
    hooks = blocks["hooks_us_per_request"]
    print(f"kafka-python producer ({SIZE}-byte records, {args.records} per run after a "
          f"{WARMUP_RECORDS}-record warm-up) against 3 live brokers, topic of 3 partitions RF 3; "
          f"{args.runs} runs per mode, alternating")
    print("throughput:")
    _report(live, modes, "records_per_s", "rec/s", lower_is_better=False)
    print("CPU of the cluster's process per record produced:")
    _report(live, modes, "cpu_us_per_record", "us", lower_is_better=True)
    print(f"engine alone (one process, simulated cluster, {args.blocks} alternating blocks per mode of "
          f"{args.requests} acks=all produce requests of 10 records; CPU time per request):")
    _report(engine, ["with", "without"], "us_per_request", "us/request", lower_is_better=True)
    without = statistics.median(blocks["without"])
    print(f"metrics hooks per acks=all produce request, replayed alone: {hooks:.1f} us, "
          f"{hooks / without * 100:.1f}% of the request's {without:.0f} us without metrics")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        print(json.dumps(client(sys.argv[2], int(sys.argv[3]), sys.argv[4])))
    elif len(sys.argv) > 1 and sys.argv[1] == "run":
        print(json.dumps(run(sys.argv[2], int(sys.argv[3]))))
    elif len(sys.argv) > 1 and sys.argv[1] == "engine":
        print(json.dumps(engine_produce(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        main()
