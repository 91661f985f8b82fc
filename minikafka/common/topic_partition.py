"""``TopicPartition``: a topic name and a partition index, printed ``orders-1``.

Mirrors ``org.apache.kafka.common.TopicPartition``; ordering is by topic, then
partition, which is how Kafka's tools sort their output.
"""

from __future__ import annotations

from typing import NamedTuple


class TopicPartition(NamedTuple):
    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"

    @classmethod
    def parse(cls, text: str) -> "TopicPartition":
        """Parse ``orders-1`` (the directory-name form) back into a TopicPartition."""
        topic, sep, index = text.rpartition("-")
        if not sep or not topic or not index.isdigit():
            raise ValueError(f"Found directory {text}, '{text}' is not in the form of "
                             f"topic-partition or topic-partition.uniqueId-delete (if marked for deletion).")
        return cls(topic, int(index))
