"""What may differ between a real Kafka and the sandbox playing the same scenario, and nothing else.

Theory of operation
-------------------
Two clusters never share generated ids, ports, directories or clocks, so
those are replaced by placeholders before outputs are compared; every other
character must match.  `normalise` rewrites one side's output:

1. exact texts the side knows to be its own (``Side.context``): each
   broker's ``host:port`` and port, the data root, the cluster id;
2. generated ids: Kafka's 22-character base64 ids (topic, directory and
   incarnation ids; they mix upper and lower case, which keeps an ordinary
   topic name out, and are not camelCase words like
   ``eligibleLeaderReplicas``) and Java ``UUID``s (member ids), numbered in
   order of first appearance, ``<id 1>``, ``<id 2>``... so an output that
   reuses one id where the other uses two still differs;
3. timestamps: epoch milliseconds from 2020 to 2033, and date-times;
4. ``masks`` a scenario declares, each a regex whose groups are values
   that depend on elapsed time (a metadata log's end offset grows with
   Kafka's NoOpRecords), replaced by ``<varies: label>``.  A scenario that
   needs one says why; the report lists it.

The zero id (``AAAAAAAAAAAAAAAAAAAAAA``), node ids, offsets, counts, error
codes and messages are never touched.

`compare` classifies a pair: *identical* (the raw texts match), *normalised*
(they match once normalised) or *different*.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

BASE64_ID = re.compile(r"(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{22}"
                       r"(?![A-Za-z0-9_-])")
# A name such as AlterShareGroupOffsets or eligibleLeaderReplicas, never a generated id.
CAMEL_CASE = re.compile(r"(?:[A-Z][a-z]+|[a-z]+)(?:[A-Z][a-z]+)+")
JAVA_UUID = re.compile(r"(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f-])")
EPOCH_MS = re.compile(r"(?<!\d)1[6-9]\d{11}(?!\d)")
DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[,.]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")

Mask = tuple[str, str]      # (regex with one group, label)


def normalise(text: str, context: Mapping[str, str] | None = None, masks: Sequence[Mask] = ()) -> str:
    """``text`` with this side's own names, generated ids, timestamps and masked values replaced."""
    for exact in sorted(context or {}, key=len, reverse=True):
        pattern = re.escape(exact)
        if exact.isdigit():                       # a bare port: never part of a longer number
            pattern = rf"(?<!\d){pattern}(?!\d)"
        text = re.sub(pattern, (context or {})[exact].replace("\\", r"\\"), text)
    text = _number(BASE64_ID, "id", text, keep=CAMEL_CASE)
    text = _number(JAVA_UUID, "uuid", text)
    text = EPOCH_MS.sub("<timestamp>", text)
    text = DATE_TIME.sub("<date-time>", text)
    for regex, label in masks:
        text = re.sub(regex, lambda m: _mask_groups(m, f"<varies: {label}>"), text)
    return text


def _mask_groups(match: re.Match, placeholder: str) -> str:
    """The match with the span of each of its groups replaced by ``placeholder``."""
    whole, start = match.group(0), match.start()
    for index in range(match.re.groups, 0, -1):          # right to left: earlier spans stay valid
        if match.start(index) >= 0:
            left, right = match.start(index) - start, match.end(index) - start
            whole = whole[:left] + placeholder + whole[right:]
    return whole


def _number(pattern: re.Pattern, kind: str, text: str, keep: re.Pattern | None = None) -> str:
    seen: dict[str, str] = {}

    def replace(match: re.Match) -> str:
        if keep is not None and keep.fullmatch(match.group(0)):
            return match.group(0)
        return seen.setdefault(match.group(0), f"<{kind} {len(seen) + 1}>")
    return pattern.sub(replace, text)


@dataclass(frozen=True)
class Comparison:
    result: str                 # "identical", "normalised" or "different"
    kafka: str                  # what real Kafka gave, raw
    sandbox: str                # what the sandbox gave, raw
    kafka_normalised: str
    sandbox_normalised: str

    def diff(self, context_lines: int = 2) -> str:
        """A unified diff of the normalised texts (empty unless different)."""
        return "\n".join(difflib.unified_diff(
            self.kafka_normalised.splitlines(), self.sandbox_normalised.splitlines(),
            "kafka", "sandbox", n=context_lines, lineterm=""))


def compare(kafka: str, sandbox: str, kafka_context: Mapping[str, str] | None = None,
            sandbox_context: Mapping[str, str] | None = None, masks: Sequence[Mask] = ()) -> Comparison:
    """Classify two outputs of the same scenario."""
    left = normalise(kafka, kafka_context, masks)
    right = normalise(sandbox, sandbox_context, masks)
    if kafka == sandbox:
        result = "identical"
    elif left == right:
        result = "normalised"
    else:
        result = "different"
    return Comparison(result, kafka, sandbox, left, right)
