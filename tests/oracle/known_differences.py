"""Why a scenario's outputs still differ between real Kafka 4.3.1 and the sandbox.

One entry per scenario that the suite reports as *different*, with the
reason in a sentence (it goes into docs/fidelity.md's table).  A scenario
that differs without an entry fails; an entry whose scenario no longer
differs fails too.
"""

KNOWN_DIFFERENCES: dict[str, str] = {
}
