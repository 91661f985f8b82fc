"""A Spark job in local mode reading and writing the sandbox leaves the cluster calm (issue 15).

Spark's driver runs in the notebook's kernel (py4j threads beside the live
cluster's thread) and its executors in a JVM on the same cores.  For
``LOAD_S`` seconds the test runs rounds of batch jobs through Spark's own
Kafka connector: write a range of numbers to one topic, read that topic
back whole, and copy the new records to a second topic.  The event log must
show no Kafka reaction (no election, fencing, ISR change or truncation:
nothing failed), and every record must arrive exactly once, counted by
Spark and by the brokers' high watermarks.  The cluster has three
controllers, as in tests/e2e/test_calm_under_load.py: their quorum
timeouts are what a starved cluster thread used to break (the streaming
tests check for reactions too, on clusters with one controller).
"""

from __future__ import annotations

import time

import pytest

from minikafka import Cluster
from tests.e2e.test_calm_under_load import KAFKA_REACTIONS, committed_records, reactions, timeline
from tests.spark._e2e_helpers import source
from tests.waiting import eventually

pytestmark = [pytest.mark.spark, pytest.mark.live, pytest.mark.xdist_group("spark")]

LOAD_S = 20
ROWS_PER_ROUND = 20_000
TOPICS = ("spark-in", "spark-out")


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=3, seed=17).start()
    for topic in TOPICS:
        c.create_topic(topic, partitions=3, replication_factor=3)
        for p in range(3):
            eventually(lambda: len(c.isr(topic, p)) == 3, what=f"{topic}-{p} fully in sync")
    yield c
    c.stop()


def write(frame, cluster: Cluster, topic: str) -> None:
    frame.write.format("kafka").option("kafka.bootstrap.servers", cluster.bootstrap_servers) \
        .option("topic", topic).save()


def test_spark_jobs_reading_and_writing_the_sandbox_make_no_kafka_event(spark, cluster):
    mark = cluster.events.last_seq
    written, rounds = 0, 0
    deadline = time.monotonic() + LOAD_S
    while time.monotonic() < deadline or rounds < 2:
        numbers = spark.range(written, written + ROWS_PER_ROUND)
        write(numbers.selectExpr("CAST(id % 97 AS STRING) AS key", "CAST(id AS STRING) AS value"),
              cluster, "spark-in")
        whole = spark.read.format("kafka").options(**source(cluster, "spark-in")).load()
        assert whole.count() == written + ROWS_PER_ROUND        # nothing lost or written twice
        new = whole.where(f"CAST(CAST(value AS STRING) AS BIGINT) >= {written}")
        write(new.selectExpr("key", "value"), cluster, "spark-out")
        written += ROWS_PER_ROUND
        rounds += 1
    time.sleep(1.0)                          # a late reaction to the load would show up by now
    assert reactions(cluster, mark, KAFKA_REACTIONS) == [], timeline(cluster, mark, KAFKA_REACTIONS)
    assert committed_records(cluster, "spark-in") == written
    assert committed_records(cluster, "spark-out") == written
    print(f"{rounds} rounds of Spark jobs, {written} records written and copied")
