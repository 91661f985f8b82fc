"""The stepping driver (minikafka/drivers/stepping.py): a visible queue, controls, replay."""

from __future__ import annotations

import random

import pytest

from minikafka.drivers.simulated import SIM_EPOCH_MS
from minikafka.drivers.stepping import CALLBACK, MESSAGE, TIMER, SteppingDriver, replay
from minikafka.runtime.events import EventLog
from minikafka.runtime.node import Node, RequestTimedOut

TICK_MS = 50
REQUEST_TIMEOUT_MS = 100


class Pinger(Node):
    """Pings every peer on start and on every tick; answers pings with pongs."""

    def __init__(self, node_id: int, peers: tuple[int, ...]):
        super().__init__(node_id, random.Random(node_id))
        self.peers = peers
        self.answers: list = []          # responses (or RequestTimedOut) in arrival order
        self.pings: list = []            # requests received
        self.tick_at: int | None = None

    def on_start(self) -> None:
        self.ping()

    def ping(self) -> None:
        for peer in self.peers:
            self.send_request(peer, ("ping", self.node_id), self.answers.append,
                              REQUEST_TIMEOUT_MS)
        self.tick_at = self.now + TICK_MS
        self.schedule(("test", "tick"), self.tick_at, self.ping)

    def delay_tick(self, by_ms: int) -> None:
        self.tick_at += by_ms
        self.schedule(("test", "tick"), self.tick_at, self.ping)

    def on_request(self, envelope) -> None:
        self.pings.append(envelope.body)
        self.reply(envelope, ("pong", self.node_id))

    def describe_deadline(self, at: int) -> str:
        return "tick" if at == self.tick_at else "request timeout"


def make(ids: tuple[int, ...] = (1, 2, 3)) -> SteppingDriver:
    driver = SteppingDriver(lambda n, inc, now: Pinger(n, tuple(i for i in ids if i != n)),
                            EventLog(), base_latency_ms=1,
                            describe=lambda env, req: f"{env.src}->{env.dst} {env.body[0]}"
                                                      f"{' for ' + req[0] if req else ''}")
    for node_id in ids:
        driver.add_node(node_id, ("controller",))
    driver.start_together(ids)
    return driver


def node(driver: SteppingDriver, node_id: int) -> Pinger:
    return driver.handles[node_id].node


def test_queue_is_in_time_order_with_one_named_timer_per_node():
    driver = make()
    pending = driver.pending()
    assert [h.time_ms for h in pending] == sorted(h.time_ms for h in pending)
    messages = [h for h in pending if h.kind == MESSAGE]
    assert {(h.src, h.dst) for h in messages} == {(a, b) for a in (1, 2, 3) for b in (1, 2, 3)
                                                  if a != b}
    assert all(h.time_ms == SIM_EPOCH_MS + 1 and h.text.endswith("ping") for h in messages)
    timers = [h for h in pending if h.kind == TIMER]
    assert sorted(h.node_id for h in timers) == [1, 2, 3]
    assert {h.text for h in timers} == {"1 timer: tick", "2 timer: tick", "3 timer: tick"}
    assert not driver.controls


def test_starting_together_refuses_nobody():
    driver = make()
    assert all(h.kind != CALLBACK for h in driver.pending())      # no refused-connection notices
    for _ in range(6):
        driver.step()
    assert sorted(len(node(driver, n).pings) for n in (1, 2, 3)) == [2, 2, 2]


def test_step_runs_the_first_happening_and_moves_the_clock():
    driver = make()
    first = driver.pending()[0]
    assert driver.step() is first
    assert driver.now() == first.time_ms == SIM_EPOCH_MS + 1
    assert node(driver, first.dst).pings == [("ping", first.src)]
    assert driver.controls == [("step",)]
    reply = [h for h in driver.pending() if h.kind == MESSAGE and h.envelope.is_response]
    assert len(reply) == 1 and reply[0].request == ("ping", first.src)   # a response knows its request
    assert reply[0].text == f"{first.dst}->{first.src} pong for ping"


