"""Fixtures for the Spark data source tests.

The JVM tests share one SparkSession per test process (starting Spark takes
seconds); they run against a `FakeKafka` directory that Spark's Python
worker processes open by path, selected by the hidden ``_fakeKafkaDir``
option, so the data source's real planning and reading code runs without a
broker.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from minikafka.spark.fake_kafka import FakeKafka

VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "python"


@pytest.fixture(scope="session")
def spark():
    python = str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable
    os.environ["PYSPARK_PYTHON"] = python  # Spark's workers must import minikafka
    os.environ["PYSPARK_DRIVER_PYTHON"] = python
    from minikafka.spark.session import get_spark

    session = get_spark(quiet=True)
    yield session
    session.stop()


@pytest.fixture
def kafka(tmp_path: Path) -> FakeKafka:
    return FakeKafka(tmp_path / "fake-kafka")
