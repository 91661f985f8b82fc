"""``QuorumController``: the KRaft controller -- decide by writing records, answer once committed.

Theory of operation
-------------------
Every controller node hosts one QuorumController on top of its Raft client
(``minikafka.raft``).  The Raft leader's QuorumController is the **active
controller**; the others are standbys that only replay the committed
metadata log into their ``committed_image``.

The active controller keeps two images: ``committed_image`` (records below
the Raft high watermark) and the working ``image`` (committed plus its own
records not committed yet).  A request runs like this:

1. a control manager reads the working image and returns a
   ``ControllerResult(records, response)``;
2. the records are handed to Raft (``prepare_append``), replayed at once
   into the working image, so the next request already sees them (two
   CreateTopics for one name: the second fails), and only then scheduled
   for writing (``schedule_prepared_append``): a single voter may commit
   them inside that call, and the commit must find the request waiting;
3. the response waits until the Raft high watermark passes the records'
   last offset (``handle_commit``); then the events are emitted and the
   caller's ``respond`` is called.  A result without records waits for
   everything written before it.

If leadership is lost (``handle_leader_change`` names another leader, or an
append fails), the controller *renounces*: the working image goes back to
the committed image -- uncommitted decisions are forgotten -- and every
waiting request gets NOT_CONTROLLER.  When this node becomes leader it
*claims*: Raft calls ``handle_leader_change`` only after this listener has
replayed everything before the new epoch, so the committed image is
complete.  On an empty log the first claim writes the bootstrap records.

While active it also runs Kafka's periodic work with node timers: fencing
brokers whose session expired (``("controller", "fence-check")``), a
NoOpRecord every ``metadata.max.idle.interval.ms`` so the high watermark
keeps moving (``"noop"``), the preferred-leader rebalance every
``leader.imbalance.check.interval.seconds`` (``"leader-rebalance"``, if
``auto.leader.rebalance.enable``) and the unclean-election retry every
``unclean.leader.election.interval.ms`` (``"unclean-election"``).

Determinism: placement offsets and topic ids come from
``random.Random(f"{decision_seed}:{topic}:{n}")`` where ``n`` counts the
earlier TopicRecords with that name (CreatePartitions adds the first new
partition index), instead of Kafka's single controller ``Random``; so a
lesson places a topic the same way whichever controller is active and
however the live driver schedules elections.

It receives two collaborators, each typed by the small Protocol of what it
uses: the node that hosts it (`ControllerNode`: id, clock, timers, event log)
and the Raft client of the metadata log (`RaftClient`, Kafka's interface of
that name: leader and epoch, listener registration, prepare and schedule an
append).  Its parts are collaborators built in the constructor: the control managers
(``ClusterControlManager``, ``ConfigurationControlManager``,
``FeatureControlManager``, ``ReplicationControlManager``), each given what it
consults, and `QuorumControllerRequests`, one method per controller API,
which sees this class only through its ``ControllerWriter`` protocol
(working image, clock, ``write``).  Controller-only state outside the image
(the RegisterBrokerRecord offsets) is kept by its owner and reset through it.

Mirrors ``org.apache.kafka.controller.QuorumController`` (Kafka 4.x).
Simplified: one event loop (the node's), no snapshots, no per-request
deadlines; records of one operation always go into one Raft append.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Hashable, Mapping, Protocol, Sequence

from minikafka.common.config.broker_configs import BROKER_CONFIG_DEF
from minikafka.common.errors import Errors, KafkaException, PolicyViolationException
from minikafka.controller.cluster_control_manager import ClusterControlManager
from minikafka.controller.configuration_control_manager import ConfigurationControlManager
from minikafka.controller.controller_apis import error_response
from minikafka.controller.controller_events import events_for_records
from minikafka.controller.controller_result import ApiError, ControllerEvent, ControllerResult
from minikafka.controller.feature_control_manager import (BOOTSTRAP_FEATURES_4_3, METADATA_VERSION_4_3_IV0,
                                                          FeatureControlManager)
from minikafka.controller.quorum_controller_requests import QuorumControllerRequests, Respond
from minikafka.controller.replication_control_manager import ReplicationControlManager
from minikafka.controller.requests import ControllerRequest, ListPartitionReassignmentsRequest
from minikafka.metadata.delta import MetadataDelta
from minikafka.metadata.image import EMPTY_IMAGE, MetadataImage, MetadataProvenance
from minikafka.metadata.records import MetadataRecord, NoOpRecord, TopicRecord
from minikafka.raft.listener_context import RaftListener
from minikafka.raft.quorum_state import LeaderAndEpoch
from minikafka.raft.replicated_log import Batch
from minikafka.raft.errors import NotLeaderException
from minikafka.common.timing import TEACHING, TimingProfile

REBALANCE_RETRY_MS = 10     # Kafka re-runs an unfinished rebalance/unclean pass after 10 ms
MAX_RECORDS_PER_USER_OP = 10000   # QuorumController.MAX_RECORDS_PER_USER_OP (= MAX_RECORDS_PER_BATCH)


@dataclass(frozen=True)
class QuorumControllerConfig:
    cluster_id: str
    decision_seed: str                                  # seeds placement and topic ids (see module doc)
    static_config: Mapping[str, str] = field(default_factory=dict)   # the node's server.properties
    timing: TimingProfile = TEACHING
    metadata_version: int = METADATA_VERSION_4_3_IV0
    bootstrap_features: Mapping[str, int] = field(default_factory=lambda: dict(BOOTSTRAP_FEATURES_4_3))

    def setting(self, name: str) -> Any:
        """A broker setting from server.properties, else Kafka's default, typed."""
        key = BROKER_CONFIG_DEF[name]
        return BROKER_CONFIG_DEF.parse_value(key, self.static_config.get(name), name in self.static_config)


