"""Client benchmarks (wire protocol): kafka-python against the sandbox, measured against a sink broker.

Prints numbers; asserts nothing.  Every client runs in its own process
(this file, ``client`` mode), so the client and the brokers never share a
GIL.  In the same run the same client code produces to:

* the **sandbox**: a live 3-broker cluster (teaching timing profile), one
  partition, RF 1 or RF 3, acks=1 or acks=all (idempotent), 100-byte and
  1 KiB records;
* the **sink** (``sink_broker.py``): acknowledges every batch and stores
  nothing -- the ceiling this client and the wire format allow here.

Reported: produce throughput (records/s, MB/s) and the sandbox/sink ratio
(targets: >= 0.8 for acks=1 RF 1, >= 0.5 for acks=all RF 3), consume
throughput, end-to-end latency p50/p99 (a record's trip from ``send`` to
the consumer's ``poll``), and the time from killing a partition leader to
the first successful acks=all produce after it (median of several kills;
target < 3 s).

Run: ``.venv/bin/python benchmarks/bench_clients.py [--runs N] [--records N]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

WARMUP_RECORDS = 2000


# ---------------------------------------------------------------- client side (a child process)
def client_produce(bootstrap: str, topic: str, records: int, size: int, acks: str) -> dict:
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=int(acks) if acks != "all" else "all",
                             linger_ms=5, batch_size=64 * 1024)
    value = b"x" * size
    for _ in range(WARMUP_RECORDS):                     # connections, metadata, producer id
        producer.send(topic, value)
    producer.flush()
    started = time.perf_counter()
    for _ in range(records):
        producer.send(topic, value)
    producer.flush()
    elapsed = time.perf_counter() - started
    producer.close()
    return {"records_per_s": records / elapsed, "mb_per_s": records * size / elapsed / 1e6}


def client_consume(bootstrap: str, topic: str, records: int) -> dict:
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             max_partition_fetch_bytes=4 << 20, fetch_max_bytes=16 << 20)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    got, size, started = 0, 0, None
    while got < records:
        for batch in consumer.poll(timeout_ms=500).values():
            if started is None:
                started = time.perf_counter()
            got += len(batch)
            size += sum(len(r.value) for r in batch)
    elapsed = time.perf_counter() - started
    consumer.close()
    return {"records_per_s": got / elapsed, "mb_per_s": size / elapsed / 1e6}


def client_latency(bootstrap: str, topic: str, records: int, acks: str) -> dict:
    """Start a producer process that sends a timestamped record every 5 ms; measure arrival here.

    Both processes read ``CLOCK_MONOTONIC`` (``time.monotonic_ns``), which Linux shares
    between processes, so the difference is the record's trip through the broker.
    """
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             fetch_max_wait_ms=500)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_end(tp)
    consumer.position(tp)
    sender = subprocess.Popen([sys.executable, __file__, "client", "latency-producer", bootstrap, topic,
                               str(records), acks])
    latencies: list[float] = []
    while len(latencies) < records:
        for batch in consumer.poll(timeout_ms=500).values():
            arrived = time.monotonic_ns()
            latencies.extend((arrived - struct.unpack(">q", r.value)[0]) / 1e6
                             for r in batch if len(r.value) == 8)
    sender.wait(timeout=60)
    consumer.close()
    latencies.sort()
    return {"p50_ms": latencies[len(latencies) // 2], "p99_ms": latencies[int(len(latencies) * 0.99) - 1]}


def client_latency_producer(bootstrap: str, topic: str, records: str, acks: str) -> None:
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=int(acks) if acks != "all" else "all",
                             linger_ms=0)
    producer.send(topic, b"warm").get(timeout=30)
    time.sleep(1.0)                                     # the consumer's fetch is parked by now
    for _ in range(int(records)):
        producer.send(topic, struct.pack(">q", time.monotonic_ns()))
        time.sleep(0.005)
    producer.flush()
    producer.close()


def client_failover_producer(bootstrap: str, topic: str, reconnect_backoff_max_ms: str) -> None:
    """Produce acks=all forever; print "<monotonic send time> <monotonic ack time>" per success.

    kafka-python refreshes metadata when a reconnect to the (dead) leader fails, and those
    attempts back off exponentially up to ``reconnect_backoff_max_ms`` (30000 by default; the
    Java client's ``reconnect.backoff.max.ms`` is 1000), so this setting shapes the result.
    """
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=0,
                             reconnect_backoff_max_ms=int(reconnect_backoff_max_ms))
    while True:
        try:
            sent = time.monotonic()
            producer.send(topic, b"tick").get(timeout=60)
            print(f"{sent:.6f} {time.monotonic():.6f}", flush=True)
        except Exception as exc:                        # report and keep going
            print(f"error {type(exc).__name__}", flush=True)
        time.sleep(0.005)


def run_client(*args: str, timeout: float = 600) -> dict:
    result = subprocess.run([sys.executable, __file__, "client", *args], capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"client {args} failed: {result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- orchestration
def start_sink() -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, os.path.join(HERE, "sink_broker.py")], stdout=subprocess.PIPE,
                               text=True)
    port = int(process.stdout.readline().split()[1])
    return process, f"127.0.0.1:{port}"


def medians(results: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


def produce_table(cluster, sink: str, runs: int, records: int) -> list[dict]:
    """Sandbox and sink runs alternate, so a noisy moment on the machine hits both alike."""
    rows = []
    for size in (100, 1024):
        for acks, rf in (("1", 1), ("1", 3), ("all", 1), ("all", 3)):
            ours, theirs = [], []
            for _ in range(runs):
                ours.append(run_client("produce", cluster.bootstrap_servers, f"rf{rf}", str(records), str(size),
                                       acks))
                theirs.append(run_client("produce", sink, f"sink-{size}-{acks}-{rf}", str(records), str(size),
                                         acks))
            sandbox, ceiling = medians(ours), medians(theirs)
            rows.append({"size": size, "acks": acks, "rf": rf, "sandbox": sandbox, "sink": ceiling,
                         "ratio": sandbox["records_per_s"] / ceiling["records_per_s"]})
            print(f"produce {size:>5} B acks={acks:<3} RF{rf}: sandbox {sandbox['records_per_s']:9.0f} rec/s "
                  f"({sandbox['mb_per_s']:6.2f} MB/s)  sink {ceiling['records_per_s']:9.0f} rec/s  "
                  f"ratio {rows[-1]['ratio']:.2f}", flush=True)
    return rows


def failover_times(cluster, kills: int, reconnect_backoff_max_ms: int) -> tuple[list[float], list[float]]:
    """Kill the leader of ``failover-0`` ``kills`` times.

    Returns two lists of seconds after each kill: when the cluster had elected a new leader
    (the sandbox's share: fencing after ``broker.session.timeout.ms``, election, metadata
    propagation) and when the client's next produce was acknowledged.
    """
    producer = subprocess.Popen([sys.executable, __file__, "client", "failover", cluster.bootstrap_servers,
                                 "failover", str(reconnect_backoff_max_ms)], stdout=subprocess.PIPE, text=True)
    acks: list[tuple[float, float]] = []                # (sent, acknowledged), monotonic seconds

    def read_acks() -> None:
        for line in producer.stdout:
            if not line.startswith("error"):
                sent, acked = map(float, line.split())
                acks.append((sent, acked))

    reader = threading.Thread(target=read_acks, daemon=True)
    reader.start()
    elected, times = [], []
    try:
        for _ in range(kills):
            _wait(lambda: len(acks) > 20 and set(cluster.isr("failover", 0)) == {1, 2, 3}, 60)
            leader = cluster.leader("failover", 0)
            killed_at = time.monotonic()
            cluster.kill(leader)
            _wait(lambda: cluster.leader("failover", 0) not in (None, leader), 60)
            elected.append(time.monotonic() - killed_at)
            # Only a produce sent after the kill counts: an acknowledgement the old leader wrote
            # just before it died can reach the client after ``killed_at``.
            _wait(lambda: acks and acks[-1][0] >= killed_at, 60)
            times.append(next(acked for sent, acked in acks if sent >= killed_at) - killed_at)
            print(f"failover: leader {leader} killed, new leader after {elected[-1]:.2f} s, "
                  f"next produce acked after {times[-1]:.2f} s", flush=True)
            cluster.restart(leader)
    finally:
        producer.kill()
    return elected, times


def throughput_and_latency(cluster, sink_address: str, args) -> tuple[list[dict], dict, dict]:
    rows = produce_table(cluster, sink_address, args.runs, args.records)
    consume = {rf: run_client("consume", cluster.bootstrap_servers, f"rf{rf}", str(args.records))
               for rf in (1, 3)}
    for rf, result in consume.items():
        print(f"consume RF{rf}: {result['records_per_s']:9.0f} rec/s ({result['mb_per_s']:6.2f} MB/s)")
    latency = {f"acks={acks} RF{rf}": run_client("latency", cluster.bootstrap_servers, f"rf{rf}", "500", acks)
               for acks, rf in (("1", 1), ("all", 3))}
    for name, result in latency.items():
        print(f"end-to-end latency {name}: p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms")
    return rows, consume, latency


def _wait(condition, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step did not complete")
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description="kafka-python against the sandbox and a sink broker")
    parser.add_argument("--runs", type=int, default=3, help="runs per produce configuration (median)")
    parser.add_argument("--records", type=int, default=30_000, help="records per produce run")
    parser.add_argument("--kills", type=int, default=5, help="leader kills for the failover time")
    parser.add_argument("--failover-only", action="store_true", help="measure only the failover time")
    args = parser.parse_args()
    from minikafka import Cluster
    sink, sink_address = start_sink()
    cluster = Cluster(brokers=3, controllers=3, seed=1).start()
    try:
        cluster.create_topic("rf1", partitions=1, replication_factor=1)
        cluster.create_topic("rf3", partitions=1, replication_factor=3)
        cluster.create_topic("failover", partitions=1, replication_factor=3)
        print(cluster.describe(), flush=True)
        rows, consume, latency = [], {}, {}
        if not args.failover_only:
            rows, consume, latency = throughput_and_latency(cluster, sink_address, args)
        failovers = {}
        for backoff, label in ((30_000, "kafka-python defaults"), (1000, "reconnect_backoff_max_ms=1000")):
            elected, times = failover_times(cluster, args.kills, backoff)
            failovers[label] = {"new_leader_s": elected, "next_ack_s": times}
            print(f"leader kill -> new leader: median {statistics.median(elected):.2f} s; "
                  f"-> next acked produce ({label}): median {statistics.median(times):.2f} s "
                  f"(runs: {', '.join(f'{t:.2f}' for t in times)})", flush=True)
        print(json.dumps({"produce": rows, "consume": consume, "latency": latency, "failover_s": failovers}))
    finally:
        cluster.stop()
        sink.kill()


def client_main(argv: list[str]) -> None:
    mode, rest = argv[0], argv[1:]
    if mode == "failover":
        client_failover_producer(*rest)
        return
    if mode == "latency-producer":
        client_latency_producer(*rest)
        return
    if mode == "produce":
        result = client_produce(rest[0], rest[1], int(rest[2]), int(rest[3]), rest[4])
    elif mode == "consume":
        result = client_consume(rest[0], rest[1], int(rest[2]))
    else:
        result = client_latency(rest[0], rest[1], int(rest[2]), rest[3])
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        client_main(sys.argv[2:])
    else:
        main()
