"""PlaneScheduler on a fake event loop: control work first, data work on a wall-time budget,
timers in the cluster's time."""

from __future__ import annotations

from minikafka.drivers.plane_scheduler import CONTROL, CONTROL_LATE_MS, DATA, PlaneScheduler


class Handle:
    def __init__(self, loop: "FakeLoop", delay_s: float | None, fn):
        self.loop, self.delay_s, self.fn, self.cancelled = loop, delay_s, fn, False

    def cancel(self) -> None:
        self.cancelled = True


class FakeLoop:
    """Keeps call_soon / call_later handles; the test fires them."""

    def __init__(self):
        self.handles: list[Handle] = []

    def call_soon(self, fn):
        self.handles.append(Handle(self, None, fn))
        return self.handles[-1]

    def call_later(self, delay_s, fn):
        self.handles.append(Handle(self, delay_s, fn))
        return self.handles[-1]

    def live(self) -> list[Handle]:
        return [h for h in self.handles if not h.cancelled]

    def fire(self) -> Handle:
        """Run the one live handle (there is never more than one)."""
        (handle,) = self.live()
        self.handles.remove(handle)
        handle.fn()
        return handle


class World:
    def __init__(self, data_budget_ms: float = 5.0):
        self.loop = FakeLoop()
        self.clock_ms = 1000
        self.wall_s = 0.0
        self.ran: list[str] = []
        self.speed = 1.0
        self.scheduler = PlaneScheduler(self.loop, lambda: self.clock_ms, lambda fn: fn(),
                                        speed=lambda: self.speed, data_budget_ms=data_budget_ms,
                                        wall=lambda: self.wall_s)

    def work(self, name: str, cost_ms: float = 0.0, then=None):
        def fn():
            self.ran.append(name)
            self.wall_s += cost_ms / 1000
            if then is not None:
                then()
        return fn


def test_control_work_runs_before_data_work_due_at_the_same_time():
    w = World()
    s = w.scheduler
    s.at(1000, w.work("produce-1"), DATA)
    s.at(1000, w.work("produce-2"), DATA)
    s.at(1000, w.work("vote"), CONTROL)
    s.at(1000, w.work("heartbeat"), CONTROL)
    w.loop.fire()
    assert w.ran == ["vote", "heartbeat", "produce-1", "produce-2"]


def test_data_work_stops_at_its_budget_and_the_loop_gets_a_turn():
    w = World(data_budget_ms=5.0)
    for i in range(5):
        w.scheduler.at(1000, w.work(f"produce-{i}", cost_ms=3.0), DATA)
    w.loop.fire()
    assert w.ran == ["produce-0", "produce-1"]         # 6 ms >= 5 ms budget: yield
    assert [h.delay_s for h in w.loop.live()] == [None]    # back at once, after the loop's I/O
    w.loop.fire()
    assert w.ran[2:] == ["produce-2", "produce-3"]
    assert w.scheduler.pending == 1


def test_a_single_slow_data_item_always_runs():
    w = World(data_budget_ms=5.0)
    w.scheduler.at(1000, w.work("huge-fetch", cost_ms=80.0), DATA)
    w.loop.fire()
    assert w.ran == ["huge-fetch"] and w.scheduler.pending == 0


def test_control_work_created_by_data_work_jumps_the_data_queue():
    w = World(data_budget_ms=50.0)
    s = w.scheduler
    forward = w.work("forward-to-controller")
    s.at(1000, w.work("create-topics", then=lambda: s.at(1000, forward, CONTROL)), DATA)
    s.at(1000, w.work("produce"), DATA)
    w.loop.fire()
    w.loop.fire()
    assert w.ran == ["create-topics", "forward-to-controller", "produce"]


def test_future_work_waits_for_the_clusters_clock_and_rearms_when_it_fell_behind():
    w = World()
    s = w.scheduler
    s.at(1400, w.work("fetch-timeout"), CONTROL)
    (timer,) = w.loop.live()
    assert timer.delay_s == 0.4
    w.clock_ms = 1250                  # 400 ms of wall time passed, 150 of them a stall
    w.loop.fire()
    assert w.ran == []
    (timer,) = w.loop.live()
    assert timer.delay_s == 0.15       # armed again for what is left in cluster time
    w.clock_ms = 1400
    w.loop.fire()
    assert w.ran == ["fetch-timeout"]


def test_an_earlier_timer_replaces_the_armed_one_and_order_follows_due_time():
    w = World()
    s = w.scheduler
    s.at(1500, w.work("late"), CONTROL)
    s.at(1100, w.work("early"), DATA)
    s.at(1100, w.work("early-too"), DATA)
    (timer,) = w.loop.live()
    assert timer.delay_s == 0.1
    w.clock_ms = 1600
    w.loop.fire()
    assert w.ran == ["late", "early", "early-too"]   # control first, then data in schedule order


def test_timers_are_armed_faster_while_the_clock_catches_up():
    w = World()
    w.speed = 2.0
    w.scheduler.at(1400, w.work("tick"), CONTROL)
    (timer,) = w.loop.live()
    assert timer.delay_s == 0.2


def test_the_ceiling_is_the_earliest_control_work_not_yet_run_plus_its_lateness():
    w = World()
    s = w.scheduler
    assert s.ceiling() is None
    s.at(1400, w.work("fetch-timeout"), CONTROL)
    s.at(1100, w.work("produce"), DATA)
    assert s.ceiling() == 1400 + CONTROL_LATE_MS      # data work never stops the clock
    s.at(900, w.work("vote"), CONTROL)                 # already due: counted from when it was queued
    assert s.ceiling() == 1000 + CONTROL_LATE_MS
    w.loop.fire()
    assert w.ran == ["vote"]
    assert s.ceiling() == 1400 + CONTROL_LATE_MS
    w.clock_ms = 1400
    w.loop.fire()                      # the timer armed for the produce at 1100 finds both due
    assert w.ran == ["vote", "fetch-timeout", "produce"]
    assert s.ceiling() is None


def test_control_work_waiting_behind_a_slow_data_item_keeps_the_ceiling_until_it_runs():
    w = World(data_budget_ms=5.0)
    s = w.scheduler

    def slow_fetch():
        w.ran.append("huge-fetch")
        s.at(1000, w.work("vote"), CONTROL)        # arrives while the fetch still holds the thread
        w.clock_ms = 1300                          # the clock would have run on meanwhile
        seen.append(s.ceiling())
    seen: list = []
    s.at(1000, slow_fetch, DATA)
    w.loop.fire()
    assert seen == [1000 + CONTROL_LATE_MS]        # StallClock stops there: the vote is not late
    w.loop.fire()
    assert w.ran == ["huge-fetch", "vote"] and s.ceiling() is None
