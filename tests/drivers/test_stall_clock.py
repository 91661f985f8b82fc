"""StallClock and ObservedSelector on fake time: what counts as the cluster's time and what is a stall."""

from __future__ import annotations

import gc
import selectors
import threading

import pytest

from minikafka.drivers.stall_clock import (CATCH_UP_RATE, GC_PAUSE_MS, IDLE_TIMEOUT_CAP_S, WAIT_PER_CPU,
                                           WAIT_SLACK_MS, ObservedSelector, StallClock)

WALL_START = 1_767_225_600.0     # seconds


class FakeTime:
    """A monotonic clock and the thread's CPU clock, moved by hand (seconds)."""

    def __init__(self):
        self.mono = 100.0
        self.cpu = 5.0

    def run(self, ms: float) -> None:
        """The thread computes for ``ms``: both clocks advance."""
        self.mono += ms / 1000
        self.cpu += ms / 1000

    def wait(self, ms: float) -> None:
        """The thread is ready but does not run for ``ms`` (another thread has the GIL)."""
        self.mono += ms / 1000


BOUND: list[StallClock] = []


@pytest.fixture(autouse=True)
def unbind_clocks():
    yield
    while BOUND:
        BOUND.pop().unbind()


def counted_wait(computed_ms: float, allowance_ms: float = 50.0) -> float:
    """How much waiting a stretch over the allowance still counts: WAIT_PER_CPU ms per ms the thread
    computed in it, plus the slack, at most the allowance; the rest of its waiting is a stall."""
    return min(allowance_ms, WAIT_SLACK_MS + WAIT_PER_CPU * computed_ms)


# A stretch in which the thread computed 1 ms counts this much waiting; the rest is a stall.
AFTER_1_MS = counted_wait(1)


def make_clock(allowance_ms: float = 50.0):
    fake = FakeTime()
    stalls: list[float] = []
    clock = StallClock(on_stall=stalls.append, allowance_ms=allowance_ms, wall=lambda: WALL_START,
                       monotonic=lambda: fake.mono, thread_cpu=lambda: fake.cpu)
    clock.bind()
    BOUND.append(clock)
    return clock, fake, stalls


def elapsed(clock: StallClock) -> int:
    return clock.now() - int(WALL_START * 1000)


def test_a_busy_thread_keeps_wall_time():
    clock, fake, stalls = make_clock()
    for _ in range(10):
        fake.run(30)
        clock.now()
    assert elapsed(clock) == 300
    assert stalls == [] and clock.stalled_ms == 0


def test_short_waits_count_as_the_clusters_time():
    clock, fake, stalls = make_clock(allowance_ms=50)
    for _ in range(10):                 # 60 ms stretches, 25 ms of them waiting: less than the work done
        fake.run(35)
        fake.wait(25)
        clock.now()
    assert elapsed(clock) == 600
    assert stalls == []


def test_waits_count_only_as_far_as_the_thread_computed():
    clock, fake, stalls = make_clock(allowance_ms=50)
    for _ in range(10):                 # preempted finely: 6 ms of work, then 50 ms waiting, again and again
        fake.run(6)
        fake.wait(50)
        clock.now()
    # Each stretch counts its work, and waiting up to WAIT_PER_CPU times that work plus the slack:
    # the cluster's clock runs slower than the wall, and each of its milliseconds carries real work.
    assert counted_wait(6) < 50
    assert elapsed(clock) == 10 * (6 + counted_wait(6))
    assert stalls == [pytest.approx(50 - counted_wait(6))] * 10


def test_a_long_wait_is_a_stall_left_out_of_the_clock():
    clock, fake, stalls = make_clock(allowance_ms=50)
    fake.run(10)
    clock.now()
    fake.wait(800)                      # starved: the GIL was elsewhere for 800 ms
    fake.run(5)
    counted = counted_wait(15)          # the stretch computed 15 ms: waiting counts in proportion
    assert elapsed(clock) == 10 + 5 + counted
    assert stalls == [pytest.approx(800 - counted)]
    assert clock.stalled_ms == pytest.approx(800 - counted) == clock.total_stalled_ms


