"""ConfigDef parsing, defaults and error texts (Kafka 4.3.1 ConfigDef.parseType/parseValue)."""

from __future__ import annotations

import pytest

from minikafka.common.config.config_def import (
    NO_DEFAULT_VALUE, ConfigDef, Password, Type, config_error, convert_to_string, parse_type)
from minikafka.common.config.validators import CompositeValidator, Range, ValidList
from minikafka.common.errors import ConfigException, Errors


def message(name, value, type_):
    with pytest.raises(ConfigException) as info:
        parse_type(name, value, type_)
    assert info.value.error is Errors.INVALID_CONFIG
    return str(info.value)


@pytest.mark.parametrize("text, expected", [
    ("true", True), ("TRUE", True), (" True\t", True), ("false", False), ("FaLsE", False),
])
def test_boolean_is_case_insensitive_after_trim(text, expected):
    assert parse_type("b", text, Type.BOOLEAN) is expected


@pytest.mark.parametrize("text", ["yes", "1", "t", "", "true!"])
def test_boolean_errors(text):
    assert message("b", text, Type.BOOLEAN) == f"Invalid value {text} for configuration b: Expected value to be either true or false"


@pytest.mark.parametrize("type_, text", [
    (Type.INT, "abc"), (Type.INT, "2147483648"), (Type.INT, "1.5"), (Type.SHORT, "40000"),
    (Type.LONG, "9223372036854775808"), (Type.LONG, "1e3"), (Type.DOUBLE, "abc"), (Type.DOUBLE, "inf"),
    (Type.INT, ""), (Type.LONG, "   "),
])
def test_number_errors_name_the_type(type_, text):
    assert message("x", text, type_) == f"Invalid value {text} for configuration x: Not a number of type {type_.name}"


def test_the_message_shows_the_raw_untrimmed_value():
    assert message("x", " abc ", Type.INT) == "Invalid value  abc  for configuration x: Not a number of type INT"


def test_numbers_are_trimmed():
    assert parse_type("x", "  42\n", Type.INT) == 42
    assert parse_type("x", "\t-7 ", Type.LONG) == -7
    assert parse_type("x", " 0.5 ", Type.DOUBLE) == 0.5
    assert parse_type("x", "+3", Type.SHORT) == 3


@pytest.mark.parametrize("text, items", [
    ("a,b", ["a", "b"]), (" a , b ", ["a", "b"]), ("a,,b", ["a", "", "b"]), ("a,", ["a", ""]),
    ("", []), ("   ", []), ("a", ["a"]), ("a\t,\nb", ["a", "b"]),
])
def test_list_splitting(text, items):
    assert parse_type("l", text, Type.LIST) == items


def test_strings_and_passwords_are_trimmed():
    assert parse_type("s", "  hi ", Type.STRING) == "hi"
    secret = parse_type("p", " pw ", Type.PASSWORD)
    assert secret == Password("pw") and str(secret) == "[hidden]" and "pw" not in repr(secret)


def test_unknown_class():
    assert message("c", "com.example.Nope", Type.CLASS) == (
        "Invalid value com.example.Nope for configuration c: Class com.example.Nope could not be found.")


def test_typed_values():
    assert parse_type("x", 5, Type.LONG) == 5
    assert parse_type("x", 5, Type.DOUBLE) == 5.0
    assert parse_type("x", ["a"], Type.LIST) == ["a"]
    assert parse_type("x", None, Type.INT) is None
    assert message("x", 5, Type.STRING) == (
        "Invalid value 5 for configuration x: Expected value to be a string, but it was a java.lang.Integer")
    assert message("x", 2**40, Type.INT) == (
        f"Invalid value {2**40} for configuration x: Expected value to be a 32-bit integer, but it was a java.lang.Integer")
    assert message("x", True, Type.INT).endswith("but it was a java.lang.Boolean")
    assert message("x", 3, Type.LIST) == "Invalid value 3 for configuration x: Expected a comma separated list."


def test_config_error_form():
    assert str(config_error("n", 1.0, "why")) == "Invalid value 1.0 for configuration n: why"
    assert str(config_error("n", None)) == "Invalid value null for configuration n"


def table() -> ConfigDef:
    return (ConfigDef()
            .define("a.int", Type.INT, 1, Range.at_least(1))
            .define("b.required", Type.STRING)
            .define("c.long", Type.LONG, None)
            .define_internal("d.internal", Type.INT, None))


def test_parse_fills_defaults_and_keeps_definition_order():
    values = table().parse({"b.required": "x"})
    assert list(values) == ["a.int", "b.required", "c.long", "d.internal"]
    assert values == {"a.int": 1, "b.required": "x", "c.long": None, "d.internal": None}


def test_missing_required():
    with pytest.raises(ConfigException) as info:
        table().parse({})
    assert str(info.value) == 'Missing required configuration "b.required" which has no default value.'


def test_first_error_in_definition_order_wins():
    with pytest.raises(ConfigException) as info:
        table().parse({"c.long": "bad", "a.int": "0", "b.required": "x"})
    assert str(info.value) == "Invalid value 0 for configuration a.int: Value must be at least 1"


def test_a_valid_list_drops_repeats_before_checking():
    t = (ConfigDef().define("p", Type.LIST, "delete", ValidList.in_("compact", "delete"))
         .define("any", Type.LIST, "a", CompositeValidator.of(ValidList.in_("a"))))
    assert t.parse({"p": " delete , compact,delete"})["p"] == ["delete", "compact"]
    for text in ("delete,", ",delete", "delete,,compact", ","):
        with pytest.raises(ConfigException) as info:
            t.parse({"p": text})
        assert str(info.value) == "Configuration 'p' values must not be empty."
    assert t.parse({"p": " "})["p"] == []
    # Kafka drops repeats only for a bare ValidList, so a wrapped one still sees them.
    with pytest.raises(ConfigException, match="values must not be duplicated"):
        t.parse({"any": "a,a"})


def test_define_rejects_a_bad_default_and_duplicates():
    with pytest.raises(ConfigException):
        ConfigDef().define("x", Type.INT, 0, Range.at_least(1))
    with pytest.raises(ValueError):
        ConfigDef().define("x", Type.INT, 1).define("x", Type.INT, 1)


def test_key_metadata():
    t = table()
    assert not t["b.required"].has_default and t["b.required"].default is NO_DEFAULT_VALUE
    assert t.non_internal_names() == ["a.int", "b.required", "c.long"]
    assert t.default_string("a.int") == "1" and t.default_string("b.required") is None
    assert t.type_of("c.long") is Type.LONG and t.type_of("nope") is None
    assert "a.int" in t and "nope" not in t


@pytest.mark.parametrize("value, type_, text", [
    (0.5, Type.DOUBLE, "0.5"), (1.0, Type.DOUBLE, "1.0"), (["delete", "compact"], Type.LIST, "delete,compact"),
    ([], Type.LIST, ""), (False, Type.BOOLEAN, "false"), (9223372036854775807, Type.LONG, "9223372036854775807"),
    (None, Type.INT, None), (Password("s"), Type.PASSWORD, "[hidden]"), ("x", None, "x"),
])
def test_convert_to_string(value, type_, text):
    assert convert_to_string(value, type_) == text


def test_type_ids_match_describe_configs():
    assert [t.describe_id for t in Type] == list(range(1, 10))
    assert str(Type.INT) == "INT" and Type.PASSWORD.is_sensitive and not Type.STRING.is_sensitive
