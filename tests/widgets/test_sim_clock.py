"""Virtual time that runs while a view is shown (widgets/sim_clock.py)."""

from __future__ import annotations

import threading
import time

import pytest

from minikafka.cluster import Cluster
from widgets.sim_clock import MAX_SLICE_MS, PAUSE, ClockPacer, SimClock, sim_clock_for


class FakeWall:
    """A wall clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=11, simulated=True).start()
    c.create_topic("orders", partitions=3, replication_factor=3)
    c.run_for(500)
    yield c
    c.stop()


def shown(clock: SimClock, views: int = 1) -> SimClock:
    clock._view_count = views           # what JupyterLab does when it renders a view
    return clock


def beat(clock: SimClock, wall: FakeWall, seconds: float, every: float = 0.05) -> None:
    """Let ``seconds`` of fake wall time pass, with the clock's beat every ``every``."""
    for _ in range(round(seconds / every)):
        wall.advance(every)
        clock.tick()


def test_the_pacer_turns_wall_time_into_virtual_time_at_its_speed():
    wall = FakeWall()
    pacer = ClockPacer(2.0, wall=wall)
    assert pacer.slice_ms() == 0             # the first call starts the measure
    wall.advance(0.0404)
    assert pacer.slice_ms() == 80             # 40.4 ms x 2 = 80.8: 80 now, 0.8 carried
    wall.advance(0.0001)
    assert pacer.slice_ms() == 1              # 0.2 + 0.8
    wall.advance(60)
    assert pacer.slice_ms() == MAX_SLICE_MS  # a long wait does not make time jump
    pacer.hold()
    wall.advance(1)
    assert pacer.slice_ms() == 0              # held: nothing passed meanwhile
    pacer.speed = 0.0
    wall.advance(1)
    assert pacer.slice_ms() == 0


def test_time_runs_while_shown_and_a_kill_ends_in_fencing_and_a_new_leader(cluster):
    wall = FakeWall()
    clock = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=None))
    try:
        victim = cluster.leader("orders", 0)
        start = cluster.now()
        cluster.kill(victim)
        killed_at = cluster.now()
        snap = cluster.snapshot()
        assert snap.node(victim).registration == "unfenced"     # nothing has noticed yet
        # the broker's session times out after broker.session.timeout.ms of cluster time
        session_ms = cluster.timing.ms("broker.session.timeout.ms")
        beat(clock, wall, (session_ms + 1000) / 1000)
        snap = cluster.snapshot()
        assert cluster.now() - killed_at >= session_ms
        assert snap.node(victim).registration == "fenced"
        new_leader = cluster.leader("orders", 0)
        assert new_leader not in (None, victim)
        # 1x: the virtual time that passed is the fake wall time, to the millisecond
        assert cluster.now() - start == clock.advanced_ms == session_ms + 1000 - 50
        assert "virtual time <b>t=" in clock.label.value
    finally:
        clock.close()


def test_nothing_moves_when_no_view_is_shown(cluster):
    wall = FakeWall()
    clock = SimClock(cluster, tick_s=None, wall=wall, run_on=None)
    try:
        label = clock.label.value
        before = cluster.now()
        beat(clock, wall, 2)
        assert cluster.now() == before and clock.advanced_ms == 0
        assert clock.label.value == label            # nothing for a saved output to differ on
        assert clock._view_count == 0                # tracking asked for: the front end counts
        shown(clock)
        beat(clock, wall, 1)
        assert cluster.now() > before
        shown(clock, 0)                              # the last view was removed
        stopped_at = cluster.now()
        beat(clock, wall, 2)
        assert cluster.now() == stopped_at
    finally:
        clock.close()


def test_pause_freeze_close_and_stop_stop_the_clock(cluster):
    wall = FakeWall()
    clock = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=None))
    beat(clock, wall, 0.5)
    clock.speed.value = PAUSE
    paused_at = cluster.now()
    beat(clock, wall, 1)
    assert cluster.now() == paused_at
    clock.speed.value = "1×"
    beat(clock, wall, 0.5)
    assert cluster.now() > paused_at
    clock.freeze()
    frozen_at = cluster.now()
    beat(clock, wall, 1)
    assert cluster.now() == frozen_at and clock.speed.disabled

    other = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=None))
    beat(other, wall, 0.5)
    assert cluster.now() > frozen_at
    cluster.stop()
    assert other.frozen                              # the cluster said it stops
    other.tick()
    assert other.last_error is None


