"""Lesson 07's harness (minikafka.course.lesson07): the orders, the totals, and the tasks' checks.

No Spark and no cluster here: the checks are fed stand-ins with the few members they use
(a DataFrame's ``isStreaming``, ``columns``, ``dtypes``...; a cluster's ``snapshot()``), so
each test says exactly what the check reads.  The lesson itself runs them against Spark
and a live cluster (nbval).
"""

from __future__ import annotations

import json
from datetime import datetime
from types import SimpleNamespace

from minikafka.course import lesson07
from minikafka.course.lesson07 import (HIGHER, IDENTICAL, LOWER, OTHER, batch_read_check, compare_totals,
                                       high_watermarks, latest_event_time, leader_killed_check, make_orders,
                                       python_totals, send_orders, stream_start_check, text_values_check,
                                       totals_table)


# ---------------------------------------------------------------- stand-ins
def replica(broker, hw, leader):
    return SimpleNamespace(broker=broker, high_watermark=hw, is_leader=leader)


class FakeCluster:
    """``snapshot()`` with one topic (its leaders' and followers' high watermarks) and node states."""

    def __init__(self, marks, dead=(), broker_ids=(1, 2, 3)):
        self.broker_ids = list(broker_ids)
        partitions = [SimpleNamespace(partition=p, replica_states=(replica(1, hw, True), replica(2, 0, False)))
                      for p, hw in marks.items()]
        self._topic = SimpleNamespace(partitions=tuple(partitions))
        self._dead = set(dead)

    def snapshot(self):
        return SimpleNamespace(topic=lambda name: self._topic,
                               node=lambda b: SimpleNamespace(process="dead" if b in self._dead else "running"))


class FakeFrame:
    """A DataFrame's members the checks read: rows are tuples in ``columns`` order."""

    def __init__(self, columns, rows, dtypes=None, streaming=False):
        self.columns = list(columns)
        self.rows = [tuple(r) for r in rows]
        self.dtypes = dtypes or [(c, "string") for c in self.columns]
        self.isStreaming = streaming

    def count(self):
        return len(self.rows)

    def collect(self):
        return self.rows

    def select(self, column):
        index = self.columns.index(column)
        return FakeFrame([column], [(r[index],) for r in self.rows])

    def distinct(self):
        return FakeFrame(self.columns, sorted(set(self.rows)))


def kafka_rows(counts, topic="orders"):
    return [(topic, p, offset, b"{}") for p, n in counts.items() for offset in range(n)]


COLUMNS = ["topic", "partition", "offset", "value"]


# ---------------------------------------------------------------- orders
def test_orders_are_seeded_and_start_at_opening():
    orders = make_orders(640, seed=2)
    assert orders == make_orders(640, seed=2)
    assert len(orders) == 640 and [o["order_id"] for o in orders] == list(range(640))
    assert orders[0] == {"order_id": 0, "shop": "harbour", "amount_cents": 597, "event_time": "2026-01-01 10:00:00"}
    assert min(o["event_time"] for o in orders) == "2026-01-01 10:00:00"
    assert latest_event_time(orders) == "2026-01-01 10:07:02"
    assert {o["shop"] for o in orders} == set(lesson07.SHOPS)


def test_send_orders_keys_by_order_id_and_reports_partitions(capsys):
    sent = []

    class Producer:
        def send(self, topic, key, value):
            sent.append((topic, key, json.loads(value)))
            metadata = SimpleNamespace(partition=len(sent) % 2)      # 1, 0, 1
            return SimpleNamespace(get=lambda: metadata)

        def flush(self):
            sent.append("flushed")

    batch = make_orders(3)
    send_orders(Producer(), batch)
    assert sent[:3] == [("orders", f"order-{o['order_id']}".encode(), o) for o in batch]
    assert sent[3] == "flushed"
    assert capsys.readouterr().out == ("3 orders sent; per partition: {0: 1, 1: 2}; latest event time: "
                                       f"{latest_event_time(batch)[11:]}\n")
    send_orders(Producer(), batch[:1])
    assert capsys.readouterr().out.startswith("1 order sent;")


# ---------------------------------------------------------------- totals
ORDERS = [
    {"order_id": 0, "shop": "harbour", "amount_cents": 100, "event_time": "2026-01-01 10:00:10"},
    {"order_id": 1, "shop": "harbour", "amount_cents": 200, "event_time": "2026-01-01 10:00:50"},
    {"order_id": 2, "shop": "market", "amount_cents": 300, "event_time": "2026-01-01 10:01:20"},
    {"order_id": 3, "shop": "market", "amount_cents": 400, "event_time": "2026-01-01 10:02:40"},
]


def test_python_totals_close_only_windows_that_end_before_the_watermark():
    closed, open_minutes, watermark = python_totals(ORDERS, lateness_s=30)
    assert watermark == datetime(2026, 1, 1, 10, 2, 10)
    assert closed == [("10:00", "harbour", 2, 300), ("10:01", "market", 1, 300)]
    assert open_minutes == ["10:02"]


def test_a_window_ending_exactly_at_the_watermark_is_closed():
    orders = ORDERS[:3] + [{"order_id": 9, "shop": "harbour", "amount_cents": 1, "event_time": "2026-01-01 10:02:30"}]
    closed, open_minutes, _ = python_totals(orders, lateness_s=30)   # watermark 10:02:00 = end of 10:01
    assert [row[0] for row in closed] == ["10:00", "10:01"] and open_minutes == ["10:02"]


