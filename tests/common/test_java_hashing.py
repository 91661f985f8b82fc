"""Java's and Scala's hash orders, checked against what Kafka 4.3.1 printed."""

from __future__ import annotations

from minikafka.common.java_hashing import hashmap_order, scala_improve, scala_immutable_hashmap_order


def test_hashmap_order_of_a_java_hash_set():
    # ControllerApis hands CreatePartitions topics to the controller in this HashSet order.
    assert hashmap_order(["three", "missing"]) == ["missing", "three"]


def test_scala_immutable_hashmap_order_follows_the_trie():
    # A Kafka 4.3.1 broker answered DeleteRecords for topics "trim" then "nope" with "nope" first.
    assert scala_immutable_hashmap_order(["trim", "nope"]) == ["nope", "trim"]
    assert scala_immutable_hashmap_order(["nope", "trim"]) == ["nope", "trim"]


def test_keys_sharing_a_branch_come_after_the_keys_alone():
    keys = [f"topic-{i}" for i in range(40)]                 # more keys than a node has branches
    order = scala_immutable_hashmap_order(keys)
    assert sorted(order) == sorted(keys)
    root = {k: scala_improve(hash_code(k)) & 31 for k in keys}
    counts = {b: list(root.values()).count(b) for b in root.values()}
    alone = [k for k in order if counts[root[k]] == 1]
    assert order[:len(alone)] == alone and [root[k] for k in alone] == sorted(root[k] for k in alone)


def hash_code(text: str) -> int:
    from minikafka.common.java_hashing import string_hash_code
    return string_hash_code(text)


def test_spread_mixes_the_high_half_into_the_low_bits():
    from minikafka.common.java_hashing import spread
    assert spread(0x00010000) == 0x00010001
    assert spread(-1) == 0xFFFF0000                    # the unsigned 32 bits, as Java's >>> sees them