class ControllerNode(Protocol):
    """What the controller uses of the node that hosts it: its id, clock, timers and event log."""

    @property
    def node_id(self) -> int: ...

    @property
    def now(self) -> int: ...

    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None: ...

    def cancel(self, key: Hashable) -> None: ...

    def emit(self, kind: str, text: str, **data: Any) -> None: ...


class RaftClient(Protocol):
    """What the controller uses of the Raft client of ``__cluster_metadata`` (Kafka's ``RaftClient``)."""

    @property
    def leader_and_epoch(self) -> LeaderAndEpoch: ...

    def register_listener(self, listener: RaftListener) -> None: ...

    def prepare_append(self, records: Sequence[Any], epoch: int) -> int: ...

    def schedule_prepared_append(self) -> None: ...


if TYPE_CHECKING:
    from minikafka.raft.kafka_raft_client import KafkaRaftClient
    from minikafka.runtime.node import Node

    # The type checker's proof that the real collaborators have what the Protocols ask for.
    def _a_node_hosts_a_controller(node: Node) -> ControllerNode:
        return node

    def _kafka_raft_client_is_a_raft_client(client: KafkaRaftClient) -> RaftClient:
        return client


@dataclass(slots=True)
class _PendingWrite:
    offset: int                               # answer once this offset is committed
    request: ControllerRequest | None         # for the NOT_CONTROLLER answer on renounce
    respond: Respond | None
    response: Any                             # the ControllerResult's response
    events: list[ControllerEvent]


