"""Kafka's 128-bit ``Uuid`` and its 22-character base64 form.

Kafka prints ids (cluster.id, topic ids, directory ids, incarnation ids) as
URL-safe base64 of the 16 bytes, without padding: ``MkU3OEVBNTcwNTJENDM2Qg``.
The all-zero id means "none" (``AAAAAAAAAAAAAAAAAAAAAA``) and id 1 is reserved
for the metadata topic.  Kafka re-draws a random id whose text would start
with ``-`` (so it can't be mistaken for a command-line flag) and never hands
out the reserved ids; `Uuid.random` does the same with the node's seeded RNG.

Mirrors ``org.apache.kafka.common.Uuid``.
"""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True, order=True)
class Uuid:
    most: int   # high 64 bits, unsigned
    least: int  # low 64 bits, unsigned

    ZERO: ClassVar[Uuid]              # "no id" (set below the class)
    METADATA_TOPIC_ID: ClassVar[Uuid]  # the topic id of __cluster_metadata (set below the class)

    @classmethod
    def from_bytes(cls, data: bytes) -> "Uuid":
        if len(data) != 16:
            raise ValueError(f"A Uuid is 16 bytes, got {len(data)}")
        return cls(int.from_bytes(data[:8], "big"), int.from_bytes(data[8:], "big"))

    @classmethod
    def from_string(cls, text: str) -> "Uuid":
        """Parse Kafka's base64 form; raises ValueError on anything else."""
        if len(text) != 22:
            raise ValueError(f"Input string with prefix `{text[:22]}` is too long to be decoded as a base64 UUID"
                             if len(text) > 22 else
                             f"Input string `{text}` decoded as {len(text) * 6 // 8} bytes, which is not "
                             f"equal to the expected 16 bytes of a base64-encoded UUID")
        try:
            raw = base64.urlsafe_b64decode(text + "==")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"Input string `{text}` is not a valid base64 UUID") from exc
        return cls.from_bytes(raw)

    @classmethod
    def random(cls, rng: random.Random) -> "Uuid":
        while True:
            candidate = cls.from_bytes(rng.getrandbits(128).to_bytes(16, "big"))
            if candidate not in _RESERVED and not str(candidate).startswith("-"):
                return candidate

    def to_bytes(self) -> bytes:
        return self.most.to_bytes(8, "big") + self.least.to_bytes(8, "big")

    def __str__(self) -> str:
        return base64.urlsafe_b64encode(self.to_bytes()).decode("ascii").rstrip("=")

    def __repr__(self) -> str:
        return f"Uuid({self})"


Uuid.ZERO = Uuid(0, 0)
Uuid.METADATA_TOPIC_ID = Uuid(0, 1)
_RESERVED = {Uuid(0, 0), Uuid(0, 1)}
