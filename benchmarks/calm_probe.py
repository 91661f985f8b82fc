"""A probe of the live driver's clock under adversarial load (issue 15): what the cluster's thread did
and what its clock made of it, second by second.  Prints numbers; asserts nothing.

A live cluster (3 brokers, 3 controllers, teaching profile, topic ``load`` with 3
partitions at RF 3) runs in this process next to a kafka-python producer sending
100-byte records flat out from the main thread, as in a notebook cell
(``tests/e2e/test_calm_under_load.py``).  Around it, optionally:

* ``--hogs N``: N busy-loop processes; ``--pin`` puts them and this process on
  CPU 0 only (a busy single-vCPU machine); ``--nice`` gives them another nice
  value (negative: they win the CPU over this process);
* ``--reader-hz F``: another thread of this process reads the cluster's clock
  F times a second (a widget or a notebook cell would);
* ``--spin-ms M --spin-every S``: M ms of pure-Python CPU work put on the
  cluster's thread every S s (a long facade call, a slow request).

Per second: ``cpu`` the cluster thread's CPU time, ``rq`` its run-queue delay
(runnable without a CPU, from /proc schedstat), ``clock`` how far the
cluster's clock advanced, ``idle`` the idle time the selector credited (and,
in brackets, the part credited by selects that returned events: sleeping
until data came plus getting the CPU and the interpreter back), ``stall``
what the clock left out, ``rounds`` scheduler rounds.  Per window: Kafka
reactions, the longest gap of cluster time between two quorum FetchResponses
handled by one controller (the follower's fetch timeout is 400 ms, the
leader parks a fetch for 200 ms), and the control-plane work that ran latest
after its due time, in cluster time.

The probe wraps a few of the driver's internals (the inner selector, the
clock's ``idle``, the scheduler's ``at`` and ``_run``, ``_deliver``) to count;
it runs against any checkout with the same internals (``PROBE_ROOT``), so the
same command measures before and after a change.

Run: ``.venv/bin/python benchmarks/calm_probe.py [--seconds 20] [--windows 1] [--hogs 6 --pin]
[--nice -10] [--reader-hz 10] [--spin-ms 250 --spin-every 2]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.environ.get("PROBE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from minikafka import Cluster                                          # noqa: E402
from minikafka.raft.messages import FetchResponse as QuorumFetchResponse  # noqa: E402

KAFKA_REACTIONS = {"controller_elected", "controller_resigned", "broker_fenced", "broker_unfenced",
                   "isr_shrink", "isr_expand", "partition_changed", "log_truncated"}
HOG = "import os, sys\nif len(sys.argv) > 1: os.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass\n"
LATE_MS = 30                    # control work run later than this after its due time is listed


class Probe:
    """Counters kept on the cluster's thread by wrapping the driver's selector, clock and queue."""

    def __init__(self, cluster: Cluster):
        driver = cluster.driver
        self.driver, self.clock = driver, driver.clock
        self.idle = self.idle_events = 0.0   # idle credited (ms); by selects that returned events
        self.gaps: list[tuple[int, int]] = []     # (cluster ms between FetchResponses, controller)
        self.late: list[tuple[int, str]] = []     # (cluster ms late, what) for control work
        self.long_items: list[tuple[float, str]] = []  # (CPU ms, what) of items over 20 ms
        self._last_response: dict[int, int] = {}
        self._events = False
        self._wrap_selector(driver.loop._selector)
        self._wrap_queue(driver)
        self.tid = driver.submit(threading.get_native_id)
        self.cpu_clock = time.pthread_getcpuclockid(driver._thread.ident)

    def _wrap_selector(self, selector) -> None:
        inner_select, credit = selector._inner.select, self.clock.idle

        def select(timeout=None):
            ready = inner_select(timeout)
            self._events = bool(ready)
            return ready

        def idle(ms):
            self.idle += ms
            if self._events:
                self.idle_events += ms
            credit(ms)
        selector._inner.select, self.clock.idle = select, idle

    def _wrap_queue(self, driver) -> None:
        scheduler, at, run, deliver = driver.scheduler, driver.scheduler.at, driver.scheduler._run, \
            driver._deliver

        def timed_at(time_ms, fn, lane=0):
            if lane != 0:
                return at(time_ms, fn, lane)
            queued = self.clock._last

            def late():
                lateness = driver.clock.now() - max(time_ms, queued)
                if lateness > LATE_MS:
                    self.late.append((lateness, describe(fn)))
                fn()
            late.probe_wraps = fn
            return at(time_ms, late, lane)

        def timed_run(fn):
            started = time.thread_time()
            run(fn)
            cpu = (time.thread_time() - started) * 1000
            if cpu > 20:
                self.long_items.append((round(cpu, 1), describe(fn)))

        def counted_deliver(envelope, incarnation):
            deliver(envelope, incarnation)
            if envelope.is_response and isinstance(envelope.body, QuorumFetchResponse) \
                    and envelope.dst in self._controllers:
                now, before = driver.clock.now(), self._last_response.get(envelope.dst)
                if before is not None:
                    self.gaps.append((now - before, envelope.dst))
                self._last_response[envelope.dst] = now
        self._controllers = {n for n, h in driver.handles.items() if "controller" in h.roles}
        scheduler.at, scheduler._run, driver._deliver = timed_at, timed_run, counted_deliver

    def sample(self) -> dict:
        with open(f"/proc/self/task/{self.tid}/schedstat") as f:
            run_delay = int(f.read().split()[1]) / 1e6
        # _last: the cluster's own latest reading (calling now() here would be a reader of its own)
        return {"wall": time.monotonic() * 1000, "cpu": time.clock_gettime(self.cpu_clock) * 1000,
                "rq": run_delay, "clock": self.clock._last, "idle": self.idle, "idleE": self.idle_events,
                "stall": self.clock.total_stalled_ms, "rounds": self.driver.scheduler.rounds}


def describe(fn) -> str:
    fn = getattr(fn, "probe_wraps", fn)
    text = getattr(fn, "__qualname__", repr(fn)).replace(".<locals>.", ".")
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if hasattr(value, "body"):
            text += f" {type(value.body).__name__} {value.src}->{value.dst}"
        elif hasattr(value, "poll_at"):
            text += f" node {value.node_id}"
    return text


def every_second(probe: Probe, rows: list, stop: threading.Event) -> None:
    before = probe.sample()
    while not stop.wait(1.0):
        now = probe.sample()
        d = {key: now[key] - before[key] for key in now}
        rows.append(d)
        print(f"  {len(rows):3d} s: wall {d['wall']:5.0f} cpu {d['cpu']:4.0f} rq {d['rq']:4.0f} "
              f"clock {d['clock']:5.0f} idle {d['idle']:4.0f} ({d['idleE']:4.0f}) stall {d['stall']:5.0f} "
              f"rounds {d['rounds']:4d}  load {os.getloadavg()[0]:.1f}", flush=True)
        before = now


def flat_out(cluster: Cluster, seconds: float) -> int:
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks=1, linger_ms=5)
    sent, value, deadline = 0, b"x" * 100, time.monotonic() + seconds
    while time.monotonic() < deadline:
        producer.send("load", value)
        sent += 1
    producer.close(timeout=120)
    return sent


def side_load(cluster: Cluster, args, stop: threading.Event) -> list[threading.Thread]:
    """The optional clock reader and CPU work on the cluster's thread."""
    def spin() -> None:
        end = time.thread_time() + args.spin_ms / 1000
        while time.thread_time() < end:
            pass

    def repeat(period_s: float, action) -> threading.Thread:
        def loop() -> None:
            while not stop.wait(period_s):
                action()
        return threading.Thread(target=loop, daemon=True)
    threads = []
    if args.reader_hz:
        threads.append(repeat(1 / args.reader_hz, cluster.driver.now))
    if args.spin_ms:
        threads.append(repeat(args.spin_every, lambda: cluster.driver.loop.call_soon_threadsafe(spin)))
    for thread in threads:
        thread.start()
    return threads


