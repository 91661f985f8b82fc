"""Fixtures for the tests that run Java: Kafka 4.3.1's jars, fetched once into the user's cache.

When the jars cannot be fetched (no Maven Central, no Maven and no PySpark
Ivy) the tests that need them are skipped with `JarFetchError`'s one line.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def kafka_classpath() -> str:
    from minikafka.jvm import JarFetchError, JavaNotFoundError, kafka_classpath

    try:
        return kafka_classpath(quiet=True)
    except (JarFetchError, JavaNotFoundError) as error:
        pytest.skip(f"Kafka's jars are not available: {error}")
