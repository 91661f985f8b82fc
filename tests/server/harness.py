"""Fakes and drivers for unit tests of the broker's managers, one manager at a time.

Each manager in ``minikafka.server`` takes the node and a few named collaborators, so a
test can build one alone: `FakeNode` is the package's runtime `Node` (real timers, outbox
and events) with the one extra attribute the managers read, and the `Fake*` peers answer
what the node sends as a scripted controller or partition leader would.  A harness owns
virtual time: ``tick(ms)`` delivers what the node sent, feeds the answers back (at
once, or when the fake peer says: a `FakeLeader` parks an empty Fetch for its max wait)
and runs every timer that falls due, in order, as a driver would.  `ControllerPeerHarness`
answers a node's requests with any function, for managers that only ask the controller
(ProducerIdManager); `broker_kafka_config` and the metadata record builders feed the managers
that read configs and images.  Tests of Partition, ReplicaManager and AlterPartitionManager
build their small fakes in their own files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any, Callable

from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.common.uuid import Uuid
from minikafka.controller.feature_control_manager import SUPPORTED_FEATURES_4_3
from minikafka.controller.requests import (BrokerHeartbeatRequest, BrokerHeartbeatResponse,
                                           BrokerRegistrationRequest, BrokerRegistrationResponse,
                                           Feature, Listener)
from minikafka.metadata.records import (BrokerEndpoint, BrokerRegistrationChangeRecord,
                                        PartitionRecord, RegisterBrokerRecord, TopicRecord)
from minikafka.record.memory_records import SimpleRecord, build_batch
from minikafka.record.record_batch import iter_batches
from minikafka.runtime.node import Envelope, Node
from minikafka.server.broker_lifecycle_manager import BrokerLifecycleManager, new_incarnation_id
from minikafka.server.fetch import FetchPartitionData, FetchPartitionRequest, FetchRequest, FetchResponse
from minikafka.server.replica_fetcher import (ReplicaFetcherConfig, ReplicaFetcherManager,
                                              ReplicationThrottle)
from minikafka.storage.log_config import LogConfig
from minikafka.storage.unified_log import UnifiedLog
from minikafka.common.timing import KAFKA

START = 1767225600000
CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"
CONTROLLER_ID = 3000
LEADER_ID = 1
# Fixed numbers for the tests (Kafka's defaults today), whatever the profiles become.
TIMING = KAFKA.with_overrides({
    "broker.heartbeat.interval.ms": 2000,
    "controller.quorum.request.timeout.ms": 2000,
    "replica.fetch.wait.max.ms": 500,
    "replica.fetch.backoff.ms": 1000,
    "replica.socket.timeout.ms": 30000,
}, name="server-tests")
LISTENERS = (Listener("PLAINTEXT", "localhost", 9092, 0),)
FEATURES = tuple(Feature(name, low, high) for name, (low, high) in sorted(SUPPORTED_FEATURES_4_3.items()))


class FakeNode(Node):
    """A runtime `Node` plus the metadata log end offset the incarnation id mixes in."""

    def __init__(self, node_id: int, metadata_end_offset: int = 0, seed: str = "test"):
        super().__init__(node_id, random.Random(f"{seed}:{node_id}"))
        self.metadata_log = SimpleNamespace(end_offset=metadata_end_offset)


def run_for(node: Node, ms: int, exchange: Callable[[], None]) -> None:
    """Advance ``node`` by ``ms``: let ``exchange`` answer its outbox, run due timers, repeat."""
    target = node.now + ms
    while True:
        exchange()
        deadline = node.next_deadline()
        if deadline is None or deadline > target:
            break
        node.poll(max(deadline, node.now))
    node.now = target
    exchange()


def answer(node: Node, envelope: Envelope, body: Any) -> None:
    node.deliver(Envelope(envelope.dst, envelope.src, body, envelope.correlation_id,
                          is_response=True), node.now)


def broker_kafka_config(**overrides: Any) -> KafkaConfig:
    """A broker's `KafkaConfig` with Kafka's defaults; ``offsets_topic_num_partitions=3`` sets
    ``offsets.topic.num.partitions``."""
    props = {"process.roles": "broker", "node.id": "1", "controller.listener.names": "CONTROLLER",
             "controller.quorum.voters": f"{CONTROLLER_ID}@localhost:9093"}
    props.update({name.replace("_", "."): value for name, value in overrides.items()})
    return KafkaConfig(props)


# ---------------------------------------------------------------------- metadata records
def registered_brokers(*broker_ids: int, listener: str = "PLAINTEXT") -> list:
    """Records that register and unfence ``broker_ids`` (epoch 10 + id, port 9090 + id)."""
    records: list = []
    for broker_id in broker_ids:
        records.append(RegisterBrokerRecord(
            broker_id=broker_id, broker_epoch=10 + broker_id, incarnation_id=Uuid(broker_id, 1),
            end_points=[BrokerEndpoint(listener, "localhost", 9090 + broker_id, 0)]))
        records.append(BrokerRegistrationChangeRecord(broker_id, 10 + broker_id, fenced=-1))
    return records


def topic_records(name: str, topic_id: Uuid, assignments: list[tuple[int, ...]]) -> list:
    """A TopicRecord and one PartitionRecord per assignment (first replica leads, epoch 0)."""
    records: list = [TopicRecord(name, topic_id)]
    records += [PartitionRecord(i, topic_id, replicas, replicas, leader=replicas[0],
                                leader_epoch=0, partition_epoch=0)
                for i, replicas in enumerate(assignments)]
    return records


# ---------------------------------------------------------------------- requests to the controller
class ControllerPeerHarness:
    """A `FakeNode` whose requests reach an active controller played by ``handle(body)``: it
    returns the response, or None to leave the request unanswered (it times out at the node)."""

    def __init__(self, handle: Callable[[Any], Any], broker_id: int = 1) -> None:
        self.node = FakeNode(broker_id)
        self.node.start(START)
        self.controller_id: int | None = CONTROLLER_ID    # what the raft observer says
        self.handle = handle
        self.received: list[Any] = []

    def tick(self, ms: int = 0) -> None:
        run_for(self.node, ms, self._exchange)

    def _exchange(self) -> None:
        envelopes, _ = self.node.drain()
        for envelope in envelopes:
            assert envelope.dst == self.controller_id, envelope
            self.received.append(envelope.body)
            response = self.handle(envelope.body)
            if response is not None:
                answer(self.node, envelope, response)


# ---------------------------------------------------------------------- the lifecycle manager
@dataclass
class FakeController:
    """The active controller, as far as one broker's registration and heartbeats see it.

    A broker is caught up once ``caught_up`` is set, unfenced when it is caught up and
    does not ask to stay fenced, and let go when it wants to shut down and
    ``grant_shutdown`` is set.  ``errors`` answer the next heartbeats with an error code;
    while ``silent``, requests get no answer (they time out at the node).
    """

    next_epoch: int = 10
    caught_up: bool = False
    grant_shutdown: bool = False
    silent: bool = False
    registration_error: Errors = Errors.NONE
    errors: list[Errors] = field(default_factory=list)
    received: list[Any] = field(default_factory=list)

    def handle(self, body: Any) -> Any:
        self.received.append(body)
        if isinstance(body, BrokerRegistrationRequest):
            if self.registration_error is not Errors.NONE:
                return BrokerRegistrationResponse(self.registration_error)
            self.next_epoch += 1
            return BrokerRegistrationResponse(Errors.NONE, self.next_epoch - 1)
        assert isinstance(body, BrokerHeartbeatRequest), body
        if self.errors:
            return BrokerHeartbeatResponse(self.errors.pop(0))
        return BrokerHeartbeatResponse(
            Errors.NONE, is_caught_up=self.caught_up,
            is_fenced=body.want_fence or not self.caught_up,
            should_shut_down=body.want_shut_down and self.grant_shutdown)

    def registrations(self) -> list[BrokerRegistrationRequest]:
        return [r for r in self.received if isinstance(r, BrokerRegistrationRequest)]

    def heartbeats(self) -> list[BrokerHeartbeatRequest]:
        return [r for r in self.received if isinstance(r, BrokerHeartbeatRequest)]


class LifecycleHarness:
    """One `BrokerLifecycleManager` on a `FakeNode`, talking to a `FakeController`."""

    def __init__(self, broker_id: int = 1, previous_broker_epoch: int = -1, rack: str | None = "r1"):
        self.node = FakeNode(broker_id)
        self.node.start(START)
        self.controller = FakeController()
        self.controller_id: int | None = CONTROLLER_ID    # what the raft observer says
        self.metadata_offset = 0
        self.directory_id = Uuid(broker_id, 1000 + broker_id)
        self.manager = BrokerLifecycleManager(
            self.node, broker_id=broker_id, cluster_id=CLUSTER_ID, timing=TIMING, rack=rack,
            directory_id=self.directory_id,
            incarnation_id=new_incarnation_id(self.node.rng, self.node.metadata_log.end_offset),
            active_controller_id=lambda: self.controller_id,
            metadata_offset=lambda: self.metadata_offset,
            registration_listeners=lambda: LISTENERS, supported_features=lambda: FEATURES,
            previous_broker_epoch=previous_broker_epoch,
            on_caught_up=self._caught_up, on_shutdown_granted=self._shutdown_granted)
        self.caught_up_calls = 0
        self.shutdown_calls = 0
        self.ready_on_catch_up = False                    # BrokerServer's wiring, when set
        self.events: list = []                            # what the node emitted, in order

    def _caught_up(self) -> None:
        self.caught_up_calls += 1
        if self.ready_on_catch_up:
            self.manager.set_ready_to_unfence()

    def _shutdown_granted(self) -> None:
        self.shutdown_calls += 1

    def emitted(self, kind: str) -> list:
        return [e for e in self.events if e.kind == kind]

    def tick(self, ms: int = 0) -> None:
        run_for(self.node, ms, self._exchange)

    def _exchange(self) -> None:
        envelopes, events = self.node.drain()
        self.events.extend(events)
        for envelope in envelopes:
            assert envelope.dst == self.controller_id, envelope
            response = self.controller.handle(envelope.body)
            if not self.controller.silent:
                answer(self.node, envelope, response)

    def start_until_running(self) -> None:
        """Register, catch up and unfence (as BrokerServer wires it)."""
        self.ready_on_catch_up = True
        self.controller.caught_up = True
        self.manager.start()
        self.tick(50)


# ---------------------------------------------------------------------- the replica fetcher
def stored_batch(base_offset: int, count: int, epoch: int, value: bytes = b"v" * 50) -> bytes:
    """A batch as a leader stores it: offsets and leader epoch stamped."""
    records = [SimpleRecord(value=value) for _ in range(count)]
    return build_batch(records, base_offset=base_offset, partition_leader_epoch=epoch)


def open_follower_log(tmp_path, tp: TopicPartition):
    return UnifiedLog.load(str(tmp_path / f"{tp.topic}-{tp.partition}"), LogConfig(), START)


@dataclass
class FollowerPartition:
    """What a fetcher reads of a hosted `Partition`: who leads, in which epoch, and the log."""

    topic_partition: TopicPartition
    log: Any
    leader_id: int = LEADER_ID
    leader_epoch: int = 1
    topic_id: Uuid = Uuid(5, 5)
    is_leader: bool = False


@dataclass
class LeaderPartition:
    """The leader's side of one partition: its stored batches and offsets, or scripted answers."""

    batches: list[bytes] = field(default_factory=list)
    high_watermark: int = 0
    log_start_offset: int = 0
    script: list[FetchPartitionData] = field(default_factory=list)   # answered first, in order

    def answer(self, part: FetchPartitionRequest) -> FetchPartitionData:
        if self.script:
            return replace(self.script.pop(0), topic=part.topic, partition=part.partition)
        wanted = b"".join(b for b in self.batches
                          if next(iter_batches(b)).base_offset >= part.fetch_offset)
        return FetchPartitionData(part.topic, part.partition, Errors.NONE, self.high_watermark,
                                  self.high_watermark, self.log_start_offset, wanted)


