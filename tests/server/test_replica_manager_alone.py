"""ReplicaManager alone: metadata deltas, its collaborators, and the ISR expiration task.

The manager runs on a `FakeNode` with a real `LogManager` in a temporary directory;
the broker's metadata, the leadership listener, the AlterPartition channel and the
fetcher manager are fakes that record what they were told.  (test_replica_manager.py
tests the produce and fetch paths on a whole simulated cluster.)
"""

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.metadata.partition_registration import PartitionRegistration
from minikafka.metadata.topics_delta import LocalReplicaChanges, PartitionInfo
from minikafka.metrics.broker_topic_stats import BrokerTopicStats
from minikafka.metrics.metrics_registry import MetricsRegistry
from minikafka.record.memory_records import SimpleRecord, build_batch
from minikafka.server.replica_manager import ReplicaManager
from minikafka.storage.log_config import LogConfig
from minikafka.storage.log_manager import LogManager
from tests.server.harness import START, TIMING, FakeNode

TP = TopicPartition("orders", 0)
TOPIC_ID = Uuid(9, 9)
LAG_MS = TIMING.ms("replica.lag.time.max.ms")


class FakeMetadata:
    """The broker's metadata image, as the replica manager asks it."""

    def __init__(self):
        self.topics = {"orders"}
        self.fenced: set[int] = set()

    def partition_exists(self, tp):
        return tp.topic in self.topics

    def is_broker_isr_eligible(self, broker_id, broker_epoch):
        return broker_id not in self.fenced

    def is_broker_fenced(self, broker_id):
        return broker_id in self.fenced

    def log_config_for(self, topic):
        return LogConfig(min_insync_replicas=2)


class Recorder:
    """Leadership listener and fetcher manager in one: remembers every call, in order."""

    def __init__(self):
        self.calls: list[tuple] = []
        self.fetching: set[TopicPartition] = set()

    def on_became_leader(self, partition):
        self.calls.append(("lead", partition.topic_partition))

    def on_resigned_leader(self, partition):
        self.calls.append(("resign", partition.topic_partition))

    def add(self, partition):
        self.calls.append(("fetch", partition.topic_partition, partition.leader_id))
        self.fetching.add(partition.topic_partition)

    def remove(self, tp):
        self.fetching.discard(tp)

    def is_fetching(self, tp):
        return tp in self.fetching

    def remove_all(self):
        self.fetching.clear()


class Harness:
    def __init__(self, tmp_path):
        self.node = FakeNode(1)
        self.node.start(START)
        self.log_manager = LogManager(str(tmp_path), LogConfig(), timing=TIMING, rng=self.node.rng,
                                      emit=self.node.emit)
        self.log_manager.startup(START)
        self.metadata = FakeMetadata()
        self.recorder = Recorder()
        self.alter_requests: list[tuple] = []
        self.manager = ReplicaManager(
            self.node, broker_id=1, log_manager=self.log_manager, timing=TIMING,
            topic_stats=BrokerTopicStats(MetricsRegistry(lambda: self.node.now)),
            metadata=self.metadata, log_config_for=self.metadata.log_config_for,
            on_became_leader=self.recorder.on_became_leader,
            on_resigned_leader=self.recorder.on_resigned_leader,
            alter_partition=lambda p, isr, callback: self.alter_requests.append((p.topic_partition, isr)),
            partitions={}, fetcher_manager=self.recorder, isr_meters=None)
        self.manager.start()

    def apply(self, leader, leader_epoch, partition_epoch, isr=(1, 2, 3), deletes=()):
        info = PartitionInfo(TOPIC_ID, PartitionRegistration(
            replicas=(1, 2, 3), directories=(), isr=isr, removing_replicas=(), adding_replicas=(),
            leader=leader, leader_recovery_state=0, leader_epoch=leader_epoch,
            partition_epoch=partition_epoch))
        changes = LocalReplicaChanges(deletes=deletes, leaders={TP: info} if leader == 1 else {},
                                      followers={} if leader == 1 or deletes else {TP: info})
        self.manager.apply_delta(changes, None)


def test_leading_creates_the_log_with_the_topics_config_and_tells_the_listener(tmp_path):
    h = Harness(tmp_path)
    h.apply(leader=1, leader_epoch=0, partition_epoch=0)
    partition = h.manager.partitions[TP]
    assert partition.is_leader and h.recorder.calls == [("lead", TP)]
    assert h.log_manager.get_log(TP) is partition.log
    assert partition.log.config.min_insync_replicas == 2        # from metadata.log_config_for


def test_following_a_new_leader_resigns_and_starts_one_fetch(tmp_path):
    h = Harness(tmp_path)
    h.apply(leader=1, leader_epoch=0, partition_epoch=0)
    h.apply(leader=2, leader_epoch=1, partition_epoch=1)
    assert h.recorder.calls == [("lead", TP), ("resign", TP), ("fetch", TP, 2)]
    h.apply(leader=2, leader_epoch=1, partition_epoch=2, isr=(1, 2))   # ISR change only
    assert h.recorder.calls[-1] == ("fetch", TP, 2) and len(h.recorder.calls) == 3


def test_a_deleted_replica_stops_and_its_log_goes(tmp_path):
    h = Harness(tmp_path)
    h.apply(leader=1, leader_epoch=0, partition_epoch=0)
    h.manager.apply_delta(LocalReplicaChanges(deletes=(TP,)), None)
    assert TP not in h.manager.partitions and h.recorder.calls[-1] == ("resign", TP)
    assert h.log_manager.get_log(TP) is None


def test_an_append_to_a_partition_not_hosted_here_says_whether_the_topic_exists(tmp_path):
    h = Harness(tmp_path)
    other = TopicPartition("payments", 0)
    results = []
    records = build_batch([SimpleRecord(value=b"v")])
    h.manager.append_records(1, 1000, {TP: records, other: records}, results.append)
    (answer,) = results
    assert answer[TP].error is Errors.NOT_LEADER_OR_FOLLOWER                  # exists elsewhere
    assert answer[other].error is Errors.UNKNOWN_TOPIC_OR_PARTITION


def test_the_isr_expiration_task_proposes_to_drop_lagging_followers(tmp_path):
    h = Harness(tmp_path)
    h.apply(leader=1, leader_epoch=0, partition_epoch=0)
    assert h.node.next_deadline() == START + LAG_MS // 2   # every replica.lag.time.max.ms / 2
    h.node.poll(START + LAG_MS // 2)
    assert h.alter_requests == [] and h.node.next_deadline() == START + LAG_MS
    h.node.poll(START + 3 * LAG_MS // 2)              # followers 2 and 3 never fetched
    assert h.alter_requests == [(TP, (1,))]


def test_a_fenced_follower_does_not_hold_back_the_low_watermark(tmp_path):
    h = Harness(tmp_path)
    h.apply(leader=1, leader_epoch=0, partition_epoch=0)
    partition = h.manager.partitions[TP]
    partition.remote[2].log_start_offset = 0
    partition.log.append_as_leader(build_batch([SimpleRecord(value=b"v")] * 3), 0, START)
    partition.log.maybe_increment_high_watermark(3)
    partition.log.maybe_increment_log_start_offset(2, "ClientRecordDeletion")
    partition.remote[3].log_start_offset = 2
    assert partition.low_watermark_if_leader() == 0
    h.metadata.fenced.add(2)                          # ReplicaManager.is_broker_alive asks the image
    assert partition.low_watermark_if_leader() == 2
