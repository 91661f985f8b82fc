"""Kafka's shared argument checks: messages, the usage table on stderr, exit codes."""

import pytest

from minikafka.commands import command_line_utils as clu
from minikafka.commands.option_parser import OptionParser, REQUIRED_ARG
from minikafka.tools.tool_output import Console


def parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "servers", argument=REQUIRED_ARG)
    p.accepts("create", "create")
    p.accepts("partitions", "count", argument=REQUIRED_ARG)
    return p


def test_missing_required_argument_prints_kafkas_message_then_the_table_and_exits_1(capsys):
    p = parser()
    with pytest.raises(clu.ToolExit) as exit_:
        clu.check_required_args(p, p.parse(["--create"]), "bootstrap-server")
    assert exit_.value.code == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith('Missing required argument "[bootstrap-server]"\nOption ')
    assert "--partitions" in err


def test_invalid_combinations_quote_both_options(capsys):
    p = parser()
    with pytest.raises(clu.ToolExit):
        clu.check_invalid_args(p, p.parse(["--create", "--partitions", "1"]), "create", ["partitions"])
    assert capsys.readouterr().err.startswith('Option "[create]" can\'t be used with option "[partitions]"\n')
    clu.check_invalid_args(p, p.parse(["--partitions", "1"]), "create", ["partitions"])     # create absent: fine


def test_an_option_combination_is_quoted_as_a_set(capsys):
    p = parser()
    with pytest.raises(clu.ToolExit):
        clu.check_invalid_args_set(p, p.parse(["--bootstrap-server", "h:1", "--partitions", "1", "--create"]),
                                   ("bootstrap-server", "partitions"), ("create",), " (hint)")
    assert capsys.readouterr().err.startswith(
        'Option combination "[[bootstrap-server], [partitions]]" can\'t be used with option "[create]" (hint)\n')


def test_help_exits_1_and_version_prints_the_modelled_kafka_version(capsys):
    p = parser()
    with pytest.raises(clu.ToolExit) as exit_:
        clu.maybe_print_help_or_version(p, p.parse(["--help"]), ["--help"], "What the tool does.")
    assert exit_.value.code == 1 and capsys.readouterr().err.startswith("What the tool does.\n")
    with pytest.raises(clu.ToolExit) as exit_:
        clu.maybe_print_help_or_version(p, p.parse(["--version"]), ["--version"], "What the tool does.")
    assert exit_.value.code == 0 and capsys.readouterr().out == "4.3.1\n"


def test_key_value_arguments_keep_equals_signs_in_values_and_allow_empty_ones():
    assert clu.parse_key_value_args(["a=1", "b=x=y", "c", "d="]) == {"a": "1", "b": "x=y", "c": "", "d": ""}


@pytest.mark.parametrize("servers, message", [
    (None, "Error while validating the bootstrap address\n"),
    ("  ", "Error while validating the bootstrap address\n"),
    ("localhost", "Please provide valid host:port like host1:9091,host2:9092\n"),
    ("a:1,b", "Please provide valid host:port like host1:9091,host2:9092\n")])
def test_bootstrap_server_validation(servers, message):
    with pytest.raises(ValueError) as error:
        clu.validate_bootstrap_server(servers)
    assert str(error.value) == message


def test_valid_bootstrap_servers_pass():
    clu.validate_bootstrap_server("a:1,b:9092")


def test_emit_keeps_the_order_of_both_streams(capsys):
    console = Console()
    console.println("one")
    console.eprintln("two")
    console.println("three")
    clu.emit(console.result())
    out, err = capsys.readouterr()
    assert (out, err) == ("one\nthree\n", "two\n")


def test_properties_files_are_read_like_java_properties(tmp_path):
    path = tmp_path / "client.properties"
    path.write_text("# a comment\n! another\nacks=all\nclient.id : me\n\nlinger.ms 5\n")
    assert clu.load_props(str(path)) == {"acks": "all", "client.id": "me", "linger.ms": "5"}
    with pytest.raises(clu.NoSuchFileException) as error:
        clu.load_props(str(tmp_path / "missing.properties"))
    assert (error.value.java_class, error.value.message) == ("java.nio.file.NoSuchFileException",
                                                             str(tmp_path / "missing.properties"))


@pytest.mark.parametrize("args", [["--create"], ["--partitions", "1", "--bootstrap-server", "h:1"]])
def test_exactly_one_of_is_quoted_as_a_list(capsys, args):
    p = parser()
    with pytest.raises(clu.ToolExit):
        clu.check_one_of_args(p, p.parse(args), "bootstrap-server", "partitions")
    assert capsys.readouterr().err.startswith(
        "Exactly one of the following arguments is required: [bootstrap-server], [partitions]\nOption ")
    clu.check_one_of_args(p, p.parse(["--partitions", "1"]), "bootstrap-server", "partitions")     # one: fine