class FakeLeader:
    """A leader broker answering Fetch: at once when it has records or an error for a
    partition, otherwise after the request's ``max_wait_ms`` (it does not wake early);
    ``latency_ms`` more either way.  While ``silent`` it answers nothing."""

    def __init__(self) -> None:
        self.partitions: dict[TopicPartition, LeaderPartition] = {}
        self.received: list[tuple[int, FetchRequest]] = []     # (time, request)
        self.silent = False
        self.latency_ms = 0

    def handle(self, now: int, request: FetchRequest) -> tuple[int, FetchResponse] | None:
        self.received.append((now, request))
        if self.silent:
            return None
        data = tuple(self.partitions[TopicPartition(p.topic, p.partition)].answer(p)
                     for p in request.partitions)
        urgent = any(d.records or d.error is not Errors.NONE or d.diverging_epoch for d in data)
        at = now + self.latency_ms + (0 if urgent else request.max_wait_ms)
        return at, FetchResponse(data)

    def fetched(self, tp: TopicPartition) -> list[tuple[int, FetchPartitionRequest]]:
        """(time, partition request) for every fetch that asked for ``tp``."""
        return [(at, p) for at, r in self.received for p in r.partitions
                if (p.topic, p.partition) == (tp.topic, tp.partition)]


class ReplicationBytes:
    """Stands in for the broker's topic metrics: what the fetcher counted as ReplicationBytesIn."""

    def __init__(self) -> None:
        self.marked: list[tuple[int, int]] = []                 # (bytes, time)

    def replication_bytes_in(self, size_bytes: int, now: int) -> None:
        self.marked.append((size_bytes, now))


