"""Lesson 07's plumbing: the bakery's orders, sending them, reading the totals back, and the checks of its tasks.

You need not read this module to follow the lesson: the cells you read are
the Spark and Kafka code; this is what they lean on.

* `make_orders` makes up the seeded orders (event time with a few seconds
  of jitter either way) and `send_orders` sends them keyed by order id,
  saying how many went to each partition and the latest event time among
  them;
* `high_watermarks` reads each partition's high watermark from its leader
  (the offset a consumer, or Spark, reads up to);
* `count_now` counts the rows a streaming DataFrame reads right now: a
  query with ``trigger(availableNow=True)`` into Spark's memory sink, which
  reads what the topic holds when it starts and then stops;
* `read_totals` and `show_totals` read the topic ``order-totals`` back with a
  batch query and print it; `python_totals` computes the same totals in
  plain Python from the list of orders, for the windows the watermark has
  closed; `compare_totals` says how the two differ;
* `batch_read_check`, `text_values_check`, `stream_start_check` and
  `leader_killed_check` are the checks of the lesson's "your turn" tasks:
  each looks at what Spark read or what the cluster shows, never at the
  learner's code, and returns an `Outcome` with one line saying what it saw.

Not a Kafka concept: the lesson's harness.
"""

from __future__ import annotations

import json
import random
import uuid
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from typing import Any, Iterable

from minikafka.course.task import Outcome

SHOPS = ("harbour", "market", "station")
OPENING = datetime(2026, 1, 1, 10, 0, 0)
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"

# How Spark's totals of the closed windows compare with Python's (the choices of a prediction).
IDENTICAL = "identical, to the cent"
LOWER = "lower: some orders are missing"
HIGHER = "higher: some orders were counted twice"
OTHER = "different in some other way"
COMPARISONS = (IDENTICAL, LOWER, HIGHER, OTHER)


# ---------------------------------------------------------------- the orders
def make_orders(count: int = 640, seed: int = 2, every_s: float = 0.65, jitter_s: int = 10) -> list[dict]:
    """``count`` orders from 10:00 on, one every ``every_s`` seconds on average, each
    sent up to ``jitter_s`` seconds early or late; the same list for the same seed."""
    rng = random.Random(seed)
    orders = []
    for n in range(count):
        jitter = rng.randint(-jitter_s, jitter_s)
        event_time = max(OPENING, OPENING + timedelta(seconds=round(n * every_s) + jitter))
        orders.append({"order_id": n,
                       "shop": rng.choice(SHOPS),
                       "amount_cents": rng.randint(250, 4000),
                       "event_time": event_time.strftime(TIME_FORMAT)})
    return orders


def latest_event_time(orders: Iterable[dict]) -> str:
    """The latest event time among ``orders`` ("2026-01-01 10:03:23")."""
    return max(o["event_time"] for o in orders)


def send_orders(producer: Any, batch: list[dict], topic: str = "orders") -> None:
    """Send ``batch`` keyed by order id, wait for every acknowledgement, print one line."""
    futures = [producer.send(topic, key=f"order-{o['order_id']}".encode(), value=json.dumps(o).encode())
               for o in batch]
    producer.flush()
    per_partition = Counter(future.get().partition for future in futures)
    noun = "order" if len(batch) == 1 else "orders"
    print(f"{len(batch)} {noun} sent; per partition: {dict(sorted(per_partition.items()))}; "
          f"latest event time: {latest_event_time(batch)[11:]}")


# ---------------------------------------------------------------- what the cluster and Spark say
def high_watermarks(cluster: Any, topic: str) -> dict[int, int]:
    """Each partition's high watermark, as its leader knows it (followers learn it a fetch later)."""
    marks = {}
    for partition in cluster.snapshot().topic(topic).partitions:
        leader = [r for r in partition.replica_states if r.is_leader]
        marks[partition.partition] = leader[0].high_watermark if leader else None
    return marks


