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


# --- The metadata records of a creation and a failover ----------------------------------------------------------
_NEWER_FEATURES = re.compile(r'\{"name": "(?:share|streams)\.version", "minSupportedVersion": 0, '
                             r'"maxSupportedVersion": 1\}, ')


def as_a_41_cluster(text: str) -> str:
    """Real Kafka's records as a 4.1 controller would write them, and each line once."""
    lines = []
    for line in text.splitlines():
        if '"cordonedLogDirs": []' in line:                      # 4.3 (KIP-1066) registers no cordoned dirs
            continue
        if line.startswith('{"type": "REGISTER_BROKER_RECORD", "version": 4,'):
            line = line.replace('"version": 4,', '"version": 3,', 1)
            line = _NEWER_FEATURES.sub("", line)
            line = line.replace('"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 30',
                                '"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 27')
        if lines and line == lines[-1] and '"fenced": 1' in line:
            continue                                            # the stopped broker's fence record, written twice
        lines.append(line)
    return "\n".join(lines) + "\n"


VERSION_41 = ("the sandbox claims Kafka 4.1 (metadata.version 4.1-IV1, share.version 0, no streams.version) "
              "and has no transactions, SASL or delegation-token APIs; real Kafka is 4.3.1")

KNOWN_DIFFERENCES: dict[str, Known] = {
    "configs: DescribeConfigs with documentation": Known(
        "the sandbox does not carry Kafka's documentation texts of configs: it answers documentation null",
        without_documentation),
    "configs: kafka-configs --describe --all of a broker": Known(
        "the sandbox defines about 110 of Kafka's 340 broker configs (docs/fidelity.md)"),
    "protocol: ApiVersions v4 (ranges, supported and finalized features)": Known(VERSION_41),
    "protocol: kafka-broker-api-versions": Known(VERSION_41),
    "protocol: kafka-features describe": Known(VERSION_41),
    "failures: __cluster_metadata records of the topic's creation and the failover "
    "(kafka-dump-log --cluster-metadata-decoder)": Known(
        "the sandbox claims 4.1 (RegisterBrokerRecord v3 without share.version and streams.version, no "
        "cordonedLogDirs record); real Kafka also wrote the cleanly stopped broker's fence record twice (not yet "
        "explained)", as_a_41_cluster),
}
