"""`OptionParser`: the command-line grammar of Kafka's Java tools (jopt-simple).

Theory of operation
-------------------
Most Kafka tools declare their options with jopt-simple and parse them in
two steps.  ``parse`` walks the arguments once: ``--name value``,
``--name=value`` and ``-name value`` select an option; an option either
takes no argument, requires one (the next token, whatever it looks like),
or takes an optional one (the next token unless it looks like an option);
everything else is a non-option argument, and ``--`` ends the options.  An
unknown name fails at once (``foo is not a recognized option``), as does a
missing required argument (``Option topic requires an argument``).  Kafka
builds its parsers without abbreviations, so ``--bootstrap`` is unknown.
After the walk, an option declared ``availableIf`` others fails when none
of them is present (``Option(s) [members] are unavailable given other
options on the command line``).

The second step is lazy: ``value_of`` converts the text to the option's
type only when the tool asks for it, so a bad ``--partitions abc`` fails
where the tool first reads it (``Cannot parse argument 'abc' of option
partitions``), inside whatever error handling the tool has at that point;
asking ``value_of`` for an option given twice fails with ``Found multiple
arguments for option topic, but you asked for only one``.  An option
prints as ``[name]`` (its names in a list), which is how Kafka's own
messages quote options: ``Missing required argument "[bootstrap-server]"``.

`format_help` lays the options out like jopt-simple's ``BuiltinHelpFormatter``
(sorted by name, ``Option``/``Description`` columns, ``<Type: what>`` after
options with arguments, ``(default: x)`` after descriptions).

Mirrors ``joptsimple.OptionParser``, ``OptionSet``, ``OptionException`` and
its subclasses (jopt-simple 5.0.4, as bundled with Kafka 4.3.1).  Simplified:
short single-letter options and option clusters are not modelled (Kafka's
tools declare none); the help descriptions are the sandbox's own words and
the column wrapping is approximate.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

NO_ARG, REQUIRED_ARG, OPTIONAL_ARG = "none", "required", "optional"
_INT32 = (-2**31, 2**31 - 1)
_INT64 = (-2**63, 2**63 - 1)


class OptionException(Exception):
    """``joptsimple.OptionException``: ``str(exc)`` is jopt-simple's message."""

    java_name = "OptionException"

    @property
    def java_class(self) -> str:
        return f"joptsimple.{self.java_name}"


class UnrecognizedOptionException(OptionException):
    java_name = "UnrecognizedOptionException"


class OptionMissingRequiredArgumentException(OptionException):
    java_name = "OptionMissingRequiredArgumentException"


class MultipleArgumentsForOptionException(OptionException):
    java_name = "MultipleArgumentsForOptionException"


class OptionArgumentConversionException(OptionException):
    java_name = "OptionArgumentConversionException"


class UnavailableOptionException(OptionException):
    java_name = "UnavailableOptionException"


def _java_integer(text: str, bounds: tuple[int, int]) -> int:
    """``Integer.valueOf`` / ``Long.valueOf``: an optional sign, decimal digits, in range."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(text)
    value = int(text)
    if not bounds[0] <= value <= bounds[1]:
        raise ValueError(text)
    return value


def integer(text: str) -> int:
    return _java_integer(text, _INT32)


def long(text: str) -> int:
    return _java_integer(text, _INT64)


# Shown in help as <Integer: ...>; mypy does not model attributes set on a function.
integer.type_name = "Integer"  # type: ignore[attr-defined]
long.type_name = "Long"  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One declared option (``parser.accepts(name, description)...``)."""

    name: str
    description: str = ""
    argument: str = NO_ARG                        # NO_ARG, REQUIRED_ARG or OPTIONAL_ARG
    convert: Callable[[str], Any] = str           # str, integer, long, or a converter raising ValueError
    described_as: str = ""
    default: Any = None                           # returned by value_of when the option is absent
    available_if: tuple[str, ...] = ()            # usable only together with one of these
    for_help: bool = False

    def __str__(self) -> str:
        return f"[{self.name}]"

    @property
    def type_name(self) -> str:
        return getattr(self.convert, "type_name", "String")