def test_a_timer_is_replaced_not_duplicated_when_its_deadline_moves():
    driver = make()
    driver.call(2, "delay_tick", 30)
    timers = [h for h in driver.pending() if h.kind == TIMER and h.node_id == 2]
    assert len(timers) == 1
    assert timers[0].time_ms == SIM_EPOCH_MS + TICK_MS + 30
    assert driver.controls == [("call", 2, "delay_tick", (30,))]


def test_deliver_lets_a_message_overtake_without_moving_the_clock():
    driver = make()
    pending = driver.pending()
    last = max(i for i, h in enumerate(pending) if h.kind == MESSAGE)
    chosen = pending[last]
    driver.deliver(last)
    assert driver.now() == SIM_EPOCH_MS
    assert node(driver, chosen.dst).pings == [("ping", chosen.src)]
    assert chosen not in driver.pending()
    assert driver.controls == [("deliver", last)]


def test_messages_of_one_connection_keep_their_order():
    driver = make((1, 2))
    driver.call(1, "ping")                  # a second ping from 1 to 2, behind the first
    pending = driver.pending()
    second = max(i for i, h in enumerate(pending) if (h.src, h.dst) == (1, 2))
    controls = list(driver.controls)
    with pytest.raises(ValueError, match="share one connection"):
        driver.deliver(second)
    assert driver.pending() == pending and driver.controls == controls


def test_drop_loses_the_message_and_the_request_times_out():
    driver = make((1, 2))
    index = next(i for i, h in enumerate(driver.pending()) if (h.src, h.dst) == (1, 2))
    dropped = driver.drop(index)
    assert dropped not in driver.pending()
    while driver.pending()[0].time_ms < SIM_EPOCH_MS + TICK_MS:
        driver.step()
    assert ("ping", 1) not in node(driver, 2).pings          # only the next tick's ping arrives
    while driver.now() < SIM_EPOCH_MS + REQUEST_TIMEOUT_MS:
        driver.step()
    timed_out = [a for a in node(driver, 1).answers if isinstance(a, RequestTimedOut)]
    assert [t.request for t in timed_out] == [("ping", 1)]


def test_message_at_refuses_a_timer():
    driver = make()
    timer = next(i for i, h in enumerate(driver.pending()) if h.kind == TIMER)
    with pytest.raises(ValueError, match="not a message"):
        driver.drop(timer)


def test_isolation_loses_messages_in_flight_and_later_ones_until_healed():
    driver = make()
    lost = driver.isolate_node(3)
    assert sorted((h.src, h.dst) for h in lost) == [(1, 3), (2, 3), (3, 1), (3, 2)]
    assert all(3 not in (h.src, h.dst) for h in driver.pending() if h.kind == MESSAGE)
    driver.lost.clear()
    while driver.pending()[0].time_ms <= SIM_EPOCH_MS + TICK_MS:
        driver.step()
    assert {(h.src, h.dst) for h in driver.lost} == {(3, 1), (1, 3), (3, 2), (2, 3)}
    driver.heal()
    driver.lost.clear()
    while driver.now() < SIM_EPOCH_MS + 2 * TICK_MS:
        driver.step()
    assert not driver.lost
    assert driver.controls[:1] == [("isolate", 3)] and ("heal",) in driver.controls


def test_replay_reproduces_the_run_exactly():
    driver = make()
    rng = random.Random(3)
    for _ in range(60):
        pending = driver.pending()
        messages = [i for i, h in enumerate(pending) if h.kind == MESSAGE]
        choice = rng.random()
        if choice < 0.1 and messages:
            driver.drop(rng.choice(messages))
        elif choice < 0.15:
            driver.isolate_node(rng.choice((1, 2, 3))) if not driver.network.group_of \
                else driver.heal()
        else:
            driver.step()
    again = replay(make, driver.controls)
    assert again.controls == driver.controls
    assert again.now() == driver.now()
    assert [(h.time_ms, h.kind, h.text) for h in again.pending()] == \
        [(h.time_ms, h.kind, h.text) for h in driver.pending()]
    for n in (1, 2, 3):
        assert node(again, n).pings == node(driver, n).pings
        assert node(again, n).answers == node(driver, n).answers


def test_an_unknown_control_is_refused():
    with pytest.raises(ValueError, match="unknown control"):
        make().apply(("jump", 3))
