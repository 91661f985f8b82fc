"""Lesson benchmarks: wall time of each lesson end to end and the kernel's peak RSS.

Runs each notebook with nbclient in a fresh kernel (as nbval does), samples the
kernel process's resident memory every 50 ms, and prints medians over a few
runs next to the lesson's targets.  Asserts nothing.  The PySpark lesson has
its own script (bench_spark.py).

Run: ``.venv/bin/python benchmarks/bench_lessons.py [--runs 3] [--lesson path]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time

import nbformat
import psutil
from nbclient import NotebookClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_once(path: str) -> tuple[float, float]:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}})
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            manager = client.km
            pid = getattr(getattr(manager, "provisioner", None), "pid", None) if manager else None
            if pid is None:
                continue
            try:
                process = psutil.Process(pid)
                rss = process.memory_info().rss + sum(
                    child.memory_info().rss for child in process.children(recursive=True))
                peak[0] = max(peak[0], rss / 2**20)
            except psutil.Error:
                pass

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - started
    done.set()
    sampler.join()
    return elapsed, peak[0]


# lesson file -> (wall-time target s, kernel peak RSS target MB), from the issues that asked for them
TARGETS = {
    "01_brokers_and_topics.ipynb": (30, 300),
    "02_sizing_a_cluster.ipynb": (60, 300),      # no issue set one: the course's usual budget
    "03_replication_and_durability.ipynb": (60, 300),
    "04_kraft_controller_quorum.ipynb": (60, 300),
    "05_clients_and_consumer_groups.ipynb": (90, 400),
    "06_scaling_and_operating.ipynb": (90, 400),
}


def measure(path: str, runs: int) -> dict:
    results = [run_once(path) for _ in range(runs)]
    name = os.path.basename(path)
    time_target, rss_target = TARGETS.get(name, (None, None))
    return {
        "lesson": name,
        "runs": runs,
        "wall_time_median_s": round(statistics.median(r[0] for r in results), 1),
        "wall_time_target_s": time_target,
        "kernel_peak_rss_median_mb": round(statistics.median(r[1] for r in results), 1),
        "kernel_peak_rss_target_mb": rss_target,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lesson", action="append",
                        help="a notebook to measure (repeatable; default: every lesson in TARGETS)")
    args = parser.parse_args()
    paths = args.lesson or [os.path.join(ROOT, "lessons", name) for name in TARGETS]
    for path in paths:
        if os.path.exists(path):
            print(json.dumps(measure(path, args.runs), indent=2), flush=True)


if __name__ == "__main__":
    main()
