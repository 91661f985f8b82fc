"""Purgatory: produce and fetch requests that wait for replication or for data.

Theory of operation
-------------------
Some requests cannot be answered at once.  An acks=all produce waits until
the high watermark passes its batches; a fetch with ``min_bytes`` waits until
enough data has arrived (or ``max_wait_ms`` has passed).  Kafka parks them
in a *purgatory* keyed by the partitions they watch; whenever something
changes on a partition (an append moves the log end offset, a follower
fetch moves the high watermark, leadership moves), the operations watching
it are re-checked, and each completes exactly once: when satisfied, or at
its deadline (then with REQUEST_TIMED_OUT for produce partitions still
short of their replicas).

Mirrors ``kafka.server.DelayedOperationPurgatory``, ``DelayedProduce`` and
``DelayedFetch``.  Simplified: the deadline is a node timer per operation,
and the "how many bytes are available" check compares offsets (any new
offset counts as enough for the common ``min_bytes=1``).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Callable

from minikafka.common.topic_partition import TopicPartition


class DelayedOperation:
    """An operation that completes once: ``try_complete`` returns True when it did."""

    def __init__(self, keys: list[TopicPartition]):
        self.keys = keys              # the partitions whose changes may complete it
        self.completed = False

    def try_complete(self, now: int) -> bool:
        raise NotImplementedError

    def on_expiration(self, now: int) -> None:
        raise NotImplementedError

    def force_complete(self, now: int, expired: bool) -> bool:
        if self.completed:
            return False
        self.completed = True
        if expired:
            self.on_expiration(now)
        return True


class DelayedOperationPurgatory:
    """Watchers by partition; checked after changes, expired by node timers."""

    def __init__(self, name: str, node):
        self.name = name              # "Produce" or "Fetch", as Kafka names its purgatories
        self.node = node              # the hosting Node: now + timers
        self.watchers: dict[TopicPartition, list[DelayedOperation]] = defaultdict(list)
        self._ids = itertools.count()

    def try_complete_else_watch(self, operation: DelayedOperation, timeout_ms: int) -> bool:
        if operation.try_complete(self.node.now):
            return True
        for key in operation.keys:
            self.watchers[key].append(operation)
        op_id = next(self._ids)
        self.node.schedule(("purgatory", self.name, op_id), self.node.now + max(timeout_ms, 0),
                           lambda: self._expire(operation))
        return False

    def check_and_complete(self, key: TopicPartition) -> int:
        """Re-check operations watching ``key``; returns how many completed."""
        watching = self.watchers.get(key)
        if not watching:
            return 0
        completed = 0
        for operation in list(watching):
            if operation.completed or operation.try_complete(self.node.now):
                completed += 1
        self._purge(key)
        return completed

    def _expire(self, operation: DelayedOperation) -> None:
        if operation.force_complete(self.node.now, expired=True):
            for key in operation.keys:
                self._purge(key)

    def _purge(self, key: TopicPartition) -> None:
        remaining = [op for op in self.watchers.get(key, ()) if not op.completed]
        if remaining:
            self.watchers[key] = remaining
        else:
            self.watchers.pop(key, None)

    def watched(self) -> int:
        return len({id(op) for ops in self.watchers.values() for op in ops})


class DelayedProduce(DelayedOperation):
    """acks=all: done when every partition's HW reached its required offset (or errored)."""

    def __init__(self, required_offsets: dict[TopicPartition, int], results: dict,
                 check: Callable[[TopicPartition, int], tuple[bool, object]],
                 respond: Callable[[dict], None]):
        super().__init__(list(required_offsets))
        self.required_offsets = required_offsets   # partition -> offset the HW must reach
        self.results = results                      # partition -> mutable result (error filled in)
        self.check = check                          # partition, offset -> (done, error)
        self.respond = respond
        self.pending = set(required_offsets)        # partitions not yet acknowledged

    def try_complete(self, now: int) -> bool:
        for tp in list(self.pending):
            done, error = self.check(tp, self.required_offsets[tp])
            if done:
                self.pending.discard(tp)
                self.results[tp].error = error
        if not self.pending:
            return self.force_complete(now, expired=False) and self._send()
        return False

    def _send(self) -> bool:
        self.respond(self.results)
        return True

    def on_expiration(self, now: int) -> None:
        from minikafka.common.errors import Errors
        for tp in self.pending:
            self.results[tp].error = Errors.REQUEST_TIMED_OUT
        self.respond(self.results)


class DelayedFetch(DelayedOperation):
    """min_bytes/max_wait: done when new data is readable for any watched partition."""

    def __init__(self, keys: list[TopicPartition], has_enough_data: Callable[[], bool],
                 complete: Callable[[], None]):
        super().__init__(keys)
        self.has_enough_data = has_enough_data
        self.complete = complete

    def try_complete(self, now: int) -> bool:
        if self.has_enough_data():
            if self.force_complete(now, expired=False):
                self.complete()
            return True
        return False

    def on_expiration(self, now: int) -> None:
        self.complete()


class DelayedDeleteRecords(DelayedOperation):
    """DeleteRecords: done when every partition's low watermark reached its requested offset.

    ``check(tp, offset)`` gives (done, error, low watermark); a partition still short of
    its offset at the deadline answers REQUEST_TIMED_OUT with the low watermark it had.
    """

    def __init__(self, required_offsets: dict[TopicPartition, int], results: dict,
                 check: Callable[[TopicPartition, int], tuple[bool, object, int]],
                 respond: Callable[[dict], None]):
        super().__init__(list(required_offsets))
        self.required_offsets = required_offsets   # partition -> offset the low watermark must reach
        self.results = results                      # partition -> mutable result (error, low_watermark)
        self.check = check
        self.respond = respond
        self.pending = set(required_offsets)        # partitions still waiting

    def try_complete(self, now: int) -> bool:
        for tp in list(self.pending):
            done, error, low_watermark = self.check(tp, self.required_offsets[tp])
            if done:
                self.pending.discard(tp)
                self.results[tp].error, self.results[tp].low_watermark = error, low_watermark
        if not self.pending and self.force_complete(now, expired=False):
            self.respond(self.results)
            return True
        return False

    def on_expiration(self, now: int) -> None:
        from minikafka.common.errors import Errors
        for tp in self.pending:
            self.results[tp].error = Errors.REQUEST_TIMED_OUT
        self.respond(self.results)
