"""Which Java runtime to start, and one clear error when there is none.

Theory of operation
-------------------
Every JVM this package starts (Spark's driver, Apache Kafka's tools, a real
broker) is the one Spark's ``bin/spark-class`` and Kafka's
``bin/kafka-run-class.sh`` would start: ``$JAVA_HOME/bin/java`` when
JAVA_HOME is set, else ``java`` from PATH.  A set JAVA_HOME is never
second-guessed: if it names no Java, those scripts fail even when PATH has
one, so `check_java` says so rather than quietly using another runtime.

Spark 4 and Kafka 4's brokers and tools all need Java 17 or newer (Kafka's
clients alone would run on 11).  `check_java` raises `JavaNotFoundError`
naming the Debian package to install; `java_version` reads the major
version from ``java -version`` ("17.0.15" -> 17, "1.8.0_292" -> 8).

This module is the sandbox's own convenience; nothing in Kafka corresponds
to it.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from pathlib import Path

JAVA_PACKAGE = "openjdk-17-jre-headless"
MINIMUM_JAVA = 17


class JavaNotFoundError(RuntimeError):
    """No Java runtime >= 17 was found."""


@functools.lru_cache(maxsize=8)
def java_version(java: str) -> int | None:
    """Major version of ``java`` ("17.0.15" -> 17, "1.8.0_292" -> 8), None if it will not run."""
    try:
        result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'version "(?:1\.)?(\d+)', result.stderr + result.stdout)
    return int(match.group(1)) if match else None


def find_java() -> str:
    """The java the launch scripts would start: ``$JAVA_HOME/bin/java`` if set, else ``java`` on PATH ('' if none)."""
    java_home = os.environ.get("JAVA_HOME", "")
    if java_home:
        return str(Path(java_home, "bin", "java"))
    return shutil.which("java") or ""


def check_java(needed_by: str = "PySpark 4") -> str:
    """The java to start (see `find_java`); `JavaNotFoundError` in one sentence if it is missing or older than 17."""
    java = find_java()
    version = java_version(java) if java else None
    if version is not None and version >= MINIMUM_JAVA:
        return java
    if not java:
        found = "no Java runtime was found"
    elif version is None and os.environ.get("JAVA_HOME"):
        found = f"JAVA_HOME is {os.environ['JAVA_HOME']} and {java} does not run (fix or unset JAVA_HOME)"
    else:
        found = f"{java} is Java {version or 'of unknown version'}"
    raise JavaNotFoundError(
        f"{needed_by} needs Java {MINIMUM_JAVA} or newer, but {found}. "
        f"Install it with: sudo apt-get install {JAVA_PACKAGE}"
    )