@dataclass(slots=True)
class OptionSet:
    """``joptsimple.OptionSet``: what ``parse`` detected, in command-line order."""

    parser: "OptionParser"
    detected: list[tuple[OptionSpec, str | None]] = field(default_factory=list)   # (spec, raw argument)
    non_options: list[str] = field(default_factory=list)

    def has(self, name: str) -> bool:
        return any(spec.name == name for spec, _ in self.detected)

    def has_argument(self, name: str) -> bool:
        return any(spec.name == name and raw is not None for spec, raw in self.detected)

    def specs(self) -> list[OptionSpec]:
        return [spec for spec, _ in self.detected]

    def values_of(self, name: str) -> list[Any]:
        spec = self.parser.spec(name)
        raws = [raw for s, raw in self.detected if s.name == name and raw is not None]
        if not raws and not self.has(name) and spec.default is not None:
            return [spec.default]
        return [self._convert(spec, raw) for raw in raws]

    def value_of(self, name: str) -> Any:
        """The converted argument, the default when absent, None when there is neither."""
        spec = self.parser.spec(name)
        raws = [raw for s, raw in self.detected if s.name == name and raw is not None]
        if len(raws) > 1:
            raise MultipleArgumentsForOptionException(f"Found multiple arguments for option {name}, "
                                                      "but you asked for only one")
        if raws:
            return self._convert(spec, raws[0])
        return spec.default if not self.has(name) or spec.argument != OPTIONAL_ARG else None

    @staticmethod
    def _convert(spec: OptionSpec, raw: str) -> Any:
        try:
            return spec.convert(raw)
        except ValueError:
            raise OptionArgumentConversionException(f"Cannot parse argument '{raw}' of option {spec.name}") from None


class OptionParser:
    """``new OptionParser(false)`` plus Kafka's ``--help`` and ``--version`` options."""

    def __init__(self) -> None:
        self._specs: dict[str, OptionSpec] = {}      # by name, in declaration order
        self.accepts("help", "Print usage information.", for_help=True)
        self.accepts("version", "Display Kafka version.", for_help=True)

    def accepts(self, name: str, description: str = "", **kwargs: Any) -> OptionSpec:
        spec = OptionSpec(name, description, **kwargs)
        self._specs[name] = spec
        return spec

    def spec(self, name: str) -> OptionSpec:
        return self._specs[name]

    def parse(self, args: Sequence[str]) -> OptionSet:
        options = OptionSet(self)
        tokens = list(args)
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token == "--":
                options.non_options.extend(tokens[i:])
                break
            name, value = self._option_token(token)
            if name is None:
                options.non_options.append(token)
                continue
            spec = self._specs[name]
            if spec.argument == REQUIRED_ARG and value is None:
                if i >= len(tokens):
                    raise OptionMissingRequiredArgumentException(f"Option {name} requires an argument")
                value, i = tokens[i], i + 1
            elif spec.argument == OPTIONAL_ARG and value is None and i < len(tokens) \
                    and self._option_token(tokens[i])[0] is None and tokens[i] != "--":
                value, i = tokens[i], i + 1
            options.detected.append((spec, value if spec.argument != NO_ARG else None))
        self._ensure_available(options)
        return options

    def _option_token(self, token: str) -> tuple[str | None, str | None]:
        """(option name, inline argument) for an option token; (None, None) for a non-option."""
        if not token.startswith("-") or token == "-":
            return None, None
        body = token[2:] if token.startswith("--") else token[1:]
        name, eq, value = body.partition("=")
        if name in self._specs:
            return name, value if eq else None
        if token.startswith("--"):
            raise UnrecognizedOptionException(f"{name} is not a recognized option")
        # A single hyphen followed by an unknown word is read as short options; the first is unknown.
        raise UnrecognizedOptionException(f"{body[0]} is not a recognized option")

    def _ensure_available(self, options: OptionSet) -> None:
        unavailable = [spec.name for spec in dict.fromkeys(options.specs())
                       if spec.available_if and not any(options.has(n) for n in spec.available_if)]
        if unavailable:
            raise UnavailableOptionException(f"Option(s) [{', '.join(unavailable)}] are unavailable given other "
                                  "options on the command line")

    # ------------------------------------------------------------------------- help
    def format_help(self) -> str:
        """The option table ``parser.printHelpOn`` prints (layout of ``BuiltinHelpFormatter``)."""
        rows = [("Option", "Description"), ("------", "-----------")]
        for spec in sorted(self._specs.values(), key=lambda s: s.name):
            left = f"--{spec.name}"
            if spec.argument != NO_ARG:
                what = f"{spec.type_name}: {spec.described_as}" if spec.described_as else spec.type_name
                left += f" <{what}>" if spec.argument == REQUIRED_ARG else f" [{what}]"
            right = spec.description
            if spec.default is not None:
                right += f" (default: {spec.default})"
            rows.append((left, right))
        left_width = min(max(len(left) for left, _ in rows), 39)
        right_width = 80 - 2 - left_width
        lines = []
        for left, right in rows:
            lefts = textwrap.wrap(left, left_width) or [""]
            rights = [w for part in right.split("\n") for w in (textwrap.wrap(part, right_width) or [""])]
            for j in range(max(len(lefts), len(rights))):
                cell = lefts[j] if j < len(lefts) else ""
                text = rights[j] if j < len(rights) else ""
                lines.append(f"{cell:<{left_width}}  {text}".rstrip())
        return "\n".join(lines) + "\n"


__all__ = ["OptionParser", "OptionSpec", "OptionSet", "OptionException", "NO_ARG", "REQUIRED_ARG",
           "OPTIONAL_ARG", "integer", "long"]
