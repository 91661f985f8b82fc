"""``minikafka kafka-tool <tool> [args]``: Apache Kafka's own command-line tool, run from its jars.

Theory of operation
-------------------
The other ``minikafka`` subcommands are the sandbox's look-alikes of Kafka's
shell tools.  This one runs the real thing: ``minikafka kafka-tool
kafka-topics --bootstrap-server 127.0.0.1:9092 --describe`` starts the main
class ``bin/kafka-topics.sh`` starts (`minikafka.jvm.KAFKA_TOOLS`), from
Apache Kafka 4.3.1's jars, with the terminal's stdin, stdout and stderr, and
exits with the tool's exit code.  The jars are fetched from Maven Central
on first use (one line says so) and cached in ``~/.cache/minikafka/jars``;
later runs need no network.  It works against the sandbox and against any
other Kafka cluster alike.

``minikafka kafka-tool`` alone lists the tools.  A missing Java runtime, a
failed fetch and an unknown tool each end in one line on stderr (exit 1,
1 and 2).

This module is the sandbox's own convenience; Kafka's tarball has the
``bin/*.sh`` scripts instead.
"""

from __future__ import annotations

import sys

from minikafka.jvm import KAFKA_TOOLS, KAFKA_VERSION, JarFetchError, JavaNotFoundError, exec_kafka_tool

NAME = "kafka-tool"
SUMMARY = f"run one of Apache Kafka {KAFKA_VERSION}'s own tools (jars fetched on first use)"
USAGE = f"usage: minikafka {NAME} <tool> [tool arguments]   e.g. minikafka {NAME} kafka-topics --bootstrap-server HOST:PORT --list"


def main(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        print(f"Apache Kafka {KAFKA_VERSION}'s tools: " + ", ".join(sorted(KAFKA_TOOLS)))
        return 0 if args else 2
    tool = args[0].removesuffix(".sh")
    if tool not in KAFKA_TOOLS:
        print(f"minikafka {NAME}: unknown tool {args[0]!r}; Apache Kafka {KAFKA_VERSION}'s tools are "
              + ", ".join(sorted(KAFKA_TOOLS)), file=sys.stderr)
        return 2
    try:
        return exec_kafka_tool(tool, args[1:])
    except (JarFetchError, JavaNotFoundError) as error:
        print(f"minikafka {NAME}: {error}", file=sys.stderr)
        return 1


def register(sub) -> None:
    # Listed in `minikafka --help`; `minikafka.cli.main` hands the arguments over untouched.
    sub.add_parser(NAME, help=SUMMARY, add_help=False, description=SUMMARY)
