"""AlterPartitionManager alone: batching, one request in flight, epochs, and results.

The manager runs on a `FakeNode`; each test plays the controller by hand, answering
the envelopes the node sent (tests/server/harness.py).
"""

from types import SimpleNamespace

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.controller.requests import (AlterPartitionPartitionResult, AlterPartitionRequest,
                                           AlterPartitionResponse, AlterPartitionTopicResult,
                                           BrokerState)
from minikafka.server.alter_partition_manager import AlterPartitionManager
from tests.server.harness import CONTROLLER_ID, START, TIMING, FakeNode, answer

ORDERS = Uuid(9, 1)
EPOCHS = {1: 21, 2: 22, 3: 23}               # broker epochs in the metadata image


class Harness:
    def __init__(self):
        self.node = FakeNode(1)
        self.node.start(START)
        self.controller_id = CONTROLLER_ID
        self.manager = AlterPartitionManager(
            self.node, broker_id=1, timing=TIMING, active_controller_id=lambda: self.controller_id,
            broker_epoch=lambda: 21, broker_epoch_of=EPOCHS.__getitem__)
        self.results: dict[int, list] = {}

    def submit(self, index: int, isr: tuple[int, ...], leader_epoch: int = 4, partition_epoch: int = 6):
        partition = SimpleNamespace(topic_partition=TopicPartition("orders", index), topic_id=ORDERS,
                                    leader_epoch=leader_epoch, partition_epoch=partition_epoch)
        self.manager.submit(partition, isr, self.results.setdefault(index, []).append)

    def sent(self):
        envelopes, _ = self.node.drain()
        return envelopes


def result(index: int, isr: tuple[int, ...], error=Errors.NONE) -> AlterPartitionPartitionResult:
    return AlterPartitionPartitionResult(index, error, 1, 4, isr, 0, 7)


def test_one_request_carries_the_queue_with_every_members_broker_epoch():
    h = Harness()
    h.submit(0, (1, 2))
    (first,) = h.sent()
    assert first.dst == CONTROLLER_ID
    request = first.body
    assert isinstance(request, AlterPartitionRequest) and (request.broker_id, request.broker_epoch) == (1, 21)
    (topic,) = request.topics
    (data,) = topic.partitions
    assert (topic.topic_id, data.partition_index, data.leader_epoch, data.partition_epoch) == (ORDERS, 0, 4, 6)
    assert data.new_isr_with_epochs == (BrokerState(1, 21), BrokerState(2, 22))
    h.submit(1, (1, 3))                          # while one is in flight: queued
    h.submit(2, (1,))
    assert h.sent() == []
    answer(h.node, first, AlterPartitionResponse((AlterPartitionTopicResult(ORDERS, (result(0, (1, 2)),)),)))
    assert h.results[0] == [(Errors.NONE, 1, 4, (1, 2), 7)]
    (second,) = h.sent()                         # the queue goes in the next request, in order
    assert [p.partition_index for p in second.body.topics[0].partitions] == [1, 2]


def test_each_partition_gets_its_own_result_and_a_failed_request_gives_none():
    h = Harness()
    h.submit(0, (1, 2))
    (first,) = h.sent()
    h.submit(1, (1, 3))
    h.submit(2, (1, 2, 3))
    answer(h.node, first, AlterPartitionResponse(error_code=Errors.NOT_CONTROLLER))
    assert h.results[0] == [None]
    (second,) = h.sent()
    answer(h.node, second, AlterPartitionResponse((AlterPartitionTopicResult(ORDERS, (
        result(2, (1, 2, 3)), result(1, (), Errors.FENCED_LEADER_EPOCH))),)))
    assert h.results[1] == [(Errors.FENCED_LEADER_EPOCH, 1, 4, (), 7)]
    assert h.results[2] == [(Errors.NONE, 1, 4, (1, 2, 3), 7)]


def test_a_timed_out_request_gives_none_and_frees_the_channel():
    h = Harness()
    h.submit(0, (1, 2))
    (first,) = h.sent()
    h.submit(1, (1,))
    h.node.poll(START + TIMING.ms("controller.quorum.request.timeout.ms"))
    assert h.results[0] == [None]
    (second,) = h.sent()
    assert second.body.topics[0].partitions[0].partition_index == 1


def test_without_a_known_controller_it_looks_again_every_50_ms():
    h = Harness()
    h.controller_id = None
    h.submit(0, (1, 2))
    h.node.poll(START + 49)
    assert h.sent() == []
    h.controller_id = CONTROLLER_ID
    h.node.poll(START + 50)
    (first,) = h.sent()
    assert first.body.topics[0].partitions[0].partition_index == 0
