"""Raft's safety under any sequence of stepper controls (hypothesis).

Whatever a learner presses -- steps, next events, drops, reorders, time-outs,
partitions, appends, going back -- the raft code the stepper runs must keep:

* election safety: at most one leader per epoch (read from the timeline,
  which is exactly the current run even after ``back``);
* committed entries are never lost or changed: every controller's log agrees
  with every entry ever seen committed at its offset, and a controller that
  becomes leader holds every entry committed before it was elected;
* ``back`` is exact: going back over the last control gives the state the
  run had before it.
"""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from widgets import QuorumStepper, QuorumStepperError

NODES = (1001, 1002, 1003)
ELECTED = re.compile(r"controller (\d+) elected in epoch (\d+)")

STEP = st.tuples(st.just("step"), st.integers(1, 40))
RUN_UNTIL_LEADER = st.tuples(st.just("run_until_leader"), st.none())
RUN_FOR = st.tuples(st.just("run_for"), st.integers(1, 3000))
ISOLATE_LEADER = st.tuples(st.just("isolate_leader"), st.integers(-1, 99))   # then append
APPEND = st.tuples(st.just("append"), st.integers(0, 99))
HEAL = st.tuples(st.just("heal"), st.none())
NEXT_EVENT = st.tuples(st.just("next_event"), st.none())
# Repeated alternatives weigh more: failovers with appends are where data could be lost.
controls = st.one_of(
    STEP, STEP, RUN_UNTIL_LEADER, RUN_UNTIL_LEADER, RUN_FOR, RUN_FOR,
    ISOLATE_LEADER, ISOLATE_LEADER, APPEND, APPEND, HEAL, HEAL, NEXT_EVENT, NEXT_EVENT,
    st.tuples(st.just("drop_next"), st.none()),
    st.tuples(st.just("deliver"), st.integers(0, 6)),
    st.tuples(st.just("timeout"), st.sampled_from(NODES)),
    st.tuples(st.just("timeouts"), st.lists(st.sampled_from(NODES), min_size=2, max_size=3,
                                            unique=True)),     # a race: several at once
    st.tuples(st.just("isolate"), st.sampled_from(NODES)),
    st.tuples(st.just("back"), st.integers(1, 30)),
)


def apply(stepper: QuorumStepper, name: str, arg) -> None:
    if name == "isolate_leader":                        # and hand it a record (unless -1)
        leader = stepper.leader()
        if leader is not None:
            apply(stepper, "isolate", leader)
            if arg >= 0:
                try:
                    stepper.append(arg, leader)
                except QuorumStepperError:
                    pass
        return
    if name == "timeouts":
        for node_id in arg:
            apply(stepper, "timeout", node_id)
        return
    method = getattr(stepper, name)
    try:
        method() if arg is None else method(arg)
    except QuorumStepperError:
        pass                        # refused in this state (e.g. timeout of the leader): fine


def committed_entries(stepper: QuorumStepper) -> dict[int, tuple]:
    seen: dict[int, tuple] = {}
    for node_id in stepper.node_ids:
        for entry in stepper.log(node_id):
            if entry["committed"]:
                key = (entry["epoch"], entry["record"])
                assert seen.setdefault(entry["offset"], key) == key, \
                    f"two different committed entries at offset {entry['offset']}"
    return seen


def check(stepper: QuorumStepper, committed: dict[int, tuple], leaders_before: set) -> None:
    leader_of_epoch: dict[int, int] = {}
    for line in stepper.history:
        if (match := ELECTED.search(line)) is not None:
            leader, epoch = int(match.group(1)), int(match.group(2))
            assert leader_of_epoch.setdefault(epoch, leader) == leader, \
                f"two leaders in epoch {epoch}"
    state = stepper.state()
    leaders = [(row["epoch"], n) for n, row in state.items() if row["role"] == "Leader"]
    assert len({epoch for epoch, _ in leaders}) == len(leaders)
    committed_before = dict(committed)          # surely committed before any election just seen
    for offset, key in committed_entries(stepper).items():
        assert committed.setdefault(offset, key) == key, f"committed entry at {offset} changed"
    for node_id in stepper.node_ids:
        log = {e["offset"]: (e["epoch"], e["record"]) for e in stepper.log(node_id)}
        for offset, key in log.items():
            if offset in committed and offset < state[node_id]["high_watermark"]:
                assert committed[offset] == key
    for epoch, node_id in leaders:
        if (epoch, node_id) not in leaders_before:           # a new leader: completeness
            log = {e["offset"]: (e["epoch"], e["record"]) for e in stepper.log(node_id)}
            for offset, key in committed_before.items():
                assert log.get(offset) == key, \
                    f"leader {node_id} of epoch {epoch} lacks committed offset {offset}"


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 10_000),
       race=st.lists(st.sampled_from(NODES), max_size=3, unique=True),
       elect_first=st.booleans(),
       sequence=st.lists(controls, min_size=3, max_size=25))
def test_any_control_sequence_keeps_raft_safe_and_back_exact(seed, race, elect_first, sequence):
    stepper = QuorumStepper(3, seed=seed)
    apply(stepper, "timeouts", race)                    # elections racing from the start
    if elect_first:
        apply(stepper, "run_until_leader", None)        # most lessons start from a leader
    marks: list[tuple[int, dict]] = [(0, {})]          # (events, committed so far) per control
    for name, arg in sequence:
        before = (stepper.events, stepper.state(), tuple(stepper.history))
        leaders_before = {(row["epoch"], n) for n, row in before[1].items()
                          if row["role"] == "Leader"}
        apply(stepper, name, arg)
        while marks[-1][0] > stepper.events:           # after back(): forget the undone branch
            marks.pop()
        committed = dict(marks[-1][1])
        if name == "back":                             # nobody was elected by going back
            leaders_before = {(row["epoch"], n) for n, row in stepper.state().items()
                              if row["role"] == "Leader"}
        check(stepper, committed, leaders_before)
        marks.append((stepper.events, committed))
        if name not in ("back", "timeouts", "isolate_leader") and stepper.events == before[0] + 1:
            stepper.back()                              # one control back: exactly as before
            assert (stepper.events, stepper.state(), tuple(stepper.history)) == before
            apply(stepper, name, arg)
    stepper.close()
