"""``kafka-groups.sh --list``: the table of every group, whatever its type.

Theory of operation
-------------------
Kafka's ``GroupsCommand`` keeps the groups that pass its filter
(`GroupsFilter`, built from the options) and prints three columns,
``GROUP``, ``TYPE`` and ``PROTOCOL``, all of one width: 20, or the longest
value of any column of any printed row if that is longer.  The header is
the three names, each left-aligned in that width and separated by one space,
so it ends in the padded ``PROTOCOL``; each row prints every value padded to
the width *and followed by a space*, so rows end in a space where the header
does not.  The type is the ``GroupType``'s text (``Classic``, ``Consumer``,
``Share``, ``Streams``), empty when the broker did not say; the protocol is
the group's protocol type (``consumer`` for consumer groups of either type,
empty for a simple group that only commits offsets).  Rows keep the order
in which the brokers answered.

Mirrors ``org.apache.kafka.tools.GroupsCommand.GroupsService.printGroupDetails``
and ``combinedFilter`` (4.3.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from minikafka.tools.consumer_group_command_output import GroupListing
from minikafka.tools.tool_output import Console, ToolOutput

MIN_WIDTH = 20


@dataclass(frozen=True, slots=True)
class GroupsFilter:
    """The options that choose which groups ``--list`` prints (at most one kind is given; the
    command refuses combinations before listing)."""

    group_type: str | None = None        # lower-case GroupType name of --group-type
    protocol: str | None = None          # --protocol
    consumer: bool = False               # --consumer
    share: bool = False                  # --share
    streams: bool = False                # --streams

    def passes(self, group: GroupListing) -> bool:
        """``combinedFilter``: the first given option decides."""
        group_type = group.type.lower()
        if self.group_type is not None:
            return group_type == self.group_type and (self.protocol is None or group.protocol == self.protocol)
        if self.protocol is not None:
            return group.protocol == self.protocol
        if self.consumer:
            return group.protocol in ("consumer", "") or group_type == "consumer"
        if self.share:
            return group_type == "share"
        if self.streams:
            return group_type == "streams"
        return True


def print_group_details(groups: Sequence[GroupListing], groups_filter: GroupsFilter) -> ToolOutput:
    """The header and one row per group that passes ``groups_filter``."""
    rows = [(g.group_id, g.type, g.protocol) for g in groups if groups_filter.passes(g)]
    width = max([MIN_WIDTH] + [len(value) for row in rows for value in row])
    console = Console()
    console.println(" ".join(f"{name:<{width}}" for name in ("GROUP", "TYPE", "PROTOCOL")))
    for row in rows:
        console.println("".join(f"{value:<{width}} " for value in row))
    return console.result()


__all__ = ["GroupsFilter", "print_group_details", "MIN_WIDTH"]
