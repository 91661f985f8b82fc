"""``python -m minikafka.jvm fetch [spark] [kafka]``: fetch the jars the lessons and tests use, once.

Run by ``make test`` / ``make lab`` (scripts/ensure_jars.sh) and by Binder's
``postBuild``, so that neither a test nor a learner's first Spark cell waits
on a download.  ``spark`` is Spark's Kafka connector for the installed
PySpark; ``kafka`` is Apache Kafka 4.3.1 (broker, controller and tools).
Both when none is named.  Prints nothing when everything is cached; one line
per set it cannot fetch (and exits 1), naming what to install or which
address failed.
"""

from __future__ import annotations

import sys

from minikafka.jvm.apache_kafka import kafka_jars
from minikafka.jvm.jar_cache import JarFetchError
from minikafka.jvm.java_runtime import JavaNotFoundError

USAGE = "usage: python -m minikafka.jvm fetch [spark] [kafka]"


def _spark_connector(quiet: bool) -> None:
    from minikafka.jvm.spark_connector import connector_jars

    connector_jars(quiet=quiet)


SETS = {"spark": _spark_connector, "kafka": lambda quiet: kafka_jars(quiet=quiet)}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "fetch" or any(name not in SETS for name in args[1:]):
        print(USAGE, file=sys.stderr)
        return 2
    failed = 0
    for name in args[1:] or list(SETS):
        try:
            SETS[name](False)
        except (JarFetchError, JavaNotFoundError) as error:
            print(f"minikafka: {error}", file=sys.stderr)
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
