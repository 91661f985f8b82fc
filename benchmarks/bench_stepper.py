"""KRaft election stepper: how long ``back()`` and a redraw take.

``back()`` rebuilds the quorum from the seed and replays every control but
the last, so it costs in proportion to the history.  Reported, as medians:

* ``back()`` on a history of 1,000 events (target < 200 ms), and of 5,000
  and 20,000 (the most a stepper keeps) to show the slope;
* stepping speed: events per second of wall time, and virtual seconds per
  wall second, for a settled 3-controller quorum;
* a widget redraw (``QuorumStepperView.redraw``: HTML/SVG of the
  controllers, the queue and the timeline), 3 and 5 controllers (target
  < 100 ms), and a Step button press including its redraw;
* ``next_event()`` (target < 200 ms per call), median and worst over seeded
  runs: from the start through the first election to a settled leader (the
  call that ends on the bound of a quiet quorum included), and after a fault
  (the leader isolated: 60 calls, through the new election and on while the
  cut-off controller keeps timing out); and a *Next event* button
  press including its redraw.

No asserts.

    .venv/bin/python benchmarks/bench_stepper.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from widgets import QuorumStepper  # noqa: E402

RUNS = 7


def stepper_with(events: int, controllers: int = 3, seed: int = 7) -> QuorumStepper:
    """A stepper whose history holds ``events`` controls: an election, then ordinary life."""
    stepper = QuorumStepper(controllers, seed=seed)
    stepper.timeout(1001)
    stepper.step(events - 2)
    return stepper


def back_ms(events: int) -> float:
    stepper = stepper_with(events)
    times = []
    for _ in range(RUNS):
        stepper.step()                          # now ``events`` controls; back() replays the rest
        started = time.perf_counter()
        stepper.back()
        times.append((time.perf_counter() - started) * 1000)
    stepper.close()
    return statistics.median(times)


def stepping_speed() -> tuple[float, float]:
    stepper = stepper_with(2000)
    events, virtual_ms = stepper.events, stepper.time_ms
    started = time.perf_counter()
    stepper.step(5000)
    wall = time.perf_counter() - started
    rate = (stepper.events - events) / wall
    speed = (stepper.time_ms - virtual_ms) / 1000 / wall
    stepper.close()
    return rate, speed


def redraw_ms(controllers: int) -> tuple[float, float]:
    stepper = stepper_with(1000, controllers)
    view = stepper.view()
    redraws, presses = [], []
    for _ in range(RUNS * 3):
        started = time.perf_counter()
        view.redraw()
        redraws.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        view.press("step")
        presses.append((time.perf_counter() - started) * 1000)
    stepper.close()
    return statistics.median(redraws), statistics.median(presses)


def next_event_calls(stepper: QuorumStepper, most: int) -> list[float]:
    """Time next_event() calls until one finds nothing that matters (the quorum is quiet),
    at most ``most`` of them (a controller cut off keeps timing out: never quiet)."""
    times = []
    for _ in range(most):
        started = time.perf_counter()
        landed = stepper.next_event()
        times.append((time.perf_counter() - started) * 1000)
        if not landed.found:
            break
    return times


def next_event_ms(seeds: tuple[int, ...] = (7, 1, 2, 3, 11)) -> tuple[list[float], list[float],
                                                                       list[float]]:
    """(from the start, after isolating the leader, button presses): milliseconds per call."""
    start, fault, presses = [], [], []
    for seed in seeds:
        stepper = QuorumStepper(3, seed=seed)
        start += next_event_calls(stepper, 200)
        stepper.isolate(stepper.leader())
        fault += next_event_calls(stepper, 60)          # the others elect a leader and settle
        stepper.close()
        stepper = QuorumStepper(3, seed=seed)
        view = stepper.view()
        for _ in range(10):
            started = time.perf_counter()
            view.press("next_event")
            presses.append((time.perf_counter() - started) * 1000)
        stepper.close()
    return start, fault, presses


def main() -> None:
    for events in (1000, 5000, 19999):
        print(f"back() on a history of {events:>6,} events: median {back_ms(events):7.1f} ms"
              f"{'   (target < 200 ms)' if events == 1000 else ''}")
    rate, speed = stepping_speed()
    print(f"stepping, 3 controllers settled: {rate:,.0f} events/s, {speed:.1f} virtual s per "
          f"wall s")
    for controllers in (3, 5):
        redraw, press = redraw_ms(controllers)
        print(f"redraw, {controllers} controllers: median {redraw:5.2f} ms (target < 100 ms); "
              f"Step button incl. redraw: median {press:5.2f} ms")
    start, fault, presses = next_event_ms()
    for name, times in (("from the start to a settled leader", start),
                        ("after isolating the leader, 60 calls", fault),
                        ("Next event button incl. redraw", presses)):
        print(f"next_event(), {name}: {len(times)} calls, median {statistics.median(times):6.2f} "
              f"ms, worst {max(times):6.1f} ms (target < 200 ms)")


if __name__ == "__main__":
    main()
