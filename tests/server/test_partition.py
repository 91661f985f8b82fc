"""Partition alone, as a leader: ISR changes, the high watermark, min.insync.replicas.

The partition's host is a `FakeHost` standing in for the ReplicaManager (it records the
AlterPartition changes the leader proposes and the events it notes); the log is real.
"""

import pytest

from minikafka.common.errors import Errors, NotEnoughReplicasException
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.partition_registration import PartitionRegistration
from minikafka.record.memory_records import SimpleRecord, build_batch
from minikafka.server.fetch import FetchPartitionRequest
from minikafka.server.partition import Partition
from minikafka.storage.fetch_data_info import FetchIsolation
from minikafka.storage.log_config import LogConfig
from minikafka.storage.unified_log import UnifiedLog
from tests.server.harness import START

TP = TopicPartition("orders", 0)
TOPIC_ID = Uuid(9, 9)
LAG_MS = 30000


class FakeHost:
    """The ReplicaManager as a `Partition` sees it: broker 1, a clock, one log directory."""

    def __init__(self, tmp_path, min_isr: int = 1):
        self.broker_id = 1
        self.isr_meters = None
        self.now = START
        self.tmp_path = tmp_path
        self.config = LogConfig(min_insync_replicas=min_isr)
        self.alive = {1, 2, 3}
        self.alter_requests: list[tuple[tuple[int, ...], object]] = []   # (new ISR, callback)
        self.hw_moves = 0
        self.events: list[tuple[str, str, dict]] = []

    def get_or_create_log(self, partition, now):
        if partition.log is None:
            partition.log = UnifiedLog.load(str(self.tmp_path / "orders-0"), self.config, now)
        return partition.log

    def is_broker_alive(self, broker_id):
        return broker_id in self.alive

    def is_replica_isr_eligible(self, broker_id, broker_epoch):
        return broker_id in self.alive

    def alter_partition(self, partition, new_isr, callback):
        self.alter_requests.append((new_isr, callback))

    def on_high_watermark_advanced(self, partition):
        self.hw_moves += 1

    def emit(self, kind, text, **data):
        self.events.append((kind, text, data))


def registration(isr, leader=1, leader_epoch=3, partition_epoch=5, replicas=(1, 2, 3)):
    return PartitionRegistration(replicas=replicas, directories=(), isr=isr, removing_replicas=(),
                                 adding_replicas=(), leader=leader, leader_recovery_state=0,
                                 leader_epoch=leader_epoch, partition_epoch=partition_epoch)


def leader(tmp_path, isr=(1, 2, 3), min_isr=1):
    host = FakeHost(tmp_path, min_isr)
    partition = Partition(TP, host)
    assert partition.make_leader(registration(isr), TOPIC_ID, host.now)
    return host, partition


def produce(partition, host, count=3, acks=-1):
    records = build_batch([SimpleRecord(value=b"v") for _ in range(count)])
    return partition.append_records_to_leader(records, acks, host.now)


def follower_fetch(partition, host, replica, offset):
    request = FetchPartitionRequest(TP.topic, TP.partition, offset, 1 << 20, current_leader_epoch=3,
                                    log_start_offset=0)
    return partition.fetch_records(request, replica, 40 + replica, FetchIsolation.LOG_END, 1 << 20,
                                   True, host.now)


def test_a_new_leader_epoch_starts_at_the_log_end_and_tracks_every_follower(tmp_path):
    host, partition = leader(tmp_path)
    assert partition.is_leader and partition.leader_epoch == 3
    assert partition.leader_epoch_start_offset == 0 and set(partition.remote) == {2, 3}
    assert not partition.make_leader(registration((1, 2, 3)), TOPIC_ID, host.now)   # same epoch


def test_the_high_watermark_is_the_smallest_log_end_in_the_isr(tmp_path):
    host, partition = leader(tmp_path)
    produce(partition, host, 3)
    assert partition.high_watermark == 0
    follower_fetch(partition, host, 2, 3)
    follower_fetch(partition, host, 3, 1)
    assert partition.high_watermark == 1
    follower_fetch(partition, host, 3, 3)
    assert partition.high_watermark == 3 and host.hw_moves == 2


def test_acks_all_is_refused_up_front_below_min_insync_replicas(tmp_path):
    host, partition = leader(tmp_path, isr=(1,), min_isr=2)
    with pytest.raises(NotEnoughReplicasException) as refused:
        produce(partition, host)
    assert str(refused.value.message) == ("The size of the current ISR : 1 is insufficient to satisfy the "
                                          "min.isr requirement of 2 for partition orders-0, live replica(s) "
                                          "broker.id are : Set(1)")
    produce(partition, host, acks=1)                  # acks=1 is written, but not committed:
    assert (partition.log_end_offset, partition.high_watermark) == (3, 0)


def test_a_caught_up_follower_is_proposed_for_the_isr_and_counts_while_pending(tmp_path):
    host, partition = leader(tmp_path, isr=(1, 2))
    produce(partition, host, 2)
    follower_fetch(partition, host, 2, 2)
    follower_fetch(partition, host, 3, 1)             # below the high watermark: not yet
    assert partition.high_watermark == 2 and host.alter_requests == []
    follower_fetch(partition, host, 3, 2)             # reached the high watermark
    (new_isr, answer), = host.alter_requests
    assert new_isr == (1, 2, 3) and partition.maximal_isr == (1, 2, 3)
    kind, text, data = host.events[-1]
    assert kind == "isr_expand" and text.startswith(
        "[Partition orders-0 broker=1] Expanding ISR from 1,2 to 1,2,3")
    produce(partition, host, 1)
    follower_fetch(partition, host, 2, 3)
    assert partition.high_watermark == 2              # waits for the pending member too
    answer((Errors.NONE, 1, 3, (1, 2, 3), 6))
    assert (partition.isr, partition.partition_epoch, partition.pending) == ((1, 2, 3), 6, None)


def test_a_lagging_follower_is_proposed_out_of_the_isr(tmp_path):
    host, partition = leader(tmp_path)
    produce(partition, host, 2)
    follower_fetch(partition, host, 2, 2)
    host.now += LAG_MS + 1                            # follower 3 never fetched
    partition.maybe_shrink_isr(host.now, LAG_MS)
    (new_isr, answer), = host.alter_requests
    assert new_isr == (1, 2)
    kind, text, data = host.events[-1]
    assert kind == "isr_shrink" and data["out_of_sync"] == [3]
    assert "Shrinking ISR from 1,2,3 to 1,2" in text
    answer(None)                                      # timed out: forgotten, proposed again later
    assert partition.pending is None and partition.isr == (1, 2, 3)


def test_an_answer_for_an_older_partition_epoch_is_ignored(tmp_path):
    host, partition = leader(tmp_path)
    host.now += LAG_MS + 1
    partition.maybe_shrink_isr(host.now, LAG_MS)
    (_, answer), = host.alter_requests
    partition.make_leader(registration((1, 2), partition_epoch=6), TOPIC_ID, host.now)
    answer((Errors.NONE, 1, 3, (1,), 7))
    assert (partition.isr, partition.partition_epoch) == ((1, 2), 6)
