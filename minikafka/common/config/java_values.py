"""How the JVM reads and prints the values that Kafka's configurations hold.

Theory of operation
-------------------
Kafka's brokers are Java programs, so every config value a learner types is
read with ``String.trim()``, ``Integer.parseInt``, ``Double.parseDouble`` or
``String.split``, and every value Kafka prints back (in an error message or
a DescribeConfigs answer) is printed with Java's ``toString``.  Python's own
``int()``, ``float()``, ``str.strip()`` and ``repr`` disagree with Java at
the edges: Python accepts ``"1_000"`` and ``"inf"``, Java accepts ``"1.5d"``
and ``"0x1p3"``; Python prints ``1e+16`` where Java prints ``1.0E16``.  This
module is the sandbox's single copy of the Java behaviour, so a config value
is accepted, rejected and echoed exactly as a real broker would.

It also computes the iteration order of a ``java.util.HashMap``: Kafka's
admin client keeps the entries of a DescribeConfigs answer in a HashMap, so
``kafka-topics.sh --describe`` lists a topic's ``Configs:`` in that order.

Mirrors ``java.lang.String.trim/split/hashCode/equalsIgnoreCase``,
``Integer/Short/Long.parseXxx``, ``Double.parseDouble/toString`` and
``java.util.HashMap``.  Simplified: ``Double.toString`` follows JDK 19+ (JDK 17 prints a longer
digit string for a few rare values, e.g. ``9.999999999999999E22`` for 1e23);
a HashMap bucket never turns into a tree.
"""

from __future__ import annotations

from minikafka.common.java_hashing import hashmap_order as hashmap_order  # noqa: F401  re-exported
from minikafka.common.java_hashing import string_hash_code as string_hash_code  # noqa: F401

import math
import re
import unicodedata
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Callable, Hashable, Iterable, Sequence, cast

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
SHORT_MIN, SHORT_MAX = -(2**15), 2**15 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

# The characters java.util.regex's \s matches (ASCII only, as in Java by default).
JAVA_WHITESPACE = " \t\n\x0b\f\r"

# Double.parseDouble's grammar (FloatingDecimal): decimal or hexadecimal
# significand, optional exponent, optional type suffix that is ignored.
_DECIMAL_DOUBLE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?", re.ASCII)
_HEX_DOUBLE = re.compile(
    r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*)|(?:\.[0-9a-fA-F]+))[pP]([+-]?\d+)[fFdD]?",
    re.ASCII)
_SPECIAL_DOUBLE = re.compile(r"([+-]?)(NaN|Infinity)")


def java_trim(text: str) -> str:
    """``String.trim()``: drop every character <= U+0020 at both ends (not Unicode spaces)."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def utf16_length(text: str) -> int:
    """``String.length()``: the number of UTF-16 code units (astral characters count twice)."""
    return len(text.encode("utf-16-le")) // 2


def _parse_integer(text: str, low: int, high: int) -> int:
    """The shared body of Integer/Short/Long.parseXxx; ValueError plays NumberFormatException."""
    if not text:
        raise ValueError("empty")
    sign, digits = 1, text
    if text[0] in "+-":
        sign, digits = (-1 if text[0] == "-" else 1), text[1:]
    if not digits:
        raise ValueError("sign only")
    value = 0
    for char in digits:                  # Character.digit(c, 10): any Unicode decimal digit
        digit = unicodedata.decimal(char, None)
        if digit is None:
            raise ValueError(f"not a digit: {char!r}")
        value = value * 10 + digit
    value *= sign
    if not low <= value <= high:
        raise ValueError("out of range")
    return value


def parse_int(text: str) -> int:
    return _parse_integer(text, INT_MIN, INT_MAX)


def parse_short(text: str) -> int:
    return _parse_integer(text, SHORT_MIN, SHORT_MAX)


def parse_long(text: str) -> int:
    return _parse_integer(text, LONG_MIN, LONG_MAX)


def parse_double(text: str) -> float:
    """``Double.parseDouble``: trims itself, accepts NaN/Infinity, hex floats and an f/d suffix."""
    text = java_trim(text)
    special = _SPECIAL_DOUBLE.fullmatch(text)
    if special:
        value = math.nan if special.group(2) == "NaN" else math.inf
        return -value if special.group(1) == "-" else value
    if _DECIMAL_DOUBLE.fullmatch(text):
        return float(text.rstrip("fFdD"))
    hexa = _HEX_DOUBLE.fullmatch(text)
    if hexa:
        sign, significand, exponent = hexa.groups()
        return float.fromhex(f"{sign}0x{significand}p{exponent}")
    raise ValueError(f"not a double: {text!r}")


def _java_digits(magnitude: float) -> tuple[str, int]:
    """The decimal digits Java prints for a positive double, and the exponent of the last one.

    The shortest digit string that reads back as the same double (Python's
    ``repr``), except that a one-digit result is replaced by the two-digit
    decimal nearest the double, as JDK 19+ specifies (``4.9E-324``, not ``5.0E-324``).
    """
    digits_tuple, exponent = Decimal(repr(magnitude)).normalize().as_tuple()[1:]
    if len(digits_tuple) == 1:
        exact = Decimal(magnitude)
        two = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 1), rounding=ROUND_HALF_EVEN)
        digits_tuple, exponent = two.normalize().as_tuple()[1:]
    return "".join(map(str, digits_tuple)), cast(int, exponent)  # finite: never 'n', 'N' or 'F'


def double_to_string(value: float) -> str:
    """``Double.toString``: ``0.5``, ``2.0``, ``1.0E7``, ``1.0E-5``, ``NaN``, ``-Infinity``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits, exponent = _java_digits(abs(value))
    point = len(digits) + exponent        # position of the decimal point within the digits
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole, fraction = digits[:point].ljust(point, "0"), digits[point:]
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


def java_str(value: object) -> str:
    """``String.valueOf(value)`` for the kinds of values Kafka configs hold."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return double_to_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_str(item) for item in value) + "]"
    return str(value)


def split_literal(text: str, separator: str) -> list[str]:
    """``text.split(separator)`` for a one-character literal: trailing empty parts are dropped.

    As in Java, a string without the separator (even an empty one) gives itself.
    """
    parts = text.split(separator)
    if len(parts) == 1:
        return parts
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _simple_case(char: str, upper: bool) -> str:
    mapped = char.upper() if upper else char.lower()
    return mapped if len(mapped) == 1 else char   # Character.toXxxCase maps one char to one char


def equals_ignore_case(left: str, right: str) -> bool:
    """``String.equalsIgnoreCase`` (so ``"falſe"`` equals ``"false"``, as on a JVM)."""
    if len(left) != len(right):
        return False
    for a, b in zip(left, right):
        if a == b:
            continue
        upper_a, upper_b = _simple_case(a, True), _simple_case(b, True)
        if upper_a == upper_b or _simple_case(upper_a, False) == _simple_case(upper_b, False):
            continue
        return False
    return True


string_hash = string_hash_code          # String.hashCode(), kept under the name config code uses
