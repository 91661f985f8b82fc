"""The tool subcommands are registered and receive their arguments untouched."""

import pytest

from minikafka.cli import build_parser
from minikafka.commands.tool_commands import TOOL_MODULES


def test_every_tool_is_a_subcommand_of_minikafka(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    text = capsys.readouterr().out
    for name in ("topics", "metadata-quorum", "reassign-partitions", "leader-election", "broker-api-versions",
                 "console-producer", "console-consumer", "consumer-groups", "configs", "groups"):
        assert name in text
    assert len(TOOL_MODULES) == 10


def test_arguments_reach_the_tool_as_typed(cli):
    result = cli("topics", "-h")                 # not argparse's -h: jopt-simple sees it
    assert (result.code, result.err) == (1, "h is not a recognized option\n")
    result = cli("broker-api-versions", "--bootstrap-server=x:1", "--help")
    assert result.code == 1 and result.err.startswith("This tool helps to retrieve broker version information.\n")


def test_a_tool_exit_becomes_the_exit_code(cli):
    result = cli("broker-api-versions", "--version")
    assert (result.code, result.out) == (0, "4.3.1\n")