class FetcherHarness:
    """A `ReplicaFetcherManager` on broker 2's `FakeNode`, fetching from a `FakeLeader` (1)."""

    def __init__(self, tmp_path, broker_id: int = 2, config: ReplicaFetcherConfig | None = None):
        self.tmp_path = tmp_path
        self.node = FakeNode(broker_id)
        self.node.start(START)
        self.leader = FakeLeader()
        self.hosted: dict[TopicPartition, FollowerPartition] = {}
        self.stats = ReplicationBytes()
        self.broker_epoch = 7
        self.broker_config: dict[str, str] = {}
        self.topic_configs: dict[str, dict[str, str]] = {}
        self.throttle = ReplicationThrottle(
            broker_id, self.broker_config.get,
            lambda topic, name: self.topic_configs.get(topic, {}).get(name))
        self.config = config or ReplicaFetcherConfig.from_broker(TIMING, lambda name, default: default)
        self.manager = ReplicaFetcherManager(
            self.node, broker_id=broker_id, broker_epoch=lambda: self.broker_epoch,
            config=self.config, partitions=self.hosted, topic_stats=self.stats,
            throttle=self.throttle)
        self._answers: list[tuple[int, int, Envelope, FetchResponse]] = []   # (at, seq, to, body)
        self._seq = 0

    def follow(self, tp: TopicPartition, leader_epoch: int = 1, **leader) -> FollowerPartition:
        """Host ``tp`` as a follower of the fake leader, and start fetching it."""
        self.leader.partitions[tp] = LeaderPartition(**leader)
        partition = FollowerPartition(tp, open_follower_log(self.tmp_path, tp),
                                      leader_epoch=leader_epoch)
        self.hosted[tp] = partition
        self.manager.add(partition)
        return partition

    def tick(self, ms: int = 0) -> None:
        """Advance virtual time by ``ms``, delivering answers and running timers as they fall due."""
        target = self.node.now + ms
        while True:
            self._send()
            due = [d for d in (self.node.next_deadline(),
                               self._answers[0][0] if self._answers else None) if d is not None]
            if not due or min(due) > target:
                break
            at = max(min(due), self.node.now)
            if self._answers and self._answers[0][0] <= at:
                _, _, envelope, body = self._answers.pop(0)
                self.node.now = at
                answer(self.node, envelope, body)
            else:
                self.node.poll(at)
        self.node.now = target

    def _send(self) -> None:
        envelopes, _ = self.node.drain()
        for envelope in envelopes:
            assert envelope.dst == LEADER_ID, envelope
            answered = self.leader.handle(self.node.now, envelope.body)
            if answered is not None:
                self._seq += 1
                self._answers.append((answered[0], self._seq, envelope, answered[1]))
                self._answers.sort(key=lambda a: (a[0], a[1]))