def count_now(stream: Any) -> int:
    """How many rows the streaming DataFrame ``stream`` reads if started now and run until it has
    read what was there when it started (``availableNow``); runs a short query into the memory sink."""
    name = "count_now_" + uuid.uuid4().hex[:12]
    query = stream.writeStream.format("memory").queryName(name).trigger(availableNow=True).start()
    try:
        query.awaitTermination()
        spark = stream.sparkSession
        rows = spark.table(name).count()
    finally:
        query.stop()
    spark.catalog.dropTempView(name)
    return rows


TOTALS_SCHEMA = "minute STRING, shop STRING, orders INT, revenue_cents LONG"


def read_totals(spark: Any, bootstrap_servers: str, topic: str = "order-totals") -> list[tuple]:
    """Every record of ``topic`` (a batch read), as sorted (minute, shop, orders, revenue_cents)."""
    from pyspark.sql import functions as F

    records = (spark.read.format("kafka")
               .option("kafka.bootstrap.servers", bootstrap_servers)
               .option("subscribe", topic)
               .load())
    rows = (records.select(F.from_json(F.col("value").cast("string"), TOTALS_SCHEMA).alias("t"))
            .select("t.*").collect())
    return sorted((r.minute, r.shop, r.orders, r.revenue_cents) for r in rows)


def totals_table(rows: Iterable[tuple]) -> str:
    lines = ["minute  shop      orders   revenue"]
    for minute, shop, count, cents in rows:
        lines.append(f"{minute}   {shop:8}  {count:6}   {cents / 100:7.2f}")
    return "\n".join(lines)


def show_totals(rows: Iterable[tuple]) -> None:
    print(totals_table(rows))


def python_totals(orders: Iterable[dict], lateness_s: int = 30) -> tuple[list[tuple], list[str], datetime]:
    """The per-shop, per-minute totals of ``orders`` computed in plain Python.

    Returns (closed, open_minutes, watermark): the sorted (minute, shop, orders, revenue_cents)
    of every window that ends at or before the watermark (latest event time minus
    ``lateness_s``), the minutes whose windows are still open, and the watermark itself.
    """
    orders = list(orders)
    expected: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for o in orders:
        minute = o["event_time"][11:16]
        expected[(minute, o["shop"])][0] += 1
        expected[(minute, o["shop"])][1] += o["amount_cents"]
    watermark = datetime.strptime(latest_event_time(orders), TIME_FORMAT) - timedelta(seconds=lateness_s)
    day = orders[0]["event_time"][:10] if orders else OPENING.strftime("%Y-%m-%d")

    def closed(minute: str) -> bool:
        return datetime.strptime(f"{day} {minute}", "%Y-%m-%d %H:%M") + timedelta(minutes=1) <= watermark

    rows = sorted((minute, shop, count, cents) for (minute, shop), (count, cents) in expected.items()
                  if closed(minute))
    open_minutes = sorted({minute for minute, _ in expected if not closed(minute)})
    return rows, open_minutes, watermark


def compare_totals(spark_rows: Iterable[tuple], python_rows: Iterable[tuple]) -> str:
    """One of `COMPARISONS`: how Spark's (minute, shop, orders, cents) rows compare with Python's."""
    spark_rows, python_rows = list(spark_rows), list(python_rows)
    if sorted(spark_rows) == sorted(python_rows):
        return IDENTICAL
    spark_counts: Counter[tuple[Any, Any]] = Counter()
    for minute, shop, count, _cents in spark_rows:
        spark_counts[(minute, shop)] += count
    python_counts = {(minute, shop): count for minute, shop, count, _cents in python_rows}
    keys = set(spark_counts) | set(python_counts)
    fewer = any(spark_counts.get(k, 0) < python_counts.get(k, 0) for k in keys)
    more = any(spark_counts.get(k, 0) > python_counts.get(k, 0) for k in keys)
    if fewer and not more:
        return LOWER
    if more and not fewer:
        return HIGHER
    return OTHER


