"""Topic name rules, internal topics and collisions (Kafka 4.3.1 Topic.java, ReplicationControlManager)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from minikafka.common import topic
from minikafka.common.errors import Errors, InvalidTopicException, TopicExistsException


@pytest.mark.parametrize("name, reason", [
    ("", "the empty string is not allowed"),
    (".", "'.' is not allowed"),
    ("..", "'..' is not allowed"),
    ("a" * 250, f"the length of '{'a' * 250}' is longer than the max allowed length 249"),
    ("a/b", "'a/b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"),
    ("../x", "'../x' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"),
    ("a b", "'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"),
    ("é", "'é' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"),
    ("a\\b", "'a\\b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"),
    ("a\x00", "'a\x00' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"),
])
def test_invalid_names_get_kafkas_text(name, reason):
    with pytest.raises(InvalidTopicException) as info:
        topic.validate(name)
    assert str(info.value) == f"Topic name is invalid: {reason}"
    assert info.value.error is Errors.INVALID_TOPIC_EXCEPTION
    assert not topic.is_valid(name)


@pytest.mark.parametrize("name", ["a", "orders", "a.b_c-D9", "...", "a" * 249, "__consumer_offsets", "-"])
def test_valid_names(name):
    topic.validate(name)
    assert topic.is_valid(name)


def test_length_is_counted_in_utf16_units_like_java():
    # 248 letters + one astral char: 249 code points but 250 UTF-16 units, so the
    # length rule (checked before the character rule) is what Java reports.
    name = "a" * 248 + "\U0001F600"
    with pytest.raises(InvalidTopicException, match="longer than the max allowed length 249"):
        topic.validate(name)


def test_custom_prefix():
    with pytest.raises(InvalidTopicException, match=r"^Group name is invalid: '\.' is not allowed$"):
        topic.validate(".", log_prefix="Group name")


@settings(derandomize=True, max_examples=300)
@given(st.text(max_size=260))
def test_validity_matches_the_legal_chars_regex(name):
    expected = (re.fullmatch(r"[a-zA-Z0-9._-]+", name) is not None and name not in (".", "..")
                and len(name.encode("utf-16-le")) // 2 <= 249)
    assert topic.is_valid(name) == expected


def test_internal_topics():
    assert topic.INTERNAL_TOPICS == {"__consumer_offsets", "__transaction_state", "__share_group_state"}
    assert topic.is_internal("__consumer_offsets")
    assert not topic.is_internal("__cluster_metadata")   # the metadata log is not a topic at all
    assert not topic.is_internal("orders")


def test_collision_chars_and_warning():
    assert topic.has_collision_chars("a.b") and topic.has_collision_chars("a_b")
    assert not topic.has_collision_chars("a-b")
    assert topic.unify_collision_chars("a.b.c_d") == "a_b_c_d"
    assert topic.has_collision("a.b", "a_b") and not topic.has_collision("a.b", "a-b")
    assert topic.COLLISION_WARNING == (
        "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') "
        "could collide. To avoid issues it is best to use either, but not both.")


def test_collision_error_text():
    error = topic.new_topic_name_error("a.b", ["a_b", "other"])
    assert isinstance(error, InvalidTopicException)
    assert str(error) == "Topic 'a.b' collides with existing topic: a_b"


def test_new_topic_errors_in_controller_order():
    assert topic.new_topic_name_error("fresh", ["a_b"]) is None
    exists = topic.new_topic_name_error("a_b", ["a_b"])
    assert isinstance(exists, TopicExistsException) and str(exists) == "Topic 'a_b' already exists."
    invalid = topic.new_topic_name_error("a b", [])
    assert str(invalid) == ("Topic name is invalid: 'a b' contains one or more characters other than "
                            "ASCII alphanumerics, '.', '_' and '-'")
    # An invalid name that also collides: the collision report replaces the first one.
    both = topic.new_topic_name_error("a.b!", ["a_b!"])
    assert str(both) == "Topic 'a.b!' collides with existing topic: a_b!"


def test_collision_needs_collision_chars_on_both_sides():
    assert topic.find_collision("ab", ["ab"]) is None
    assert topic.find_collision("a.b", ["a.b"]) == "a.b"
    assert topic.find_collision("a.b", ["a-b"]) is None


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", ".", "", "a" * 250, "/etc"])
def test_partition_dir_never_escapes(tmp_path, bad):
    with pytest.raises(InvalidTopicException):
        topic.partition_dir(tmp_path, bad, 0)


def test_partition_dir(tmp_path):
    assert topic.partition_dir(tmp_path, "orders", 3) == tmp_path / "orders-3"
    assert topic.partition_dir(tmp_path, "...", 0) == tmp_path / "...-0"
    with pytest.raises(ValueError):
        topic.partition_dir(tmp_path, "orders", -1)
