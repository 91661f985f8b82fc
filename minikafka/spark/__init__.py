"""Spark Structured Streaming over the sandbox, through Spark's own Kafka connector.

``get_spark()`` starts a small SparkSession with Spark's official connector
(``org.apache.spark:spark-sql-kafka-0-10_2.13``, PySpark's version, fetched
once into a cache outside the repository), so ``format("kafka")`` reads and
writes the sandbox exactly as it would a production cluster: only the
bootstrap address differs.  Modules:

* `session` -- `get_spark()` and `check_kafka()` for notebooks;
* `java_errors` -- a failing Spark call said in one line in a notebook.

The connector's jars are found or fetched by `minikafka.jvm.spark_connector`, beside
Kafka's own jars, so that ``python -m minikafka.jvm fetch`` needs nothing from here.

Importing this package does not import PySpark; the submodules do.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_kafka", "get_spark"]


def __getattr__(name: str) -> Any:
    if name in ("get_spark", "check_kafka"):
        import minikafka.spark.session as session

        return getattr(session, name)
    raise AttributeError(f"module 'minikafka.spark' has no attribute {name!r}")
