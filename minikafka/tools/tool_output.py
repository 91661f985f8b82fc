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

Mirrors no Kafka class (it stands for the JVM's two ``PrintStream``\\ s).
Simplified: Java stack traces, which several tools print after an error, are
never reproduced; the error line before them is.
"""

from __future__ import annotations

from dataclasses import dataclass

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
