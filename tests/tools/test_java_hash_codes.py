"""Tests for minikafka/tools/java_hash_codes.py.

The orders asserted here were observed in real tool output (sources cited per test), so
they check the hashCode formulas and HashMap sizing together.
"""

from minikafka.common.topic_partition import TopicPartition
from minikafka.tools.java_hash_codes import (boolean_hash, copy_capacity, hash_set_capacity, int_order, keyed_order,
                                             node_hash, string_order, topic_partition_hash, topic_partition_order)


def test_topic_partition_hash_is_javas():
    # "hello".hashCode() == 99162322 in Java; TopicPartition adds 31 * (31 + partition).
    assert topic_partition_hash(TopicPartition("hello", 0)) == 31 * 31 + 99162322
    assert topic_partition_hash(TopicPartition("hello", 2)) == 31 * 33 + 99162322
    # Overflow wraps to a signed 32-bit int, as in Java.
    assert -2**31 <= topic_partition_hash(TopicPartition("x" * 40, 7)) < 2**31


def test_committed_partitions_come_out_in_hashmap_order():
    # kafka-consumer-groups.sh --describe of group con-1 on topic "hello" (5 partitions, no members),
    # observed output in a public Chinese Kafka tutorial: rows for partitions 4, 2, 3, 0, 1.
    rows = topic_partition_order(TopicPartition("hello", p) for p in range(5))
    assert [tp.partition for tp in rows] == [4, 2, 3, 0, 1]


def test_broker_nodes_come_out_in_hashmap_order():
    # kafka-broker-api-versions.sh on a 4.x lab cluster (broker 12 stopped), observed block order:
    # broker-13 (rack ap-south-1c), broker-11 (ap-south-1a), broker-14 (ap-south-1a).
    nodes = [("broker-11.lab.internal", 11, 9092, "ap-south-1a"), ("broker-13.lab.internal", 13, 9092, "ap-south-1c"),
             ("broker-14.lab.internal", 14, 9092, "ap-south-1a")]
    ordered = keyed_order(nodes, lambda n: node_hash(*n))
    assert [n[1] for n in ordered] == [13, 11, 14]


def test_boolean_hash_and_node_hash_includes_the_fenced_flag():
    assert (boolean_hash(True), boolean_hash(False)) == (1231, 1237)
    assert node_hash("localhost", 1, 9092, None, True) - node_hash("localhost", 1, 9092, None, False) == -6


def test_hash_map_constructor_capacities():
    assert copy_capacity(3) == 4          # JDK 19+: ceil(3 / 0.75)
    assert copy_capacity(0) == 1
    assert hash_set_capacity(3) == 16     # max(size / .75 + 1, 16)
    assert hash_set_capacity(12) == 17


def test_small_ints_and_strings():
    assert int_order([3, 1, 2]) == [1, 2, 3]
    assert int_order([17, 1]) == [17, 1]            # 17 and 1 share bucket 1 of 16: insertion order
    assert string_order(["b", "a"]) == ["a", "b"]   # "a" = 97, "b" = 98
