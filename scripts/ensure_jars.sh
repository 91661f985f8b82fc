#!/usr/bin/env bash
# Fetch, once, the Java jars the lessons and tests use, into a cache outside
# the repository (~/.cache/minikafka/jars, or $MINIKAFKA_JARS):
#   spark  Spark's Kafka connector of the installed PySpark's version
#   kafka  Apache Kafka 4.3.1: broker, controller and command-line tools
# Later runs find them cached and print nothing.  Without Java (reported by
# ensure_system_deps.sh already) or without Maven Central, one line says what
# is missing and the script still succeeds: the tests needing the jars are
# skipped with that line as their reason.
#
# Usage: scripts/ensure_jars.sh [spark] [kafka]   (no arguments = both)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
python=${MINIKAFKA_VENV:-$root/.venv}/bin/python
java=${MINIKAFKA_JAVA-unset}
if [[ "$java" == unset ]]; then
    java=$(command -v java || true)
fi
[[ -n "$java" ]] || exit 0  # no Java: ensure_system_deps.sh said so, and nothing here could run
"$python" -m minikafka.jvm fetch "$@" || true
