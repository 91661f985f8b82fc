"""``ConfigDef``: a table of named, typed settings that turns strings into values.

Theory of operation
-------------------
Every Kafka configuration (a broker's ``server.properties``, a topic's
overrides) is a bag of strings.  A `ConfigDef` lists the names Kafka knows,
each with a `Type`, a default and an optional validator.  ``parse(props)``
walks the table *in definition order*: a name that is set is converted with
`parse_type` (trim, then Java's parsing rules), a missing name takes its
default, and the validator checks the result.  The first bad value stops the
walk with a `ConfigException` worded exactly as Kafka words it::

    Invalid value abc for configuration retention.ms: Not a number of type LONG
    Invalid value 0 for configuration min.insync.replicas: Value must be at least 1

`convert_to_string` goes the other way, and is what DescribeConfigs uses to
print a value (``0.5``, ``delete,compact``, ``true``).

Mirrors ``org.apache.kafka.common.config.ConfigDef`` (Kafka 4.3.1) and the
message form of ``ConfigException``.  Simplified: a CLASS value is just a
class name, accepted only if it is one of the few classes the sandbox knows
(Kafka would try to load it); there are no dependents, groups or recommenders.
``parse_value`` drops repeated elements of a LIST checked by a ``ValidList``
before validating it (``delete,delete`` is ``[delete]``), as Kafka does since
4.2; Kafka also logs a warning then, which the sandbox, having no broker log,
does not.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol

from minikafka.common.config import java_values as jv
from minikafka.common.errors import ConfigException


class Type(enum.Enum):
    """A config's type; ``describe_id`` is the ConfigType code DescribeConfigs sends."""

    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9

    @property
    def describe_id(self) -> int:
        return self.value

    @property
    def is_sensitive(self) -> bool:
        return self is Type.PASSWORD

    def __str__(self) -> str:            # Java's enum toString, as in "Not a number of type INT"
        return self.name


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT_VALUE"


NO_DEFAULT_VALUE: Any = _NoDefault()
"""Marks a required setting: ``parse`` fails when it is missing."""


@dataclass(frozen=True, slots=True)
class Password:
    """A PASSWORD value; it prints as ``[hidden]`` so it never leaks into logs."""

    value: str = field(repr=False)

    def __str__(self) -> str:
        return "[hidden]"


# Class names the sandbox can "load": the defaults of the CLASS configs it defines.
KNOWN_CLASSES: frozenset[str] = frozenset({
    "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
})

_LIST_SEPARATOR = re.compile(f"[{re.escape(jv.JAVA_WHITESPACE)}]*,[{re.escape(jv.JAVA_WHITESPACE)}]*")

_JAVA_CLASS_NAMES = {bool: "java.lang.Boolean", int: "java.lang.Integer", float: "java.lang.Double",
                     str: "java.lang.String", list: "java.util.ArrayList", tuple: "java.util.ArrayList"}


def config_error(name: str, value: object, message: str | None = None) -> ConfigException:
    """Kafka's ``new ConfigException(name, value, message)``."""
    suffix = "" if message is None else f": {message}"
    return ConfigException(f"Invalid value {jv.java_str(value)} for configuration {name}{suffix}")


def _java_class_name(value: object) -> str:
    return _JAVA_CLASS_NAMES.get(type(value), type(value).__name__)


class Validator(Protocol):
    def ensure_valid(self, name: str, value: Any) -> None: ...


def _parse_string(name: str, value: Any, type_: Type) -> Any:
    trimmed = jv.java_trim(value)
    try:
        if type_ is Type.BOOLEAN:
            if jv.equals_ignore_case(trimmed, "true"):
                return True
            if jv.equals_ignore_case(trimmed, "false"):
                return False
            raise config_error(name, value, "Expected value to be either true or false")
        if type_ is Type.PASSWORD:
            return Password(trimmed)
        if type_ is Type.STRING:
            return trimmed
        if type_ is Type.INT:
            return jv.parse_int(trimmed)
        if type_ is Type.SHORT:
            return jv.parse_short(trimmed)
        if type_ is Type.LONG:
            return jv.parse_long(trimmed)
        if type_ is Type.DOUBLE:
            return jv.parse_double(trimmed)
        if type_ is Type.LIST:
            return [] if not trimmed else _LIST_SEPARATOR.split(trimmed)
        if trimmed not in KNOWN_CLASSES:          # Type.CLASS
            raise config_error(name, value, f"Class {value} could not be found.")
        return trimmed
    except ValueError:
        raise config_error(name, value, f"Not a number of type {type_}") from None


