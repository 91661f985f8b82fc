"""Validator messages and descriptions (Kafka 4.3.1 ConfigDef validators)."""

from __future__ import annotations

import pytest

from minikafka.common.config.validators import (
    CaseInsensitiveValidString, CompositeValidator, LambdaValidator, ListSize, NonEmptyString,
    NonNullValidator, Range, ValidList, ValidString)
from minikafka.common.errors import ConfigException


def fails(validator, name, value) -> str:
    with pytest.raises(ConfigException) as info:
        validator.ensure_valid(name, value)
    return str(info.value)


def test_range_messages():
    assert fails(Range.at_least(1), "n", 0) == "Invalid value 0 for configuration n: Value must be at least 1"
    assert fails(Range.between(0, 1), "r", 2.0) == "Invalid value 2.0 for configuration r: Value must be no more than 1"
    assert fails(Range.between(0, 1), "r", -0.5) == "Invalid value -0.5 for configuration r: Value must be at least 0"
    assert fails(Range.at_least(1), "n", None) == "Invalid value null for configuration n: Value must be non-null"
    Range.between(0, 1).ensure_valid("r", 1)
    Range.at_least(-1).ensure_valid("n", -1)


def test_range_lets_nan_through_like_java():
    Range.between(0, 1).ensure_valid("r", float("nan"))


def test_range_descriptions():
    assert str(Range.at_least(1)) == "[1,...]"
    assert str(Range.between(0, 1)) == "[0,...,1]"
    assert str(Range()) == "[...]"
    assert str(Range(None, 5)) == "[...,5]"


def test_valid_string():
    v = ValidString.in_("CreateTime", "LogAppendTime")
    v.ensure_valid("t", "CreateTime")
    assert fails(v, "t", "createtime") == (
        "Invalid value createtime for configuration t: String must be one of: CreateTime, LogAppendTime")
    assert str(v) == "[CreateTime, LogAppendTime]"


def test_case_insensitive_valid_string_lists_in_hashset_order():
    v = CaseInsensitiveValidString.in_("plain", "gssapi", "scram-sha-256")
    v.ensure_valid("m", "Plain")
    # A JVM prints this HashSet as [PLAIN, GSSAPI, SCRAM-SHA-256].
    assert fails(v, "m", "x") == ("Invalid value x for configuration m: String must be one of "
                                  "(case insensitive): PLAIN, GSSAPI, SCRAM-SHA-256")
    assert str(v) == "(case insensitive) [PLAIN, GSSAPI, SCRAM-SHA-256]"


def test_valid_list_checks_each_element():
    v = ValidList.in_("compact", "delete")
    v.ensure_valid("p", ["compact", "delete"])
    v.ensure_valid("p", [])                    # cleanup.policy may be empty: never clean up
    assert fails(v, "p", ["delete", ""]) == "Configuration 'p' values must not be empty."
    assert fails(v, "p", ["delete", "x"]) == (
        "Invalid value x for configuration p: String must be one of: compact, delete")
    # Unreachable through ConfigDef.parse_value, which drops repeats first.
    assert fails(v, "p", ["delete", "delete"]) == "Configuration 'p' values must not be duplicated."
    assert fails(v, "p", None) == "Configuration 'p' values must not be null."
    assert str(v) == "[compact, delete]"


def test_valid_list_that_must_not_be_empty():
    roles = ValidList.in_("broker", "controller", empty_allowed=False)
    assert fails(roles, "r", []) == (
        "Configuration 'r' must not be empty. Valid values include: [broker, controller]")
    dirs = ValidList.any_non_duplicate_values(empty_allowed=False, null_allowed=True)
    dirs.ensure_valid("d", None)
    dirs.ensure_valid("d", ["/a", "anything"])
    assert fails(dirs, "d", []) == "Configuration 'd' must not be empty. Valid values include: any non-empty value"
    assert fails(dirs, "d", ["/a", ""]) == "Configuration 'd' values must not be empty."
    assert str(dirs) == ""
    with pytest.raises(ValueError):
        ValidList.in_(empty_allowed=False)


def test_small_validators():
    assert fails(NonNullValidator(), "x", None) == "Invalid value null for configuration x: entry must be non null"
    assert fails(NonEmptyString(), "x", "") == "Invalid value  for configuration x: String must be non-empty"
    NonEmptyString().ensure_valid("x", None)
    assert fails(ListSize.at_most_of_size(1), "x", ["a", "b"]) == (
        "Invalid value [a, b] for configuration x: exceeds maximum list size of [1].")
    assert str(ListSize.at_most_of_size(1)) == "List containing maximum of 1 elements"


def test_composite_and_lambda():
    def no_sevens(name, value):
        if value == 7:
            raise ConfigException("seven")
    v = CompositeValidator.of(Range.at_least(0), LambdaValidator(no_sevens, "not 7"))
    v.ensure_valid("x", 3)
    assert fails(v, "x", -1) == "Invalid value -1 for configuration x: Value must be at least 0"
    assert fails(v, "x", 7) == "seven"
    assert str(v) == "[0,...], not 7"