def test_idle_time_in_select_is_time_but_not_beyond_what_was_asked():
    clock, fake, stalls = make_clock(allowance_ms=50)
    fake.wait(20)
    clock.idle(20)                      # slept 20 ms in select: nothing to do
    fake.wait(300)
    clock.idle(300)                     # another idle wait (the selector caps what it reports)
    assert elapsed(clock) == 320
    assert stalls == []


def test_the_clock_never_goes_back():
    clock, fake, stalls = make_clock(allowance_ms=50)
    values = []
    for step in range(200):
        if step % 7 == 0:
            fake.wait(120)
        else:
            fake.run(3)
        values.append(clock.now())
    assert values == sorted(values)
    assert stalls                       # the 120 ms waits were stalls


def test_idle_time_catches_up_after_a_stall():
    clock, fake, stalls = make_clock(allowance_ms=50)
    fake.wait(1050)
    fake.run(1)
    clock.now()
    stall = 1050 - AFTER_1_MS
    assert clock.stalled_ms == pytest.approx(stall)
    assert clock.speed == 1.0 + CATCH_UP_RATE
    fake.wait(400)
    clock.idle(400)
    assert clock.stalled_ms == pytest.approx(stall - 400 * CATCH_UP_RATE)
    fake.wait(4000)
    clock.idle(4000)
    assert clock.stalled_ms == 0 and clock.speed == 1.0
    assert clock.total_stalled_ms == pytest.approx(stall)  # the record of what was left out stays
    assert elapsed(clock) == int(fake.mono * 1000 - 100_000)  # back on the wall clock


def test_other_threads_read_the_clock_without_observing():
    clock, fake, stalls = make_clock(allowance_ms=50)
    fake.wait(900)
    seen = []
    reader = threading.Thread(target=lambda: seen.append(clock.now()))
    reader.start()
    reader.join()
    assert stalls == []                 # only the cluster's own thread can tell a stall
    fake.run(1)
    clock.now()
    assert stalls == [pytest.approx(900 - AFTER_1_MS)]


def test_other_threads_reading_the_clock_during_a_stall_do_not_move_it():
    clock, fake, stalls = make_clock(allowance_ms=50)
    fake.run(10)
    clock.now()
    fake.wait(900)                      # the cluster's thread is starved...
    seen = []
    reader = threading.Thread(target=lambda: seen.append(clock.now()))
    reader.start()
    reader.join()
    assert seen[0] - WALL_START * 1000 == 910   # ...another thread gets an estimate with the stall in it
    fake.run(1)
    # The cluster's own clock leaves the stall out all the same: it does not start from that estimate.
    assert elapsed(clock) == 10 + 1 + counted_wait(11)
    assert stalls == [pytest.approx(900 - counted_wait(11))]


def ceiling_at(ms: float | None):
    """A ceiling like PlaneScheduler's: ``ms`` after the start (None: no control work waiting)."""
    limit = [None if ms is None else WALL_START * 1000 + ms]
    return limit, lambda: limit[0]


def test_the_clock_stops_at_its_ceiling_and_the_time_beyond_is_a_stall():
    clock, fake, stalls = make_clock(allowance_ms=50)
    limit, clock.ceiling = ceiling_at(100)   # control work due at +50 may run until +100
    fake.run(30)
    assert elapsed(clock) == 30
    fake.run(300)                       # one long piece of work holds the thread: that work cannot run
    assert elapsed(clock) == 100
    assert stalls == [pytest.approx(230)] and clock.total_stalled_ms == pytest.approx(230)
    limit[0] = None                     # it ran: the clock goes on from where it stopped, no jump
    fake.run(10)
    assert elapsed(clock) == 110


def test_at_the_ceiling_waits_already_left_out_are_not_left_out_twice():
    clock, fake, stalls = make_clock(allowance_ms=50)
    limit, clock.ceiling = ceiling_at(25)
    fake.run(10)
    clock.now()
    fake.wait(800)
    fake.run(5)
    # The stretch's rules settle first (its waits count in proportion to the 15 ms computed, the
    # rest is a stall); the ceiling then takes only what that reached beyond +25.
    reached = 15 + counted_wait(15)
    assert elapsed(clock) == 25
    assert stalls == [pytest.approx(800 - counted_wait(15)), pytest.approx(reached - 25)]
    assert clock.total_stalled_ms == pytest.approx(815 - 25)


