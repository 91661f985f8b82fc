"""``CoordinatorContext``: one ``__consumer_offsets`` partition this broker coordinates.

Theory of operation
-------------------
Group coordination is sharded by ``__consumer_offsets`` partition: the broker
that leads partition *p* coordinates every group whose id hashes to *p*.  For
each such partition the coordinator keeps a context that goes through
Kafka's coordinator states:

* **LOADING** -- this broker just became leader and is replaying the
  partition; requests get COORDINATOR_LOAD_IN_PROGRESS (clients retry);
* **ACTIVE** -- serving requests;
* **FAILED** -- the partition could not be replayed; requests get
  NOT_COORDINATOR, nothing is written;
* **CLOSED** -- leadership moved away; requests get NOT_COORDINATOR.

The context is the shard's only door to the world.  ``write`` appends
records to the partition through the broker (acks=all) and calls back once
they are committed, failed, or ``offsets.commit.timeout.ms`` passed
(REQUEST_TIMED_OUT).  Timers are node timers keyed
``("group", <partition>, ...)`` that only fire while the context is ACTIVE.
Closing the context cancels its timers and fails its in-flight writes with
NOT_COORDINATOR, as Kafka's runtime does on unload.

Mirrors ``CoordinatorRuntime.CoordinatorContext`` with its ``CoordinatorTimer``
and the write path's error mapping (``CoordinatorOperationExceptionHelper``).
Simplified: a write is one ``append`` call (no batching, no linger) and
responses that write nothing are sent at once instead of after the writes
before them commit.
"""

from __future__ import annotations

import enum
import itertools
from typing import Callable, Hashable

from minikafka.common.errors import Errors
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.runtime.node import Node

Record = tuple[bytes, bytes | None]
AppendFn = Callable[[int, list[Record], Callable[[Errors], None]], None]
WriteCallback = Callable[[Errors], None]

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"

# Append errors as a coordinator reports them to clients (handleOperationException).
_APPEND_ERROR_MAP = {
    Errors.UNKNOWN_TOPIC_OR_PARTITION: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.REQUEST_TIMED_OUT: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_LEADER_OR_FOLLOWER: Errors.NOT_COORDINATOR,
    Errors.KAFKA_STORAGE_ERROR: Errors.NOT_COORDINATOR,
    Errors.MESSAGE_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
    Errors.RECORD_LIST_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
    Errors.INVALID_FETCH_SIZE: Errors.UNKNOWN_SERVER_ERROR,
    Errors.NETWORK_EXCEPTION: Errors.COORDINATOR_LOAD_IN_PROGRESS,
}


def coordinator_error(append_error: Errors) -> Errors:
    """The error a client sees when writing to ``__consumer_offsets`` failed with ``append_error``."""
    return _APPEND_ERROR_MAP.get(append_error, append_error)


class CoordinatorState(enum.Enum):
    LOADING = "loading"
    ACTIVE = "active"
    FAILED = "failed"
    CLOSED = "closed"


class CoordinatorContext:
    def __init__(self, partition_index: int, epoch: int, node: Node,
                 config: GroupCoordinatorConfig, append: AppendFn):
        self.partition_index = partition_index
        self.epoch = epoch                        # leader epoch of the partition we coordinate
        self.load_epoch = epoch                   # the epoch whose records we are loading
        self.state = CoordinatorState.LOADING
        self.node = node
        self.config = config
        self._append = append
        self._write_ids = itertools.count(1)
        self._pending: dict[int, WriteCallback] = {}  # in-flight writes by id, oldest first
        self._stable_waiters: list[tuple[int, Callable[[], None]]] = []  # (last write id, resume)
        self._timer_keys: set[Hashable] = set()   # node timer keys we own

    @property
    def topic_partition(self) -> str:
        return f"{GROUP_METADATA_TOPIC_NAME}-{self.partition_index}"

    @property
    def now(self) -> int:
        return self.node.now

    @property
    def is_active(self) -> bool:
        return self.state is CoordinatorState.ACTIVE

    def emit(self, kind: str, text: str, **data) -> None:
        self.node.emit(kind, text, partition=self.partition_index, **data)

    # ------------------------------------------------------------------ timers
    def schedule(self, key: tuple, delay_ms: int, fn: Callable[[], None]) -> None:
        """Run ``fn`` after ``delay_ms`` unless rescheduled, cancelled or unloaded first."""
        if self.state in (CoordinatorState.CLOSED, CoordinatorState.FAILED):
            return
        node_key = ("group", self.partition_index, *key)
        self._timer_keys.add(node_key)

        def fire() -> None:
            self._timer_keys.discard(node_key)
            if self.is_active:
                fn()
        self.node.schedule(node_key, self.node.now + max(0, delay_ms), fire)

    def cancel(self, key: tuple) -> None:
        node_key = ("group", self.partition_index, *key)
        self._timer_keys.discard(node_key)
        self.node.cancel(node_key)

    def deadline(self, key: tuple) -> int | None:
        return self.node.timer_deadline(("group", self.partition_index, *key))

    # ------------------------------------------------------------------ writes
    def write(self, records: list[Record], on_done: WriteCallback) -> None:
        """Append ``records``; ``on_done(Errors.NONE)`` once committed, else the append error."""
        if not self.is_active:
            on_done(Errors.NOT_COORDINATOR)
            return
        write_id = next(self._write_ids)
        self._pending[write_id] = on_done
        timeout_key = ("append-timeout", write_id)
        self.schedule(timeout_key, self.config.offset_commit_timeout_ms,
                      lambda: self._finish(write_id, Errors.REQUEST_TIMED_OUT))

        def appended(error: Errors) -> None:
            self.cancel(timeout_key)
            self._finish(write_id, error)
        self._append(self.partition_index, list(records), appended)

    def _finish(self, write_id: int, error: Errors) -> None:
        on_done = self._pending.pop(write_id, None)
        if on_done is None:
            return                                # already timed out, or unloaded meanwhile
        on_done(error)
        self._release_stable_waiters()

    def when_writes_done(self, resume: Callable[[], None]) -> None:
        """Run ``resume`` once every write issued so far has completed (OffsetFetch require_stable)."""
        if not self._pending:
            resume()
            return
        self._stable_waiters.append((max(self._pending), resume))

    def _release_stable_waiters(self) -> None:
        oldest = min(self._pending, default=None)
        ready = [w for w in self._stable_waiters if oldest is None or w[0] < oldest]
        self._stable_waiters = [w for w in self._stable_waiters if w not in ready]
        for _, resume in ready:
            resume()

    # ------------------------------------------------------------------ lifecycle
    def close(self, final_state: CoordinatorState) -> None:
        """Stop serving: cancel timers, fail in-flight writes with NOT_COORDINATOR."""
        self.state = final_state
        for key in list(self._timer_keys):
            self.node.cancel(key)
        self._timer_keys.clear()
        pending, self._pending = self._pending, {}
        for on_done in pending.values():
            on_done(Errors.NOT_COORDINATOR)
        waiters, self._stable_waiters = self._stable_waiters, []
        for _, resume in waiters:
            resume()
