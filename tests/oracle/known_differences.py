"""Why a scenario's outputs still differ between real Kafka 4.3.1 and the sandbox.

One entry per scenario that the suite reports as *different*: a `Known` with
the reason in a sentence (it goes into docs/fidelity.md's table) and, where
the difference is narrow, ``undo``: a function that takes real Kafka's
normalised text and takes out exactly that difference.  A scenario with an
``undo`` must then match the sandbox to the character, so a second,
unexplained difference in the same output still fails.  Without ``undo`` the
whole output is allowed to differ (kept for outputs that the difference runs
through, such as the list of every broker config).

A scenario that differs without an entry fails; an entry whose scenario no
longer differs fails too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Known:
    reason: str                                         # one sentence, for the report and docs/fidelity.md
    undo: Callable[[str], str] | None = None            # real Kafka's text minus this difference


# --- Documentation texts ------------------------------------------------------------------------------------
def without_documentation(text: str) -> str:
    return re.sub(r'"documentation": "(?:[^"\\]|\\.)*"', '"documentation": null', text)


# --- APIs the sandbox does not serve -----------------------------------------------------------------------------
# Broker-listener APIs a real 4.3.1 broker advertises and a sandbox broker does not (network/api_versions.py:
# nothing in the sandbox would answer them; a client gets its own "not supported" error instead).
UNSERVED_APIS = frozenset({
    17, 36,                             # SaslHandshake, SaslAuthenticate
    24, 25, 26, 27, 28, 61, 65, 66,     # transactions: AddPartitionsToTxn ... TxnOffsetCommit, DescribeProducers,
                                        # DescribeTransactions, ListTransactions
    38, 39, 40, 41,                     # delegation tokens
    48, 49, 50, 51,                     # client quotas, SCRAM credentials
    57, 64, 80, 81,                     # UpdateFeatures, UnregisterBroker, AddRaftVoter, RemoveRaftVoter
    76, 77, 78, 79, 83, 84, 85, 86, 87, 90, 91, 92,   # share groups and their state
    88, 89,                             # streams groups
})
UNSERVED = ("the sandbox does not serve Kafka's SASL, transaction, delegation-token, quota, SCRAM, "
            "UpdateFeatures, broker and voter registration, share and streams group APIs, so it "
            "does not advertise them; every API it serves has 4.3.1's range")

_API_ENTRY = re.compile(r' \{\n  "api_key": (\d+),\n  "min_version": -?\d+,\n  "max_version": -?\d+\n \}(?:,\n|\n)')


def without_unserved_api_keys(text: str) -> str:
    """An ApiVersions answer without the entries of the APIs the sandbox does not serve."""
    kept = _API_ENTRY.sub(lambda m: "" if int(m.group(1)) in UNSERVED_APIS else m.group(0), text)
    return kept.replace(",\n]", "\n]")


_TOOL_LINE = re.compile(r"^(\t\w+\((\d+)\): )[^\n]*?(,?)$", re.MULTILINE)


def as_unsupported_lines(text: str) -> str:
    """``kafka-broker-api-versions`` with the APIs the sandbox does not serve shown as UNSUPPORTED."""
    return _TOOL_LINE.sub(lambda m: f"{m.group(1)}UNSUPPORTED{m.group(3)}" if int(m.group(2)) in UNSERVED_APIS
                          else m.group(0), text)


KNOWN_DIFFERENCES: dict[str, Known] = {
    "configs: DescribeConfigs with documentation": Known(
        "the sandbox does not carry Kafka's documentation texts of configs: it answers documentation null",
        without_documentation),
    "configs: kafka-configs --describe --all of a broker": Known(
        "the sandbox defines about 110 of Kafka's 340 broker configs (docs/fidelity.md)"),
    "protocol: ApiVersions v4 (ranges, supported and finalized features)": Known(UNSERVED, without_unserved_api_keys),
    "protocol: kafka-broker-api-versions": Known(UNSERVED, as_unsupported_lines),
}
