"""The words of the KRaft election stepper: one line per message, timer and change.

Theory of operation
-------------------
Everything the stepper shows as text comes from here, so the timeline, the
queue, the widget and ``print(stepper)`` say the same thing the same way:

* `describe_message(envelope, request)`: one KRaft RPC in flight, named as in
  Kafka's JSON message specs (``Vote``, ``BeginQuorumEpoch``,
  ``EndQuorumEpoch``, ``Fetch``), request or response, with the fields that
  matter for an election: epochs, the log position a voter compares, granted
  or not, error names (``NOT_LEADER_OR_FOLLOWER``), records and the high
  watermark.  A pre-vote (KIP-996) is a Vote with ``PreVote=true``; its
  answer carries no such flag, so the request it answers is passed in;
* `change_line(node, before, after)`: what one step changed on one
  controller (role, epoch, vote, leader, log end offset, high watermark);
* `seconds(ms)`: virtual time as ``t=1.234s`` since the quorum started;
* `state_table(...)`: the fixed-width table of the text form.

Pure functions; nothing here knows about widgets.
"""

from __future__ import annotations

from typing import Any, Mapping

from minikafka.common.errors import Errors
from minikafka.raft.messages import (BeginQuorumEpochRequest, BeginQuorumEpochResponse,
                                     EndQuorumEpochRequest, EndQuorumEpochResponse, FetchRequest,
                                     FetchResponse, VoteRequest, VoteResponse)
from minikafka.raft.replicated_log import LeaderChangeMessage
from minikafka.runtime.node import Envelope
from minikafka.common.timing import TimingProfile


def seconds(elapsed_ms: int) -> str:
    """``t=1.234s``: virtual time since the quorum started."""
    return f"t={elapsed_ms // 1000}.{elapsed_ms % 1000:03d}s"


def _leader(leader_id: int) -> str:
    return "none" if leader_id < 0 else str(leader_id)


def _error(code: int) -> str:
    return "" if code == 0 else f"{Errors.for_code(code).name}, "


def record_text(record: Any) -> str:
    """A record of the metadata log as the timeline and the log view show it."""
    if isinstance(record, LeaderChangeMessage):
        voters = ",".join(str(v) for v in record.granting_voters)
        return f"LeaderChange(leader {record.leader_id}, votes {voters})"
    return repr(record)


def _batches(batches: tuple) -> str:
    if not batches:
        return "no records"
    first, last = batches[0], batches[-1]
    count = sum(len(batch.records) for batch in batches)
    span = (f"offset {first.base_offset}" if count == 1
            else f"offsets {first.base_offset}-{last.last_offset}")
    shown = ", ".join(record_text(r) for batch in batches for r in batch.records[:3])
    return f"{count} record{'s' if count != 1 else ''} at {span} [{shown}]"


def describe_message(envelope: Envelope, request: Any = None) -> str:
    """``1002 -> 1001  Vote request (pre-vote): epoch 0, log end offset 0, last epoch 0``."""
    return f"{envelope.src} -> {envelope.dst}  {describe_body(envelope.body, request)}"


def describe_body(body: Any, request: Any = None) -> str:
    if isinstance(body, VoteRequest):
        kind = "Vote request (pre-vote)" if body.pre_vote else "Vote request"
        return (f"{kind}: epoch {body.replica_epoch}, log end offset {body.last_offset}, "
                f"last epoch {body.last_offset_epoch}")
    if isinstance(body, VoteResponse):
        pre = " (pre-vote)" if isinstance(request, VoteRequest) and request.pre_vote else ""
        verdict = "granted" if body.vote_granted else "not granted"
        return (f"Vote response{pre}: {_error(body.error_code)}{verdict}, "
                f"epoch {body.leader_epoch}, leader {_leader(body.leader_id)}")
    if isinstance(body, BeginQuorumEpochRequest):
        return f"BeginQuorumEpoch request: leader {body.leader_id}, epoch {body.leader_epoch}"
    if isinstance(body, EndQuorumEpochRequest):
        successors = ",".join(str(s) for s in body.preferred_candidates) or "none"
        return (f"EndQuorumEpoch request: leader {body.leader_id}, epoch {body.leader_epoch}, "
                f"preferred successors {successors}")
    if isinstance(body, (BeginQuorumEpochResponse, EndQuorumEpochResponse)):
        api = "BeginQuorumEpoch" if isinstance(body, BeginQuorumEpochResponse) else "EndQuorumEpoch"
        return (f"{api} response: {_error(body.error_code) or 'NONE, '}"
                f"epoch {body.leader_epoch}, leader {_leader(body.leader_id)}")
    if isinstance(body, FetchRequest):
        return (f"Fetch request: epoch {body.current_leader_epoch}, fetch offset "
                f"{body.fetch_offset}, last fetched epoch {body.last_fetched_epoch}")
    if isinstance(body, FetchResponse):
        return _describe_fetch_response(body)
    return type(body).__name__


def _describe_fetch_response(body: FetchResponse) -> str:
    leader = body.current_leader
    tail = f"leader {_leader(leader.leader_id)}, epoch {leader.leader_epoch}"
    if body.error_code:
        return f"Fetch response: {_error(body.error_code)}{tail}"
    if body.diverging_epoch is not None:
        diverging = body.diverging_epoch
        return (f"Fetch response: diverging epoch {diverging.epoch} ends at offset "
                f"{diverging.end_offset} (truncate there), {tail}")
    high_watermark = "unknown" if body.high_watermark < 0 else body.high_watermark
    return f"Fetch response: {_batches(body.records)}, high watermark {high_watermark}, {tail}"


