"""Followers pull: one `ReplicaFetcher` per leader broker, managed by `ReplicaFetcherManager`.

Theory of operation
-------------------
A follower replica never receives pushes; its broker keeps asking each
leader broker "anything after offset N for these partitions?".  One fetcher
serves every partition led by the same broker, with one Fetch in flight at a
time.  The leader parks the request for up to ``replica.fetch.wait.max.ms``
when it has nothing new, so an idle pair exchanges about two requests a
second and a new record reaches the followers almost at once.

Each Fetch carries, per partition, the follower's log end offset
(``fetch_offset``), the epoch of its last batch (``last_fetched_epoch``) and
the leader epoch it believes current.  The answer is one of:

* records: appended to the local log exactly as they are; the follower's
  high watermark becomes min(leader HW, own log end offset);
* a diverging epoch: the follower's log has a tail the new leader never had
  (it was written by an old leader and never committed).  The follower
  truncates to where the epochs agree (Kafka's rule: the smaller of the
  leader's and its own end offset for that epoch) and fetches again;
* OFFSET_OUT_OF_RANGE: the follower is behind the leader's log start
  (retention deleted what it needs): it empties its log and restarts there;
* a leadership error: the partition waits ``replica.fetch.backoff.ms`` and the
  next metadata update points it at the right leader.

Reassignment throttling: partitions listed in the topic's
``follower.replication.throttled.replicas`` fetch no more than the broker's
``follower.replication.throttled.rate`` bytes per second.  As Kafka's
replication quota (a ``SimpleRate``), the rate is the bytes fetched in the
last ``replication.quota.window.num`` (11) windows of
``replication.quota.window.size.seconds`` (1 s), divided by the time since
the oldest of them (at least one window): one large first fetch keeps a
throttled partition waiting for up to 11 s, not 1 s.  A partition that the
last fetch left caught up with the leader's high watermark is in sync and
fetches unthrottled, so the move's last step is not held back (Kafka's
``PartitionFetchState.isReplicaInSync``).

What they depend on, all passed in by `BrokerServer`: the node (``now``,
``schedule``, ``send_request``), the broker id and a way to read its current
broker epoch, the fetch settings (`ReplicaFetcherConfig`, read once), the
`ReplicaManager`'s map of hosted partitions (a fetcher reads each partition's
leader epoch and log and writes to the log), the broker's topic metrics
(ReplicationBytesInPerSec) and a `ReplicationThrottle`, which reads the
throttle settings from the current metadata image.

Mirrors ``kafka.server.ReplicaFetcherManager``, ``AbstractFetcherThread`` and
``ReplicaFetcherThread``; `ReplicationThrottle` plays the follower side of
``ReplicationQuotaManager``.  Simplified: no fetch sessions, one fetcher per
leader (``num.replica.fetchers=1``), and each fetcher measures its own
throttled bytes (Kafka shares one quota among a broker's fetchers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable, Mapping, Protocol

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.runtime.node import RequestTimedOut
from minikafka.server.fetch import FetchPartitionRequest, FetchRequest, FetchResponse

if TYPE_CHECKING:
    from minikafka.metrics.broker_topic_stats import BrokerTopicStats
    from minikafka.server.partition import Partition
    from minikafka.common.timing import TimingProfile


class FetcherNode(Protocol):
    """The parts of the node a fetcher uses (`KafkaNode` has them all)."""

    now: int

    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None: ...

    def send_request(self, dst: int, body: Any, callback: Callable[[Any], None],
                     timeout_ms: int) -> int: ...


@dataclass(frozen=True)
class ReplicaFetcherConfig:
    """The follower's fetch settings, read once when the broker starts."""

    max_wait_ms: int                       # replica.fetch.wait.max.ms
    backoff_ms: int                        # replica.fetch.backoff.ms
    request_timeout_ms: int                # replica.socket.timeout.ms
    partition_max_bytes: int = 1048576     # replica.fetch.max.bytes
    response_max_bytes: int = 10485760     # replica.fetch.response.max.bytes
    quota_samples: int = 11                # replication.quota.window.num
    quota_window_ms: int = 1000            # replication.quota.window.size.seconds, in ms

    @classmethod
    def from_broker(cls, timing: "TimingProfile",
                    config_int: Callable[[str, int], int]) -> "ReplicaFetcherConfig":
        """Timeouts from the timing profile, sizes and quota windows from the broker's config."""
        return cls(timing.ms("replica.fetch.wait.max.ms"), timing.ms("replica.fetch.backoff.ms"),
                   timing.ms("replica.socket.timeout.ms"),
                   config_int("replica.fetch.max.bytes", 1048576),
                   config_int("replica.fetch.response.max.bytes", 10485760),
                   config_int("replication.quota.window.num", 11),
                   1000 * config_int("replication.quota.window.size.seconds", 1))


