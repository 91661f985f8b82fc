"""Which topic-partitions a Kafka read covers: assign, subscribe or subscribePattern.

Theory of operation
-------------------
Each planning step (every micro-batch, and once for a batch query) asks the
strategy for the partitions that exist *now*, so partitions added to a
subscribed topic are picked up by the next micro-batch.

* ``assign``: the listed partitions that exist (a listed partition that does
  not exist is silently left out; a listed topic that does not exist fails);
* ``subscribe``: every partition of the listed topics; a topic that does not
  exist fails with ``UnknownTopicOrPartitionException``, as Kafka's Admin
  ``describeTopics`` does;
* ``subscribePattern``: every partition of every non-internal topic whose
  name *contains* a match of the regular expression (Spark uses
  ``findFirstIn``, a search, not a whole-name match).

Mirrors ``org.apache.spark.sql.kafka010.ConsumerStrategy`` and its three
case classes.  Simplified: the pattern is a Python regular expression, not a
Java one (the common syntax is the same), and a bad pattern reports Python's
description of the error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from minikafka.common.topic_partition import TopicPartition
from minikafka.spark import json_utils
from minikafka.spark.errors import IllegalArgumentException
from minikafka.spark.kafka_source_provider import ASSIGN, STRATEGY_OPTION_KEYS, SUBSCRIBE, lower_keys
from minikafka.spark.offsets_client import OffsetsClient


class PatternSyntaxException(IllegalArgumentException):
    """``java.util.regex.PatternSyntaxException``: a ``subscribePattern`` that is not a regex."""


def _all_partitions(client: OffsetsClient, topics: set[str]) -> set[TopicPartition]:
    return {TopicPartition(topic, p) for topic in sorted(topics) for p in client.partitions(topic)}


@dataclass(frozen=True, slots=True)
class AssignStrategy:
    partitions: tuple[TopicPartition, ...]  # exactly the partitions the option names

    def assigned_topic_partitions(self, client: OffsetsClient) -> set[TopicPartition]:
        topics = {tp.topic for tp in self.partitions}
        return _all_partitions(client, topics) & set(self.partitions)

    def __str__(self) -> str:
        return "Assign[" + ", ".join(str(tp) for tp in self.partitions) + "]"


@dataclass(frozen=True, slots=True)
class SubscribeStrategy:
    topics: tuple[str, ...]  # the comma-separated names, trimmed

    def assigned_topic_partitions(self, client: OffsetsClient) -> set[TopicPartition]:
        return _all_partitions(client, set(self.topics))

    def __str__(self) -> str:
        return "Subscribe[" + ", ".join(self.topics) + "]"


@dataclass(frozen=True, slots=True)
class SubscribePatternStrategy:
    topic_pattern: str  # the regular expression, trimmed

    def __post_init__(self) -> None:
        try:
            re.compile(self.topic_pattern)
        except re.error as exc:
            raise PatternSyntaxException(f"{exc} in pattern {self.topic_pattern!r}") from None

    def assigned_topic_partitions(self, client: OffsetsClient) -> set[TopicPartition]:
        regex = re.compile(self.topic_pattern)
        return _all_partitions(client, {topic for topic in client.topics() if regex.search(topic)})

    def __str__(self) -> str:
        return f"SubscribePattern[{self.topic_pattern}]"


ConsumerStrategy = AssignStrategy | SubscribeStrategy | SubscribePatternStrategy


def strategy(options: dict[str, str]) -> ConsumerStrategy:
    """The strategy the (already validated) options name."""
    params = lower_keys(options)
    key = next(key for key in STRATEGY_OPTION_KEYS if key in params)
    value = params[key]
    if key == ASSIGN:
        return AssignStrategy(tuple(json_utils.partitions(value)))
    if key == SUBSCRIBE:
        return SubscribeStrategy(tuple(t.strip() for t in value.split(",") if t.strip()))
    return SubscribePatternStrategy(value.strip())
