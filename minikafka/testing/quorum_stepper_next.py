"""Which steps of a KRaft quorum matter: the table ``QuorumStepper.next_event`` consults.

Theory of operation
-------------------
Most of what a quorum does is routine: followers (and, before any election,
unattached voters asking around) send ``Fetch`` requests and get answers that
change nothing, and timers such as a request timeout or the leader's
check-quorum fire and find all well.  Seed 7 takes 717 such steps before the
first election timeout.  ``next_event()`` steps over them to the next event
that *matters*, decided by one table, `MATTERS`, read top to bottom, the first
matching row wins:

========  =====================  ==========================================
kind      name                   the step matters
========  =====================  ==========================================
timer     election timeout       always: an election (or a pre-vote) starts
timer     fetch timeout          always: a follower gives up on its leader
timer     election backoff       always: a candidate tries again
message   Vote                   always: request or response, pre-vote or not
message   EndQuorumEpoch         always: a leader resigns and says so
message   BeginQuorumEpoch       if it changed something
message   Fetch                  if it changed something
timer     (any other)            if it changed something
callback  (any)                  if it changed something
========  =====================  ==========================================

"Changed something" means what the timeline indents under a step: a
controller's role, epoch, vote, leader, log end offset or high watermark
(so a commit, a high-watermark advance, a truncation), or an engine event
(an election won, a resignation).  A message the network loses on an
existing partition is not, by itself, an event that matters; the faults
themselves (``isolate``, ``drop``, ``timeout``) are the learner's controls,
not steps, and the first step that their consequences reach does matter.

`rule(kind, name)` looks a step up in the table; `NextEvent` is what
``next_event()`` returns: one line saying what it landed on (or that it hit
its bound), with how many routine steps it skipped.  Pure; nothing here
steps a quorum.
"""

from __future__ import annotations

from minikafka.raft.raft_node import ELECTION_BACKOFF, ELECTION_TIMEOUT, FETCH_TIMEOUT

ALWAYS = "always"
IF_CHANGED = "if it changed something"
ANY = "*"

MATTERS: tuple[tuple[str, str, str], ...] = (
    ("timer", ELECTION_TIMEOUT, ALWAYS),
    ("timer", FETCH_TIMEOUT, ALWAYS),
    ("timer", ELECTION_BACKOFF, ALWAYS),
    ("message", "Vote", ALWAYS),
    ("message", "EndQuorumEpoch", ALWAYS),
    ("message", "BeginQuorumEpoch", IF_CHANGED),
    ("message", "Fetch", IF_CHANGED),
    ("timer", ANY, IF_CHANGED),
    ("callback", ANY, IF_CHANGED),
)
"""(kind of step, its name, when it matters): the first row that matches decides."""

NEXT_EVENT_LIMIT_MS = 10_000     # next_event() looks this far ahead in virtual time ...
NEXT_EVENT_MAX_STEPS = 4_000     # ... and takes at most this many steps per call


def rule(kind: str, name: str) -> str:
    """When a step of ``kind`` (``timer``, ``message``, ``callback``) named ``name`` (a timer's
    name such as ``election timeout``, a message's API such as ``Vote``) matters."""
    for row_kind, row_name, when in MATTERS:
        if row_kind == kind and row_name in (name, ANY):
            return when
    return IF_CHANGED


def matters(kind: str, name: str, changed: bool) -> bool:
    """Whether a step that ``changed`` something (or not) is an event that matters."""
    return changed or rule(kind, name) == ALWAYS


class NextEvent(str):
    """What ``next_event()`` landed on, as one line (it prints and displays as that line).

    ``found`` is False when it stopped at its bound (or an empty queue) instead;
    ``skipped`` counts the routine steps stepped over, ``steps`` every step taken."""

    found: bool
    skipped: int
    steps: int

    def __new__(cls, text: str, found: bool, skipped: int, steps: int) -> "NextEvent":
        self = super().__new__(cls, text)
        self.found, self.skipped, self.steps = found, skipped, steps
        return self

    def __repr__(self) -> str:
        return str(self)


def landed_text(lines: list[str], skipped: int) -> str:
    """One line from a step's timeline entry (its line and indented effects)."""
    head, *effects = (line.strip() for line in lines)
    text = head + (f"; {'; '.join(effects)}" if effects else "")
    if skipped:
        text += f" (after {skipped} routine step{'s' if skipped != 1 else ''})"
    return text


def bound_text(skipped: int, limit_ms: int, by_time: bool, empty: bool = False) -> str:
    """The line of a ``next_event()`` that found nothing that matters."""
    routine = f"{skipped} routine step{'s' if skipped != 1 else ''} (Fetch traffic and timers " \
              f"that changed nothing)"
    if empty:
        return f"The queue ran empty after {routine}: nothing more will happen"
    if by_time:
        return (f"Nothing that matters within {limit_ms // 1000} s of virtual time: stepped "
                f"{routine}; the quorum is quiet")
    return f"Nothing that matters within {skipped} steps: stepped {routine}; call again to go on"
