"""``.kafka_cleanshutdown``: the marker that says "this log dir was closed properly".

Theory of operation
-------------------
When a broker shuts down cleanly it flushes and closes every log, writes its
checkpoints, and then drops a small JSON file at the root of each log dir::

    {"version":0,"brokerEpoch":42}

At start-up the marker decides how much work loading is: with it, segments
are trusted as they are; without it (the process crashed), every segment
after the recovery point is re-read, CRC-checked and re-indexed.  The marker
is deleted as soon as loading starts, so a crash *during* loading is again
treated as unclean.  The broker epoch lets a restarting broker tell the
controller which registration its clean shutdown belonged to (KIP-966).

The marker lives in the `LogDirectory` the handler receives, written and
flushed.

Mirrors ``org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler``.
"""

from __future__ import annotations

import json
import os

from minikafka.storage.log_directory import FILE_SYSTEM, LogDirectory, read_text

CLEAN_SHUTDOWN_FILE_NAME = ".kafka_cleanshutdown"
CURRENT_VERSION = 0


class CleanShutdownFileHandler:
    def __init__(self, dir_path: str, directory: LogDirectory = FILE_SYSTEM):
        self.path = os.path.join(dir_path, CLEAN_SHUTDOWN_FILE_NAME)
        self._directory = directory       # where the marker lives (disk or memory)

    def write(self, broker_epoch: int) -> None:
        # Jackson writes the fields in declaration order, without spaces.
        text = json.dumps({"version": CURRENT_VERSION, "brokerEpoch": broker_epoch}, separators=(",", ":"))
        self._directory.write_bytes(self.path, text.encode("utf-8"))
        self._directory.flush(self.path)

    def read(self) -> int | None:
        """The broker epoch recorded at the last clean shutdown, or None if absent or unreadable."""
        try:
            return int(json.loads(read_text(self._directory, self.path))["brokerEpoch"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def exists(self) -> bool:
        return self._directory.exists(self.path)

    def delete(self) -> None:
        self._directory.remove(self.path)
