"""How long a `Prediction` and a `Task` take to appear, answer, reveal and check (target < 100 ms).

Measured in the kernel, where the cost is: building the widget tree, the
display bundle the front end receives (``_repr_mimebundle_``), committing an
answer, the reveal with its progress line appended to a file, and a task's
check against a real (simulated) cluster.  Medians and worst of ``--runs``
repetitions, per kind of prediction.  The browser's own drawing of a
handful of ipywidgets controls is not included (it is the same for every
ipywidgets control and is not ours to speed up).

    .venv/bin/python benchmarks/bench_learner_acts.py [--runs 50]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minikafka import Cluster  # noqa: E402
from minikafka.course import checks  # noqa: E402
from minikafka.course.progress import ProgressLog  # noqa: E402
from widgets import Prediction, Task  # noqa: E402

TARGET_MS = 100.0
KINDS = {"broker": dict(kind="broker", choices=[1, 2, 3]),
         "brokers": dict(kind="brokers", choices=[1, 2, 3]),
         "number": dict(kind="number"),
         "choice": dict(kind="choice", choices=["NONE", "NOT_ENOUGH_REPLICAS",
                                                 "NOT_LEADER_OR_FOLLOWER"])}
ANSWERS = {"broker": 2, "brokers": {1, 2}, "number": 3, "choice": "NONE"}


def ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def measure(runs: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        log = ProgressLog(Path(folder) / "progress.jsonl", learner="bench")
        for name, options in KINDS.items():
            for _ in range(runs):
                start = time.perf_counter()
                p = Prediction(f"A {name} question?", **options, progress=log, lesson="bench")
                p._repr_mimebundle_()
                samples.setdefault(f"Prediction({name}) shown", []).append(ms(start))
                start = time.perf_counter()
                p._commit(ANSWERS[name])
                samples.setdefault(f"Prediction({name}) answered", []).append(ms(start))
                start = time.perf_counter()
                p.reveal(ANSWERS[name], why="because")._repr_html_()
                samples.setdefault(f"Prediction({name}) revealed", []).append(ms(start))
        with Cluster(brokers=3, controllers=1, simulated=True, seed=1) as cluster:
            cluster.create_topic("orders", partitions=3, replication_factor=3)
            for _ in range(runs):
                start = time.perf_counter()
                task = Task("Create orders with 3 partitions.", progress=log, lesson="bench",
                            check=lambda: checks.topic_has(cluster, "orders", partitions=3),
                            hint="create_topic", solution="cluster.create_topic('orders')")
                task._repr_mimebundle_()
                samples.setdefault("Task shown", []).append(ms(start))
                start = time.perf_counter()
                verdict = task.check()
                samples.setdefault("Task checked (simulated cluster)", []).append(ms(start))
                assert verdict.done
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    samples = measure(args.runs)
    worst_median = 0.0
    print(f"{'step':42} {'median ms':>10} {'worst ms':>10}   (target < {TARGET_MS:.0f} ms)")
    for step, values in samples.items():
        median = statistics.median(values)
        worst_median = max(worst_median, median)
        print(f"{step:42} {median:10.2f} {max(values):10.2f}")
    print(f"slowest median: {worst_median:.2f} ms -> "
          f"{'within' if worst_median < TARGET_MS else 'OVER'} the {TARGET_MS:.0f} ms target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
