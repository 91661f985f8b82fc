"""``GroupCoordinator``: the broker-side entry point of consumer groups (both protocols).

Theory of operation
-------------------
Every broker runs a group coordinator, but a group has exactly one
coordinator at a time: the leader of ``__consumer_offsets-<p>`` where
``p = abs(hashCode(group.id)) % offsets.topic.num.partitions`` (50 by
default).  Clients find it with FindCoordinator and then send it all their
group requests.

The broker tells the coordinator which partitions it leads:
``on_elected(p, epoch, records)`` replays the partition's records (groups and
committed offsets) and starts serving its groups; ``on_resigned(p)`` drops
them, so requests for them get NOT_COORDINATOR and clients look the
coordinator up again.  While a partition loads, its groups answer
COORDINATOR_LOAD_IN_PROGRESS (a Heartbeat simply gets NONE).

Each ``handle_*`` method takes a request from `requests` and a ``respond``
callback; JoinGroup and SyncGroup answers may come much later (when the
rebalance moves on), writes are answered once ``__consumer_offsets``
committed them.  Validation that Kafka does before routing happens here:
empty group id (INVALID_GROUP_ID; for OffsetDelete after COORDINATOR_NOT_AVAILABLE
when the coordinator is shut down), session timeout outside
``group.min/max.session.timeout.ms`` (INVALID_SESSION_TIMEOUT), SyncGroup v5+
without protocol type/name (INCONSISTENT_GROUP_PROTOCOL).

KIP-848 consumer groups come in through ``handle_consumer_group_heartbeat``
(routed to the group's shard, which writes the records the sans-IO
`ConsumerGroupHeartbeat` returns) and ``handle_consumer_group_describe``;
the shards read topic ids and partition counts from ``topics`` (a
`TopicsImage` of the current metadata, passed in by the broker).  ListGroups
lists consumer groups beside classic ones, with type ``consumer``.  The
classic membership APIs are routed to the shard too, which serves a classic
member of a consumer group and converts groups between the two types
(``group.consumer.migration.policy``).

Mirrors ``GroupCoordinatorService`` (routing, validation, partitionFor,
consumerGroupHeartbeat, consumerGroupDescribe) and the load/unload side of
``CoordinatorRuntime``.  Simplified: no transactional offset commits, no
share or streams groups.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from minikafka.common.errors import Errors, KafkaException
import minikafka.coordinator.java_hash as java_hash
from minikafka.coordinator.classic_group import ClassicGroup
from minikafka.coordinator.coordinator_context import (
    AppendFn, CoordinatorContext, CoordinatorState, Record,
)
from minikafka.coordinator.group_coordinator_config import GroupCoordinatorConfig
from minikafka.coordinator.consumer_group_heartbeat import (
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, validate_request,
)
from minikafka.coordinator.group_coordinator_shard import GroupCoordinatorShard, _no_topics
from minikafka.coordinator.topic_metadata import TopicsImage
from minikafka.coordinator.requests import (
    DeleteGroupsRequest, DeleteGroupsResponse, DeletableGroupResult, DescribedGroup,
    DescribeGroupsRequest, DescribeGroupsResponse, HeartbeatRequest, HeartbeatResponse,
    JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest, LeaveGroupResponse, ListGroupsRequest,
    ListGroupsResponse, OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest, OffsetDeleteResponse,
    OffsetFetchRequest,
    OffsetFetchResponse, OffsetFetchResponseGroup, SyncGroupRequest, SyncGroupResponse,
)
from minikafka.runtime.node import Node

Respond = Callable[[Any], None]


def partition_for(group_id: str, num_partitions: int) -> int:
    """``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``."""
    return java_hash.utils_abs(java_hash.string_hash_code(group_id)) % num_partitions


class GroupCoordinator:
    def __init__(self, node: Node, config: GroupCoordinatorConfig | None, append: AppendFn,
                 topics: Callable[[], TopicsImage] = _no_topics):
        self.node = node
        self.topics = topics                                 # the current metadata's topics
        self.config = config or GroupCoordinatorConfig()
        self._append = append
        self._contexts: dict[int, CoordinatorContext] = {}   # partitions we lead, by index
        self._shards: dict[int, GroupCoordinatorShard] = {}
        self.active = True                                   # False after shutdown()

    # ------------------------------------------------------------------ routing
    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.config.offsets_topic_num_partitions)

    def _shard(self, group_id: str) -> tuple[GroupCoordinatorShard | None, Errors]:
        if not self.active:
            return None, Errors.COORDINATOR_NOT_AVAILABLE
        return self._shard_of_partition(self.partition_for(group_id))

    def _shard_of_partition(self, partition: int) -> tuple[GroupCoordinatorShard | None, Errors]:
        ctx = self._contexts.get(partition)
        if ctx is None:
            return None, Errors.NOT_COORDINATOR
        if ctx.state is CoordinatorState.LOADING:
            return None, Errors.COORDINATOR_LOAD_IN_PROGRESS
        if ctx.state is not CoordinatorState.ACTIVE:
            return None, Errors.NOT_COORDINATOR
        return self._shards[partition], Errors.NONE

    # ------------------------------------------------------------------ partition leadership
    def on_elected(self, partition_index: int, leader_epoch: int,
                   records: Iterable[Any] | None = None) -> None:
        """This broker now leads ``__consumer_offsets-<partition_index>``.

        ``records`` are the partition's key/value pairs in log order (tuples, or
        objects with ``key``/``value``); pass None to stay LOADING until
        `complete_load` brings them.
        """
        ctx = self._contexts.get(partition_index)
        if ctx is not None and ctx.state in (CoordinatorState.LOADING, CoordinatorState.ACTIVE):
            ctx.epoch = max(ctx.epoch, leader_epoch)     # already ours: nothing to reload
            return
        ctx = CoordinatorContext(partition_index, leader_epoch, self.node, self.config, self._append)
        self._contexts[partition_index] = ctx
        self._shards[partition_index] = GroupCoordinatorShard(ctx, self.topics)
        if records is not None:
            self.complete_load(partition_index, leader_epoch, records)

    def complete_load(self, partition_index: int, leader_epoch: int, records: Iterable[Any]) -> None:
        ctx = self._contexts.get(partition_index)
        if ctx is None or ctx.state is not CoordinatorState.LOADING or leader_epoch != ctx.load_epoch:
            return                                       # resigned (and maybe re-elected) meanwhile
        shard = self._shards[partition_index]
        try:
            shard.replay_all(_key_value(r) for r in records)
        except KafkaException as exc:                    # unreadable bytes or impossible contents
            ctx.close(CoordinatorState.FAILED)
            self._shards[partition_index] = GroupCoordinatorShard(ctx, self.topics)  # drop the half-loaded state
            ctx.emit("group_load_failed", f"{ctx.topic_partition} failed to load on broker "
                     f"{self.node.node_id}: {exc}; its groups get NOT_COORDINATOR", error=str(exc))
            return
        ctx.state = CoordinatorState.ACTIVE
        shard.on_loaded()
        consumer_groups = sorted(g for g, group in shard.consumer.groups.items() if not group.deleted)
        if not shard.groups.groups and not shard.offsets.offsets and not consumer_groups:
            return                                       # nothing to tell: no group lives here yet
        groups = sorted(set(shard.groups.groups) | set(consumer_groups))
        ctx.emit("group_loaded", f"{ctx.topic_partition} loaded on broker {self.node.node_id} "
                 f"(leader epoch {leader_epoch}): {len(groups)} groups, "
                 f"{shard.offsets.count()} committed offsets", epoch=leader_epoch,
                 groups=groups, offsets=shard.offsets.count())

    def on_resigned(self, partition_index: int, leader_epoch: int | None = None) -> None:
        """This broker no longer leads the partition (``leader_epoch``: the new leader's epoch)."""
        ctx = self._contexts.get(partition_index)
        if ctx is None or (leader_epoch is not None and ctx.epoch >= leader_epoch):
            return
        had_groups = ctx.is_active and bool(self._shards[partition_index].groups.groups)
        self._unload(partition_index)
        if had_groups:
            ctx.emit("group_unloaded", f"{ctx.topic_partition} unloaded from broker "
                     f"{self.node.node_id}: its groups now get NOT_COORDINATOR here",
                     epoch=leader_epoch)

    def _unload(self, partition_index: int) -> None:
        ctx = self._contexts.pop(partition_index)
        shard = self._shards.pop(partition_index)
        # Groups go Dead first, so writes failing below find nothing left to rebalance.
        shard.on_unloaded()
        ctx.close(CoordinatorState.CLOSED)

    def on_topics_deleted(self, topics: Iterable[str]) -> None:
        """The metadata deleted ``topics``: every active shard drops their committed offsets
        (Kafka's ``GroupCoordinatorService.onMetadataUpdate``, a write to all its partitions)."""
        deleted = set(topics)
        if not self.active or not deleted or "__consumer_offsets" in deleted:
            return
        for partition in sorted(self._contexts):
            if self._contexts[partition].state is CoordinatorState.ACTIVE:
                self._shards[partition].on_topics_deleted(deleted)

    def shutdown(self) -> None:
        """Stop coordinating (broker shutdown): every partition is unloaded."""
        for partition in list(self._contexts):
            self._unload(partition)
        self.active = False

    # ------------------------------------------------------------------ membership APIs
    def handle_join_group(self, request: JoinGroupRequest, respond: Respond) -> None:
        if not self.active:
            respond(JoinGroupResponse(Errors.COORDINATOR_NOT_AVAILABLE, member_id=request.member_id))
        elif not request.group_id:
            respond(JoinGroupResponse(Errors.INVALID_GROUP_ID, member_id=request.member_id))
        elif not (self.config.min_session_timeout_ms <= request.session_timeout_ms
                  <= self.config.max_session_timeout_ms):
            respond(JoinGroupResponse(Errors.INVALID_SESSION_TIMEOUT, member_id=request.member_id))
        else:
            self._route(request.group_id, respond, lambda e: JoinGroupResponse(e),
                        lambda shard: shard.join_group(request, respond))

    def handle_sync_group(self, request: SyncGroupRequest, respond: Respond) -> None:
        if request.api_version >= 5 and (request.protocol_type is None or request.protocol_name is None):
            respond(SyncGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL))
        elif not request.group_id:
            respond(SyncGroupResponse(Errors.INVALID_GROUP_ID if self.active
                                      else Errors.COORDINATOR_NOT_AVAILABLE))
        else:
            self._route(request.group_id, respond, lambda e: SyncGroupResponse(e),
                        lambda shard: shard.sync_group(request, respond))

    def handle_heartbeat(self, request: HeartbeatRequest, respond: Respond) -> None:
        if not request.group_id:
            respond(HeartbeatResponse(Errors.INVALID_GROUP_ID if self.active
                                      else Errors.COORDINATOR_NOT_AVAILABLE))
            return
        shard, error = self._shard(request.group_id)
        if error is Errors.COORDINATOR_LOAD_IN_PROGRESS:
            respond(HeartbeatResponse(Errors.NONE))      # Kafka answers blindly while loading
        elif shard is None:
            respond(HeartbeatResponse(error))
        else:
            try:
                respond(HeartbeatResponse(shard.heartbeat(request)))
            except KafkaException as exc:
                respond(HeartbeatResponse(exc.error))

    def handle_leave_group(self, request: LeaveGroupRequest, respond: Respond) -> None:
        if not request.group_id:
            respond(LeaveGroupResponse(Errors.INVALID_GROUP_ID if self.active
                                       else Errors.COORDINATOR_NOT_AVAILABLE))
            return
        self._route(request.group_id, respond, lambda e: LeaveGroupResponse(e),
                    lambda shard: shard.leave_group(request, respond))

    def handle_consumer_group_heartbeat(self, request: ConsumerGroupHeartbeatRequest, respond: Respond, *,
                                        api_version: int = 1, client_id: str = "",
                                        client_host: str = "") -> None:
        """ConsumerGroupHeartbeat (KIP-848): validated here first, as GroupCoordinatorService does (a bad
        request gets its INVALID_REQUEST or UNSUPPORTED_ASSIGNOR even from a broker that is not the group's
        coordinator), then answered by the group's shard."""
        if not self.active:
            respond(ConsumerGroupHeartbeatResponse(Errors.COORDINATOR_NOT_AVAILABLE))
            return
        try:
            validate_request(request, api_version, tuple(self.config.consumer_group_assignors))
        except KafkaException as exc:
            respond(ConsumerGroupHeartbeatResponse(exc.error, exc.message))
            return
        self._route(request.group_id, respond, lambda e: ConsumerGroupHeartbeatResponse(e),
                    lambda shard: shard.consumer_group_heartbeat(request, api_version, client_id,
                                                                 client_host, respond))

    def handle_consumer_group_describe(self, group_ids: list[str],
                                       respond: Callable[[list[dict]], None]) -> None:
        """ConsumerGroupDescribe: one dict per group id (see `GroupCoordinatorShard.describe_consumer_group`)."""
        described = []
        for group_id in group_ids:
            shard, error = self._shard(group_id) if group_id else (None, Errors.INVALID_GROUP_ID)
            if shard is None:
                described.append({"group_id": group_id, "error": error, "error_message": None})
            else:
                described.append(shard.describe_consumer_group(group_id))
        respond(described)

    def _route(self, group_id: str, respond: Respond, on_error: Callable[[Errors], Any],
               run: Callable[[GroupCoordinatorShard], None]) -> None:
        shard, error = self._shard(group_id)
        if shard is None:
            respond(on_error(error))
            return
        try:
            run(shard)
        except KafkaException as exc:              # an invariant broke: Kafka answers UNKNOWN_SERVER_ERROR
            respond(on_error(exc.error))

    # ------------------------------------------------------------------ offsets
    def handle_offset_commit(self, request: OffsetCommitRequest, respond: Respond) -> None:
        shard, error = self._shard(request.group_id)
        if shard is None:
            respond(OffsetCommitResponse.all_failed(request, error))
        else:
            shard.offsets.commit(request, respond)

    def handle_offset_fetch(self, request: OffsetFetchRequest, respond: Respond) -> None:
        answers: list[OffsetFetchResponseGroup | None] = [None] * len(request.groups)
        waiting = [len(request.groups)]

        def answered(index: int, group: OffsetFetchResponseGroup) -> None:
            answers[index] = group
            waiting[0] -= 1
            if waiting[0] == 0:
                respond(OffsetFetchResponse(tuple(answers)))  # type: ignore[arg-type]
        if not request.groups:
            respond(OffsetFetchResponse(()))
        for index, group_request in enumerate(request.groups):
            self._fetch_group(group_request, request.require_stable,
                              lambda g, i=index: answered(i, g))

    def _fetch_group(self, group_request, require_stable: bool,
                     done: Callable[[OffsetFetchResponseGroup], None]) -> None:
        shard, error = self._shard(group_request.group_id)
        if shard is None:
            done(OffsetFetchResponseGroup(group_request.group_id, error_code=error))
            return
        if not require_stable:
            done(shard.offsets.fetch(group_request))
            return

        def resume() -> None:
            # require_stable: answer after every earlier commit of the partition completed.
            if shard.ctx.is_active:
                done(shard.offsets.fetch(group_request))
            else:
                done(OffsetFetchResponseGroup(group_request.group_id, error_code=Errors.NOT_COORDINATOR))
        shard.ctx.when_writes_done(resume)

    # ------------------------------------------------------------------ admin APIs
    def handle_list_groups(self, request: ListGroupsRequest, respond: Respond) -> None:
        if not self.active:
            respond(ListGroupsResponse(Errors.COORDINATOR_NOT_AVAILABLE))
            return
        states = {s.strip().lower() for s in request.states_filter}
        types = {t.strip().lower() for t in request.types_filter}
        listed = []
        for partition in sorted(self._contexts):
            shard, error = self._shard_of_partition(partition)
            if error is Errors.COORDINATOR_LOAD_IN_PROGRESS:
                respond(ListGroupsResponse(error))
                return
            if shard is not None:
                listed.extend(shard.groups.list_groups(states, types))
                listed.extend(shard.list_consumer_groups(states, types))
        respond(ListGroupsResponse(Errors.NONE, tuple(listed)))

    def handle_describe_groups(self, request: DescribeGroupsRequest, respond: Respond) -> None:
        described = []
        for group_id in request.groups:
            shard, error = self._shard(group_id)
            if shard is None:
                described.append(DescribedGroup(group_id, error))
            elif group_id not in shard.groups.groups and shard.offsets._consumer_group(group_id) is not None:
                # a KIP-848 group: DescribeGroups only describes classic ones (classicGroup's refusal)
                described.append(DescribedGroup(
                    group_id, Errors.GROUP_ID_NOT_FOUND if request.api_version >= 6 else Errors.NONE,
                    f"Group {group_id} is not a classic group." if request.api_version >= 6 else None,
                    group_state="Dead"))
            else:
                described.append(shard.groups.describe_group(group_id, request.api_version))
        respond(DescribeGroupsResponse(tuple(described)))

    def handle_delete_groups(self, request: DeleteGroupsRequest, respond: Respond) -> None:
        by_partition: dict[int, list[str]] = {}
        for group_id in dict.fromkeys(request.groups_names):   # duplicates once, like KafkaApis
            by_partition.setdefault(self.partition_for(group_id), []).append(group_id)
        results: list[DeletableGroupResult] = []
        waiting = [len(by_partition)]

        def partition_done(partial: list[DeletableGroupResult]) -> None:
            results.extend(partial)
            waiting[0] -= 1
            if waiting[0] == 0:
                respond(DeleteGroupsResponse(tuple(results)))
        if not by_partition:
            respond(DeleteGroupsResponse(()))
        for partition, group_ids in by_partition.items():
            shard, error = (self._shard_of_partition(partition) if self.active
                            else (None, Errors.COORDINATOR_NOT_AVAILABLE))
            if shard is None:
                partition_done([DeletableGroupResult(g, error) for g in group_ids])
            else:
                shard.delete_groups(group_ids, partition_done)

    def handle_offset_delete(self, request: OffsetDeleteRequest, respond: Respond) -> None:
        """OffsetDelete: a group-level error for an inactive coordinator or an empty group id,
        else the group's shard decides (``GroupCoordinatorService.deleteOffsets``)."""
        if not self.active:
            respond(OffsetDeleteResponse(Errors.COORDINATOR_NOT_AVAILABLE))
        elif not request.group_id:
            respond(OffsetDeleteResponse(Errors.INVALID_GROUP_ID))
        else:
            self._route(request.group_id, respond, lambda e: OffsetDeleteResponse(e),
                        lambda shard: shard.delete_offsets(request, respond))

    # ------------------------------------------------------------------ inspection
    def group(self, group_id: str) -> ClassicGroup | None:
        """The group's live state if this broker coordinates it (for lessons and tests)."""
        shard, _ = self._shard(group_id)
        return shard.groups.groups.get(group_id) if shard is not None else None

    def partition_state(self, partition_index: int) -> CoordinatorState | None:
        ctx = self._contexts.get(partition_index)
        return ctx.state if ctx is not None else None

    def committed_offsets(self, group_id: str) -> dict[tuple[str, int], int]:
        shard, _ = self._shard(group_id)
        if shard is None:
            return {}
        return {(t, p): o.committed_offset
                for t, parts in shard.offsets.offsets.get(group_id, {}).items() for p, o in parts.items()}


def _key_value(record: Any) -> Record:
    if isinstance(record, tuple):
        return record
    return record.key, record.value