def _check_typed(name: str, value: Any, type_: Type) -> Any:
    """An already-typed value, accepted where Kafka accepts the matching Java object."""
    number = isinstance(value, int) and not isinstance(value, bool)
    if type_ is Type.BOOLEAN and isinstance(value, bool):
        return value
    if type_ is Type.PASSWORD and isinstance(value, Password):
        return value
    if type_ in (Type.INT, Type.SHORT, Type.LONG) and number:
        low, high = {Type.INT: (jv.INT_MIN, jv.INT_MAX), Type.SHORT: (jv.SHORT_MIN, jv.SHORT_MAX),
                     Type.LONG: (jv.LONG_MIN, jv.LONG_MAX)}[type_]
        if low <= value <= high:
            return value
    if type_ is Type.DOUBLE and (number or isinstance(value, float)):
        return float(value)
    if type_ is Type.LIST and isinstance(value, (list, tuple)):
        return list(value)
    expected = {Type.BOOLEAN: "Expected value to be either true or false",
                Type.LIST: "Expected a comma separated list.",
                Type.CLASS: "Expected a Class instance or class name."}.get(type_)
    if expected is None:
        kinds = {Type.STRING: "a string", Type.PASSWORD: "a string", Type.INT: "a 32-bit integer",
                 Type.SHORT: "a 16-bit integer (short)", Type.LONG: "a 64-bit integer (long)",
                 Type.DOUBLE: "a double"}
        expected = f"Expected value to be {kinds[type_]}, but it was a {_java_class_name(value)}"
    raise config_error(name, value, expected)


def parse_type(name: str, value: Any, type_: Type) -> Any:
    """``ConfigDef.parseType``: a string (trimmed first) or a typed value -> the typed value."""
    if value is None:
        return None
    if isinstance(value, str):
        return _parse_string(name, value, type_)
    return _check_typed(name, value, type_)


def convert_to_string(value: Any, type_: Type | None) -> str | None:
    """``ConfigDef.convertToString``: how DescribeConfigs prints a parsed value."""
    if value is None:
        return None
    if type_ is Type.LIST:
        return ",".join(jv.java_str(item) for item in value)
    if type_ is Type.PASSWORD and isinstance(value, Password):
        return str(value)
    return jv.java_str(value)


@dataclass(frozen=True, slots=True)
class ConfigKey:
    """One row of a ConfigDef."""

    name: str
    type: Type
    default: Any                        # parsed default, None, or NO_DEFAULT_VALUE
    validator: Validator | None = None
    documentation: str | None = None    # the sandbox does not carry Kafka's doc texts
    internal: bool = False              # hidden from tools' help, never listed unless set

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT_VALUE


class ConfigDef:
    """An ordered table of `ConfigKey` rows, filled with ``define``."""

    def __init__(self, base: "ConfigDef | None" = None):
        self._keys: dict[str, ConfigKey] = dict(base._keys) if base else {}   # definition order

    def define(self, name: str, type_: Type, default: Any = NO_DEFAULT_VALUE,
               validator: Validator | None = None, *, internal: bool = False,
               documentation: str | None = None) -> "ConfigDef":
        if name in self._keys:
            raise ValueError(f"Configuration {name} is defined twice.")
        parsed = default if default is NO_DEFAULT_VALUE else parse_type(name, default, type_)
        if validator is not None and parsed is not NO_DEFAULT_VALUE and parsed is not None:
            validator.ensure_valid(name, parsed)    # Kafka refuses a table with a bad default
        self._keys[name] = ConfigKey(name, type_, parsed, validator, documentation, internal)
        return self

    def define_internal(self, name: str, type_: Type, default: Any = None,
                        validator: Validator | None = None) -> "ConfigDef":
        return self.define(name, type_, default, validator, internal=True)

    # ------------------------------------------------------------------ lookup
    def __contains__(self, name: object) -> bool:
        return name in self._keys

    def __getitem__(self, name: str) -> ConfigKey:
        return self._keys[name]

    def get(self, name: str) -> ConfigKey | None:
        return self._keys.get(name)

    def keys(self) -> list[ConfigKey]:
        return list(self._keys.values())

    def names(self) -> list[str]:
        return list(self._keys)

    def non_internal_names(self) -> list[str]:
        return sorted(k.name for k in self._keys.values() if not k.internal)

    def type_of(self, name: str) -> Type | None:
        key = self._keys.get(name)
        return key.type if key else None

    def default_string(self, name: str) -> str | None:
        """The default printed as a string, or None (``KafkaConfigSchema.getDefault``)."""
        key = self._keys.get(name)
        if key is None or not key.has_default:
            return None
        return convert_to_string(key.default, key.type)

    # ------------------------------------------------------------------ parsing
    def parse_value(self, key: ConfigKey, value: Any, is_set: bool) -> Any:
        if is_set:
            parsed = parse_type(key.name, value, key.type)
        elif not key.has_default:
            raise ConfigException(f'Missing required configuration "{key.name}" which has no default value.')
        else:
            parsed = key.default
        if getattr(key.validator, "drops_duplicates", False) and isinstance(parsed, list):
            # Kafka keeps the first of each repeated element (and logs a warning the sandbox has no log for).
            parsed = list(dict.fromkeys(parsed))
        if key.validator is not None:
            key.validator.ensure_valid(key.name, parsed)
        return parsed

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Every defined name -> its typed value; raises the first error in definition order."""
        return {key.name: self.parse_value(key, props.get(key.name), key.name in props)
                for key in self._keys.values()}

    def parse_known(self, props: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
        """Parse only ``names`` (unknown names are skipped), in definition order."""
        wanted = set(names)
        return {key.name: self.parse_value(key, props.get(key.name), key.name in props)
                for key in self._keys.values() if key.name in wanted}
