"""`ListenerContext`: hands committed batches and leader changes to a state machine, in order, once.

Theory of operation
-------------------
A `KafkaRaftClient` listener (the controller's or a broker's metadata loader)
sees two kinds of callbacks:

* ``handle_commit(batch)`` -- for every batch below the high watermark, in
  offset order, exactly once, control batches included (``batch.is_control``).
  The context remembers the next offset to deliver; after a restart a fresh
  listener starts at offset 0 and is replayed up to the high watermark the
  replica learns anew.
* ``handle_leader_change(leader_and_epoch)`` -- when the epoch grows, or the
  leader of the current epoch becomes known.  When *this* replica is the new
  leader, the call waits until the listener has consumed the start of the
  new epoch (the LeaderChangeMessage batch): only then has the state machine
  seen every committed record, so it is safe for it to start writing.

Mirrors the ``ListenerContext`` inner class of ``KafkaRaftClient``.
Simplified: no snapshots (``handle_load_snapshot``), no batch readers.
"""

from __future__ import annotations

from typing import Protocol

from minikafka.raft.quorum_state import LeaderAndEpoch
from minikafka.raft.replicated_log import Batch, ReplicatedLog

UNKNOWN = LeaderAndEpoch(None, 0)   # LeaderAndEpoch.UNKNOWN


class RaftListener(Protocol):
    """What a state machine implements to follow the metadata log (``RaftClient.Listener``)."""

    def handle_commit(self, batch: Batch) -> None: ...
    def handle_leader_change(self, leader: LeaderAndEpoch) -> None: ...


class ListenerContext:
    def __init__(self, listener: RaftListener, start_offset: int):
        self.listener = listener
        self.next_offset = start_offset                 # first offset not yet delivered
        self.last_fired: LeaderAndEpoch = UNKNOWN       # last leader change handed over

    def deliver_committed(self, log: ReplicatedLog, high_watermark: int) -> None:
        """Hand over every whole batch below ``high_watermark`` not delivered yet."""
        while self.next_offset < high_watermark:
            batches = log.read(self.next_offset)
            if not batches:
                return
            for batch in batches:
                if batch.last_offset >= high_watermark:
                    return
                self.next_offset = batch.next_offset
                self.listener.handle_commit(batch)

    def _should_fire(self, leader: LeaderAndEpoch) -> bool:
        if leader == self.last_fired:
            return False
        if leader.epoch > self.last_fired.epoch:
            return True
        return leader.leader_id is not None and self.last_fired.leader_id is None

    def maybe_fire_leader_change(self, leader: LeaderAndEpoch,
                                 epoch_start_offset: int | None = None) -> None:
        """Fire if news; for local leadership only once past ``epoch_start_offset``."""
        if not self._should_fire(leader):
            return
        if epoch_start_offset is not None and self.next_offset <= epoch_start_offset:
            return
        self.last_fired = leader
        self.listener.handle_leader_change(leader)