_FIELDS = (("role", "{}"), ("epoch", "epoch {}"), ("voted_for", "voted for {}"),
           ("leader", "leader {}"), ("log_end_offset", "log end offset {}"),
           ("high_watermark", "high watermark {}"))


def change_line(node_id: int, before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """``1002: Candidate -> Leader; log end offset 0 -> 1`` or None if nothing changed."""
    parts = []
    for key, label in _FIELDS:
        old, new = before.get(key), after.get(key)
        if old != new:
            parts.append(label.format(f"{_dash(old)} -> {_dash(new)}"))
    return f"{node_id}: {'; '.join(parts)}" if parts else None


def _dash(value: Any) -> str:
    return "-" if value is None else str(value)


TABLE_COLUMNS = (("controller", 10), ("role", 11), ("epoch", 5), ("voted for", 9),
                 ("leader", 6), ("log end offset", 14), ("high watermark", 14))


def state_table(state: Mapping[int, Mapping[str, Any]], notes: Mapping[int, str]) -> list[str]:
    """The fixed-width table of every controller, with a note (timer, isolation) per row."""
    header = "  ".join(name.ljust(width) for name, width in TABLE_COLUMNS) + "  timer"
    lines = [header.rstrip()]
    for node_id, row in state.items():
        cells = (node_id, row["role"], row["epoch"], row["voted_for"], row["leader"],
                 row["log_end_offset"], row["high_watermark"])
        text = "  ".join(_dash(cell).ljust(width) for cell, (_, width) in zip(cells, TABLE_COLUMNS))
        lines.append(f"{text}  {notes.get(node_id, '')}".rstrip())
    return lines


def message_facts(body: Any, request: Any = None) -> dict[str, Any]:
    """A message as plain data: ``api`` (Kafka's API name), ``response``, ``pre_vote``, ``epoch``."""
    name = type(body).__name__
    response = name.endswith("Response")
    api = name.removesuffix("Response").removesuffix("Request")
    pre_vote = bool(getattr(request if response else body, "pre_vote", False))
    if isinstance(body, VoteRequest):
        epoch = body.replica_epoch
    elif isinstance(body, FetchRequest):
        epoch = body.current_leader_epoch
    elif isinstance(body, FetchResponse):
        epoch = body.current_leader.leader_epoch
    else:
        epoch = getattr(body, "leader_epoch", None)
    return {"api": api, "response": response, "pre_vote": pre_vote, "epoch": epoch}


def start_line(election_timeouts: Mapping[int, int], timing: TimingProfile,
               lone_leader: tuple[int, int] | None = None) -> str:
    """The first timeline line: who starts, and when each election timer will run out
    (``lone_leader``: (id, epoch) of a single voter, which elects itself at once)."""
    if lone_leader is not None:
        return (f"{seconds(0)}  1 controller starts; as the only voter it elects itself at "
                f"once: controller {lone_leader[0]} leads epoch {lone_leader[1]}")
    when = ", ".join(f"{n} at {seconds(at)}" for n, at in election_timeouts.items())
    return (f"{seconds(0)}  {len(election_timeouts)} controllers start Unattached in epoch 0; "
            f"election timeouts (controller.quorum.election.timeout.ms="
            f"{timing.ms('controller.quorum.election.timeout.ms')} + random): {when}")


def headline(control: tuple, result: Any, node_ids: tuple[int, ...],
             timing: TimingProfile) -> str:
    """The timeline line of one control (``result`` is what the driver returned for it)."""
    name = control[0]
    if name == "step":
        return result.text
    if name == "deliver":
        return f"deliver({control[1]}): {result.text} (arrives ahead of its turn)"
    if name == "drop":
        return f"drop: {result.text} (lost)"
    if name == "isolate":
        others = ", ".join(str(n) for n in node_ids if n != control[1])
        return f"isolate({control[1]}): controller {control[1]} is cut off from {others}"
    if name == "heal":
        return "heal(): every controller can reach every other again"
    _, node_id, method, args = control
    if method == "expire_timer":
        return f"timeout({node_id}): the {result} of controller {node_id} runs out now"
    return (f"append({', '.join(record_text(a) for a in args)}) at leader {node_id}: "
            f"offset {result}, written after controller.quorum.append.linger.ms="
            f"{timing.ms('controller.quorum.append.linger.ms')}")


TEXT_TIMERS = ("election timeout", "fetch timeout", "election backoff", "check quorum")
"""The timers the text form shows (the ones elections turn on)."""


def stepper_text(stepper: Any, history: int = 12) -> str:
    """``print(stepper)``: heading, the controllers' table, the queue, the last timeline lines."""
    isolated = stepper.isolated
    notes = {}
    for node_id, timers in stepper.timers().items():
        parts = [f"{name} at {seconds(at)}" for name, at in timers.items() if name in TEXT_TIMERS]
        notes[node_id] = ", ".join(parts + (["isolated"] if node_id in isolated else []))
    plural = "s" if stepper.controllers > 1 else ""
    lines = [f"KRaft quorum, {stepper.controllers} controller{plural} (seed {stepper.seed}), "
             f"{seconds(stepper.time_ms)}, {stepper.events} events"]
    lines += state_table(stepper.state(), notes)
    queue = stepper.queue()
    lines.append(f"next ({len(queue)} queued):")
    lines += [f"  {e['index']}. {seconds(e['at_ms'])}  {e['text']}" for e in queue[:6]]
    timeline = stepper.history
    shown = timeline[-history:] if history > 0 else ()
    lines.append(f"timeline (last {len(shown)} of {len(timeline)} lines):")
    lines += [f"  {line}" for line in shown]
    return "\n".join(lines)
