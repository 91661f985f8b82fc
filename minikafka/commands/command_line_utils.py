"""`CommandLineUtils`: the argument checks every Kafka tool shares, with Kafka's messages.

Theory of operation
-------------------
Kafka's tools validate their options with a handful of helpers.  The
common outcome of a mistake is ``printUsageAndExit``: the message on
standard error, then the option table, then exit code 1.  The messages
quote options the way jopt-simple prints them (``[bootstrap-server]``):

* ``checkRequiredArgs``: ``Missing required argument "[topic]"``;
* ``checkOneOfArgs``: ``Exactly one of the following arguments is required: [topic], [include]``;
* ``checkInvalidArgs``: ``Option "[create]" can't be used with option "[partitions]"``;
* ``checkInvalidArgsSet``: ``Option combination "[...]" can't be used with option "[alter]"...``.

A tool "exits" here by raising `ToolExit`; the command-line front end
turns it into the process exit code, so a test can run a tool in-process
and still see the code.  ``--help`` prints the tool's one-line purpose and
the table (exit code 0) and ``--version`` prints the Kafka version the
sandbox models.

Also here: ``parseKeyValueArgs`` (``key=value`` properties, a missing value
meaning the empty string), ``Utils.loadProps`` (properties files) and
``ToolsUtils.validateBootstrapServer``.

Mirrors ``org.apache.kafka.server.util.CommandLineUtils`` and
``org.apache.kafka.tools.ToolsUtils.validateBootstrapServer`` (4.3.1).
Simplified: the option table after a usage error is the sandbox's
rendering (see `option_parser`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, NoReturn, Sequence

from minikafka.commands.option_parser import OptionParser, OptionSet
from minikafka.common.errors import KafkaException
from minikafka.network.api_keys import KAFKA_RELEASE
from minikafka.tools.tool_output import system_err, system_out

KAFKA_VERSION = KAFKA_RELEASE
"""What ``--version`` prints (``AppInfoParser.getVersion()``): the release the sandbox claims."""


class ToolExit(Exception):
    """The tool ended with ``Exit.exit(code)``; what it had to say is already printed."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def eprintln(text: str = "") -> None:
    """``System.err.println``."""
    system_err().write(text + "\n")
    system_err().flush()


def println(text: str = "") -> None:
    """``System.out.println``."""
    system_out().write(text + "\n")
    system_out().flush()


def emit(result) -> None:
    """Write a `ToolOutput`'s chunks to standard output and error, in the order the tool wrote them."""
    for stream, text in result.chunks:
        target = system_out() if stream == "out" else system_err()
        target.write(text)
        target.flush()


def print_usage_and_exit(parser: OptionParser, message: str) -> NoReturn:
    eprintln(message)
    system_err().write(parser.format_help())
    raise ToolExit(1)


def maybe_print_help_or_version(parser: OptionParser, options: OptionSet, args: Sequence[str], message: str) -> None:
    """No arguments or ``--help``: purpose and option table, exit 1 (as Kafka does); ``--version``: exit 0."""
    if not args or options.has("help"):
        print_usage_and_exit(parser, message)
    if options.has("version"):
        println(KAFKA_VERSION)
        raise ToolExit(0)


def check_required_args(parser: OptionParser, options: OptionSet, *names: str) -> None:
    for name in names:
        if not options.has(name):
            print_usage_and_exit(parser, f'Missing required argument "[{name}]"')


def check_one_of_args(parser: OptionParser, options: OptionSet, *names: str) -> None:
    """``checkOneOfArgs``: exactly one of ``names`` must be given."""
    if sum(options.has(name) for name in names) != 1:
        print_usage_and_exit(parser, "Exactly one of the following arguments is required: "
                                     + ", ".join(f"[{name}]" for name in names))


def check_invalid_args(parser: OptionParser, options: OptionSet, used: str, invalid: Iterable[str]) -> None:
    if options.has(used):
        for name in invalid:
            if options.has(name):
                print_usage_and_exit(parser, f'Option "[{used}]" can\'t be used with option "[{name}]"')


def check_invalid_args_set(parser: OptionParser, options: OptionSet, used: Sequence[str], invalid: Iterable[str],
                           trailing: str = "") -> None:
    if all(options.has(name) for name in used):
        combination = "[" + ", ".join(f"[{name}]" for name in used) + "]"
        for name in invalid:
            if options.has(name):
                print_usage_and_exit(parser, f'Option combination "{combination}" can\'t be used with option '
                                             f'"[{name}]"{trailing}')


def parse_key_value_args(args: Iterable[str]) -> dict[str, str]:
    """``key=value`` pairs; the value may contain ``=``, a missing value is the empty string."""
    props: dict[str, str] = {}
    for arg in args:
        key, _, value = arg.partition("=")
        props[key] = value
    return props


class NoSuchFileException(KafkaException):
    """``java.nio.file.NoSuchFileException``: its message is the path."""

    @property
    def java_class(self) -> str:
        return "java.nio.file.NoSuchFileException"


def load_props(path: str) -> dict[str, str]:
    """``Utils.loadProps``: ``key=value`` (or ``key: value``) lines; ``#`` and ``!`` start comments."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        raise NoSuchFileException(path) from None
    props = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        cut = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        key, value = (line[:cut], line[cut + 1:]) if cut >= 0 else (line.split()[0], line[len(line.split()[0]):])
        props[key.strip()] = value.strip()
    return props


def validate_bootstrap_server(host_port: str | None) -> None:
    """``ToolsUtils.validateBootstrapServer``: every comma-separated entry needs a port."""
    if host_port is None or not host_port.strip():
        raise ValueError("Error while validating the bootstrap address\n")
    entries = host_port.split(",")
    while entries and not entries[-1]:             # Java's split drops trailing empty strings
        entries.pop()
    if not entries or not all(re.search(r":([0-9]+)$", entry) for entry in entries):
        raise ValueError("Please provide valid host:port like host1:9091,host2:9092\n")


__all__ = ["ToolExit", "KAFKA_VERSION", "eprintln", "println", "emit", "print_usage_and_exit",
           "maybe_print_help_or_version", "check_required_args", "check_one_of_args", "check_invalid_args",
           "check_invalid_args_set", "parse_key_value_args", "load_props", "NoSuchFileException",
           "validate_bootstrap_server"]


def kafka_python_kwargs(props: dict[str, str], known: Iterable[str]) -> dict:
    """Java client properties (``max.poll.records=5``) as kafka-python keyword arguments.

    Only settings the kafka-python class knows (``known``, its ``DEFAULT_CONFIG``
    names) are passed on, as Kafka's tools ignore properties a client does not
    use; values are typed the way Java's ``ConfigDef`` would parse them.
    """
    known = set(known)
    kwargs: dict = {}
    for name, value in props.items():
        key = name.replace(".", "_")
        if key not in known:
            continue
        if key == "bootstrap_servers":
            kwargs[key] = value.split(",")
        elif value.lstrip("-").isdigit():
            kwargs[key] = int(value)
        elif value.lower() in ("true", "false"):
            kwargs[key] = value.lower() == "true"
        else:
            kwargs[key] = value
    return kwargs
