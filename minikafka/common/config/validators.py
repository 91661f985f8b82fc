"""The validators a ConfigDef row can carry, with Kafka's rejection messages.

Theory of operation
-------------------
After a value is parsed, its row's validator decides whether Kafka accepts
it.  Each validator raises a `ConfigException` in Kafka's form (``Invalid
value <v> for configuration <name>: <reason>``) and prints itself the way
Kafka's generated docs print the "Valid Values" column (``[1,...]``,
``[compact, delete]``).  The value inside the message is the *parsed* value
printed the Java way (``2.0`` for a double, ``[a, b]`` for a list).

Mirrors the nested validator classes of
``org.apache.kafka.common.config.ConfigDef`` in Kafka 4.3.1: ``Range``,
``ValidString``, ``ValidList``, ``CaseInsensitiveValidString``,
``NonNullValidator``, ``NonEmptyString``, ``LambdaValidator``,
``CompositeValidator`` and ``ListSize``, with their 4.3.1 texts.  Unlike
the others, ``ValidList`` (reworked in Kafka 4.2, KAFKA-19112) words its
refusals without the value: ``Configuration 'cleanup.policy' values must not
be empty.`` for an empty element (``delete,``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from minikafka.common.config.config_def import Validator, config_error
from minikafka.common.config.java_values import hashmap_order, java_str
from minikafka.common.errors import ConfigException


def _number_text(bound: int | float) -> str:
    return java_str(bound)


@dataclass(frozen=True, slots=True)
class Range:
    """An inclusive numeric range; either end may be open."""

    min: int | float | None = None
    max: int | float | None = None

    @classmethod
    def at_least(cls, minimum: int | float) -> "Range":
        return cls(minimum, None)

    @classmethod
    def between(cls, minimum: int | float, maximum: int | float) -> "Range":
        return cls(minimum, maximum)

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            raise config_error(name, None, "Value must be non-null")
        # Kafka compares as doubles (Number.doubleValue()); so does this.
        if self.min is not None and float(value) < float(self.min):
            raise config_error(name, value, f"Value must be at least {_number_text(self.min)}")
        if self.max is not None and float(value) > float(self.max):
            raise config_error(name, value, f"Value must be no more than {_number_text(self.max)}")

    def __str__(self) -> str:
        low = "" if self.min is None else _number_text(self.min)
        high = "" if self.max is None else _number_text(self.max)
        if self.min is None and self.max is None:
            return "[...]"
        if self.min is None:
            return f"[...,{high}]"
        if self.max is None:
            return f"[{low},...]"
        return f"[{low},...,{high}]"


@dataclass(frozen=True, slots=True)
class ValidString:
    """The value must be one of these strings, compared case-sensitively."""

    valid: tuple[str, ...]

    @classmethod
    def in_(cls, *valid: str) -> "ValidString":
        return cls(tuple(valid))

    def ensure_valid(self, name: str, value: Any) -> None:
        if value not in self.valid:
            raise config_error(name, value, "String must be one of: " + ", ".join(self.valid))

    def __str__(self) -> str:
        return "[" + ", ".join(self.valid) + "]"


@dataclass(frozen=True, slots=True)
class CaseInsensitiveValidString:
    """The value must be one of these strings, ignoring case (Kafka upper-cases both sides).

    Kafka keeps the strings in a HashSet, so its message lists them in hash order.
    """

    valid: tuple[str, ...]

    @classmethod
    def in_(cls, *valid: str) -> "CaseInsensitiveValidString":
        return cls(tuple(hashmap_order(v.upper() for v in valid)))

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None or value.upper() not in self.valid:
            raise config_error(name, value,
                               "String must be one of (case insensitive): " + ", ".join(self.valid))

    def __str__(self) -> str:
        return "(case insensitive) [" + ", ".join(self.valid) + "]"


@dataclass(frozen=True, slots=True)
class ValidList:
    """A LIST value: no empty elements, no repeats, and each element one of ``valid`` (if any).

    ``empty_allowed`` says whether the whole list may be empty (``cleanup.policy``
    may: it means "never clean up"; ``log.dirs`` may not); ``null_allowed``
    whether the value may be missing (``advertised.listeners`` may).  Repeats
    never reach `ensure_valid` through `ConfigDef.parse_value`, which drops them
    first, as Kafka does.
    """

    valid: tuple[str, ...]
    empty_allowed: bool = True
    null_allowed: bool = False
    # ConfigDef.parse_value looks for this: Kafka drops repeats only for a bare ValidList.
    drops_duplicates = True

    @classmethod
    def in_(cls, *valid: str, empty_allowed: bool = True) -> "ValidList":
        if not empty_allowed and not valid:
            raise ValueError("a list that must not be empty needs at least one valid string")
        return cls(tuple(valid), empty_allowed)

    @classmethod
    def any_non_duplicate_values(cls, empty_allowed: bool, null_allowed: bool) -> "ValidList":
        return cls((), empty_allowed, null_allowed)

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            if self.null_allowed:
                return
            raise ConfigException(f"Configuration '{name}' values must not be null.")
        if not value and not self.empty_allowed:
            allowed = str(ValidString(self.valid)) if self.valid else "any non-empty value"
            raise ConfigException(f"Configuration '{name}' must not be empty. Valid values include: {allowed}")
        if len(set(value)) != len(value):
            raise ConfigException(f"Configuration '{name}' values must not be duplicated.")
        element_check = ValidString(self.valid)
        for element in value:
            if element == "":
                raise ConfigException(f"Configuration '{name}' values must not be empty.")
            if self.valid:
                element_check.ensure_valid(name, element)

    def __str__(self) -> str:
        return str(ValidString(self.valid)) if self.valid else ""


class NonNullValidator:
    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            raise config_error(name, "null", "entry must be non null")

    def __str__(self) -> str:
        return "non-null string"


class NonEmptyString:
    def ensure_valid(self, name: str, value: Any) -> None:
        if value is not None and value == "":
            raise config_error(name, value, "String must be non-empty")

    def __str__(self) -> str:
        return "non-empty string"


@dataclass(frozen=True, slots=True)
class ListSize:
    max_size: int

    @classmethod
    def at_most_of_size(cls, max_size: int) -> "ListSize":
        return cls(max_size)

    def ensure_valid(self, name: str, value: Any) -> None:
        if len(value) > self.max_size:
            raise config_error(name, value, f"exceeds maximum list size of [{self.max_size}].")

    def __str__(self) -> str:
        return f"List containing maximum of {self.max_size} elements"


@dataclass(frozen=True, slots=True)
class LambdaValidator:
    """A validator made of a check function and a description."""

    check: Callable[[str, Any], None]
    description: str

    def ensure_valid(self, name: str, value: Any) -> None:
        self.check(name, value)

    def __str__(self) -> str:
        return self.description


@dataclass(frozen=True, slots=True)
class CompositeValidator:
    """All of these validators, in order."""

    validators: Sequence[Validator]

    @classmethod
    def of(cls, *validators: Validator) -> "CompositeValidator":
        return cls(tuple(validators))

    def ensure_valid(self, name: str, value: Any) -> None:
        for validator in self.validators:
            validator.ensure_valid(name, value)

    def __str__(self) -> str:
        return ", ".join(str(v) for v in self.validators)