def test_below_its_ceiling_the_clock_runs_as_without_one():
    clock, fake, stalls = make_clock(allowance_ms=50)
    limit, clock.ceiling = ceiling_at(10_000)
    for _ in range(10):
        fake.run(35)
        fake.wait(25)
        clock.now()
    fake.wait(20)
    clock.idle(20)
    assert elapsed(clock) == 620
    assert stalls == []


class FakeSelector(selectors.BaseSelector):
    def __init__(self, fake: FakeTime, sleeps_ms: float):
        self.fake, self.sleeps_ms, self.timeouts = fake, sleeps_ms, []

    def register(self, fileobj, events, data=None):
        raise NotImplementedError

    def unregister(self, fileobj):
        raise NotImplementedError

    def get_map(self):
        return {}

    def select(self, timeout=None):
        self.timeouts.append(timeout)
        self.fake.wait(self.sleeps_ms)
        return []


def test_the_selector_caps_its_timeout_and_reports_at_most_that_as_idle():
    clock, fake, stalls = make_clock(allowance_ms=50)
    inner = FakeSelector(fake, sleeps_ms=400)      # woke up late: 400 ms instead of <= the cap
    selector = ObservedSelector(inner, clock)
    selector.select(None)
    selector.select(10.0)
    assert inner.timeouts == [IDLE_TIMEOUT_CAP_S, IDLE_TIMEOUT_CAP_S]
    fake.run(1)
    clock.now()
    idle_ms = 2 * IDLE_TIMEOUT_CAP_S * 1000
    assert stalls == [pytest.approx(800 - idle_ms - AFTER_1_MS)]


def test_a_zero_timeout_select_credits_no_idle_time():
    clock, fake, stalls = make_clock(allowance_ms=50)
    selector = ObservedSelector(FakeSelector(fake, sleeps_ms=200), clock)
    selector.select(0)                  # work was queued: any time spent here was waiting
    fake.run(1)
    clock.now()
    assert stalls == [pytest.approx(200 - AFTER_1_MS)]


def test_a_long_garbage_collection_on_the_clusters_thread_is_a_stall():
    clock, fake, stalls = make_clock(allowance_ms=50)
    fake.run(10)
    clock.now()
    clock._on_gc("start", {"generation": 2})
    fake.run(300)                       # the collector walked the process's heap: busy, not idle
    clock._on_gc("stop", {"generation": 2})
    fake.run(10)
    assert elapsed(clock) == 20
    assert stalls == [pytest.approx(300)]
    fake.run(40)
    clock.now()                         # the stretch around the collection is not a stall again
    assert stalls == [pytest.approx(300)] and clock.total_stalled_ms == pytest.approx(300)


def test_short_collections_count_as_the_clusters_time():
    clock, fake, stalls = make_clock(allowance_ms=50)
    for _ in range(20):
        clock._on_gc("start", {"generation": 0})
        fake.run(GC_PAUSE_MS / 2)
        clock._on_gc("stop", {"generation": 0})
        fake.run(5)
        clock.now()
    assert stalls == [] and elapsed(clock) == int(20 * (GC_PAUSE_MS / 2 + 5))


def test_collections_on_other_threads_are_left_to_the_wait_accounting():
    clock, fake, stalls = make_clock(allowance_ms=50)

    def collect_elsewhere():
        clock._on_gc("start", {"generation": 2})
        fake.wait(300)
        clock._on_gc("stop", {"generation": 2})
    other = threading.Thread(target=collect_elsewhere)
    other.start()
    other.join()
    fake.run(1)
    clock.now()
    assert stalls == [pytest.approx(300 - AFTER_1_MS)]   # the cluster's thread waited 300 ms: a plain stall


def test_the_clock_hooks_the_collector_only_while_bound():
    clock, fake, stalls = make_clock()
    assert clock._on_gc in gc.callbacks
    clock.unbind()
    assert clock._on_gc not in gc.callbacks
