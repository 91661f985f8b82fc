"""`AlterPartitionManager`: a leader's ISR changes, batched and sent to the active controller.

Theory of operation
-------------------
A partition leader that wants to add or remove an in-sync replica does not
change the ISR itself: it queues an item here.  The manager sends all queued
items in one AlterPartition request to the active controller (one request in
flight at a time) and hands every partition its own result.  The controller
checks the leader epoch and the partition epoch, writes a
PartitionChangeRecord and answers with the new ISR and partition epoch; the
leader adopts it, or, on an error, simply forgets the change (the next
follower fetch or ISR check proposes it again).

Each ISR member is sent with its broker epoch (KIP-903), so a broker that
restarted in the meantime cannot be let back in on the strength of a fetch
made by its previous incarnation.

What it depends on, all passed in by `BrokerServer`: the node (``now``,
``schedule``, ``send_request``), the broker id, the timing profile (the
request timeout), and three questions it asks the broker: who is the active
controller, what is this broker's epoch, and what is the epoch of another
broker (from the metadata image).

Mirrors ``kafka.server.DefaultAlterPartitionManager``.  Simplified: results
travel as tuples ``(error, leader_id, leader_epoch, isr, partition_epoch)``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Hashable, Protocol

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.controller.requests import (AlterPartitionPartitionData, AlterPartitionRequest,
                                           AlterPartitionResponse, AlterPartitionTopicData,
                                           BrokerState)

if TYPE_CHECKING:
    from minikafka.server.partition import Partition
    from minikafka.common.timing import TimingProfile


class ControllerChannelNode(Protocol):
    """The parts of the node the manager uses (`KafkaNode` has them all)."""

    now: int

    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None: ...

    def send_request(self, dst: int, body: Any, callback: Callable[[Any], None],
                     timeout_ms: int) -> int: ...


class AlterPartitionManager:
    def __init__(self, node: ControllerChannelNode, *, broker_id: int, timing: "TimingProfile",
                 active_controller_id: Callable[[], int | None], broker_epoch: Callable[[], int],
                 broker_epoch_of: Callable[[int], int]):
        self.node = node
        self.broker_id = broker_id
        self.active_controller_id = active_controller_id   # None while no leader is known
        self.broker_epoch = broker_epoch                   # ours, sent with the request
        self.broker_epoch_of = broker_epoch_of             # any broker's, for each ISR member
        self.queued: "OrderedDict[TopicPartition, tuple]" = OrderedDict()  # waiting to be sent
        self.in_flight = False
        self.timeout_ms = timing.ms("controller.quorum.request.timeout.ms")

    def submit(self, partition: "Partition", new_isr: tuple[int, ...],
               callback: Callable[[object], None]) -> None:
        self.queued[partition.topic_partition] = (partition, new_isr, callback)
        self._maybe_send()

    def _maybe_send(self) -> None:
        if self.in_flight or not self.queued:
            return
        controller = self.active_controller_id()
        if controller is None:
            self.node.schedule(("alter-partition", "retry"), self.node.now + 50, self._maybe_send)
            return
        items, self.queued = self.queued, OrderedDict()
        request = self._build(items)
        self.in_flight = True
        self.node.send_request(controller, request,
                               lambda response: self._on_response(items, response),
                               self.timeout_ms)

    def _build(self, items) -> AlterPartitionRequest:
        by_topic: dict = {}
        for tp, (partition, new_isr, _) in items.items():
            states = tuple(BrokerState(b, self.broker_epoch_of(b)) for b in new_isr)
            by_topic.setdefault(partition.topic_id, []).append(AlterPartitionPartitionData(
                tp.partition, partition.leader_epoch, states, partition.partition_epoch))
        topics = tuple(AlterPartitionTopicData(topic_id, tuple(parts))
                       for topic_id, parts in by_topic.items())
        return AlterPartitionRequest(self.broker_id, self.broker_epoch(), topics)

    def _on_response(self, items, response) -> None:
        self.in_flight = False
        if not isinstance(response, AlterPartitionResponse) or response.error_code is not Errors.NONE:
            for _, (_, _, callback) in items.items():
                callback(None)
        else:
            results = {}
            for topic in response.topics:
                for part in topic.partitions:
                    results[(topic.topic_id, part.partition_index)] = (
                        part.error_code, part.leader_id, part.leader_epoch, tuple(part.isr),
                        part.partition_epoch)
            for tp, (partition, _, callback) in items.items():
                callback(results.get((partition.topic_id, tp.partition)))
        self._maybe_send()
