"""ProducerIdManager alone: blocks from the controller, ids in order, prefetch and refetch.

The manager runs on a `FakeNode`; a scripted controller (`ControllerPeerHarness`) hands
out blocks of ``LENGTH`` ids, each after the last, as the controller's ProducerIdsRecord
makes them.
"""

from minikafka.common.errors import Errors
from minikafka.controller.requests import AllocateProducerIdsRequest, AllocateProducerIdsResponse
from minikafka.server.producer_id_manager import ProducerIdManager
from tests.server.harness import TIMING, ControllerPeerHarness

LENGTH = 10


class BlockAllocator:
    """The controller's side: consecutive blocks, or an error while ``error`` is set."""

    def __init__(self, first: int = 5000) -> None:
        self.next_start = first
        self.error = Errors.NONE
        self.silent = False

    def handle(self, body) -> AllocateProducerIdsResponse | None:
        assert isinstance(body, AllocateProducerIdsRequest), body
        if self.silent:
            return None
        if self.error is not Errors.NONE:
            return AllocateProducerIdsResponse(self.error)
        start, self.next_start = self.next_start, self.next_start + LENGTH
        return AllocateProducerIdsResponse(Errors.NONE, start, LENGTH)


def harness(broker_id: int = 2, broker_epoch: int = 17):
    allocator = BlockAllocator()
    h = ControllerPeerHarness(allocator.handle, broker_id=broker_id)
    manager = ProducerIdManager(h.node, broker_id=broker_id, timing=TIMING,
                                active_controller_id=lambda: h.controller_id,
                                broker_epoch=lambda: broker_epoch)
    return h, allocator, manager


def generate(manager) -> tuple[Errors, int]:
    answers = []
    manager.generate(lambda error, producer_id: answers.append((error, producer_id)))
    assert len(answers) == 1                  # always answered at once
    return answers[0]


def test_the_first_request_asks_the_controller_and_is_told_to_retry():
    h, _, manager = harness(broker_id=2, broker_epoch=17)
    assert generate(manager) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, -1)
    h.tick(0)
    assert h.received == [AllocateProducerIdsRequest(2, 17)]
    assert generate(manager) == (Errors.NONE, 5000)


def test_ids_come_out_in_order_and_the_next_block_follows_the_last():
    h, _, manager = harness()
    generate(manager)
    h.tick(0)
    ids = []
    for _ in range(2 * LENGTH):
        error, producer_id = generate(manager)
        assert error is Errors.NONE
        ids.append(producer_id)
        h.tick(0)                             # the prefetch is answered before the block runs out
    assert ids == list(range(5000, 5000 + 2 * LENGTH))
    assert len(h.received) == 3               # the first block, then one prefetch per block


def test_the_next_block_is_asked_for_when_nine_tenths_are_used():
    h, _, manager = harness()
    generate(manager)
    h.tick(0)
    for _ in range(8):
        generate(manager)
    h.tick(0)
    assert len(h.received) == 1               # 8 of 10 used: not yet
    generate(manager)
    h.tick(0)
    assert len(h.received) == 2               # the 9th id crosses 90%


def test_a_block_that_runs_out_before_the_next_arrives_means_retry():
    h, allocator, manager = harness()
    generate(manager)
    h.tick(0)
    allocator.silent = True                   # the prefetch gets no answer
    ids = [generate(manager)[1] for _ in range(LENGTH)]
    assert ids == list(range(5000, 5000 + LENGTH))
    assert generate(manager) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, -1)
    h.tick(0)
    assert len(h.received) == 2               # one request in flight at a time


def test_a_refused_or_timed_out_request_is_asked_again_by_the_next_call():
    h, allocator, manager = harness()
    allocator.error = Errors.STALE_BROKER_EPOCH
    assert generate(manager) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, -1)
    h.tick(0)
    assert generate(manager) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, -1)
    allocator.error, allocator.silent = Errors.NONE, True
    h.tick(0)
    assert len(h.received) == 2
    h.tick(TIMING.ms("controller.quorum.request.timeout.ms"))   # the request times out
    allocator.silent = False
    assert generate(manager) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, -1)
    h.tick(0)
    assert len(h.received) == 3
    assert generate(manager) == (Errors.NONE, 5000)


def test_without_a_known_controller_it_looks_again_every_50_ms():
    h, _, manager = harness()
    h.controller_id = None
    generate(manager)
    h.tick(500)
    assert h.received == []
    h.controller_id = 3000
    h.tick(50)
    assert len(h.received) == 1
    assert generate(manager) == (Errors.NONE, 5000)