def window(cluster: Cluster, probe: Probe, args) -> None:
    mark, rows, stop = cluster.events.last_seq, [], threading.Event()
    for kept in (probe.gaps, probe.late, probe.long_items):
        kept.clear()
    sampler = threading.Thread(target=every_second, args=(probe, rows, stop), daemon=True)
    sampler.start()
    extra = side_load(cluster, args, stop)
    sent = flat_out(cluster, args.seconds)
    time.sleep(1.0)
    stop.set()
    for thread in [sampler, *extra]:
        thread.join()
    events = cluster.events.since(mark)
    reactions = [e for e in events if e.kind in KAFKA_REACTIONS]
    total = {key: sum(row[key] for row in rows) for key in rows[0]}
    gap = max(probe.gaps, default=(0, None))
    print(f"window: sent {sent:,} | Kafka reactions {len(reactions)} | longest quorum fetch gap "
          f"{gap[0]} ms (controller {gap[1]}) | wall {total['wall']:.0f} cpu {total['cpu']:.0f} "
          f"clock {total['clock']:.0f} idle {total['idle']:.0f} ({total['idleE']:.0f} after events) "
          f"stall {total['stall']:.0f} rounds {total['rounds']} | sandbox_stalled events "
          f"{sum(e.kind == 'sandbox_stalled' for e in events)}", flush=True)
    print(f"  latest control work (cluster ms late): {sorted(probe.late, reverse=True)[:4]}")
    print(f"  items over 20 ms of CPU: {sorted(probe.long_items, reverse=True)[:4]}")
    for event in reactions[:6]:
        print(f"  {event.kind}: {event.text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20, help="length of one load window")
    parser.add_argument("--windows", type=int, default=1)
    parser.add_argument("--hogs", type=int, default=0, help="busy-loop processes beside this one")
    parser.add_argument("--pin", action="store_true", help="this process and the hogs on CPU 0 only")
    parser.add_argument("--nice", type=int, default=0, help="the hogs' nice value")
    parser.add_argument("--reader-hz", type=float, default=0, help="another thread reads the clock this often")
    parser.add_argument("--spin-ms", type=float, default=0, help="CPU work on the cluster's thread...")
    parser.add_argument("--spin-every", type=float, default=2.0, help="...every this many seconds")
    args = parser.parse_args()
    if args.pin:
        os.sched_setaffinity(0, {0})
    hog = [sys.executable, "-c", HOG] + (["0"] if args.pin else [])
    hogs = [subprocess.Popen(hog, preexec_fn=(lambda: os.nice(args.nice)) if args.nice else None)
            for _ in range(args.hogs)]
    print(f"{os.environ.get('PROBE_ROOT') or 'this checkout'}: hogs {args.hogs} pinned {args.pin} "
          f"nice {args.nice} reader {args.reader_hz} Hz spin {args.spin_ms:.0f} ms/{args.spin_every} s; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    cluster = None
    try:
        cluster = Cluster(brokers=3, controllers=3, seed=15).start()
        cluster.create_topic("load", partitions=3, replication_factor=3)
        deadline = time.monotonic() + 60
        while not all(len(cluster.isr("load", p)) == 3 for p in range(3)):
            if time.monotonic() > deadline:
                raise TimeoutError("load-0..2 not fully in sync")
            time.sleep(0.05)
        probe = Probe(cluster)
        for _ in range(args.windows):
            window(cluster, probe, args)
    finally:
        for process in hogs:
            process.kill()
            process.wait()
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
