"""Simulated clusters in memory against on disk: drills, a busy simulated cluster, the fault-scenario tests.

A simulated cluster keeps its nodes' files in memory by default (``storage="memory"``,
`minikafka.cluster.node_disks`); before, it wrote a temporary directory.  This script runs the
same work both ways, alternating, and reports the median of ``runs`` wall-clock times of each
and the ratio (no asserts):

* simulated drills of the catalogue, ``drills.start`` to ``drill.close`` (answers given,
  scenario run, graded), seed 1, each of ``DRILLS``;
* a busy simulated cluster: 3 brokers, 1 controller, a topic of 6 partitions replicated 3 times,
  600 batches produced with acks=all, one broker killed and restarted, 5 s more;
* the seeded fault-scenario property tests (``tests/sim``), run by pytest in a subprocess with
  the storage forced by `storage_choice_plugin` (``MINIKAFKA_BENCH_STORAGE``).

The KRaft stepper (`minikafka.testing.quorum_stepper`) keeps its quorum state and logs in memory
already and writes no file either way, so it is not measured here.

    .venv/bin/python benchmarks/bench_simulated_storage.py [runs]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import minikafka.cluster.facade as facade  # noqa: E402
from minikafka import drills  # noqa: E402
from minikafka.cluster import Cluster  # noqa: E402
from minikafka.cluster.node_disks import storage_choice  # noqa: E402

DRILLS = ("leader-crash", "acks1-data-loss", "controller-crash", "follower-out-of-sync", "quick-restart")
SIM_TESTS = ("tests/sim",)


def forcing(storage: str) -> None:
    """Make every Cluster built without ``storage=`` use ``storage`` (drills build their own)."""
    facade.storage_choice = lambda chosen, simulated, data_dir_given: storage_choice(
        chosen or storage, simulated, data_dir_given)


def a_drill(drill_id: str) -> None:
    drill = drills.start(drill_id, seed=1, record=False, learner="bench")
    try:
        for question in drill.questions:
            if question.when == "before" and question.type == "number":
                drill.answer(question.id, 1)
        drill.run()
        drill.grade()
    finally:
        drill.close()


def busy_cluster() -> None:
    from tests.server.apis.dataplane_harness import batch, produce
    cluster = Cluster(brokers=3, controllers=1, seed=5, simulated=True).start()
    try:
        cluster.create_topic("load", partitions=6, replication_factor=3)
        for i in range(600):
            partition = i % 6
            produce(cluster, cluster.leader("load", partition), "load", partition,
                    batch(cluster, [b"x" * 200 for _ in range(10)]), acks=-1)
        cluster.kill(2)
        cluster.restart(2)
        cluster.run_for(5_000)
    finally:
        cluster.stop()


def sim_tests(storage: str) -> None:
    env = dict(os.environ, MINIKAFKA_BENCH_STORAGE=storage, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                    "-p", "benchmarks.storage_choice_plugin", *SIM_TESTS],
                   cwd=ROOT, env=env, check=True, capture_output=True)


def median_seconds(work: Callable[[], None], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def compare(name: str, work: Callable[[str], None], runs: int) -> None:
    """Disk and memory runs alternate, so that a shared machine's slow spells hit both."""
    times: dict[str, list[float]] = {"disk": [], "memory": []}
    for _ in range(runs):
        for storage in times:
            forcing(storage)
            times[storage].append(median_seconds(lambda: work(storage), 1))
    found = {storage: statistics.median(values) for storage, values in times.items()}
    print(f"{name:42} disk {found['disk']:8.3f} s   memory {found['memory']:8.3f} s   "
          f"{found['disk'] / found['memory']:5.2f}x", flush=True)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"median of {runs} runs")
    for drill_id in DRILLS:
        compare(f"drill {drill_id}", lambda storage, d=drill_id: a_drill(d), runs)
    compare("busy simulated cluster (600 batches)", lambda storage: busy_cluster(), runs)
    compare("pytest tests/sim", sim_tests, max(1, runs // 2))


if __name__ == "__main__":
    main()
