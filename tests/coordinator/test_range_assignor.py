"""The coordinator's ``range`` assignor: contiguous ranges, co-partitioning, static members first."""

import pytest

from minikafka.common.uuid import Uuid
from minikafka.coordinator.partition_assignor import (
    GroupSpec, MemberSubscriptionAndAssignment as M, PartitionAssignorException, subscription_type,
)
from minikafka.coordinator.range_assignor import RangeAssignor, ranges
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage

T1, T2, T3 = Uuid(0, 1), Uuid(0, 2), Uuid(0, 3)
IMAGE = TopicsImage.of(TopicMetadata(T1, "orders", 7), TopicMetadata(T2, "payments", 7),
                       TopicMetadata(T3, "audit", 2))


def assign(members):
    return RangeAssignor().assign(GroupSpec(members, subscription_type(members)), IMAGE)


def test_ranges_give_the_extra_partitions_to_the_first_members():
    assert ranges(7, 3) == [(0, 3), (3, 5), (5, 7)]
    assert ranges(2, 3) == [(0, 1), (1, 2), (2, 2)]


def test_homogeneous_group_is_co_partitioned():
    result = assign({m: M(frozenset({T1, T2})) for m in ("a", "b", "c")})
    assert result["a"] == {T1: frozenset({0, 1, 2}), T2: frozenset({0, 1, 2})}
    assert result["b"] == {T1: frozenset({3, 4}), T2: frozenset({3, 4})}
    assert result["c"] == {T1: frozenset({5, 6}), T2: frozenset({5, 6})}


def test_member_with_an_empty_range_gets_nothing_of_that_topic():
    result = assign({m: M(frozenset({T3})) for m in ("a", "b", "c")})
    assert result == {"a": {T3: frozenset({0})}, "b": {T3: frozenset({1})}, "c": {}}


def test_heterogeneous_group_ranges_per_topic_among_its_subscribers():
    result = assign({"a": M(frozenset({T1})), "b": M(frozenset({T1, T3})), "c": M(frozenset({T3}))})
    assert result["a"] == {T1: frozenset({0, 1, 2, 3})}
    assert result["b"] == {T1: frozenset({4, 5, 6}), T3: frozenset({0})}
    assert result["c"] == {T3: frozenset({1})}


def test_static_members_come_first_by_instance_id():
    members = {"a": M(frozenset({T3})), "z": M(frozenset({T3}), instance_id="i1")}
    assert assign(members) == {"z": {T3: frozenset({0})}, "a": {T3: frozenset({1})}}


def test_unknown_topic_fails():
    with pytest.raises(PartitionAssignorException, match="non-existent topic"):
        assign({"a": M(frozenset({Uuid(0, 9)}))})
