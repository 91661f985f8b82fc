from __future__ import annotations

import pytest

from minikafka.common.errors import UnknownTopicOrPartitionException
from minikafka.spark.consumer_strategy import (
    AssignStrategy,
    PatternSyntaxException,
    SubscribePatternStrategy,
    SubscribeStrategy,
    strategy,
)
from tests.spark._spark_helpers import tp


@pytest.fixture
def cluster(kafka):
    kafka.create_topic("orders", 2)
    kafka.create_topic("reorders", 1)
    kafka.create_topic("payments", 1)
    return kafka


def test_subscribe_covers_every_partition_of_the_topics(cluster):
    assert SubscribeStrategy(("orders", "payments")).assigned_topic_partitions(cluster) == {
        tp("orders", 0), tp("orders", 1), tp("payments", 0)
    }


def test_subscribe_to_a_missing_topic_fails_as_describe_topics_does(cluster):
    with pytest.raises(UnknownTopicOrPartitionException) as error:
        SubscribeStrategy(("nope",)).assigned_topic_partitions(cluster)
    assert str(error.value) == "This server does not host this topic-partition."


def test_assign_keeps_only_listed_partitions_that_exist(cluster):
    chosen = AssignStrategy((tp("orders", 1), tp("orders", 7)))
    assert chosen.assigned_topic_partitions(cluster) == {tp("orders", 1)}


def test_pattern_is_a_search_not_a_whole_name_match(cluster):
    assert {t.topic for t in SubscribePatternStrategy("order").assigned_topic_partitions(cluster)} == {
        "orders", "reorders"
    }
    assert {t.topic for t in SubscribePatternStrategy("^ord").assigned_topic_partitions(cluster)} == {"orders"}


def test_a_bad_pattern_is_refused():
    with pytest.raises(PatternSyntaxException):
        SubscribePatternStrategy("(orders")


def test_strategy_from_options_and_names():
    assert strategy({"subscribe": " a, b ,"}) == SubscribeStrategy(("a", "b"))
    assert str(strategy({"subscribe": "a,b"})) == "Subscribe[a, b]"
    assert str(strategy({"subscribePattern": " o.* "})) == "SubscribePattern[o.*]"
    assert str(strategy({"assign": '{"o":[1,0]}'})) == "Assign[o-1, o-0]"
