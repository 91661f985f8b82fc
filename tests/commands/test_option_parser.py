"""jopt-simple's grammar and messages, as Kafka's tools meet them."""

import pytest

from minikafka.commands.option_parser import (NO_ARG, OPTIONAL_ARG, REQUIRED_ARG, MultipleArgumentsForOptionException,
                                         OptionArgumentConversionException, OptionException,
                                         OptionMissingRequiredArgumentException, OptionParser,
                                         UnavailableOptionException, UnrecognizedOptionException, integer, long)


def parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "servers", argument=REQUIRED_ARG, described_as="server to connect to")
    p.accepts("partitions", "count", argument=REQUIRED_ARG, convert=integer, described_as="# of partitions")
    p.accepts("list", "list")
    p.accepts("describe", "describe")
    p.accepts("state", "state", argument=OPTIONAL_ARG, available_if=("describe", "list"))
    p.accepts("timeout", "ms", argument=REQUIRED_ARG, convert=long, default=30000)
    return p


@pytest.mark.parametrize("args", [["--bootstrap-server", "h:1"], ["--bootstrap-server=h:1"],
                                  ["-bootstrap-server", "h:1"]])
def test_an_option_argument_can_follow_or_be_attached(args):
    assert parser().parse(args).value_of("bootstrap-server") == "h:1"


def test_a_required_argument_is_the_next_token_even_if_it_looks_like_an_option():
    assert parser().parse(["--bootstrap-server", "--list"]).value_of("bootstrap-server") == "--list"


def test_an_optional_argument_is_taken_only_when_the_next_token_is_not_an_option():
    assert parser().parse(["--list", "--state", "Stable"]).value_of("state") == "Stable"
    options = parser().parse(["--list", "--state", "--describe"])
    assert options.has("state") and options.value_of("state") is None and options.has("describe")


def test_unknown_options_are_refused_with_jopt_simples_message():
    with pytest.raises(UnrecognizedOptionException, match="^bootstrap is not a recognized option$"):
        parser().parse(["--bootstrap", "h:1"])          # Kafka's parsers allow no abbreviations
    with pytest.raises(UnrecognizedOptionException, match="^x is not a recognized option$"):
        parser().parse(["-xyz"])


def test_a_missing_required_argument_names_the_option():
    with pytest.raises(OptionMissingRequiredArgumentException, match="^Option bootstrap-server requires an argument$"):
        parser().parse(["--list", "--bootstrap-server"])


def test_conversion_happens_when_the_value_is_read():
    options = parser().parse(["--partitions", "abc"])   # parsing succeeds
    with pytest.raises(OptionArgumentConversionException, match="^Cannot parse argument 'abc' of option partitions$"):
        options.value_of("partitions")
    assert parser().parse(["--partitions", "+7"]).value_of("partitions") == 7
    with pytest.raises(OptionException):
        parser().parse(["--partitions", "2147483648"]).value_of("partitions")    # beyond Integer


def test_asking_for_one_value_of_a_repeated_option_fails_but_all_values_are_available():
    options = parser().parse(["--bootstrap-server", "a:1", "--bootstrap-server", "b:2"])
    with pytest.raises(MultipleArgumentsForOptionException,
                       match="^Found multiple arguments for option bootstrap-server, but you asked for only one$"):
        options.value_of("bootstrap-server")
    assert options.values_of("bootstrap-server") == ["a:1", "b:2"]


def test_defaults_apply_only_when_the_option_is_absent():
    assert parser().parse([]).value_of("timeout") == 30000
    assert parser().parse(["--timeout", "5"]).value_of("timeout") == 5
    assert parser().parse([]).values_of("timeout") == [30000]


def test_available_if_needs_one_of_the_named_options():
    with pytest.raises(UnavailableOptionException,
                       match=r"^Option\(s\) \[state\] are unavailable given other options on the command line$"):
        parser().parse(["--state"])
    assert parser().parse(["--describe", "--state"]).has("state")


def test_non_options_and_the_terminator():
    options = parser().parse(["extra", "--list", "--", "--describe"])
    assert options.non_options == ["extra", "--describe"] and not options.has("describe")


def test_specs_keep_command_line_order_and_print_like_kafka():
    options = parser().parse(["--list", "--bootstrap-server", "h:1"])
    assert [str(s) for s in options.specs()] == ["[list]", "[bootstrap-server]"]
    assert NO_ARG == options.specs()[0].argument


def test_the_help_table_lists_options_sorted_with_argument_placeholders():
    text = parser().format_help()
    lines = text.splitlines()
    assert lines[0].split() == ["Option", "Description"] and lines[1].split() == ["------", "-----------"]
    names = [line.split()[0] for line in lines[2:] if line.startswith("--")]
    assert names == sorted(names) and "--help" in names and "--version" in names
    assert "--bootstrap-server <String: server to" in text
    assert "(default: 30000)" in text
