"""Operator's view redraw time with 6 brokers and 50 partitions (target: under 200 ms).

A simulated `minikafka.Cluster` (6 brokers, 3 controllers, topic ``orders``
with 50 partitions of RF 3, some produce traffic so the meters move) is
watched by an `OperatorView` and by a `Dashboard(operator=True)`.  Measured
(medians of several runs, no asserts):

* the parts of one redraw: ``cluster.snapshot()`` (which now carries every
  node's metrics), ``operator_html(snapshot)`` and ``operator_text(snapshot)``;
* a cluster event (a kill or restart button click) until the operator view
  shows it (`OperatorView.wait_drawn`), and until the whole Dashboard (the
  operator view and the diagram) shows it;
* the periodic refresh: one ticker redraw (snapshot + HTML) on a quiet cluster.

    .venv/bin/python benchmarks/bench_operator_view.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minikafka.cluster import Cluster  # noqa: E402
from minikafka.network.codec import request_class  # noqa: E402
from minikafka.drivers.inprocess import InProcessConnection  # noqa: E402
from minikafka.record.memory_records import SimpleRecord, build_batch  # noqa: E402
from widgets.dashboard import Dashboard  # noqa: E402
from widgets.failure_panel import FailurePanel  # noqa: E402
from widgets.operator_html import operator_html  # noqa: E402
from widgets.operator_text import operator_text  # noqa: E402
from widgets.operator_view import OperatorView  # noqa: E402

RUNS = 20
INTERVAL_S = 0.1


def build_cluster() -> Cluster:
    cluster = Cluster(brokers=6, controllers=3, seed=3, simulated=True).start()
    cluster.create_topic("orders", partitions=50, replication_factor=3)
    produce = request_class(0)
    batch = build_batch([SimpleRecord(value=b"x" * 200) for _ in range(20)])
    for i in range(300):
        p = i % 50
        InProcessConnection(cluster, cluster.leader("orders", p), "bench").send(produce[9](
            transactional_id=None, acks=1, timeout_ms=5000, topic_data=[produce.TopicProduceData(
                name="orders", partition_data=[produce.TopicProduceData.PartitionProduceData(
                    index=p, records=batch)])]))
        cluster.run_for(10)
    return cluster


def timed(fn) -> tuple[float, object]:
    started = time.perf_counter()
    value = fn()
    return (time.perf_counter() - started) * 1000, value


def parts(cluster: Cluster) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"snapshot": [], "operator_html": [], "operator_text": []}
    for _ in range(RUNS):
        ms, snapshot = timed(cluster.snapshot)
        out["snapshot"].append(ms)
        out["operator_html"].append(timed(lambda: operator_html(snapshot))[0])
        out["operator_text"].append(timed(lambda: operator_text(snapshot))[0])
    return out


def clicks(cluster: Cluster, views: list, panel: FailurePanel) -> list[float]:
    """Kill/restart clicks until every view in ``views`` has drawn the resulting events."""
    samples = []
    for run in range(RUNS // 2):
        broker = run % 6 + 1
        for verb in ("kill", "restart"):
            time.sleep(INTERVAL_S)
            started = time.perf_counter()
            panel.buttons[(verb, broker)].click()
            seq = cluster.events.last_seq
            for view in views:
                view.wait_drawn(seq, 10)
            samples.append((time.perf_counter() - started) * 1000)
            cluster.run_for(12_000)
    return samples


def ticker(cluster: Cluster) -> list[float]:
    view = OperatorView(cluster, refresh_s=None, min_interval_s=0)
    samples = []
    try:
        for _ in range(RUNS):
            samples.append(timed(view._redraw)[0])
    finally:
        view.close()
    return samples


def summary(name: str, samples: list[float]) -> str:
    return f"{name:58} median {statistics.median(samples):6.1f} ms, max {max(samples):6.1f} ms"


def main() -> None:
    cluster = build_cluster()
    try:
        print("simulated cluster: 6 brokers, 3 controllers, topic of 50 partitions RF 3, with traffic")
        for name, samples in parts(cluster).items():
            print(summary(f"part: {name}", samples))
        print(summary("periodic refresh (snapshot + HTML)", ticker(cluster)))
        view = OperatorView(cluster, refresh_s=None, min_interval_s=INTERVAL_S)
        panel = FailurePanel(cluster, show_log=False)
        try:
            print(summary("button click -> operator view redrawn", clicks(cluster, [view], panel)))
        finally:
            view.close()
            panel.close()
        dashboard = Dashboard(cluster, operator=True, refresh_s=1.0, min_interval_s=INTERVAL_S)
        try:
            samples = clicks(cluster, [dashboard.operator, dashboard.view], dashboard.panel)
            print(summary("button click -> Dashboard(operator=True) redrawn", samples))
        finally:
            dashboard.close()
    finally:
        cluster.stop(graceful=False)


if __name__ == "__main__":
    main()
