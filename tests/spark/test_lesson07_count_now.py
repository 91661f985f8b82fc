"""Lesson 07's `count_now`: the rows a stream reads if started now, counted by a real Spark query.

(The rest of the lesson's harness is tested without Spark in tests/course/test_lesson07.py; the
lesson runs `count_now` against Kafka under nbval.)  A file source stands in for Kafka here: it
supports ``trigger(availableNow=True)`` in the same way.
"""

from __future__ import annotations

import json

import pytest

from minikafka.course.lesson07 import count_now

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


def test_count_now_counts_what_is_there_and_leaves_no_table(spark, tmp_path):
    (tmp_path / "a.json").write_text("".join(json.dumps({"n": n}) + "\n" for n in range(3)))
    stream = spark.readStream.schema("n INT").json(str(tmp_path))
    assert count_now(stream) == 3
    (tmp_path / "b.json").write_text(json.dumps({"n": 3}) + "\n")
    assert count_now(stream) == 4           # a new query each time, reading from the start
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith("count_now_")]
    assert not [q for q in spark.streams.active]
