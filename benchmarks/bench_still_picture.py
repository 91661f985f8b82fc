"""What the still picture adds to a widget's output (target < 50 ms per picture).

A widget's still picture (`widgets.still`) is built when the widget is
displayed and once more when it freezes (its cluster stops, or it is
closed); it reuses the HTML the widget already drew, so it adds nothing to
a redraw.  This measures, for the largest widget of the course (the
dashboard with the operator view, a cluster of 5 brokers and 20 partitions)
and for the others:

* ``bundle``: building the display bundle with the still picture (what a
  display costs on top of ipywidgets' own bundle), median and worst of
  ``--runs``;
* ``freeze``: a view's freeze when its cluster stops (waiting for the
  redraw in flight, ending its threads, the last bundle), over ``--runs``
  clusters;
* for scale, one redraw of the same diagram (Graphviz included), which the
  still picture does *not* repeat.

    .venv/bin/python benchmarks/bench_still_picture.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minikafka import Cluster  # noqa: E402
from widgets import Dashboard, Prediction, ReplicaView, Task, TopologyView  # noqa: E402
from widgets.render import topology_html  # noqa: E402

TARGET_MS = 50.0


def ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def cluster() -> Cluster:
    c = Cluster(brokers=5, controllers=3, simulated=True, seed=3).start()
    c.create_topic("orders", partitions=12, replication_factor=3)
    c.create_topic("payments", partitions=8, replication_factor=3)
    return c


def measure(runs: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {}
    c = cluster()
    widgets = {"Dashboard(operator=True)": Dashboard(c, operator=True, refresh_s=None),
               "TopologyView": TopologyView(c), "ReplicaView": ReplicaView(c, "orders", 0),
               "Prediction": Prediction("Which broker?", kind="broker", choices=c.broker_ids,
                                        show=False),
               "Task": Task("Kill broker 2.", check=lambda: True, show=False)}
    for name, widget in widgets.items():
        for _ in range(runs):
            start = time.perf_counter()
            widget.still.bundle()
            samples.setdefault(f"{name}: bundle with still", []).append(ms(start))
    snapshot = c.snapshot()
    for _ in range(max(3, runs // 10)):
        start = time.perf_counter()
        topology_html(snapshot)
        samples.setdefault("(for scale) one diagram redraw", []).append(ms(start))
    c.stop()
    for _ in range(max(3, runs // 10)):
        c = cluster()
        dashboard = Dashboard(c, operator=True, refresh_s=None)
        dashboard.view.wait_idle(5)
        start = time.perf_counter()
        dashboard.freeze("The cluster was stopped: this is the last picture of it.")
        samples.setdefault("Dashboard(operator=True): freeze", []).append(ms(start))
        c.stop()
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    samples = measure(args.runs)
    worst = 0.0
    print(f"{'step':48} {'median ms':>10} {'worst ms':>10}   (target < {TARGET_MS:.0f} ms)")
    for step, values in samples.items():
        median = statistics.median(values)
        if not step.startswith("(for scale)"):
            worst = max(worst, median)
        print(f"{step:48} {median:10.2f} {max(values):10.2f}")
    print(f"slowest median of the still picture: {worst:.2f} ms -> "
          f"{'within' if worst < TARGET_MS else 'OVER'} the {TARGET_MS:.0f} ms target")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
