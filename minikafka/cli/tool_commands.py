"""The Kafka-tool subcommands of ``minikafka``: one per Kafka shell tool.

Theory of operation
-------------------
``minikafka topics ...`` behaves like ``kafka-topics.sh ...``: the same
options, the same output, the same error texts and exit codes, because it
gathers its data over the Kafka protocol (kafka-python's admin, producer
and consumer clients) and prints it with the formatters of
`minikafka.tools` (``topic_command`` here, ``topic_command_output`` there).
So the commands work against any Kafka 4.x cluster, not only the sandbox.

Kafka's tools parse their own options (jopt-simple or argparse4j, each
with its own messages), so ``minikafka``'s argparse hands every argument
after the subcommand name to the tool untouched and the tool's module
parses them (`option_parser`).  A tool ends by returning its exit code or
raising `ToolExit` (``Exit.exit``); both become the process exit code.
A tool prints to `tool_output.system_out` / `system_err`: the terminal's
streams, or the stream `run_named` was given (``Cluster.run_tool`` captures
a tool's output that way, without redirecting the process's stdout).

==========================  =====================================  ====================================
subcommand                  Kafka tool                             module
==========================  =====================================  ====================================
``topics``                  ``kafka-topics.sh``                    `topic_command`
``metadata-quorum``         ``kafka-metadata-quorum.sh``           `metadata_quorum_command`
``reassign-partitions``     ``kafka-reassign-partitions.sh``       `reassign_partitions_command`
``leader-election``         ``kafka-leader-election.sh``           `leader_election_command`
``broker-api-versions``     ``kafka-broker-api-versions.sh``       `broker_api_versions_command`
``console-producer``        ``kafka-console-producer.sh``          `console_producer`
``console-consumer``        ``kafka-console-consumer.sh``          `console_consumer`
``consumer-groups``         ``kafka-consumer-groups.sh``           `consumer_group_command`
``configs``                 ``kafka-configs.sh``                   `config_command`
==========================  =====================================  ====================================

Mirrors the ``bin/kafka-*.sh`` scripts of Kafka 4.3.1 (first written from
4.1.1; the console producer and consumer, ``kafka-configs``,
``kafka-leader-election`` and ``kafka-metadata-quorum`` still differ from
4.3.1 in the ways their modules list).  Simplified: Java stack traces, which
several tools print after an error, are left out.
"""

from __future__ import annotations

import argparse
import contextvars
import importlib
import random
from typing import TextIO

from minikafka.cli.command_line_utils import ToolExit
from minikafka.tools.tool_output import system_err, system_out, writing_to

TOOL_MODULES = ("topic_command", "metadata_quorum_command", "reassign_partitions_command",
                "leader_election_command", "broker_api_versions_command", "console_producer",
                "console_consumer", "consumer_group_command", "config_command")


# Kafka's tools draw from an unseeded java.util.Random (e.g. the random first broker of
# `kafka-reassign-partitions.sh --generate`).  On a terminal so do these; a caller that
# needs a reproducible run (`Cluster.run_tool`, for lessons) sets a seeded generator here.
TOOL_RANDOM: contextvars.ContextVar[random.Random | None] = contextvars.ContextVar(
    "minikafka_tool_random", default=None)


def tool_random() -> random.Random:
    """The random generator a tool should draw from (seeded when its caller asked for it)."""
    return TOOL_RANDOM.get() or random.Random()


def run_tool(module, args: list[str]) -> int:
    """Run one tool in this process; its exit code."""
    try:
        return int(module.main(list(args)) or 0)
    except ToolExit as exit_:
        return exit_.code
    except KeyboardInterrupt:                  # Ctrl-C: the JVM's exit code for SIGINT
        return 130
    finally:
        system_out().flush()
        system_err().flush()


def _modules():
    return [importlib.import_module(f"minikafka.cli.{name}") for name in TOOL_MODULES]


TOOL_NAMES = ("topics", "metadata-quorum", "reassign-partitions", "leader-election",
              "broker-api-versions", "console-producer", "console-consumer", "consumer-groups",
              "configs")


def run_named(name: str, args: list[str], out: TextIO | None = None) -> int:
    """Run the tool called ``name`` with its arguments exactly as given (``--`` included).

    With ``out``, the tool prints to that stream (standard output and error interleaved, as
    a terminal shows them) instead of the process's own; nothing is redirected process-wide."""
    for module in _modules():
        if module.NAME == name:
            if out is None:
                return run_tool(module, args)
            with writing_to(out):
                return run_tool(module, args)
    raise KeyError(name)


def register(sub) -> None:
    for module in _modules():
        # No prefix characters: argparse must not interpret the tool's own options.
        parser = sub.add_parser(module.NAME, help=module.SUMMARY, add_help=False, prefix_chars="\0",
                                description=module.SUMMARY)
        parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
        parser.set_defaults(run=lambda ns, module=module: run_tool(module, ns.args))


__all__ = ["register", "run_tool", "run_named", "TOOL_MODULES", "TOOL_NAMES"]