class ReplicationThrottle:
    """Which of this broker's follower partitions are throttled, and at what rate.

    Both settings are dynamic, so they are read from the current metadata at every use:
    the broker's ``follower.replication.throttled.rate`` and each topic's
    ``follower.replication.throttled.replicas`` (``partition:broker`` pairs, or ``*``).
    """

    def __init__(self, broker_id: int, dynamic_broker_config: Callable[[str], str | None],
                 topic_config_value: Callable[[str, str], str | None]):
        self.broker_id = broker_id
        self.dynamic_broker_config = dynamic_broker_config   # (name) -> value, this broker's first
        self.topic_config_value = topic_config_value         # (topic, name) -> override or None

    def rate(self) -> int | None:
        """Bytes per second, or None when unthrottled (unset, or Long.MAX_VALUE as Kafka's default)."""
        value = self.dynamic_broker_config("follower.replication.throttled.rate")
        return int(value) if value not in (None, "") and int(value) < 2**63 - 1 else None

    def is_throttled(self, tp: TopicPartition) -> bool:
        replicas = self.topic_config_value(tp.topic, "follower.replication.throttled.replicas")
        if not replicas:
            return False
        if replicas.strip() == "*":
            return True
        wanted = f"{tp.partition}:{self.broker_id}"
        return wanted in {item.strip() for item in replicas.split(",")}

    def throttled_partitions(self, tps: list[TopicPartition]) -> set[TopicPartition]:
        if self.rate() is None:
            return set()
        return {tp for tp in tps if self.is_throttled(tp)}


@dataclass
class PartitionFetchState:
    leader_epoch: int            # the leader epoch this fetch state belongs to
    delayed_until: int = 0       # back off after an error until this time
    lag: int | None = None       # the leader's high watermark minus our log end, after the last fetch

    @property
    def in_sync(self) -> bool:
        """Caught up with the leader at the last fetch: the throttle no longer holds it back."""
        return self.lag is not None and self.lag <= 0


