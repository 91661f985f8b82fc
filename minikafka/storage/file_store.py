"""The space of the file system holding a log directory, as Java's ``FileStore`` reports it.

Theory of operation
-------------------
DescribeLogDirs (KIP-827) tells a client how many bytes the file system of
each log directory has in total and how many are still usable.  Kafka asks
``Files.getFileStore(dir)`` for ``getTotalSpace()`` and
``getUsableSpace()``; the sandbox asks the operating system the same
(``statvfs``: blocks times fragment size, and the blocks an unprivileged
user may still take).  Java reports a size that overflows a ``long`` as
``Long.MAX_VALUE``; so does this module.

Reading the file system is the storage layer's business: request handlers
ask the broker's `LogDirectory` (``total_and_usable_space``), whose file
system implementation calls this module; an in-memory one reports a disk of
fixed size instead.

Mirrors ``java.nio.file.FileStore`` as ``ReplicaManager.describeLogDirs`` uses it.
"""

from __future__ import annotations

import os

JAVA_LONG_MAX = 2**63 - 1


def total_and_usable_space(directory: str) -> tuple[int, int]:
    """Total and usable bytes of the file system holding ``directory``."""
    stats = os.statvfs(directory)
    total, usable = stats.f_blocks * stats.f_frsize, stats.f_bavail * stats.f_frsize
    return (total if total >= 0 else JAVA_LONG_MAX), (usable if usable >= 0 else JAVA_LONG_MAX)