def test_speed_sets_the_rate(cluster):
    rates = {}
    for speed in ("0.5×", "1×", "2×", "5×"):
        wall = FakeWall()
        clock = shown(SimClock(cluster, speed=speed, tick_s=None, wall=wall, run_on=None))
        try:
            before = cluster.now()
            beat(clock, wall, 1.05)                 # 21 beats: the first only starts the measure
            rates[speed] = cluster.now() - before
        finally:
            clock.close()
    assert rates == {"0.5×": 500, "1×": 1000, "2×": 2000, "5×": 5000}


def test_a_gate_holds_time_and_says_why(cluster):
    wall = FakeWall()
    allowed = []
    clock = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=None,
                           gate=lambda: None if allowed else "time starts when the drill runs"))
    try:
        before = cluster.now()
        beat(clock, wall, 1)
        assert cluster.now() == before
        assert "time starts when the drill runs" in clock.label.value
        allowed.append(True)
        beat(clock, wall, 1)
        assert cluster.now() - before == 950
    finally:
        clock.close()


def test_two_views_of_one_cluster_run_it_once(cluster):
    wall = FakeWall()
    first = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=None))
    second = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=None))
    try:
        before = cluster.now()
        for _ in range(20):
            wall.advance(0.05)
            first.tick()
            second.tick()
        assert cluster.now() - before == 950
        assert second.advanced_ms == 0
        first.close()                                # the other one takes over
        beat(second, wall, 1)
        assert second.advanced_ms == 950
    finally:
        first.close()
        second.close()


def test_slices_go_to_the_runner_one_at_a_time(cluster):
    """In a kernel the slices run on its event loop: none waits twice, none runs on the thread."""
    wall = FakeWall()
    queued = []
    clock = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=queued.append))
    try:
        before = cluster.now()
        beat(clock, wall, 1)
        assert len(queued) == 1 and cluster.now() == before    # the kernel was busy
        queued.pop()()                                         # the kernel is free again
        assert cluster.now() == before                         # the first slice starts the measure
        beat(clock, wall, 0.05)
        queued.pop()()
        assert cluster.now() - before == 50
    finally:
        clock.close()


def test_a_cells_run_for_beside_the_running_clock_keeps_time_monotonic(cluster):
    """Without an event loop the clock's thread steps the cluster while this thread does too."""
    clock = shown(SimClock(cluster, speed="5×", tick_s=0.002, run_on=None))
    seen = []
    errors = []
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            try:
                cluster.snapshot()
            except Exception as exc:      # pragma: no cover - the failure we look for
                errors.append(exc)

    other = threading.Thread(target=reader, daemon=True)
    other.start()
    try:
        deadline = time.monotonic() + 30
        while (clock.advanced_ms < 2000 or len(seen) < 200) and time.monotonic() < deadline:
            cluster.run_for(7)
            seen.append(cluster.now())
        assert clock.advanced_ms >= 2000 and len(seen) >= 200
        assert all(a <= b for a, b in zip(seen, seen[1:]))
    finally:
        stop.set()
        other.join(5)
        clock.close()
    # read the schedule only once the clock's thread has stopped stepping the cluster
    assert all(entry[0] >= cluster.now() for entry in cluster.driver._queue)
    assert clock.last_error is None and errors == []
    assert cluster.is_ready()
    cluster.create_topic("after", partitions=2, replication_factor=3)
    assert cluster.wait_until(lambda: cluster.leader("after", 1) is not None, 5000)


def test_a_live_cluster_gets_no_clock():
    class Live:
        simulated = False
    assert sim_clock_for(Live()) is None


def test_bad_speed_is_refused(cluster):
    with pytest.raises(ValueError, match="speed must be one of"):
        SimClock(cluster, speed="3x", tick_s=None)