class QuorumController:
    """One per controller node; the Raft leader's instance is the active controller."""

    def __init__(self, node: ControllerNode, raft: RaftClient, config: QuorumControllerConfig):
        self.node = node
        self.raft = raft
        self.config = config
        timing = config.timing
        self.session_timeout_ms = timing.ms("broker.session.timeout.ms")
        self.max_idle_interval_ms = timing.ms("metadata.max.idle.interval.ms")
        self.imbalance_interval_ms = timing.ms("leader.imbalance.check.interval.seconds")
        self.unclean_interval_ms = timing.ms("unclean.leader.election.interval.ms")
        self.auto_leader_rebalance = config.setting("auto.leader.rebalance.enable")
        self.cluster_control = ClusterControlManager(config.cluster_id, self.session_timeout_ms)
        self.configuration_control = ConfigurationControlManager(node.node_id, config.static_config)
        self.feature_control = FeatureControlManager(config.metadata_version, config.bootstrap_features,
                                                     config.setting("min.insync.replicas"))
        self.replication_control = ReplicationControlManager(
            self.cluster_control, self.configuration_control,
            config.setting("num.partitions"), config.setting("default.replication.factor"))
        self.requests = QuorumControllerRequests(self, self.cluster_control, self.configuration_control,
                                                 self.replication_control, config.setting("delete.topic.enable"))
        self.committed_image: MetadataImage = EMPTY_IMAGE   # records below the high watermark
        self.image: MetadataImage = EMPTY_IMAGE             # committed + our uncommitted records
        self.last_committed_offset = -1                     # last offset handed to handle_commit
        self.active_epoch: int | None = None                # Raft epoch we are active in, None = standby
        self._log_end_seen = 0                  # offset after the last batch delivered to us
        self._replayed_any = False              # LogReplayTracker: any metadata record seen
        self._next_write_offset = -1            # offset our next record will get (active only)
        self._uncommitted: deque[tuple[int, MetadataRecord]] = deque()   # (offset, record) appended, not committed
        self._pending: deque[_PendingWrite] = deque()         # answers waiting for the high watermark
        self._topic_counts: dict[str, int] = {}               # name -> TopicRecords seen (working)
        self._committed_topic_counts: dict[str, int] = {}     # the same, committed records only
        self._scheduled: set[str] = set()                     # periodic tasks with a timer set
        raft.register_listener(self)       # as Kafka's constructor does; may replay the log at once

    # ------------------------------------------------------------------ state
    @property
    def node_id(self) -> int:
        return self.node.node_id

    @property
    def is_active(self) -> bool:
        return self.active_epoch is not None

    @property
    def now(self) -> int:
        return self.node.now

    @property
    def next_write_offset(self) -> int:
        """The offset our next record will get (the new broker epoch of a registration)."""
        return self._next_write_offset

    def rng_for_topic(self, name: str) -> random.Random:
        return random.Random(f"{self.config.decision_seed}:{name}:{self._topic_counts.get(name, 0)}")

    def rng_for_partitions(self, name: str, first_new_partition: int) -> random.Random:
        incarnation = self._topic_counts.get(name, 1) - 1
        return random.Random(f"{self.config.decision_seed}:{name}:{incarnation}:{first_new_partition}")

    # ------------------------------------------------------------------ Raft listener
    def handle_commit(self, batch: Batch) -> None:
        """A committed batch: replay it, then answer the requests it completes."""
        self._log_end_seen = batch.next_offset
        if not batch.is_control and batch.records:
            self._replay_committed(batch)
        self.last_committed_offset = batch.last_offset
        while self._pending and self._pending[0].offset <= self.last_committed_offset:
            pending = self._pending.popleft()
            for event in pending.events:
                self.node.emit(event.kind, event.text, **event.data)
            if pending.respond is not None:
                pending.respond(pending.response)

    def _replay_committed(self, batch: Batch) -> None:
        self._replayed_any = True
        delta = MetadataDelta(self.committed_image)
        for record in batch.records:
            delta.replay(record)
        self.committed_image = delta.apply(MetadataProvenance(batch.last_offset, batch.epoch,
                                                              batch.append_time_ms))
        for index, record in enumerate(batch.records):
            self.cluster_control.replay_committed(record, batch.base_offset + index)
            if isinstance(record, TopicRecord):
                self._committed_topic_counts[record.name] = self._committed_topic_counts.get(record.name, 0) + 1
        if not self.is_active:
            self._reset_working_state()
            return
        ours = bool(self._uncommitted) and self._uncommitted[0][0] == batch.base_offset
        while self._uncommitted and self._uncommitted[0][0] <= batch.last_offset:
            self._uncommitted.popleft()
        if not ours:
            self._rebuild_working_state()      # a batch we did not write: redo ours on top of it
        elif not self._uncommitted:
            self.image = self.committed_image  # all caught up: share the committed image

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        if self.is_active and leader.is_leader(self.node_id) and leader.epoch == self.active_epoch:
            return
        if self.is_active:
            # Another leader, or ourselves again in a new epoch: Raft wrote a new
            # LeaderChangeMessage and may have dropped our uncommitted tail, so start over.
            self._renounce()
        if leader.is_leader(self.node_id):
            self._claim(leader.epoch)

    # ------------------------------------------------------------------ claim / renounce
    def _claim(self, epoch: int) -> None:
        self.active_epoch = epoch
        self._next_write_offset = self._log_end_seen
        self._reset_working_state()
        self.cluster_control.activate(self.image, self.node.now)
        if not self._replayed_any:
            self.write(ControllerResult(tuple(self.feature_control.bootstrap_records())))
        self._schedule_noop()
        self.reschedule_fence_check()
        self._schedule_periodic_checks()

    def _renounce(self) -> None:
        self.active_epoch = None
        self._uncommitted.clear()
        self._reset_working_state()
        self.cluster_control.deactivate()
        for key in ("fence-check", "noop", "leader-rebalance", "unclean-election"):
            self.node.cancel(("controller", key))
        self._scheduled.clear()
        pending, self._pending = self._pending, deque()
        error = ApiError(Errors.NOT_CONTROLLER, "No controller appears to be active.")
        for write in pending:
            if write.respond is not None and write.request is not None:
                write.respond(error_response(write.request, error))

    def _reset_working_state(self) -> None:
        self.image = self.committed_image
        self._topic_counts = dict(self._committed_topic_counts)
        self.cluster_control.reset_working_state()

    def _rebuild_working_state(self) -> None:
        uncommitted = list(self._uncommitted)
        self._reset_working_state()
        for offset, record in uncommitted:
            self.image = _replayed(self.image, [record], offset, self.active_epoch, self.node.now)
            self._after_replay(record, offset)

    def _after_replay(self, record: MetadataRecord, offset: int) -> None:
        self.cluster_control.replay(record, offset, self.image, self.node.now)
        if isinstance(record, TopicRecord):
            self._topic_counts[record.name] = self._topic_counts.get(record.name, 0) + 1

    # ------------------------------------------------------------------ requests
    def handle_request(self, request: ControllerRequest, respond: Respond) -> None:
        """Run ``request``; ``respond(response)`` is called once the answer is final."""
        if isinstance(request, ListPartitionReassignmentsRequest):
            respond(self.replication_control.list_partition_reassignments(self.committed_image,
                                                                          request.topics))
            return
        if not self.is_active:
            respond(error_response(request, self._not_controller()))
            return
        handler = self.requests.handlers().get(type(request))
        if handler is None:
            raise TypeError(f"QuorumController cannot handle {type(request).__name__}")
        try:
            handler(request, respond)
        except KafkaException as exc:
            respond(error_response(request, ApiError.from_exception(exc)))

    def _not_controller(self) -> ApiError:
        leader = self.raft.leader_and_epoch.leader_id
        if leader is None or leader == self.node_id:
            return ApiError(Errors.NOT_CONTROLLER, "No controller appears to be active.")
        return ApiError(Errors.NOT_CONTROLLER, f"The active controller appears to be node {leader}.")

    def write(self, result: ControllerResult[Any], request: ControllerRequest | None = None,
              respond: Respond | None = None) -> int | None:
        """Append ``result``'s records and answer when they commit; returns the awaited offset."""
        records = list(result.records)
        if request is not None and len(records) > MAX_RECORDS_PER_USER_OP:
            raise PolicyViolationException("Unable to perform excessively large batch operation.")
        if not records:
            if not self._pending:
                if respond is not None:
                    respond(result.response)
                return self._next_write_offset - 1
            offset = self._pending[-1].offset
            self._pending.append(_PendingWrite(offset, request, respond, result.response, list(result.events)))
            return offset
        before, base = self.image, self._next_write_offset
        after = _replayed(before, records, base + len(records) - 1, self.active_epoch, self.node.now)
        try:
            if self.active_epoch is None:
                raise NotLeaderException("Append failed because the controller is not active")
            last = self.raft.prepare_append(records, self.active_epoch)
        except NotLeaderException:
            self._renounce()
            if respond is not None and request is not None:
                respond(error_response(request, self._not_controller()))
            return None
        if last != base + len(records) - 1:
            raise RuntimeError(f"Raft placed records at {last - len(records) + 1}..{last}, but the "
                               f"controller expected them at offset {base}")
        # Everything that waits for these records is in place before Raft may write them: a
        # single voter can commit them inside schedule_prepared_append (Kafka's QuorumController
        # replays, then schedules, for the same reason).
        self._next_write_offset = last + 1
        self.image = after
        for index, record in enumerate(records):
            self._uncommitted.append((base + index, record))
            self._after_replay(record, base + index)
        events = list(result.events) + events_for_records(before, after, records)
        self._pending.append(_PendingWrite(last, request, respond, result.response, events))
        self._schedule_periodic_checks()
        self.raft.schedule_prepared_append()
        return last

    # ------------------------------------------------------------------ periodic work
    def reschedule_fence_check(self) -> None:
        heartbeats = self.cluster_control.heartbeat_manager
        at = None if heartbeats is None else heartbeats.next_check_time_ms()
        if at is None:
            self.node.cancel(("controller", "fence-check"))
        else:
            self.node.schedule(("controller", "fence-check"), at, self._fence_check)

    def _fence_check(self) -> None:
        if self.is_active:
            self.write(self.replication_control.maybe_fence_one_stale_broker(self.image, self.node.now))
            if self.is_active:
                self.reschedule_fence_check()

    def _schedule_noop(self) -> None:
        self.node.schedule(("controller", "noop"), self.node.now + self.max_idle_interval_ms, self._write_noop)

    def _write_noop(self) -> None:
        if self.is_active:
            self._schedule_noop()
            self.write(ControllerResult((NoOpRecord(),)))

    def _schedule_periodic_checks(self, rebalance_delay: int | None = None,
                                  unclean_delay: int | None = None) -> None:
        """After every write: schedule the rebalance and unclean passes if they have work."""
        rcm, now = self.replication_control, self.node.now
        if ("leader-rebalance" not in self._scheduled and self.auto_leader_rebalance
                and rcm.are_partition_leaders_imbalanced(self.image)):
            self._scheduled.add("leader-rebalance")
            delay = self.imbalance_interval_ms if rebalance_delay is None else rebalance_delay
            self.node.schedule(("controller", "leader-rebalance"), now + delay, self._rebalance)
        if "unclean-election" not in self._scheduled and rcm.are_some_partitions_leaderless(self.image):
            self._scheduled.add("unclean-election")
            delay = self.unclean_interval_ms if unclean_delay is None else unclean_delay
            self.node.schedule(("controller", "unclean-election"), now + delay, self._unclean_elections)

    def _rebalance(self) -> None:
        if not self.is_active:
            return
        result = self.replication_control.maybe_balance_partition_leaders(self.image)
        self.write(result)                      # still marked scheduled: write leaves it alone
        self._scheduled.discard("leader-rebalance")
        self._schedule_periodic_checks(rebalance_delay=REBALANCE_RETRY_MS if result.response else None)

    def _unclean_elections(self) -> None:
        if not self.is_active:
            return
        result = self.replication_control.maybe_elect_unclean_leaders(self.image)
        self.write(result)
        self._scheduled.discard("unclean-election")
        self._schedule_periodic_checks(unclean_delay=REBALANCE_RETRY_MS if result.response else None)


def _replayed(image: MetadataImage, records: Sequence[MetadataRecord], last_offset: int, epoch: int | None,
              now: int) -> MetadataImage:
    delta = MetadataDelta(image)
    for record in records:
        delta.replay(record)
    return delta.apply(MetadataProvenance(last_offset, -1 if epoch is None else epoch, now))
