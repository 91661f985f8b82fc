"""`History`: a `QuorumStepper`'s timeline, a tuple of lines that prints as text.

Theory of operation
-------------------
Each control of the stepper adds one line (virtual time, then what the
control did) followed by indented effect lines (what it changed on each
controller, the engine's events, messages lost).  `History` keeps those
lines as a tuple, so a notebook compares and slices it like any tuple, and
prints as the lines themselves.  ``without("Fetch")`` hides routine entries
that changed nothing; ``starting_at("isolate(")`` and ``until("resigned")``
cut out a stretch, for short excerpts in a lesson.

Mirrors no Kafka class: the teaching layer's record of a stepped quorum.
"""

from __future__ import annotations


class History(tuple):
    """The timeline: a tuple of lines that prints as text."""

    def __str__(self) -> str:
        return "\n".join(self)

    def __repr__(self) -> str:
        return str(self) if self else "(nothing has happened yet)"

    def __getitem__(self, index):
        item = super().__getitem__(index)
        return History(item) if isinstance(index, slice) else item

    def _entries(self) -> list[tuple[str, ...]]:
        """The timeline as entries: a control's line followed by its indented effect lines."""
        entries: list[list[str]] = []
        for line in self:
            if line.startswith(" ") and entries:
                entries[-1].append(line)
            else:
                entries.append([line])
        return [tuple(entry) for entry in entries]

    def without(self, *fragments: str) -> "History":
        """The timeline minus the routine: entries whose line contains one of ``fragments``
        and that changed nothing (an entry with effect lines always stays, for its effects)."""
        return History(line for entry in self._entries()
                       if len(entry) > 1 or not any(f in entry[0] for f in fragments)
                       for line in entry)

    def _first(self, fragment: str) -> tuple[list[tuple[str, ...]], int | None]:
        entries = self._entries()
        return entries, next((i for i, entry in enumerate(entries)
                              if any(fragment in line for line in entry)), None)

    def starting_at(self, fragment: str) -> "History":
        """The timeline from the first entry with a line containing ``fragment`` (empty if none)."""
        entries, first = self._first(fragment)
        return History(line for entry in entries[len(entries) if first is None else first:]
                       for line in entry)

    def until(self, fragment: str) -> "History":
        """The timeline up to and including the first entry with a line containing
        ``fragment`` (all of it if none)."""
        entries, last = self._first(fragment)
        return History(line for entry in entries[:None if last is None else last + 1]
                       for line in entry)


__all__ = ["History"]
