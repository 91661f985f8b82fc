"""The registry of the Kafka-tool look-alikes: one per Kafka shell tool, found by its name.

Theory of operation
-------------------
``minikafka topics ...`` behaves like ``kafka-topics.sh ...``: the same
options, the same output, the same error texts and exit codes, because it
gathers its data over the Kafka protocol (kafka-python's admin, producer
and consumer clients) and prints it with the formatters of
`minikafka.tools` (``topic_command`` here, ``topic_command_output`` there).
So the commands work against any Kafka 4.x cluster, not only the sandbox.

This package sits below the facade, as Kafka keeps ``TopicCommand`` and
its siblings in its ``tools`` module, apart from anything that starts a
server: the terminal (`minikafka.cli`, whose ``main`` hands ``minikafka
<tool> ...`` to `run_named` and lists `tool_modules` in its help) and
``Cluster.run_tool`` both call in here, and nothing here knows either.

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
``groups``                  ``kafka-groups.sh``                    `groups_command`
==========================  =====================================  ====================================

Mirrors the ``bin/kafka-*.sh`` scripts of Kafka 4.3.1 (first written from
4.1.1; the console producer and consumer, ``kafka-configs``,
``kafka-leader-election`` and ``kafka-metadata-quorum`` still differ from
4.3.1 in the ways their modules list).  Simplified: Java stack traces, which
several tools print after an error, are left out.
"""

from __future__ import annotations

import contextvars
import importlib
import random
from types import ModuleType
from typing import TextIO

from minikafka.commands.command_line_utils import ToolExit
from minikafka.tools.tool_output import system_err, system_out, writing_to

TOOL_MODULES = ("topic_command", "metadata_quorum_command", "reassign_partitions_command",
                "leader_election_command", "broker_api_versions_command", "console_producer",
                "console_consumer", "consumer_group_command", "config_command", "groups_command")


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


def tool_modules() -> list[ModuleType]:
    """The tool modules, in `TOOL_MODULES` order (each has ``NAME``, ``SUMMARY`` and ``main``)."""
    return [importlib.import_module(f"minikafka.commands.{name}") for name in TOOL_MODULES]


TOOL_NAMES = ("topics", "metadata-quorum", "reassign-partitions", "leader-election",
              "broker-api-versions", "console-producer", "console-consumer", "consumer-groups",
              "configs", "groups")


def run_named(name: str, args: list[str], out: TextIO | None = None) -> int:
    """Run the tool called ``name`` with its arguments exactly as given (``--`` included).

    With ``out``, the tool prints to that stream (standard output and error interleaved, as
    a terminal shows them) instead of the process's own; nothing is redirected process-wide."""
    for module in tool_modules():
        if module.NAME == name:
            if out is None:
                return run_tool(module, args)
            with writing_to(out):
                return run_tool(module, args)
    raise KeyError(name)


__all__ = ["run_tool", "run_named", "tool_modules", "tool_random", "TOOL_MODULES", "TOOL_NAMES", "TOOL_RANDOM"]