# ---------------------------------------------------------------- the tasks' checks
def _not_a_dataframe(value: Any, name: str, streaming: bool) -> str | None:
    """Why ``value`` is not the DataFrame a task asked for, or None."""
    if value is None or value is ...:
        return f"there is no {name} yet"
    if not hasattr(value, "isStreaming") or not hasattr(value, "columns"):
        return f"{name} is a {type(value).__name__}, not a Spark DataFrame (did you forget .load()?)"
    if value.isStreaming != streaming:
        wanted, got = ("streaming", "batch") if streaming else ("batch", "streaming")
        how = "spark.readStream" if streaming else "spark.read"
        return f"{name} is a {got} DataFrame; this one wants a {wanted} read ({how})"
    return None


def batch_read_check(cluster: Any, batch: Any, topic: str = "orders", name: str = "batch") -> Outcome:
    """``batch`` is a batch read of ``topic`` whose rows are every record the brokers hold."""
    problem = _not_a_dataframe(batch, name, streaming=False)
    if problem:
        return Outcome(False, problem)
    missing = {"topic", "partition", "offset", "value"} - set(batch.columns)
    if missing:
        return Outcome(False, f"{name} has no column {', '.join(sorted(missing))}: keep the "
                              f"connector's columns (no select yet)")
    topics = sorted(row[0] for row in batch.select("topic").distinct().collect())
    if topics != [topic]:
        return Outcome(False, f"{name} reads {', '.join(topics) or 'nothing'}, not {topic}")
    rows, held = batch.count(), sum(high_watermarks(cluster, topic).values())
    if rows != held:
        return Outcome(False, f"{name} has {rows} rows, but the partitions of {topic} hold {held} records")
    return Outcome(True, f"{name} reads {topic}")


def text_values_check(cluster: Any, texts: Any, topic: str = "orders", name: str = "texts") -> Outcome:
    """``texts`` has one column, a string, and its values are the records' JSON texts."""
    problem = _not_a_dataframe(texts, name, streaming=False)
    if problem:
        return Outcome(False, problem)
    if len(texts.dtypes) != 1:
        return Outcome(False, f"{name} has columns {', '.join(texts.columns)}; select only the value")
    column, kind = texts.dtypes[0]
    if kind != "string":
        return Outcome(False, f"the column {column} of {name} is {kind}, not string: cast it")
    values = [row[0] for row in texts.collect()]
    held = sum(high_watermarks(cluster, topic).values())
    if len(values) != held:
        return Outcome(False, f"{name} has {len(values)} rows, but the partitions of {topic} hold {held} records")
    for value in values:
        try:
            parsed = json.loads(value)
        except (TypeError, ValueError):
            return Outcome(False, f"{name} holds {value!r}, which is not an order's JSON: cast the "
                                  f"value column, not another one")
        if not isinstance(parsed, dict) or "order_id" not in parsed:
            return Outcome(False, f"{name} holds {value!r}, which is not an order")
    return Outcome(True, f"{name}: {len(values)} orders as JSON text")


def stream_start_check(cluster: Any, stream: Any, topic: str = "orders", name: str = "raw") -> Outcome:
    """``stream`` is a streaming read that sees every record already in ``topic`` (runs `count_now`)."""
    problem = _not_a_dataframe(stream, name, streaming=True)
    if problem:
        return Outcome(False, problem)
    held = sum(high_watermarks(cluster, topic).values())
    seen = count_now(stream)
    if seen != held:
        return Outcome(False, f"started now, {name} would read {seen} of the {held} records "
                              f"already in {topic}")
    return Outcome(True, f"started now, {name} reads all {held} records already in {topic}")


def leader_killed_check(cluster: Any, broker: int, topic: str = "orders", partition: int = 0) -> Outcome:
    """Broker ``broker`` (which led the partition) is dead, and no other broker is."""
    snapshot = cluster.snapshot()
    others = [b for b in cluster.broker_ids if b != broker and snapshot.node(b).process == "dead"]
    if others:
        listed = ", ".join(map(str, others))
        return Outcome(False, f"broker {listed} is dead, but {topic}-{partition} was led by broker "
                              f"{broker}; bring it back with cluster.restart_broker({others[0]})")
    state = snapshot.node(broker).process
    if state != "dead":
        return Outcome(False, f"broker {broker}, the leader of {topic}-{partition}, is {state}")
    return Outcome(True, f"broker {broker} is dead")
