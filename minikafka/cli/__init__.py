"""The ``minikafka`` command: ``minikafka up`` and Kafka-tool look-alikes.

``minikafka up`` runs a live cluster in the foreground, prints one line
``bootstrap.servers=...`` when every broker is ready, and stops cleanly on
Ctrl-C or SIGTERM.  The other subcommands mirror Kafka's shell tools and are
registered by their modules in this package.
"""

from __future__ import annotations

import argparse
import sys

from minikafka.cli import up


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="minikafka", description="A Kafka 4.x cluster for learning.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    up.register(sub)
    try:
        from minikafka.cli import tools
    except ImportError:          # the tool subcommands are optional while being built
        tools = None
    if tools is not None:
        tools.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
