import pytest

from minikafka.coordinator import java_hash
from minikafka.coordinator.group_coordinator import partition_for


@pytest.mark.parametrize("text,expected", [
    ("", 0),
    ("a", 97),
    ("hello", 99162322),              # the textbook value
    ("Aa", 2112), ("BB", 2112),       # the textbook collision
    ("polygenelubricants", -2**31),   # the textbook Integer.MIN_VALUE
    ("\U0001F600", 31 * 0xD83D + 0xDE00),  # Java hashes UTF-16 surrogate pairs
])
def test_string_hash_code_matches_java(text, expected):
    assert java_hash.string_hash_code(text) == expected


def test_utils_abs_maps_min_value_to_zero():
    assert java_hash.utils_abs(-2**31) == 0
    assert java_hash.utils_abs(-5) == 5


@pytest.mark.parametrize("group,partition", [
    ("polygenelubricants", 0),        # MIN_VALUE -> Utils.abs 0 -> partition 0 (Math.abs would fail)
    ("hello", 99162322 % 50),
    ("demo", 3079651 % 50),
    ("my-group", 1906497762 % 50),    # negative hash, made positive
])
def test_partition_for_uses_utils_abs_of_hash_code(group, partition):
    assert partition_for(group, 50) == partition


def test_hash_map_order_walks_buckets_then_insertion_order():
    # "b" (98) lands in bucket 2, "a" (97) in bucket 1: a HashMap iterates "a" first.
    assert java_hash.hash_map_order(["b", "a"]) == ["a", "b"]
    # Colliding keys keep their insertion order.
    assert java_hash.hash_map_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert java_hash.hash_map_order(["Aa", "BB"]) == ["Aa", "BB"]


def test_hash_map_capacity_doubles_past_three_quarters_and_never_shrinks():
    assert java_hash.capacity_after(12) == 16
    assert java_hash.capacity_after(13) == 32
    assert java_hash.capacity_after(25) == 64
    assert java_hash.capacity_after(2, capacity=64) == 64


def test_bucket_of_a_key_depends_on_the_table_size():
    # 'q' (113) and 'a' (97) share bucket 1 of 16 but not of 32.
    assert java_hash.bucket_index("q", 16) == java_hash.bucket_index("a", 16) == 1
    assert java_hash.hash_map_order(["q", "a"], 16) == ["q", "a"]
    assert java_hash.hash_map_order(["q", "a"], 32) == ["a", "q"]


def test_range_precedes_roundrobin_in_a_hash_map():
    # Decides the protocol vote when consumers prefer different assignors in equal numbers.
    assert java_hash.bucket_index("range", 16) == 9
    assert java_hash.bucket_index("roundrobin", 16) == 10
    assert java_hash.hash_map_order(["roundrobin", "range"]) == ["range", "roundrobin"]