def test_compare_totals_names_the_difference():
    python = [("10:00", "harbour", 2, 300), ("10:01", "market", 1, 300)]
    assert compare_totals(list(reversed(python)), python) == IDENTICAL
    assert compare_totals([("10:00", "harbour", 1, 100), ("10:01", "market", 1, 300)], python) == LOWER
    assert compare_totals(python[:1], python) == LOWER                       # a window never written
    assert compare_totals(python + [("10:01", "market", 1, 300)], python) == HIGHER   # written twice
    assert compare_totals([("10:00", "harbour", 2, 999), ("10:01", "market", 1, 300)], python) == OTHER
    assert compare_totals([("10:00", "harbour", 3, 300), ("10:01", "market", 0, 0)], python) == OTHER
    assert set(lesson07.COMPARISONS) == {IDENTICAL, LOWER, HIGHER, OTHER}


def test_totals_table():
    assert totals_table([("10:00", "harbour", 34, 60309)]).splitlines() == [
        "minute  shop      orders   revenue", "10:00   harbour       34    603.09"]


# ---------------------------------------------------------------- the cluster's facts
def test_high_watermarks_are_the_leaders():
    assert high_watermarks(FakeCluster({0: 101, 1: 107, 2: 92}), "orders") == {0: 101, 1: 107, 2: 92}


def test_high_watermark_of_a_partition_without_leader_is_none():
    cluster = FakeCluster({0: 5})
    cluster._topic.partitions[0].replica_states = (replica(2, 3, False),)
    assert high_watermarks(cluster, "orders") == {0: None}


# ---------------------------------------------------------------- task: the batch read
MARKS = {0: 3, 1: 2}


def test_batch_read_check_accepts_every_record_of_the_topic():
    outcome = batch_read_check(FakeCluster(MARKS), FakeFrame(COLUMNS, kafka_rows(MARKS)))
    assert outcome.done and outcome.detail == "batch reads orders"


def test_batch_read_check_says_what_is_missing():
    cluster = FakeCluster(MARKS)
    assert batch_read_check(cluster, None).detail == "there is no batch yet"
    reader = SimpleNamespace(format=lambda name: None)          # a DataFrameReader: no .load()
    assert "not a Spark DataFrame (did you forget .load()?)" in batch_read_check(cluster, reader).detail
    stream = FakeFrame(COLUMNS, kafka_rows(MARKS), streaming=True)
    assert batch_read_check(cluster, stream).detail == ("batch is a streaming DataFrame; this one wants a batch "
                                                        "read (spark.read)")
    other = FakeFrame(COLUMNS, kafka_rows(MARKS, topic="order-totals"))
    assert batch_read_check(cluster, other).detail == "batch reads order-totals, not orders"
    selected = FakeFrame(["value"], [(b"{}",)])
    assert not batch_read_check(cluster, selected).done
    short = FakeFrame(COLUMNS, kafka_rows({0: 3, 1: 1}))
    assert batch_read_check(cluster, short).detail == "batch has 4 rows, but the partitions of orders hold 5 records"


# ---------------------------------------------------------------- task: the cast
def order_texts(n):
    return [(json.dumps({"order_id": i, "shop": "market"}),) for i in range(n)]


def test_text_values_check_wants_one_string_column_of_orders():
    cluster = FakeCluster(MARKS)
    assert text_values_check(cluster, FakeFrame(["value"], order_texts(5))).done
    binary = FakeFrame(["value"], [(b"{}",)] * 5, dtypes=[("value", "binary")])
    assert text_values_check(cluster, binary).detail == "the column value of texts is binary, not string: cast it"
    two = FakeFrame(["key", "value"], [("k", "v")] * 5)
    assert text_values_check(cluster, two).detail == "texts has columns key, value; select only the value"
    keys = FakeFrame(["key"], [("order-1",)] * 5)
    assert "is not an order's JSON" in text_values_check(cluster, keys).detail
    assert text_values_check(cluster, FakeFrame(["value"], order_texts(4))).detail == (
        "texts has 4 rows, but the partitions of orders hold 5 records")


# ---------------------------------------------------------------- task: the stream's start
def test_stream_start_check_counts_what_the_stream_reads_now(monkeypatch):
    cluster = FakeCluster(MARKS)
    stream = FakeFrame(COLUMNS, [], streaming=True)
    monkeypatch.setattr(lesson07, "count_now", lambda df: 0)
    assert stream_start_check(cluster, stream).detail == ("started now, raw would read 0 of the 5 records "
                                                          "already in orders")
    monkeypatch.setattr(lesson07, "count_now", lambda df: 5)
    assert stream_start_check(cluster, stream).done
    batch = FakeFrame(COLUMNS, [])
    assert stream_start_check(cluster, batch).detail == ("raw is a batch DataFrame; this one wants a streaming "
                                                         "read (spark.readStream)")


# ---------------------------------------------------------------- task: the kill
def test_leader_killed_check():
    assert leader_killed_check(FakeCluster(MARKS, dead={3}), 3).done
    assert leader_killed_check(FakeCluster(MARKS), 3).detail == "broker 3, the leader of orders-0, is running"
    wrong = leader_killed_check(FakeCluster(MARKS, dead={2}), 3)
    assert not wrong.done and "broker 2 is dead" in wrong.detail and "restart_broker(2)" in wrong.detail