# ---------------------------------------------------------------------- the widgets that show it
@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    from widgets import render
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())


def test_a_dashboard_of_a_simulated_cluster_has_one_clock_on_top(cluster, no_dot):
    from widgets.dashboard import Dashboard
    from widgets.failure_panel import FailurePanel
    from widgets.operator_view import OperatorView

    dashboard = Dashboard(cluster, operator=True, refresh_s=None)
    try:
        assert isinstance(dashboard.sim_clock, SimClock)
        assert dashboard.children[0] is dashboard.sim_clock
        assert dashboard.panel.sim_clock is None and dashboard.operator.sim_clock is None
        assert repr(dashboard) == "Dashboard(nodes=[1, 2, 3, 1001], operator=True)"
    finally:
        dashboard.close()
    assert dashboard.sim_clock.frozen                 # closed with the dashboard
    panel, view = FailurePanel(cluster), OperatorView(cluster, refresh_s=None)
    try:
        assert panel.children[0] is panel.sim_clock and view.children[0] is view.sim_clock
    finally:
        panel.close()
        view.close()
    assert panel.sim_clock.frozen and view.sim_clock.frozen


def test_a_dashboard_shown_in_a_front_end_plays_a_kill_out(cluster, no_dot):
    from widgets.dashboard import Dashboard

    wall = FakeWall()
    dashboard = Dashboard(cluster, min_interval_s=0)
    clock = dashboard.sim_clock
    clock.freeze()                                    # replace its thread by a hand-driven clock
    clock = dashboard.sim_clock = shown(SimClock(cluster, tick_s=None, wall=wall, run_on=None))
    try:
        victim = cluster.leader("orders", 1)
        dashboard.buttons[("kill", victim)].click()
        beat(clock, wall, 3)
        assert dashboard.view.wait_idle(10)
        dashboard.view.redraw()
        assert dashboard.view.wait_drawn(cluster.events.last_seq, 10)
        assert f"broker {victim}: dead · fenced" in dashboard.view.diagram.value
        assert cluster.leader("orders", 1) not in (None, victim)
    finally:
        clock.close()
        dashboard.close()


def test_a_live_cluster_shows_no_clock(no_dot):
    from _widget_helpers import FakeCluster, three_brokers
    from widgets.dashboard import Dashboard

    dashboard = Dashboard(FakeCluster(three_brokers()), min_interval_s=0)
    try:
        assert dashboard.sim_clock is None and dashboard.panel.sim_clock is None
    finally:
        dashboard.close()


def test_a_drill_waits_for_its_run_and_grades_as_without_the_clock(no_dot):
    from minikafka import drills
    from widgets.drill_panel import WAITING_FOR_RUN, DrillPanel

    def start():
        return drills.start("leader-crash", seed=4, record=False, learner="clock")

    with start() as plain:
        plain.run()
        expected, story = dict(plain.scenario.expected), plain.story
    wall = FakeWall()
    with start() as drill:
        panel = DrillPanel(drill, tick_s=None)
        try:
            assert panel.dashboard.sim_clock is None          # one clock: the panel's
            assert panel.sim_clock in panel.children[0].children
            panel.sim_clock.freeze()
            clock = panel.sim_clock = shown(SimClock(drill.cluster, tick_s=None, wall=wall,
                                                     run_on=None, gate=panel._time_may_run))
            before = drill.cluster.now()
            beat(clock, wall, 2)
            assert drill.cluster.now() == before              # not before the run
            assert WAITING_FOR_RUN in clock.label.value
            panel.buttons["run"].click()
            assert drill.state == "ran"
            assert drill.scenario.expected == expected and drill.story == story
            after_run = drill.cluster.now()
            beat(clock, wall, 1)
            assert drill.cluster.now() - after_run == 950     # now it runs
            for question_id, value in expected.items():
                drill.answers[question_id] = value
            panel.buttons["grade"].click()
            assert drill.result["score"] == drill.result["max"]
        finally:
            panel.close()
    assert clock.frozen
