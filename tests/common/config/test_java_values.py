"""Java's parsing and printing of config values, and java.util.HashMap order."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from minikafka.common.config import java_values as jv


@pytest.mark.parametrize("text, expected", [
    (" \t12\n", "12"), ("\x00a\x1f", "a"), ("\u00a0a\u00a0", "\u00a0a\u00a0"), ("", ""), ("   ", ""),
])
def test_trim_strips_only_chars_up_to_space(text, expected):
    assert jv.java_trim(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("0", 0), ("+5", 5), ("-5", -5), ("2147483647", 2**31 - 1), ("-2147483648", -2**31), ("\u0661\u0662", 12),
])
def test_parse_int_accepts_what_java_accepts(text, expected):
    assert jv.parse_int(text) == expected


@pytest.mark.parametrize("text", ["", "+", "-", "2147483648", "1_000", " 1", "1.0", "0x10", "1e3", "abc"])
def test_parse_int_rejects_what_java_rejects(text):
    with pytest.raises(ValueError):
        jv.parse_int(text)


def test_short_and_long_ranges():
    assert jv.parse_short("32767") == 32767
    with pytest.raises(ValueError):
        jv.parse_short("32768")
    assert jv.parse_long("9223372036854775807") == 2**63 - 1
    with pytest.raises(ValueError):
        jv.parse_long("9223372036854775808")


@pytest.mark.parametrize("text, expected", [
    ("0.5", 0.5), ("1", 1.0), ("1.", 1.0), (".5", 0.5), ("1e3", 1000.0), ("1.5d", 1.5), ("2F", 2.0),
    ("0x1p3", 8.0), ("-0x1.8p1", -3.0), (" 0.25 ", 0.25), ("1e999", math.inf), ("-Infinity", -math.inf),
])
def test_parse_double(text, expected):
    assert jv.parse_double(text) == expected


@pytest.mark.parametrize("text", ["", "inf", "nan", "infinity", "1_0", "e3", "1e", "0x1", "NaNd", "."])
def test_parse_double_rejects_python_only_forms(text):
    with pytest.raises(ValueError):
        jv.parse_double(text)


def test_parse_double_nan():
    assert math.isnan(jv.parse_double("NaN"))


@pytest.mark.parametrize("value, text", [
    (0.5, "0.5"), (2.0, "2.0"), (1.0, "1.0"), (1e7, "1.0E7"), (9999999.0, "9999999.0"), (0.001, "0.001"),
    (0.0001, "1.0E-4"), (123.456, "123.456"), (-1.5e-10, "-1.5E-10"), (0.0, "0.0"), (-0.0, "-0.0"),
    (math.nan, "NaN"), (math.inf, "Infinity"), (1.7976931348623157e308, "1.7976931348623157E308"),
    (5e-324, "4.9E-324"), (1e23, "1.0E23"), (0.1 + 0.2, "0.30000000000000004"), (3e-5, "3.0E-5"),
])
def test_double_to_string(value, text):
    assert jv.double_to_string(value) == text


@settings(derandomize=True, max_examples=300)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_text_round_trips(value):
    assert jv.parse_double(jv.double_to_string(value)) == value


def test_java_str():
    assert jv.java_str(None) == "null"
    assert jv.java_str(True) == "true"
    assert jv.java_str(["a", "b"]) == "[a, b]"
    assert jv.java_str([]) == "[]"
    assert jv.java_str(5) == "5"


@pytest.mark.parametrize("text, parts", [
    ("a,b", ["a", "b"]), ("a,,b", ["a", "", "b"]), (",a", ["", "a"]), ("a,,", ["a"]), ("", [""]), (",", []),
])
def test_split_drops_trailing_empties_like_java(text, parts):
    assert jv.split_literal(text, ",") == parts


def test_equals_ignore_case_follows_java():
    assert jv.equals_ignore_case("TRUE", "true")
    assert jv.equals_ignore_case("fal\u017fe", "false")     # long s upper-cases to S
    assert not jv.equals_ignore_case("tru", "true")


@pytest.mark.parametrize("text, h", [("", 0), ("a", 97), ("hello", 99162322), ("segment.bytes", -2022974992), ("min.insync.replicas", 268940301)])
def test_string_hash(text, h):
    assert jv.string_hash(text) == h


def test_hashmap_order_matches_kafkas_generated_listener_map():
    # SocketServerConfigs builds its default from a HashMap; Kafka's docs show this order.
    names = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
    assert jv.hashmap_order(names) == ["SASL_SSL", "PLAINTEXT", "SSL", "SASL_PLAINTEXT"]


# The key set of a java.util.HashMap holding every topic config name, printed by a JVM.
JVM_TOPIC_CONFIG_ORDER = (
    "compression.type,remote.log.delete.on.disable,leader.replication.throttled.replicas,"
    "remote.storage.enable,min.insync.replicas,segment.jitter.ms,remote.log.copy.disable,local.retention.ms,"
    "cleanup.policy,flush.ms,follower.replication.throttled.replicas,compression.lz4.level,"
    "compression.gzip.level,retention.ms,segment.bytes,compression.zstd.level,flush.messages,"
    "file.delete.delay.ms,max.compaction.lag.ms,max.message.bytes,min.compaction.lag.ms,"
    "message.timestamp.type,local.retention.bytes,preallocate,index.interval.bytes,min.cleanable.dirty.ratio,"
    "unclean.leader.election.enable,delete.retention.ms,retention.bytes,message.timestamp.after.max.ms,"
    "message.timestamp.before.max.ms,segment.ms,segment.index.bytes").split(",")


def test_hashmap_order_matches_a_jvm():
    assert jv.hashmap_order(sorted(JVM_TOPIC_CONFIG_ORDER)) == JVM_TOPIC_CONFIG_ORDER


def test_hashmap_order_of_ints_and_growth():
    assert jv.hashmap_order([3, 1, 2], initial_capacity=3) == [1, 2, 3]
    assert jv.hashmap_order([17, 1]) == [17, 1]           # same bucket of 16: insertion order
    assert jv.hashmap_order(list(range(13, 0, -1)))[0] == 1   # 13 entries: table grew to 32
