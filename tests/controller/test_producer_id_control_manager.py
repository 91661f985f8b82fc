from minikafka.common.errors import Errors
from minikafka.controller.requests import AllocateProducerIdsRequest
from minikafka.metadata.records import ProducerIdsRecord

from tests.controller.harness import ControllerHarness


def test_blocks_of_1000_starting_at_zero_recorded_in_the_log():
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1, 2)
    first = h.request(AllocateProducerIdsRequest(1, h.epochs[1]))
    second = h.request(AllocateProducerIdsRequest(2, h.epochs[2]))
    assert (first.producer_id_start, first.producer_id_len) == (0, 1000)
    assert (second.producer_id_start, second.producer_id_len) == (1000, 1000)
    records = [r for r in h.raft.all_records() if isinstance(r, ProducerIdsRecord)]
    assert records == [ProducerIdsRecord(broker_id=1, broker_epoch=h.epochs[1], next_producer_id=1000),
                       ProducerIdsRecord(broker_id=2, broker_epoch=h.epochs[2], next_producer_id=2000)]
    assert h.controller.committed_image.producer_ids.next_producer_id == 2000


def test_stale_broker_epoch_is_refused():
    h = ControllerHarness()
    h.activate()
    h.start_brokers(1)
    assert h.request(AllocateProducerIdsRequest(1, h.epochs[1] + 5)).error_code is Errors.STALE_BROKER_EPOCH
