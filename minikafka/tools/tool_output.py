"""`ToolOutput`: what a Kafka shell tool leaves on the terminal, and its exit code.

Theory of operation
-------------------
Kafka's tools write to two streams.  Most text goes to standard output, but
some lines go to standard error (``Consumer group 'g' has no active
members.``, most error messages of ``kafka-configs.sh`` and
``kafka-metadata-quorum.sh``), and a terminal shows both, interleaved in the
order they were written.  A formatter that returned one string would lose
which is which; one that returned two strings would lose the order.

So a tool run is recorded as an ordered list of *chunks*, each tagged
``out`` or ``err``, plus the exit code.  `Console` is the small writer the
formatters use; its methods are named after Java's ``System.out.print`` /
``println`` so a reader can hold a formatter next to Kafka's source.
``ToolOutput.text`` is what a learner's terminal shows, ``stdout`` and
``stderr`` what a shell redirect would capture.

A tool run from a terminal writes to the process's standard output and
error; a tool run for a lesson (``Cluster.run_tool``) is given the streams to
write to instead (`writing_to`), so capturing its output redirects nothing
process-wide: the tools look their streams up with `system_out` and
`system_err`, which answer the given streams inside `writing_to` (a context
variable, as a JVM tool would be handed its ``PrintStream``\\ s) and
``sys.stdout`` / ``sys.stderr`` otherwise.

Mirrors no Kafka class (it stands for the JVM's two ``PrintStream``\\ s).
Simplified: Java stack traces, which several tools print after an error, are
never reproduced; the error line before them is.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from dataclasses import dataclass
from typing import Iterator, TextIO

OUT = "out"
ERR = "err"


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """The streams a tool wrote, in order, and the exit code it ended with."""

    chunks: tuple[tuple[str, str], ...] = ()   # ("out" | "err", text), in writing order
    exit_code: int = 0

    @property
    def stdout(self) -> str:
        return "".join(text for stream, text in self.chunks if stream == OUT)

    @property
    def stderr(self) -> str:
        return "".join(text for stream, text in self.chunks if stream == ERR)

    @property
    def text(self) -> str:
        """Both streams as a terminal shows them."""
        return "".join(text for _, text in self.chunks)

    def __str__(self) -> str:
        return self.text


class Console:
    """Collects what a tool prints; ``result()`` freezes it into a `ToolOutput`."""

    def __init__(self) -> None:
        self._chunks: list[tuple[str, str]] = []   # grows as the formatter prints

    def print(self, text: str) -> None:
        """``System.out.print``: no line break added."""
        self._write(OUT, text)

    def println(self, text: str = "") -> None:
        """``System.out.println``."""
        self._write(OUT, text + "\n")

    def eprint(self, text: str) -> None:
        """``System.err.print``."""
        self._write(ERR, text)

    def eprintln(self, text: str = "") -> None:
        """``System.err.println``."""
        self._write(ERR, text + "\n")

    def result(self, exit_code: int = 0) -> ToolOutput:
        return ToolOutput(tuple(self._chunks), exit_code)

    def _write(self, stream: str, text: str) -> None:
        if not text:
            return
        if self._chunks and self._chunks[-1][0] == stream:
            # Merge with the previous chunk of the same stream so outputs compare simply.
            self._chunks[-1] = (stream, self._chunks[-1][1] + text)
        else:
            self._chunks.append((stream, text))


# The streams a tool run was given (standard output, standard error); None: the process's own.
_GIVEN_STREAMS: contextvars.ContextVar[tuple[TextIO, TextIO] | None] = contextvars.ContextVar(
    "minikafka_tool_streams", default=None)


def system_out() -> TextIO:
    """The stream a tool prints to (``System.out``): the given one, else ``sys.stdout``."""
    given = _GIVEN_STREAMS.get()
    return sys.stdout if given is None else given[0]


def system_err() -> TextIO:
    """The stream a tool prints errors to (``System.err``): the given one, else ``sys.stderr``."""
    given = _GIVEN_STREAMS.get()
    return sys.stderr if given is None else given[1]


@contextlib.contextmanager
def writing_to(out: TextIO, err: TextIO | None = None) -> Iterator[None]:
    """Within the block, tools in this context print to ``out`` (and errors to ``err``, by
    default ``out`` too, interleaved as a terminal shows them)."""
    token = _GIVEN_STREAMS.set((out, out if err is None else err))
    try:
        yield
    finally:
        _GIVEN_STREAMS.reset(token)
