"""Two threads letting a simulated cluster's time pass at once (minikafka/drivers/simulated.py).

A widget's clock (widgets/sim_clock.py, without an event loop) runs ``run_for`` on its own
thread while a cell runs its own: the clock must never go back and the heap must stay whole.
The interpreter is made to switch threads as often as it can, so the races show up quickly
(before the driver held its lock to move the clock, this saw time go back within a second)."""

from __future__ import annotations

import sys
import threading
import time

from minikafka.cluster import Cluster


def test_two_threads_running_the_clock_never_move_it_back():
    cluster = Cluster(brokers=3, controllers=1, seed=11, simulated=True).start()
    driver = cluster.driver
    backwards: list[tuple[int, int]] = []
    stop = threading.Event()

    def other_runner() -> None:
        while not stop.is_set():
            cluster.run_for(3)

    def watcher() -> None:
        last = 0
        while not stop.is_set():
            now = driver.now()
            if now < last:
                backwards.append((last, now))
            last = now

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=other_runner), threading.Thread(target=watcher)]
    try:
        for thread in threads:
            thread.start()
        started, before = time.monotonic(), cluster.now()
        while time.monotonic() - started < 3:
            cluster.run_for(5)
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
        sys.setswitchinterval(interval)
    try:
        assert backwards == []
        assert cluster.now() > before + 1000
        assert all(entry[0] >= driver.now() for entry in driver._queue)   # nothing overdue
        assert cluster.is_ready()
    finally:
        cluster.stop()
