"""Lesson benchmarks: wall time of lesson 01 end to end and the kernel's peak RSS.

Runs the notebook with nbclient in a fresh kernel (as nbval does), samples the
kernel process's resident memory every 50 ms, and prints medians over a few
runs.  Asserts nothing.

Run: ``.venv/bin/python benchmarks/bench_lessons.py [--runs 3]``
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lesson", default=os.path.join(ROOT, "lessons", "01_brokers_and_topics.ipynb"))
    args = parser.parse_args()
    results = [run_once(args.lesson) for _ in range(args.runs)]
    print(json.dumps({
        "lesson": os.path.basename(args.lesson),
        "runs": args.runs,
        "wall_time_median_s": round(statistics.median(r[0] for r in results), 1),
        "kernel_peak_rss_median_mb": round(statistics.median(r[1] for r in results), 1),
    }, indent=2))


if __name__ == "__main__":
    main()
