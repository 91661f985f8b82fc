"""Tests for minikafka/tools/groups_command_output.py (``kafka-groups.sh --list``)."""

from minikafka.tools.consumer_group_command_output import GroupListing
from minikafka.tools.groups_command_output import GroupsFilter, print_group_details

CLASSIC = GroupListing("billing", "Stable", "Classic", "consumer")
MODERN = GroupListing("java-848", "Stable", "Consumer", "consumer")
SIMPLE = GroupListing("offsets-only", "Empty", "Classic", "")
CONNECT = GroupListing("connect-cluster", "Stable", "Classic", "connect")
SHARE = GroupListing("shared", "Empty", "Share", "share")
STREAMS = GroupListing("word-count", "Empty", "Streams", "streams")
ALL = [CLASSIC, MODERN, SIMPLE, CONNECT, SHARE, STREAMS]


def listed(groups_filter: GroupsFilter) -> list[str]:
    return [line.split()[0] for line in print_group_details(ALL, groups_filter).stdout.splitlines()[1:]]


def test_golden_table_three_columns_of_one_width():
    out = print_group_details([CLASSIC, MODERN, SIMPLE], GroupsFilter())
    # Header: three cells of width 20 joined by a space (no trailing space); rows: every cell padded and
    # followed by a space.  An empty protocol is an empty padded cell.
    assert out.stdout == (
        "GROUP                TYPE                 PROTOCOL            \n"
        "billing              Classic              consumer             \n"
        "java-848             Consumer             consumer             \n"
        "offsets-only         Classic                                   \n")
    assert out.stderr == "" and out.exit_code == 0


def test_a_long_value_of_any_column_widens_every_column():
    long_id = "a-group-id-longer-than-twenty"
    lines = print_group_details([GroupListing(long_id, "Empty", "Consumer", "consumer")], GroupsFilter()).stdout
    width = len(long_id)
    assert lines.splitlines() == [f"{'GROUP':<{width}} {'TYPE':<{width}} {'PROTOCOL':<{width}}",
                                  f"{long_id} {'Consumer':<{width}} {'consumer':<{width}} "]


def test_no_group_prints_the_header_only():
    assert print_group_details([], GroupsFilter()).stdout == "GROUP                TYPE                 PROTOCOL            \n"


def test_filters_as_combined_filter_applies_them():
    assert listed(GroupsFilter()) == [g.group_id for g in ALL]
    assert listed(GroupsFilter(group_type="classic")) == ["billing", "offsets-only", "connect-cluster"]
    assert listed(GroupsFilter(group_type="classic", protocol="consumer")) == ["billing"]
    assert listed(GroupsFilter(protocol="connect")) == ["connect-cluster"]
    # --consumer: type consumer, or any group whose protocol is consumer or empty.
    assert listed(GroupsFilter(consumer=True)) == ["billing", "java-848", "offsets-only"]
    assert listed(GroupsFilter(share=True)) == ["shared"]
    assert listed(GroupsFilter(streams=True)) == ["word-count"]
