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
``CompositeValidator`` and ``ListSize``, with their 4.3.1 texts, except
``ValidList``: Kafka 4.2 (KAFKA-19112) made it also refuse duplicates, empty
elements (``Configuration 'cleanup.policy' values must not be empty.``) and,
for some configs, an empty list; the 4.1 behaviour, which checks each
element only, is what is modelled here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from minikafka.common.config.config_def import Validator, config_error
from minikafka.common.config.java_values import hashmap_order, java_str


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
    """Every element of a LIST value must be one of these strings (Kafka 4.1 semantics)."""

    valid: tuple[str, ...]

    @classmethod
    def in_(cls, *valid: str) -> "ValidList":
        return cls(tuple(valid))

    def ensure_valid(self, name: str, value: Any) -> None:
        element_check = ValidString(self.valid)
        for element in value:
            element_check.ensure_valid(name, element)

    def __str__(self) -> str:
        return str(ValidString(self.valid))


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
