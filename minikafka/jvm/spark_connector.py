"""Spark's own Kafka connector, ``spark-sql-kafka-0-10``, found or fetched for the installed PySpark.

Theory of operation
-------------------
``format("kafka")`` is not part of PySpark's wheel: it lives in the Java
artifact ``org.apache.spark:spark-sql-kafka-0-10_2.13``, which must carry
exactly PySpark's version (it calls Spark internals that change between
releases).  Its runtime dependencies are Kafka's Java client
(``kafka-clients``, 3.9.x for Spark 4.2), ``spark-token-provider-kafka`` and
``commons-pool2``, plus libraries PySpark already ships (Hadoop's client,
Scala, lz4, snappy).

`connector_jars` fetches the artifact with its dependencies once
(`minikafka.jvm.jar_cache`: Maven when installed, else the Ivy jar that
PySpark itself uses for ``spark.jars.packages``) into
``~/.cache/minikafka/jars/spark-sql-kafka-<version>/`` and returns the jars
PySpark does not already have, for ``spark.jars``.  A session started with
them needs no network, unlike ``spark.jars.packages``, which resolves again
at every start.  Leaving out PySpark's own libraries changes nothing at run
time (Spark's jars come first on the class path anyway) and saves about
50 MB of class path scanning.

On a machine where the fetch fails, `JarFetchError` says in one line what
to install or which address could not be reached.

This module is the sandbox's own convenience; in a plain PySpark project the
same is ``.config("spark.jars.packages",
"org.apache.spark:spark-sql-kafka-0-10_2.13:" + pyspark.__version__)``.
"""

from __future__ import annotations

from pathlib import Path

from minikafka.jvm.jar_cache import fetch_jars

CONNECTOR_ARTIFACT = "org.apache.spark:spark-sql-kafka-0-10_2.13"


def pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


def connector_coordinates(version: str | None = None) -> str:
    """``org.apache.spark:spark-sql-kafka-0-10_2.13:<PySpark's version>``."""
    return f"{CONNECTOR_ARTIFACT}:{version or pyspark_version()}"


def pyspark_jar_names() -> set[str]:
    """Artifact names (file name without version) of the jars inside PySpark's wheel."""
    import pyspark

    return {_artifact_name(jar) for jar in Path(pyspark.__file__).parent.joinpath("jars").glob("*.jar")}


def connector_jars(quiet: bool = False) -> list[Path]:
    """The connector's jars PySpark lacks, fetched on first use; ``JarFetchError`` in one line if impossible."""
    version = pyspark_version()
    jars = fetch_jars(f"spark-sql-kafka-{version}", [connector_coordinates(version)], quiet=quiet)
    provided = pyspark_jar_names()
    return [jar for jar in jars if _artifact_name(jar) not in provided]


def _artifact_name(jar: Path) -> str:
    """``kafka-clients-3.9.2.jar`` -> ``kafka-clients``; ``spark-tags_2.13-4.2.0.jar`` -> ``spark-tags_2.13``."""
    name, _, version = jar.name.removesuffix(".jar").rpartition("-")
    return name if name and version[:1].isdigit() else jar.name.removesuffix(".jar")
