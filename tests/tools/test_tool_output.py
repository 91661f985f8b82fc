"""Tests for minikafka/tools/tool_output.py."""

from minikafka.tools.tool_output import Console, ToolOutput


def test_console_keeps_the_order_of_both_streams():
    console = Console()
    console.eprintln("\nConsumer group 'g' has no active members.")
    console.print("\nGROUP")
    console.println(" TOPIC")
    result = console.result()
    assert result.chunks == (("err", "\nConsumer group 'g' has no active members.\n"), ("out", "\nGROUP TOPIC\n"))
    assert result.text == "\nConsumer group 'g' has no active members.\n\nGROUP TOPIC\n"
    assert result.stdout == "\nGROUP TOPIC\n"
    assert result.stderr == "\nConsumer group 'g' has no active members.\n"
    assert result.exit_code == 0
    assert str(result) == result.text


def test_exit_code_and_empty_writes():
    console = Console()
    console.print("")
    console.eprint("oops")
    result = console.result(exit_code=1)
    assert result == ToolOutput((("err", "oops"),), 1)
    assert ToolOutput().text == ""
