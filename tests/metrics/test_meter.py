"""Meter: Count, Kafka's EWMA rates (5-second ticks) and the sandbox's ten-second window."""

import math

import pytest

from minikafka.metrics.meter import Meter

T0 = 1_767_225_600_000
M1 = 1 - math.exp(-5 / 60)          # Yammer's one-minute alpha
M5 = 1 - math.exp(-5 / 300)


def test_count_adds_every_mark():
    meter = Meter("messages", T0)
    meter.mark(3, T0 + 10)
    meter.mark(4, T0 + 20_000)
    assert meter.attributes(T0 + 30_000)["Count"] == 7


def test_ten_second_rate_counts_the_last_ten_seconds_only():
    meter = Meter("messages", T0)
    for second in range(20):                      # 20 events per second for 20 seconds
        for tenth in range(0, 1000, 50):
            meter.mark(1, T0 + second * 1000 + tenth)
    now = T0 + 19_999                             # the window's 100 buckets: 10.0 s to 19.999 s
    assert meter.attributes(now)["TenSecondRate"] == pytest.approx(20.0)
    assert meter.attributes(now + 5_000)["TenSecondRate"] == pytest.approx(10.0)   # half the window idle
    assert meter.attributes(now + 10_000)["TenSecondRate"] == 0.0


def test_first_tick_sets_the_averages_to_the_instant_rate():
    meter = Meter("messages", T0)
    meter.mark(50, T0 + 1_000)                    # 50 events in the first 5-second tick
    before = meter.attributes(T0 + 4_999)
    assert before["OneMinuteRate"] == 0.0         # no tick yet: Yammer reports 0
    after = meter.attributes(T0 + 5_000)
    assert after["OneMinuteRate"] == pytest.approx(10.0)
    assert after["FiveMinuteRate"] == pytest.approx(10.0)
    assert after["FifteenMinuteRate"] == pytest.approx(10.0)


def test_later_ticks_move_a_fraction_alpha_towards_the_instant_rate():
    meter = Meter("messages", T0)
    meter.mark(50, T0 + 1_000)                    # tick 1: 10/s
    meter.mark(100, T0 + 6_000)                   # tick 2: 20/s
    rates = meter.attributes(T0 + 10_000)
    assert rates["OneMinuteRate"] == pytest.approx(10 + M1 * (20 - 10))
    assert rates["FiveMinuteRate"] == pytest.approx(10 + M5 * (20 - 10))


def test_idle_ticks_decay_the_averages():
    meter = Meter("messages", T0)
    meter.mark(50, T0 + 1_000)
    rate = meter.attributes(T0 + 60_000)["OneMinuteRate"]   # 1 busy tick, then 11 idle ones
    assert rate == pytest.approx(10 * (1 - M1) ** 11)
    assert 3.5 < rate < 4.0                       # a minute later, a third of the burst still shows


def test_a_mark_after_idle_ticks_counts_in_the_current_tick():
    meter = Meter("messages", T0)
    meter.mark(50, T0 + 1_000)
    meter.mark(25, T0 + 12_000)                   # ticks at 5 s (10/s) and 10 s (0/s) come first
    rates = meter.attributes(T0 + 15_000)
    expected = 10 * (1 - M1)                      # after the idle tick at 10 s
    expected += M1 * (5 - expected)               # the tick at 15 s saw 25 events: 5/s
    assert rates["OneMinuteRate"] == pytest.approx(expected)


def test_mean_rate_is_count_over_age():
    meter = Meter("bytes", T0)
    meter.mark(1000, T0 + 1)
    assert meter.attributes(T0 + 4_000)["MeanRate"] == pytest.approx(250.0)
    assert Meter("bytes", T0).attributes(T0 + 4_000)["MeanRate"] == 0.0
