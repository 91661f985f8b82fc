"""The ``minikafka`` command: ``minikafka up``, Kafka-tool look-alikes, and Kafka's own tools.

``minikafka up`` runs a live cluster in the foreground, prints one line
``bootstrap.servers=...`` when every broker is ready, and stops cleanly on
Ctrl-C or SIGTERM.  Most other subcommands mirror Kafka's shell tools: they
live below the facade in `minikafka.commands` (as Kafka keeps them in its
``tools`` module), and this package only hands them their arguments and
lists them in ``minikafka --help``.  ``minikafka kafka-tool <tool>`` runs
Apache Kafka's real tool from its jars (`kafka_tool`).
"""

from __future__ import annotations

import argparse
import sys

from minikafka.cli import kafka_tool, up
from minikafka.commands import tool_commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="minikafka", description="A Kafka 4.x cluster for learning.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    up.register(sub)
    register_tools(sub)
    kafka_tool.register(sub)
    return parser


def register_tools(sub) -> None:
    """One subcommand per Kafka-tool look-alike, for ``minikafka --help``; `main` hands the
    arguments of ``minikafka <tool> ...`` to the tool before argparse would see them."""
    for module in tool_commands.tool_modules():
        # No prefix characters: argparse must not interpret the tool's own options.
        parser = sub.add_parser(module.NAME, help=module.SUMMARY, add_help=False, prefix_chars="\0",
                                description=module.SUMMARY)
        parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
        parser.set_defaults(run=lambda ns, module=module: tool_commands.run_tool(module, ns.args))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in tool_commands.TOOL_NAMES:
        # Kafka-tool look-alikes parse their own arguments (jopt-simple rules), untouched.
        return tool_commands.run_named(argv[0], argv[1:])
    if argv and argv[0] == kafka_tool.NAME:
        return kafka_tool.main(argv[1:])  # Kafka's own tool: every argument is its own
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
