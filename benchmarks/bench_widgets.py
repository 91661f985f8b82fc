"""Widget redraw latency: from a cluster event to the redrawn SVG in `TopologyView`.

A fake cluster (the widget tests' `FakeCluster`: the facade's names over a
synthetic snapshot of 5 brokers, 3 controllers and a 20-partition topic
with replication factor 3) emits events; the script measures how long the
view takes until the picture on screen includes each event
(`TopologyView.wait_drawn`).  Reported, as medians of several runs:

* single event after a quiet spell (the usual case: a button click);
* the last event of a burst of 50 (a broker fenced: many partition changes);
* the parts: snapshot -> DOT, DOT -> SVG with ``dot``;
* the same path on a real (simulated) ``minikafka.Cluster``: a kill or
  restart button click until the picture shows it (cluster.snapshot()
  included);
* issue 24's size: the compact `Dashboard` (diagram beside the fault
  column and the event log) of a simulated cluster of 6 brokers, 3
  controllers and a 50-partition topic (RF 3), every partition drawn
  (``max_partitions=50``): a kill or restart click until the diagram shows
  it and the buttons' states are re-read; and a single event on a fake
  cluster of that size (diagram only).

No asserts; the budget the widgets aim for is 200 ms.

    .venv/bin/python benchmarks/bench_widgets.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "widgets"))

from _widget_helpers import FakeCluster, big_cluster  # noqa: E402

from widgets.render import dot_available, dot_to_svg  # noqa: E402
from widgets.topology import topology_dot  # noqa: E402
from widgets.topology_view import TopologyView  # noqa: E402

RUNS = 20
BURST = 50
INTERVAL_S = 0.1          # TopologyView's default rate limit


def single_event_ms(view: TopologyView, cluster: FakeCluster) -> list[float]:
    samples = []
    for run in range(RUNS):
        time.sleep(INTERVAL_S)                 # quiet spell: the next event is drawn at once
        start = time.perf_counter()
        event = cluster.emit("broker_fenced", f"broker {run % 5 + 1} fenced", run % 5 + 1)
        view.wait_drawn(event.seq, 10)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def burst_ms(view: TopologyView, cluster: FakeCluster) -> list[float]:
    samples = []
    for run in range(RUNS // 4):
        time.sleep(INTERVAL_S)
        for index in range(BURST):
            last = cluster.emit("partition_changed", f"orders-{index % 20} ISR changed")
        start = time.perf_counter()
        view.wait_drawn(last.seq, 10)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def parts_ms(cluster: FakeCluster) -> tuple[float, float]:
    dot_times, svg_times = [], []
    for _ in range(RUNS):
        start = time.perf_counter()
        source = topology_dot(cluster.snapshot())
        dot_times.append((time.perf_counter() - start) * 1000)
        if dot_available():
            start = time.perf_counter()
            dot_to_svg(source)
            svg_times.append((time.perf_counter() - start) * 1000)
    return statistics.median(dot_times), statistics.median(svg_times) if svg_times else 0.0


def real_cluster_ms() -> list[float]:
    """Kill/restart clicks on a simulated `minikafka.Cluster`: click -> picture shows it."""
    from minikafka.cluster import Cluster
    from widgets.failure_panel import FailurePanel

    cluster = Cluster(brokers=5, controllers=3, seed=1, simulated=True)
    cluster.start()
    cluster.create_topic("orders", partitions=20, replication_factor=3)
    view = TopologyView(cluster, min_interval_s=INTERVAL_S)
    panel = FailurePanel(cluster, show_log=False)
    samples = []
    try:
        for run in range(RUNS // 2):
            broker = run % 5 + 1
            for verb in ("kill", "restart"):
                time.sleep(INTERVAL_S)
                start = time.perf_counter()
                panel.buttons[(verb, broker)].click()
                view.wait_drawn(cluster.events.last_seq, 10)
                samples.append((time.perf_counter() - start) * 1000)
                cluster.run_for(12_000)          # fencing / catching up: events, redraws
    finally:
        view.close()
        panel.close()
        cluster.stop(graceful=False)
    return samples


def dashboard_6x50_ms() -> list[float]:
    """Kill/restart clicks on the compact Dashboard of 6 brokers and 50 partitions."""
    from minikafka.cluster import Cluster
    from widgets.dashboard import Dashboard

    cluster = Cluster(brokers=6, controllers=3, seed=1, simulated=True)
    cluster.start()
    cluster.create_topic("orders", partitions=50, replication_factor=3)
    dashboard = Dashboard(cluster, max_partitions=50, min_interval_s=INTERVAL_S)
    samples = []
    try:
        for run in range(RUNS // 2):
            broker = run % 6 + 1
            for verb in ("kill", "restart"):
                time.sleep(INTERVAL_S)
                start = time.perf_counter()
                dashboard.buttons[(verb, broker)].click()
                dashboard.view.wait_drawn(cluster.events.last_seq, 10)
                dashboard.panel._worker.wait_idle(10)      # the buttons' states re-read too
                samples.append((time.perf_counter() - start) * 1000)
                cluster.run_for(12_000)
                dashboard.view.wait_idle(10)
    finally:
        dashboard.close()
        cluster.stop(graceful=False)
    return samples


def main() -> None:
    cluster = FakeCluster(big_cluster(brokers=5, partitions=20))
    view = TopologyView(cluster, min_interval_s=INTERVAL_S)
    try:
        single = single_event_ms(view, cluster)
        burst = burst_ms(view, cluster)
    finally:
        view.close()
    to_dot, to_svg = parts_ms(cluster)
    renderer = "dot (SVG)" if dot_available() else "text fallback (no dot on PATH)"
    print(f"renderer: {renderer}; 5 brokers, 3 controllers, 20 partitions, RF 3")
    print(f"event -> redrawn, single event:     median {statistics.median(single):6.1f} ms, "
          f"max {max(single):6.1f} ms ({len(single)} runs)")
    print(f"event -> redrawn, end of {BURST}-burst:  median {statistics.median(burst):6.1f} ms, "
          f"max {max(burst):6.1f} ms ({len(burst)} runs)")
    print(f"parts: snapshot -> DOT {to_dot:.1f} ms, DOT -> SVG {to_svg:.1f} ms (medians)")
    real = real_cluster_ms()
    print(f"simulated minikafka.Cluster, button click -> redrawn: median "
          f"{statistics.median(real):6.1f} ms, max {max(real):6.1f} ms ({len(real)} clicks)")
    big = FakeCluster(big_cluster(brokers=6, partitions=50))
    view = TopologyView(big, min_interval_s=INTERVAL_S, max_partitions=50, compact=True)
    try:
        single = single_event_ms(view, big)
    finally:
        view.close()
    print(f"6 brokers, 50 partitions (all drawn), fake cluster, event -> redrawn: median "
          f"{statistics.median(single):6.1f} ms, max {max(single):6.1f} ms ({len(single)} runs)")
    clicks = dashboard_6x50_ms()
    print(f"6 brokers, 50 partitions, compact Dashboard on a simulated Cluster, click -> "
          f"redrawn and buttons re-read: median {statistics.median(clicks):6.1f} ms, "
          f"max {max(clicks):6.1f} ms ({len(clicks)} clicks)")


if __name__ == "__main__":
    main()
