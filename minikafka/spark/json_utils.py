"""Spark's JSON forms for Kafka partitions and offsets.

Theory of operation
-------------------
Spark's Kafka source speaks two small JSON dialects:

* a set of partitions, for the ``assign`` option: ``{"topicA":[0,1],"topicB":[2,4]}``;
* an offset per partition, for ``startingOffsets``/``endingOffsets`` and for
  the offsets a streaming query writes to its checkpoint:
  ``{"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}``.  Partition numbers are
  JSON object keys, so they are strings; in the options ``-2`` means
  earliest and ``-1`` latest.

A streaming source hands its offsets to Spark as a Python dict that Spark
serialises with ``json.dumps``, so `to_offset_dict` builds exactly the
second form (string partition keys, topics and partitions sorted so the same
offsets always give the same text) and `from_offset_dict` reads back what
Spark returns from the checkpoint.

Mirrors ``org.apache.spark.sql.kafka010.JsonUtils``; the error texts are
Spark's.  Simplified: Jackson would also coerce a quoted number such as
``"5"`` into an offset; we accept only JSON integers as offsets.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark.errors import IllegalArgumentException

_PARTITIONS_EXAMPLE = '{"topicA":[0,1],"topicB":[0,1]}'
_OFFSETS_EXAMPLE = '{"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}'

OffsetMap = dict[TopicPartition, int]
"""A Kafka offset (or -2/-1 sentinel) for each topic-partition."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def partitions(text: str) -> list[TopicPartition]:
    """Parse the ``assign`` option: ``{"topicA":[0,1]}`` -> [topicA-0, topicA-1]."""
    try:
        parsed = json.loads(text)
        if not isinstance(parsed, dict):
            raise TypeError("not an object")
        result = []
        for topic, numbers in parsed.items():
            if not isinstance(numbers, list) or not all(_is_int(n) for n in numbers):
                raise TypeError("partitions must be a list of integers")
            result.extend(TopicPartition(topic, n) for n in numbers)
        return result
    except (ValueError, TypeError):
        raise IllegalArgumentException(f"Expected e.g. {_PARTITIONS_EXAMPLE}, got {text}") from None


def partition_offsets(text: str) -> OffsetMap:
    """Parse ``{"topicA":{"0":23,"1":-1}}`` into {topicA-0: 23, topicA-1: -1}."""
    try:
        parsed = json.loads(text)
        if not isinstance(parsed, dict):
            raise TypeError("not an object")
        return _offsets_from_mapping(parsed)
    except (ValueError, TypeError):
        raise IllegalArgumentException(f"Expected e.g. {_OFFSETS_EXAMPLE}, got {text}") from None


def _offsets_from_mapping(parsed: Mapping[Any, Any]) -> OffsetMap:
    result: OffsetMap = {}
    for topic, by_partition in parsed.items():
        if not isinstance(topic, str) or not isinstance(by_partition, dict):
            raise TypeError("expected an object of partitions per topic")
        for partition, offset in by_partition.items():
            if not _is_int(offset):
                raise TypeError("offsets must be integers")
            result[TopicPartition(topic, int(partition))] = offset
    return result


def to_offset_dict(offsets: Mapping[TopicPartition, int]) -> dict[str, dict[str, int]]:
    """The dict a stream reader returns to Spark: ``{"topic": {"0": 5}}``, sorted."""
    result: dict[str, dict[str, int]] = {}
    for tp in sorted(offsets):
        result.setdefault(tp.topic, {})[str(tp.partition)] = offsets[tp]
    return result


def from_offset_dict(offsets: Mapping[str, Mapping[str, int]]) -> OffsetMap:
    """Read back an offset dict Spark hands to ``latestOffset``/``partitions``/``commit``."""
    try:
        return _offsets_from_mapping(offsets)
    except (ValueError, TypeError):
        raise IllegalArgumentException(f"Expected e.g. {_OFFSETS_EXAMPLE}, got {json.dumps(offsets)}") from None


def partition_offsets_json(offsets: Mapping[TopicPartition, int]) -> str:
    """The compact text Spark writes: ``{"topicA":{"0":23,"1":24}}``."""
    return json.dumps(to_offset_dict(offsets), separators=(",", ":"))
