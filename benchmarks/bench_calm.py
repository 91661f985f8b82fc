"""A calm cluster under the kernel's own load (issue 15): spurious Kafka events, throughput, failover.

Prints numbers; asserts nothing.  A live cluster (3 brokers, 3 controllers,
teaching timing profile, topic ``load`` with 3 partitions at RF 3) runs in
this process, next to load that a notebook cell would put beside it, in
threads of the same interpreter:

* ``idle``: nothing;
* ``producer``: a kafka-python producer sending 100-byte records flat out
  (acks=1, linger 5 ms, default 32 MB buffer);
* ``consumer``: that producer plus a consumer group reading ``load`` flat out;
* ``cpu``: a pure-Python arithmetic loop;
* ``producer+cpu``: both.

Reported per load (median of ``--runs`` windows of ``--seconds``):

* **spurious events per minute**: controller elections and resignations,
  fencing and unfencing, ISR changes, partition leader changes and log
  truncations (plus rebalances for the consumer load) -- none of them is
  caused by a fault, so Kafka would show none (goal: 0);
* the share of wall time the cluster's clock left out as starvation, and the
  ``sandbox_stalled`` events written (at most one per episode);
* the producer's rate (records handed to ``send`` per second);
* the largest replica lag seen, the data plane's margin: how long (cluster's
  clock) an in-sync follower of ``load`` went without having everything its
  leader had; it leaves the ISR past ``replica.lag.time.max.ms`` (6000 ms).

Then produce throughput of the same client code in this process and in a
child process (records/s, median of ``--runs``), and the failover time after
killing the leader of ``failover-0`` (median of ``--kills``), idle and with
the producer flat out: wall seconds until the controller names a new leader,
and the same on the cluster's clock (kill event to leader change event).
Goal: under load within 1.5x of idle.

``--variant wall`` runs the same with the behaviour before issue 15
emulated: the clock counts every wait (no stall is left out), all work in
one queue (no control plane first) and the interpreter's default 5 ms
switch interval.

Run: ``.venv/bin/python benchmarks/bench_calm.py [--seconds 60] [--runs 3] [--kills 5]
[--variant calm|wall] [--loads producer,cpu,...]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

SPURIOUS = {"controller_elected", "controller_resigned", "broker_fenced", "broker_unfenced",
            "isr_shrink", "isr_expand", "partition_changed", "log_truncated"}
GROUP_SPURIOUS = {"group_rebalance", "group_member_removed", "group_empty"}
LOADS = ("idle", "producer", "consumer", "cpu", "producer+cpu")
THROUGHPUT_RECORDS = 100_000


# ---------------------------------------------------------------- load in this process
class Load:
    """Background threads that keep this interpreter busy the way a notebook cell would."""

    def __init__(self, cluster, kind: str):
        self.cluster, self.kind = cluster, kind
        self.stop = threading.Event()
        self.sent = 0
        self.consumed = 0
        self.threads: list[threading.Thread] = []
        self.group_ready = threading.Event()

    def start(self) -> "Load":
        parts = self.kind.split("+")
        if "producer" in parts or "consumer" in parts:
            self.threads.append(threading.Thread(target=self._produce, daemon=True))
        if "consumer" in parts:
            self.threads.append(threading.Thread(target=self._consume, daemon=True))
        else:
            self.group_ready.set()
        if "cpu" in parts:
            self.threads.append(threading.Thread(target=self._spin, daemon=True))
        for thread in self.threads:
            thread.start()
        self.group_ready.wait(60)
        return self

    def _produce(self) -> None:
        from kafka import KafkaProducer
        producer = KafkaProducer(bootstrap_servers=self.cluster.bootstrap_servers, acks=1, linger_ms=5)
        value = b"x" * 100
        while not self.stop.is_set():
            producer.send("load", value)
            self.sent += 1
        producer.close(timeout=120)

    def _consume(self) -> None:
        from kafka import KafkaConsumer
        consumer = KafkaConsumer("load", bootstrap_servers=self.cluster.bootstrap_servers,
                                 group_id=f"readers-{time.monotonic_ns()}", auto_offset_reset="earliest")
        while not self.stop.is_set():
            batches = consumer.poll(timeout_ms=100)
            if batches:
                self.group_ready.set()
            self.consumed += sum(len(b) for b in batches.values())
        consumer.close()

    def _spin(self) -> None:
        total = 0
        while not self.stop.is_set():
            for i in range(10_000):
                total += i * i

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=180)


def make_cluster(variant: str):
    from minikafka import Cluster
    from minikafka.drivers import live
    if variant == "wall":                     # one FIFO queue, as before the control plane went first
        live._data_plane = lambda envelope: False
        live.DATA = live.CONTROL
    cluster = Cluster(brokers=3, controllers=3, seed=15).start()
    if variant == "wall":
        cluster.driver.clock.unbind()         # nothing observed, nothing left out: wall time
        sys.setswitchinterval(0.005)
    cluster.create_topic("load", partitions=3, replication_factor=3)
    cluster.create_topic("failover", partitions=1, replication_factor=3)
    _wait(lambda: all(len(cluster.isr(t, p)) == 3 for t, p in (("load", 0), ("load", 1), ("load", 2),
                                                                ("failover", 0))), 60)
    return cluster


class ReplicaLagSampler:
    """The data plane's margin: every 100 ms, the largest time (cluster's clock) since an
    in-sync follower of ``load`` last had everything its leader had, as ISR shrinking
    measures it (``Partition.out_of_sync_replicas``); ``replica.lag.time.max.ms`` is the
    limit (6000 ms in the teaching profile)."""

    def __init__(self, cluster):
        self.cluster, self.largest_ms = cluster, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "ReplicaLagSampler":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=30)

    def _lag(self) -> int:
        processes, worst = self.cluster.processes, 0
        for broker_id in processes.layout.brokers:
            node = processes.node(broker_id)
            if node is None or node.broker is None:
                continue
            for tp, partition in node.broker.replica_manager.partitions.items():
                if tp.topic != "load" or not partition.is_leader or partition.log is None:
                    continue
                end = partition.log.log_end_offset
                for replica_id in partition.isr:
                    state = partition.remote.get(replica_id)
                    if state is not None and state.log_end_offset != end:
                        worst = max(worst, node.now - state.last_caught_up_time_ms)
        return worst

    def _run(self) -> None:
        while not self.stop.wait(0.1):
            try:
                self.largest_ms = max(self.largest_ms, self.cluster.driver.submit(self._lag))
            except RuntimeError:              # the cluster is stopping
                return


def load_window(variant: str, kind: str, seconds: float) -> dict:
    """One fresh cluster, ``kind`` of load for ``seconds``; what the event log shows."""
    cluster = make_cluster(variant)
    load = Load(cluster, kind).start()
    try:
        time.sleep(2.0)                       # the load is in full swing
        clock = cluster.driver.clock
        mark, stalled0, sent0 = cluster.events.last_seq, clock.total_stalled_ms, load.sent
        started = time.monotonic()
        with ReplicaLagSampler(cluster) as lag:
            time.sleep(seconds)
        elapsed = time.monotonic() - started
        kinds = SPURIOUS | (GROUP_SPURIOUS if kind == "consumer" else set())
        events = cluster.events.since(mark)
        spurious = [e.kind for e in events if e.kind in kinds]
        return {"spurious_per_min": len(spurious) * 60 / elapsed,
                "kinds": {k: spurious.count(k) for k in sorted(set(spurious))},
                "stalled_share": (clock.total_stalled_ms - stalled0) / 1000 / elapsed,
                "stall_events": sum(e.kind == "sandbox_stalled" for e in events),
                "replica_lag_ms": lag.largest_ms,
                "send_per_s": (load.sent - sent0) / elapsed}
    finally:
        load.close()
        cluster.stop()


# ---------------------------------------------------------------- throughput
def produce_records(bootstrap: str, records: int) -> float:
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=5)
    value = b"x" * 100
    for _ in range(2000):                     # connections, metadata
        producer.send("load", value)
    producer.flush()
    started = time.perf_counter()
    for _ in range(records):
        producer.send("load", value)
    producer.flush()
    elapsed = time.perf_counter() - started
    producer.close()
    return records / elapsed


def throughput(variant: str, runs: int) -> dict:
    cluster = make_cluster(variant)
    inside, outside = [], []
    try:
        for _ in range(runs):                 # alternate, so a busy moment hits both alike
            inside.append(produce_records(cluster.bootstrap_servers, THROUGHPUT_RECORDS))
            child = subprocess.run([sys.executable, __file__, "client", cluster.bootstrap_servers,
                                    str(THROUGHPUT_RECORDS)], capture_output=True, text=True, timeout=900)
            outside.append(float(child.stdout.strip().splitlines()[-1]))
    finally:
        cluster.stop()
    return {"in_process": statistics.median(inside), "other_process": statistics.median(outside),
            "runs_in": inside, "runs_out": outside}


# ---------------------------------------------------------------- failover
def failover(variant: str, kind: str, kills: int) -> dict:
    cluster = make_cluster(variant)
    load = Load(cluster, kind).start() if kind != "idle" else None
    wall, on_clock = [], []
    try:
        time.sleep(2.0)
        for _ in range(kills):
            _wait(lambda: len(cluster.isr("failover", 0)) == 3, 120)
            time.sleep(1.0)
            leader = cluster.leader("failover", 0)
            mark = cluster.events.last_seq
            killed_at = time.monotonic()
            cluster.kill(leader)
            _wait(lambda: cluster.leader("failover", 0) not in (None, -1, leader), 120)
            wall.append(time.monotonic() - killed_at)
            events = cluster.events.since(mark)
            killed = next(e for e in events if e.kind == "node_killed")
            moved = next((e for e in events if e.kind == "partition_changed"
                          and e.data["topic"] == "failover" and e.data["leader_before"] == leader), None)
            if moved is not None:
                on_clock.append((moved.time_ms - killed.time_ms) / 1000)
            cluster.restart(leader)
    finally:
        if load is not None:
            load.close()
        cluster.stop()
    return {"wall_s": statistics.median(wall), "cluster_clock_s": statistics.median(on_clock or [0]),
            "runs_wall_s": [round(t, 2) for t in wall]}


def _wait(condition, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if condition():
                return
        except Exception:                     # the cluster may be settling
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step did not complete")
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description="spurious events, throughput and failover under in-process load")
    parser.add_argument("--seconds", type=float, default=30, help="length of one load window")
    parser.add_argument("--runs", type=int, default=3, help="windows per load (median)")
    parser.add_argument("--kills", type=int, default=5, help="leader kills per failover measurement")
    parser.add_argument("--variant", choices=("calm", "wall"), default="calm")
    parser.add_argument("--loads", default=",".join(LOADS), help="comma-separated subset of " + ",".join(LOADS))
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-failover", action="store_true")
    args = parser.parse_args()
    print(f"variant {args.variant}; load average at start {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores", flush=True)
    result: dict = {"variant": args.variant, "loads": {}}
    for kind in args.loads.split(","):
        windows = [load_window(args.variant, kind, args.seconds) for _ in range(args.runs)]
        summary = {key: statistics.median(w[key] for w in windows)
                   for key in ("spurious_per_min", "stalled_share", "stall_events", "send_per_s")}
        summary["replica_lag_ms"] = max(w["replica_lag_ms"] for w in windows)
        summary["windows"] = windows
        result["loads"][kind] = summary
        runs = ", ".join(f"{w['spurious_per_min']:.1f}" for w in windows)
        kinds = "; ".join(str(w["kinds"]) for w in windows if w["kinds"])
        print(f"{kind:>13}: spurious/min {summary['spurious_per_min']:5.1f} (runs {runs}{'; ' + kinds if kinds else ''}), "
              f"clock left out {summary['stalled_share']:.0%}, stall events {summary['stall_events']:.0f}, "
              f"send {summary['send_per_s']:,.0f}/s, largest replica lag {summary['replica_lag_ms']} ms", flush=True)
    if not args.skip_throughput:
        result["throughput"] = tp = throughput(args.variant, args.runs)
        print(f"produce 100 B acks=1: in this process {tp['in_process']:,.0f} rec/s, "
              f"in another process {tp['other_process']:,.0f} rec/s", flush=True)
    if not args.skip_failover:
        result["failover"] = {}
        for kind in ("idle", "producer"):
            result["failover"][kind] = f = failover(args.variant, kind, args.kills)
            print(f"failover ({kind}): new leader after {f['wall_s']:.2f} s wall (runs {f['runs_wall_s']}), "
                  f"{f['cluster_clock_s']:.2f} s on the cluster's clock", flush=True)
        idle, busy = result["failover"]["idle"]["wall_s"], result["failover"]["producer"]["wall_s"]
        print(f"failover under load / idle: {busy / idle:.2f}x", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}", flush=True)
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        print(produce_records(sys.argv[2], int(sys.argv[3])))
    else:
        main()
