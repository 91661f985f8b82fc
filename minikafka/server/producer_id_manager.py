"""`ProducerIdManager`: hands out producer ids from blocks the controller allocates.

Theory of operation
-------------------
An idempotent producer starts with InitProducerId and gets a cluster-wide
unique producer id.  Brokers do not coordinate with each other for that: the
controller gives each broker a block of 1000 ids at a time (the
AllocateProducerIds RPC, recorded as a ProducerIdsRecord so the next block
starts after it), and the broker serves ids from its block, asking for the
next block before the current one runs out.

While no block is available (the first request after start-up, or the
controller is unreachable) the answer is COORDINATOR_LOAD_IN_PROGRESS, which
clients retry, as Kafka answers.

What it depends on, all passed in by `BrokerServer`: the node (``now``,
``schedule``, ``send_request``), the broker id and the broker's current epoch
(the request carries both, so the controller can refuse a fenced or stale
broker), the timing profile (the request timeout) and who the active
controller is.

Mirrors ``org.apache.kafka.coordinator.transaction.RPCProducerIdManager``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from minikafka.common.errors import Errors
from minikafka.controller.requests import AllocateProducerIdsRequest, AllocateProducerIdsResponse

if TYPE_CHECKING:
    from minikafka.server.alter_partition_manager import ControllerChannelNode
    from minikafka.common.timing import TimingProfile

PREFETCH_THRESHOLD = 0.9     # ask for the next block when 90% of this one is used


class ProducerIdManager:
    def __init__(self, node: "ControllerChannelNode", *, broker_id: int, timing: "TimingProfile",
                 active_controller_id: Callable[[], int | None], broker_epoch: Callable[[], int]):
        self.node = node
        self.broker_id = broker_id
        self.timing = timing
        self.active_controller_id = active_controller_id
        self.broker_epoch = broker_epoch
        self.next_id = -1            # next id to hand out from the current block
        self.block_end = -1          # first id after the current block
        self.block_start = -1
        self.next_block: tuple[int, int] | None = None   # prefetched (start, length)
        self.requesting = False

    def generate(self, callback: Callable[[Errors, int], None]) -> None:
        """Call back with (NONE, producer_id), or (COORDINATOR_LOAD_IN_PROGRESS, -1) while
        no block is available yet (a block is requested; the client retries)."""
        if self.next_id < 0 or self.next_id >= self.block_end:
            self._switch_to_prefetched()
        if 0 <= self.next_id < self.block_end:
            producer_id, self.next_id = self.next_id, self.next_id + 1
            used = (self.next_id - self.block_start) / max(1, self.block_end - self.block_start)
            if used >= PREFETCH_THRESHOLD and self.next_block is None:
                self._request_block()
            callback(Errors.NONE, producer_id)
            return
        self._request_block()
        callback(Errors.COORDINATOR_LOAD_IN_PROGRESS, -1)

    def _switch_to_prefetched(self) -> None:
        if self.next_block is not None:
            start, length = self.next_block
            self.next_block = None
            self.block_start, self.next_id, self.block_end = start, start, start + length

    def _request_block(self) -> None:
        if self.requesting:
            return
        controller = self.active_controller_id()
        if controller is None:
            self.node.schedule(("producer-ids", "retry"), self.node.now + 50, self._request_block)
            return
        self.requesting = True
        request = AllocateProducerIdsRequest(self.broker_id, self.broker_epoch())
        self.node.send_request(controller, request, self._on_block,
                               self.timing.ms("controller.quorum.request.timeout.ms"))

    def _on_block(self, response) -> None:
        self.requesting = False
        if isinstance(response, AllocateProducerIdsResponse) and response.error_code is Errors.NONE:
            self.next_block = (response.producer_id_start, response.producer_id_len)
