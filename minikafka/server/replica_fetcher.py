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
throttled partition waiting for up to 11 s, not 1 s.

Mirrors ``kafka.server.ReplicaFetcherManager``, ``AbstractFetcherThread`` and
``ReplicaFetcherThread``.  Simplified: no fetch sessions, one fetcher per
leader (``num.replica.fetchers=1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic_partition import TopicPartition
from minikafka.runtime.node import RequestTimedOut
from minikafka.server.fetch import FetchPartitionRequest, FetchRequest, FetchResponse

if TYPE_CHECKING:
    from minikafka.server.partition import Partition
    from minikafka.server.replica_manager import ReplicaManager


@dataclass
class PartitionFetchState:
    leader_epoch: int            # the leader epoch this fetch state belongs to
    delayed_until: int = 0       # back off after an error until this time


class ReplicaFetcher:
    """Fetches from one leader broker (Kafka's ``ReplicaFetcherThread``)."""

    def __init__(self, manager: "ReplicaFetcherManager", leader_id: int):
        self.manager = manager
        self.leader_id = leader_id
        self.partitions: dict[TopicPartition, PartitionFetchState] = {}
        self.in_flight = False               # one Fetch at a time per leader
        self.throttle_window: list[tuple[int, int]] = []   # (time, bytes) of throttled data

    @property
    def node(self):
        return self.manager.node

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
        throttled = self.manager.throttled_partitions(ready)
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
                               self.manager.request_timeout_ms)

    def _build_request(self, ready: list[TopicPartition]) -> FetchRequest | None:
        partitions = []
        for tp in ready:
            partition = self.manager.replica_manager.partitions.get(tp)
            if partition is None or partition.log is None:
                continue
            log = partition.log
            latest = log.latest_epoch()
            partitions.append(FetchPartitionRequest(
                tp.topic, tp.partition, log.log_end_offset, self.manager.partition_max_bytes,
                current_leader_epoch=partition.leader_epoch,
                last_fetched_epoch=latest if latest is not None else -1,
                log_start_offset=log.log_start_offset, topic_id=partition.topic_id))
        if not partitions:
            return None
        return FetchRequest(self.manager.broker_id, self.manager.broker_epoch(),
                            self.manager.max_wait_ms, 1, self.manager.response_max_bytes,
                            tuple(partitions))

    def _on_response(self, response) -> None:
        self.in_flight = False
        now = self.node.now
        if isinstance(response, RequestTimedOut) or not isinstance(response, FetchResponse):
            for state in self.partitions.values():
                state.delayed_until = now + self.manager.backoff_ms
        else:
            for data in response.partitions:
                self._process(TopicPartition(data.topic, data.partition), data, now)
        self.maybe_fetch()

    # ------------------------------------------------------------------ responses
    def _process(self, tp: TopicPartition, data, now: int) -> None:
        state = self.partitions.get(tp)
        partition = self.manager.replica_manager.partitions.get(tp)
        if state is None or partition is None or partition.log is None \
                or partition.leader_epoch != state.leader_epoch or partition.is_leader:
            return                                  # the partition moved on while we waited
        try:
            if data.error is Errors.NONE:
                self._apply(partition, data, now)
            elif data.error is Errors.OFFSET_OUT_OF_RANGE:
                partition.log.truncate_fully_and_start_at(max(data.log_start_offset, 0), now)
            else:
                state.delayed_until = now + self.manager.backoff_ms
        except KafkaException:
            state.delayed_until = now + self.manager.backoff_ms

    def _apply(self, partition: "Partition", data, now: int) -> None:
        log = partition.log
        if data.diverging_epoch is not None:
            self._truncate_on_divergence(partition, data.diverging_epoch, now)
            return
        if data.records:
            log.append_as_follower(data.records, now)
            self.manager.replica_manager.topic_stats.replication_bytes_in(len(data.records), now)
            if self.manager.is_throttled(partition.topic_partition):
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
        rate = self.manager.throttle_rate()
        if rate is None:
            return False
        window_ms = self.manager.quota_window_ms
        self.throttle_window = [(t, n) for t, n in self.throttle_window
                                if now - t < window_ms * self.manager.quota_samples]
        if not self.throttle_window:
            return False
        elapsed_ms = max(now - self.throttle_window[0][0], window_ms)   # the first window counts whole
        return sum(n for _, n in self.throttle_window) * 1000 / elapsed_ms > rate


class ReplicaFetcherManager:
    """Keeps one `ReplicaFetcher` per leader broker and moves partitions between them."""

    def __init__(self, replica_manager: "ReplicaManager"):
        self.replica_manager = replica_manager
        self.broker = replica_manager.broker
        self.node = replica_manager.node
        self.broker_id = replica_manager.broker_id
        self.fetchers: dict[int, ReplicaFetcher] = {}
        self.leader_of: dict[TopicPartition, int] = {}    # partition -> leader we fetch from
        timing = self.broker.timing
        self.max_wait_ms = timing.ms("replica.fetch.wait.max.ms")
        self.backoff_ms = timing.ms("replica.fetch.backoff.ms")
        self.request_timeout_ms = timing.ms("replica.socket.timeout.ms")
        self.partition_max_bytes = self.broker.config_int("replica.fetch.max.bytes", 1048576)
        self.response_max_bytes = self.broker.config_int("replica.fetch.response.max.bytes",
                                                         10485760)
        self.quota_samples = self.broker.config_int("replication.quota.window.num", 11)
        self.quota_window_ms = 1000 * self.broker.config_int("replication.quota.window.size.seconds", 1)

    def broker_epoch(self) -> int:
        return self.broker.lifecycle.broker_epoch

    def add(self, partition: "Partition") -> None:
        tp = partition.topic_partition
        self.remove(tp)
        fetcher = self.fetchers.get(partition.leader_id)
        if fetcher is None:
            fetcher = self.fetchers[partition.leader_id] = ReplicaFetcher(self, partition.leader_id)
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

    # ------------------------------------------------------------------ replication throttle
    def throttle_rate(self) -> int | None:
        value = self.broker.dynamic_broker_config("follower.replication.throttled.rate")
        return int(value) if value not in (None, "") and int(value) < 2**63 - 1 else None

    def is_throttled(self, tp: TopicPartition) -> bool:
        replicas = self.broker.topic_config_value(tp.topic, "follower.replication.throttled.replicas")
        if not replicas:
            return False
        if replicas.strip() == "*":
            return True
        wanted = f"{tp.partition}:{self.broker_id}"
        return wanted in {item.strip() for item in replicas.split(",")}

    def throttled_partitions(self, tps: list[TopicPartition]) -> set[TopicPartition]:
        if self.throttle_rate() is None:
            return set()
        return {tp for tp in tps if self.is_throttled(tp)}