class ReplicaFetcher:
    """Fetches from one leader broker (Kafka's ``ReplicaFetcherThread``)."""

    def __init__(self, node: FetcherNode, leader_id: int, *, broker_id: int,
                 broker_epoch: Callable[[], int], config: ReplicaFetcherConfig,
                 partitions: Mapping[TopicPartition, "Partition"], topic_stats: "BrokerTopicStats",
                 throttle: ReplicationThrottle):
        self.node = node
        self.leader_id = leader_id
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch              # this broker's current epoch, sent in every Fetch
        self.config = config
        self.hosted = partitions                      # the ReplicaManager's live map
        self.topic_stats = topic_stats
        self.throttle = throttle
        self.partitions: dict[TopicPartition, PartitionFetchState] = {}
        self.in_flight = False               # one Fetch at a time per leader
        self.throttle_window: list[tuple[int, int]] = []   # (time, bytes) of throttled data

    def add(self, partition: "Partition") -> None:
        self.partitions[partition.topic_partition] = PartitionFetchState(partition.leader_epoch)
        self.maybe_fetch()

    def remove(self, tp: TopicPartition) -> None:
        self.partitions.pop(tp, None)

    # ------------------------------------------------------------------ requests
    def maybe_fetch(self) -> None:
        if self.in_flight or not self.partitions:
            return
        now = self.node.now
        ready = [tp for tp, st in self.partitions.items() if st.delayed_until <= now]
        if not ready:
            wake = min(st.delayed_until for st in self.partitions.values())
            self.node.schedule(("fetcher", self.leader_id), wake, self.maybe_fetch)
            return
        throttled = self.throttle.throttled_partitions(
            [tp for tp in ready if not self.partitions[tp].in_sync])
        if throttled and self._over_quota(now):
            ready = [tp for tp in ready if tp not in throttled]
            if not ready:
                self.node.schedule(("fetcher", self.leader_id), now + 100, self.maybe_fetch)
                return
        request = self._build_request(ready)
        if request is None:
            return
        self.in_flight = True
        self.node.send_request(self.leader_id, request, self._on_response,
                               self.config.request_timeout_ms)

    def _build_request(self, ready: list[TopicPartition]) -> FetchRequest | None:
        partitions = []
        for tp in ready:
            partition = self.hosted.get(tp)
            if partition is None or partition.log is None:
                continue
            log = partition.log
            latest = log.latest_epoch()
            partitions.append(FetchPartitionRequest(
                tp.topic, tp.partition, log.log_end_offset, self.config.partition_max_bytes,
                current_leader_epoch=partition.leader_epoch,
                last_fetched_epoch=latest if latest is not None else -1,
                log_start_offset=log.log_start_offset, topic_id=partition.topic_id))
        if not partitions:
            return None
        return FetchRequest(self.broker_id, self.broker_epoch(),
                            self.config.max_wait_ms, 1, self.config.response_max_bytes,
                            tuple(partitions))

    def _on_response(self, response) -> None:
        self.in_flight = False
        now = self.node.now
        if isinstance(response, RequestTimedOut) or not isinstance(response, FetchResponse):
            for state in self.partitions.values():
                state.delayed_until = now + self.config.backoff_ms
        else:
            for data in response.partitions:
                self._process(TopicPartition(data.topic, data.partition), data, now)
        self.maybe_fetch()

    # ------------------------------------------------------------------ responses
    def _process(self, tp: TopicPartition, data, now: int) -> None:
        state = self.partitions.get(tp)
        partition = self.hosted.get(tp)
        if state is None or partition is None or partition.log is None \
                or partition.leader_epoch != state.leader_epoch or partition.is_leader:
            return                                  # the partition moved on while we waited
        try:
            if data.error is Errors.NONE:
                self._apply(partition, data, now)
                if data.diverging_epoch is None and (data.records or state.lag is None):
                    state.lag = max(0, data.high_watermark - partition.log.log_end_offset)
            elif data.error is Errors.OFFSET_OUT_OF_RANGE:
                partition.log.truncate_fully_and_start_at(max(data.log_start_offset, 0), now)
            else:
                state.delayed_until = now + self.config.backoff_ms
        except KafkaException:
            state.delayed_until = now + self.config.backoff_ms

    def _apply(self, partition: "Partition", data, now: int) -> None:
        log = partition.log
        if data.diverging_epoch is not None:
            self._truncate_on_divergence(partition, data.diverging_epoch, now)
            return
        if data.records:
            log.append_as_follower(data.records, now)
            self.topic_stats.replication_bytes_in(len(data.records), now)
            if self.throttle.is_throttled(partition.topic_partition):
                self.throttle_window.append((now, len(data.records)))
        log.maybe_update_high_watermark(min(data.high_watermark, log.log_end_offset))
        if data.log_start_offset > log.log_start_offset:
            log.maybe_increment_log_start_offset(min(data.log_start_offset, log.high_watermark),
                                                 "LeaderOffsetIncremented")

    def _truncate_on_divergence(self, partition: "Partition", diverging: tuple[int, int],
                                now: int) -> None:
        log = partition.log
        leader_epoch, leader_end = diverging
        if leader_epoch < 0 or leader_end < 0:
            target = log.high_watermark
        else:
            own_epoch, own_end = log.end_offset_for_epoch(leader_epoch)
            target = own_end if own_epoch != leader_epoch else min(own_end, leader_end)
        log.truncate_to(min(target, log.log_end_offset), now)

    def _over_quota(self, now: int) -> bool:
        rate = self.throttle.rate()
        if rate is None:
            return False
        window_ms = self.config.quota_window_ms
        self.throttle_window = [(t, n) for t, n in self.throttle_window
                                if now - t < window_ms * self.config.quota_samples]
        if not self.throttle_window:
            return False
        elapsed_ms = max(now - self.throttle_window[0][0], window_ms)   # the first window counts whole
        return sum(n for _, n in self.throttle_window) * 1000 / elapsed_ms > rate


class ReplicaFetcherManager:
    """Keeps one `ReplicaFetcher` per leader broker and moves partitions between them."""

    def __init__(self, node: FetcherNode, *, broker_id: int, broker_epoch: Callable[[], int],
                 config: ReplicaFetcherConfig, partitions: Mapping[TopicPartition, "Partition"],
                 topic_stats: "BrokerTopicStats", throttle: ReplicationThrottle):
        self.node = node
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.config = config
        self.partitions = partitions                  # the ReplicaManager's live map
        self.topic_stats = topic_stats
        self.throttle = throttle
        self.fetchers: dict[int, ReplicaFetcher] = {}
        self.leader_of: dict[TopicPartition, int] = {}    # partition -> leader we fetch from

    def add(self, partition: "Partition") -> None:
        tp = partition.topic_partition
        self.remove(tp)
        fetcher = self.fetchers.get(partition.leader_id)
        if fetcher is None:
            fetcher = self.fetchers[partition.leader_id] = ReplicaFetcher(
                self.node, partition.leader_id, broker_id=self.broker_id,
                broker_epoch=self.broker_epoch, config=self.config, partitions=self.partitions,
                topic_stats=self.topic_stats, throttle=self.throttle)
        self.leader_of[tp] = partition.leader_id
        fetcher.add(partition)

    def remove(self, tp: TopicPartition) -> None:
        leader = self.leader_of.pop(tp, None)
        if leader is not None and leader in self.fetchers:
            self.fetchers[leader].remove(tp)

    def remove_all(self) -> None:
        for tp in list(self.leader_of):
            self.remove(tp)

    def is_fetching(self, tp: TopicPartition) -> bool:
        return tp in self.leader_of
