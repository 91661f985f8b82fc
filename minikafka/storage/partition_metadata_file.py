"""``partition.metadata``: which topic id a partition directory belongs to.

Theory of operation
-------------------
Since KIP-516 a topic has a 16-byte id besides its name, and a deleted topic
recreated under the same name gets a new one.  Each partition directory
records the id of the topic it was created for::

    version: 0
    topic_id: gBtArbO9TfGFgNZiqwXJ3A

(no trailing newline).  A broker that finds a directory whose id differs
from the one in the metadata log knows the directory is stale and must not
serve it.  Kafka writes the file before the first append to the log, via a
``.tmp`` file, a flush and a rename, in the `LogDirectory` it receives.

Mirrors ``org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile``
and ``PartitionMetadataReadBuffer``.
"""

from __future__ import annotations

import os

from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory, read_text

from minikafka.common.errors import InconsistentTopicIdException, KafkaStorageException
from minikafka.common.uuid import Uuid

PARTITION_METADATA_FILE_NAME = "partition.metadata"
CURRENT_VERSION = 0


class PartitionMetadataFile:
    """Records a topic id now and writes it on the next `maybe_flush` (before the first append)."""

    def __init__(self, dir_path: str, directory: LogDirectory = FILE_SYSTEM):
        self.path = os.path.join(dir_path, PARTITION_METADATA_FILE_NAME)
        self._directory = directory                  # where the file lives (disk or memory)
        self._dirty_topic_id: Uuid | None = None     # recorded but not yet written

    def record(self, topic_id: Uuid) -> None:
        if self._dirty_topic_id is not None and self._dirty_topic_id != topic_id:
            raise InconsistentTopicIdException(f"Tried to record topic ID {topic_id} to file but had already "
                                               f"recorded {self._dirty_topic_id}")
        self._dirty_topic_id = topic_id

    def maybe_flush(self) -> None:
        if self._dirty_topic_id is None:
            return
        try:
            text = f"version: {CURRENT_VERSION}\ntopic_id: {self._dirty_topic_id}"
            self._directory.write_atomically(self.path, text.encode("utf-8"))
        except OSError as exc:
            raise KafkaStorageException(f"Error while writing partition metadata file "
                                        f"{os.path.abspath(self.path)}") from exc
        self._dirty_topic_id = None

    def exists(self) -> bool:
        return self._directory.exists(self.path)

    def read(self) -> Uuid:
        """The topic id in the file; KafkaStorageException (Kafka's text) if it is unreadable."""
        location = os.path.abspath(self.path)
        try:
            lines = read_text(self._directory, self.path).split("\n")
            return self._parse(lines, location)
        except (OSError, ValueError) as exc:
            error = KafkaStorageException(f"Error while reading partition metadata file {location}")
            error.cause_message = str(exc)
            raise error from exc

    @staticmethod
    def _parse(lines: list[str], location: str) -> Uuid:
        version_parts = lines[0].split() if lines else []
        if len(version_parts) != 2 or not version_parts[1].lstrip("-").isdigit():
            raise ValueError(f"Malformed line in checkpoint file [{location}]: {lines[0] if lines else None}")
        version = int(version_parts[1])
        if version < CURRENT_VERSION:
            raise ValueError(f"Unrecognized version of partition metadata file + ({location}): {version}")
        id_parts = lines[1].split() if len(lines) > 1 else []
        if len(id_parts) != 2:
            raise ValueError(f"Malformed line in checkpoint file [{location}]: {lines[1] if len(lines) > 1 else None}")
        topic_id = Uuid.from_string(id_parts[1])
        if topic_id == Uuid.ZERO:
            raise ValueError(f"Invalid topic ID in partition metadata file ({location})")
        return topic_id

    def delete(self) -> None:
        if not self._directory.remove(self.path):
            raise FileNotFoundError(2, "No such file or directory", self.path)
