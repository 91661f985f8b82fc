"""Fixtures for the Spark tests: one SparkSession with Spark's Kafka connector per test process.

Starting Spark takes seconds, so the tests share one session.  When the
connector's jars cannot be fetched (no Maven Central), the tests that need
the session are skipped with `JarFetchError`'s one line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "python"


@pytest.fixture(scope="session")
def spark():
    python = str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable
    os.environ["PYSPARK_PYTHON"] = python  # Spark's workers run the venv's interpreter
    os.environ["PYSPARK_DRIVER_PYTHON"] = python
    from minikafka.spark.session import JarFetchError, get_spark

    try:
        session = get_spark(quiet=True)
    except JarFetchError as error:
        pytest.skip(f"Spark's Kafka connector is not available: {error}")
    yield session
    session.stop()
