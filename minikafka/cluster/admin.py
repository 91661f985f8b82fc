"""`AdminVerbs`: the admin verbs of `Cluster`: topics, configs, elections, reassignments, brokers.

Theory of operation
-------------------
Each verb builds the same request Kafka's ``Admin`` client would send
(CreateTopics, IncrementalAlterConfigs, AlterPartitionReassignments, ...)
and sends it to the active controller.  The answer comes once the
controller's records are committed; an error in it is raised as the Kafka
exception with Kafka's message (``InvalidReplicationFactorException: Unable
to replicate the partition 4 time(s): ...``).  With no active controller
(a quorum majority down) the request waits and then fails the way the Java
admin client does: ``TimeoutException: Timed out waiting for a node
assignment. Call: createTopics``.

Verbs that change topics also wait until every running broker has applied
the change to its metadata image, so the next line of a lesson sees it
everywhere.

The verbs receive the cluster's `NodeProcesses` (the driver and the nodes on
it) and nothing else; reassignment plans are checked by `reassignment`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from minikafka.cluster.processes import NodeProcesses
from minikafka.common.errors import Errors, TimeoutException
from minikafka.controller.requests import (
    AlterableConfig, AlterConfigOpType, AlterConfigsResource, AlterPartitionReassignmentsRequest,
    ConfigResourceType, CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
    CreatePartitionsRequest, CreatePartitionsTopic, CreateTopicsRequest, DeleteTopicsRequest,
    DeleteTopicState, ElectionType, ElectLeadersRequest, IncrementalAlterConfigsRequest,
    ListPartitionReassignmentsRequest, ReassignablePartition, ReassignableTopic, TopicPartitions,
    UnregisterBrokerRequest)
from minikafka.drivers.cluster_runtime import ConnectionRefused, NodeState
from minikafka.runtime.node import RequestTimedOut

ADMIN_TIMEOUT_MS = 30_000
PROPAGATION_TIMEOUT_MS = 10_000


class AdminVerbs:
    def __init__(self, processes: NodeProcesses):
        self._processes = processes    # the driver and the nodes on it

    # ------------------------------------------------------------------ request plumbing
    def _controller_request(self, request: Any, call_name: str,
                            timeout_ms: int = ADMIN_TIMEOUT_MS) -> Any:
        processes = self._processes
        deadline = processes.now() + timeout_ms
        while True:
            leader = processes.active_controller_id()
            now = processes.now()
            if leader is not None:
                response = processes.driver.request("admin", leader, request,
                                                    max(1, deadline - now))
                if not _retry_elsewhere(response):
                    return response
            now = processes.now()
            if now >= deadline:
                raise TimeoutException(f"Timed out waiting for a node assignment. Call: {call_name}")
            processes.run_for(min(50, deadline - now))

    def _wait_for_brokers(self, condition, what: str) -> None:
        processes = self._processes

        def all_brokers() -> bool:
            for broker_id in processes.layout.brokers:
                if processes.state(broker_id) is NodeState.RUNNING and not condition(
                        processes.node(broker_id).broker.image):
                    return False
            return True
        if not processes.settle(all_brokers, PROPAGATION_TIMEOUT_MS):
            raise TimeoutException(f"Timed out waiting for every broker to see {what}")

    # ------------------------------------------------------------------ topics
    def create_topic(self, name: str, partitions: int | None = None,
                     replication_factor: int | None = None,
                     config: Mapping[str, Any] | None = None,
                     replica_assignment: Mapping[int, Sequence[int]] | None = None) -> None:
        """Create a topic as ``kafka-topics.sh --create`` does (broker defaults when omitted)."""
        assignments = ()
        if replica_assignment is not None:
            if partitions is not None or replication_factor is not None:
                raise Errors.INVALID_REQUEST.exception(
                    "Both numPartitions or replicationFactor and replicasAssignments were set. "
                    "Both cannot be used at the same time.")
            assignments = tuple(CreatableReplicaAssignment(int(p), tuple(int(b) for b in replicas))
                                for p, replicas in sorted(replica_assignment.items()))
        configs = tuple(CreatableTopicConfig(k, _config_string(v)) for k, v in (config or {}).items())
        topic = CreatableTopic(name, -1 if partitions is None else int(partitions),
                               -1 if replication_factor is None else int(replication_factor),
                               assignments, configs)
        response = self._controller_request(CreateTopicsRequest((topic,)), "createTopics")
        result = response.topics[0]
        if result.error_code is not Errors.NONE:
            raise result.error_code.exception(result.error_message)
        self._wait_for_brokers(
            lambda image: _all_partitions_led(image, name), f"topic {name!r} with its leaders")

    def delete_topic(self, name: str) -> None:
        response = self._controller_request(
            DeleteTopicsRequest(topics=(DeleteTopicState(name=name),)), "deleteTopics")
        result = response.responses[0]
        if result.error_code is not Errors.NONE:
            raise result.error_code.exception(result.error_message)
        self._wait_for_brokers(lambda image: image.topics.get_topic(name) is None,
                               f"topic {name!r} deleted")

    def create_partitions(self, name: str, total: int,
                          assignments: Sequence[Sequence[int]] | None = None) -> None:
        """Grow ``name`` to ``total`` partitions (``kafka-topics.sh --alter --partitions``)."""
        from minikafka.controller.requests import CreatePartitionsAssignment
        given = None if assignments is None else tuple(
            CreatePartitionsAssignment(tuple(int(b) for b in a)) for a in assignments)
        response = self._controller_request(
            CreatePartitionsRequest((CreatePartitionsTopic(name, int(total), given),)),
            "createPartitions")
        result = response.results[0]
        if result.error_code is not Errors.NONE:
            raise result.error_code.exception(result.error_message)
        self._wait_for_brokers(lambda image: _partition_count(image, name) == total
                               and _all_partitions_led(image, name), f"{total} partitions of {name!r}")

    add_partitions = create_partitions

    def topics(self, include_internal: bool = False) -> list[str]:
        image = self._processes.cluster_image()
        return sorted(n for n in image.topic_names()
                      if include_internal or not n.startswith("__"))

    # ------------------------------------------------------------------ configs
    def alter_topic_config(self, name: str, set: Mapping[str, Any] | None = None,
                           delete: Sequence[str] = ()) -> None:
        self._alter_configs(ConfigResourceType.TOPIC, name, set, delete)
        self._wait_for_brokers(lambda image: _topic_configs_applied(image, name, set, delete),
                               f"the new configs of {name!r}")

    def alter_broker_config(self, broker_id: int | None, set: Mapping[str, Any] | None = None,
                            delete: Sequence[str] = ()) -> None:
        """Dynamic broker configs for one broker, or the cluster-wide default (``None``)."""
        if broker_id is not None:
            self._processes.check_node(broker_id, "broker")
        self._alter_configs(ConfigResourceType.BROKER, "" if broker_id is None else str(broker_id),
                            set, delete)

    def _alter_configs(self, resource_type: int, resource: str, set, delete) -> None:
        ops = [AlterableConfig(k, _config_string(v), AlterConfigOpType.SET)
               for k, v in (set or {}).items()]
        ops += [AlterableConfig(k, None, AlterConfigOpType.DELETE) for k in delete]
        request = IncrementalAlterConfigsRequest((AlterConfigsResource(resource_type, resource,
                                                                       tuple(ops)),))
        response = self._controller_request(request, "incrementalAlterConfigs")
        result = response.responses[0]
        if result.error_code is not Errors.NONE:
            raise result.error_code.exception(result.error_message)

    # ------------------------------------------------------------------ leadership
    def elect_leaders(self, election: str = "preferred",
                      partitions: Sequence[tuple[str, int]] | None = None) -> dict:
        """``kafka-leader-election.sh``: returns {(topic, p): None or the exception}."""
        kinds = {"preferred": ElectionType.PREFERRED, "unclean": ElectionType.UNCLEAN}
        if election not in kinds:
            raise ValueError(f"election must be 'preferred' or 'unclean', not {election!r}")
        wanted = None
        if partitions is not None:
            by_topic: dict[str, list[int]] = {}
            for topic, partition in partitions:
                by_topic.setdefault(topic, []).append(int(partition))
            wanted = tuple(TopicPartitions(t, tuple(ps)) for t, ps in by_topic.items())
        response = self._controller_request(ElectLeadersRequest(kinds[election], wanted),
                                            "electLeaders")
        if response.error_code is not Errors.NONE:
            raise response.error_code.exception()
        return {(r.topic, p.partition_id): (None if p.error_code is Errors.NONE
                                            else p.error_code.exception(p.error_message))
                for r in response.replica_election_results for p in r.partition_result}

    # ------------------------------------------------------------------ reassignment
    def reassign_partitions(self, plan: Mapping[tuple[str, int], Sequence[int] | None],
                            throttle_bytes_per_sec: int | None = None) -> None:
        """Start (or, with None, cancel) reassignments: {(topic, p): [target replicas]}.

        The whole plan is checked first, as ``kafka-reassign-partitions.sh`` does: an
        unknown topic, partition or broker, or a broker named twice, raises the
        controller's error for the first bad entry and nothing is changed
        (`minikafka.cluster.reassignment`).  An error the controller reports for a
        partition (e.g. cancelling where nothing is moving) is raised too.

        ``throttle_bytes_per_sec`` sets the replication throttle the way
        ``kafka-reassign-partitions.sh --execute --throttle`` does (broker configs
        ``*.replication.throttled.rate`` on every broker involved, topic configs
        ``*.replication.throttled.replicas`` for the moving replicas); call
        `clear_reassignment_throttles` when the moves are done (``--verify`` does).
        """
        from minikafka.cluster.reassignment import check_plan
        check_plan(self._processes.cluster_image(), plan)
        if throttle_bytes_per_sec is not None:
            self._set_reassignment_throttles(plan, int(throttle_bytes_per_sec))
        by_topic: dict[str, list] = {}
        for (topic, partition), replicas in plan.items():
            by_topic.setdefault(topic, []).append(ReassignablePartition(
                int(partition), None if replicas is None else tuple(int(b) for b in replicas)))
        request = AlterPartitionReassignmentsRequest(tuple(
            ReassignableTopic(t, tuple(ps)) for t, ps in by_topic.items()))
        response = self._controller_request(request, "alterPartitionReassignments")
        if response.error_code is not Errors.NONE:
            raise response.error_code.exception(response.error_message)
        for partition in (p for t in response.responses for p in t.partitions):
            if partition.error_code is not Errors.NONE:      # as Admin's all().get(): the first error
                raise partition.error_code.exception(partition.error_message)

    def _set_reassignment_throttles(self, plan, rate: int) -> None:
        from minikafka.common.topic_partition import TopicPartition
        from minikafka.tools.reassign_partitions_command_output import throttle_configs
        proposed = {TopicPartition(t, p): list(r) for (t, p), r in plan.items() if r is not None}
        current = {tp: self.replicas(tp.topic, tp.partition) for tp in proposed}
        topics, brokers = throttle_configs({}, proposed, current, rate)
        for broker_id, configs in brokers.items():
            self.alter_broker_config(broker_id, set=configs)
        for topic, configs in topics.items():
            self.alter_topic_config(topic, set=configs)

    def clear_reassignment_throttles(self) -> None:
        """Remove the throttle configs a throttled reassignment set (as ``--verify`` does)."""
        from minikafka.metadata.image import ConfigResource
        image = self._processes.cluster_image()
        names = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
        for broker_id in self._processes.layout.brokers:
            configs = image.configs.config(ConfigResource(ConfigResource.BROKER, str(broker_id)))
            present = [n for n in names if n in configs]
            if present:
                self.alter_broker_config(broker_id, delete=present)
        for topic in image.topic_names():
            configs = image.configs.config(ConfigResource(ConfigResource.TOPIC, topic))
            present = [n for n in ("leader.replication.throttled.replicas",
                                   "follower.replication.throttled.replicas") if n in configs]
            if present:
                self.alter_topic_config(topic, delete=present)

    def list_reassignments(self) -> dict:
        response = self._controller_request(ListPartitionReassignmentsRequest(),
                                            "listPartitionReassignments")
        return {(t.name, p.partition_index): {"replicas": list(p.replicas),
                                             "adding": list(p.adding_replicas),
                                             "removing": list(p.removing_replicas)}
                for t in response.topics for p in t.partitions}

    # ------------------------------------------------------------------ brokers
    def add_broker(self, broker_id: int | None = None) -> int:
        """Start a new, empty broker (by default with the next broker id after the highest);
        it registers and hosts nothing until a reassignment."""
        processes = self._processes
        layout = processes.layout
        new_id = broker_id if broker_id is not None else max(layout.brokers) + 1
        if new_id in layout.node_ids:
            raise ValueError(f"Node id {new_id} is already used in this cluster")
        layout.brokers.append(new_id)
        layout.broker_ports[new_id] = processes.driver.broker_port(
            layout.host, new_id, len(layout.brokers) - 1)
        layout.format_storage(processes.now())
        processes.call(lambda: processes.driver.add_node(new_id, layout.roles(new_id)))
        processes.start_node(new_id)
        if not processes.settle(processes.is_ready, 30_000):
            raise TimeoutException(f"Broker {new_id} did not register and unfence in time")
        return new_id

    def decommission_broker(self, broker_id: int) -> None:
        """Shut a broker down for good and unregister it (``kafka-cluster.sh unregister``).

        Kafka expects its replicas to be moved away first; this refuses otherwise.  Afterwards
        the broker is no longer part of the cluster (``broker_ids``, snapshots, dashboards).
        """
        self._processes.check_node(broker_id, "broker")
        hosted = sorted(f"{t}-{p}" for t, p, reg in _partitions(self._processes.cluster_image())
                        if broker_id in reg.replicas)
        if hosted:
            raise RuntimeError(f"Broker {broker_id} still hosts replicas of {', '.join(hosted[:8])}"
                               f"{' ...' if len(hosted) > 8 else ''}; move them with "
                               f"reassign_partitions() before decommissioning it")
        if self._processes.state(broker_id) is NodeState.RUNNING:
            done = self._processes.begin_node_shutdown(broker_id)
            self._processes.settle(done, 10_000)
        if self._processes.state(broker_id) is not NodeState.DEAD:
            self._processes.kill_node(broker_id, reason="stopped for decommissioning")
        response = self._controller_request(UnregisterBrokerRequest(broker_id), "unregisterBroker")
        if response.error_code is not Errors.NONE:
            raise response.error_code.exception(response.error_message)
        self._forget_broker(broker_id)

    def _forget_broker(self, broker_id: int) -> None:
        """The machine is retired: the broker leaves the layout (ids, ports, configs), and its
        data directory is kept aside as ``broker-<id>.decommissioned`` (never reused)."""
        layout = self._processes.layout
        directory, disk = str(layout.data_dir(broker_id)), layout.directory(broker_id)
        layout.disks.host.remove(layout.config_path(broker_id))
        layout.brokers.remove(broker_id)
        layout.broker_ports.pop(broker_id, None)
        layout.advertised.pop(broker_id, None)
        self._processes.driver.forget_listener(broker_id)
        if disk.is_dir(directory):
            disk.replace(directory, directory + ".decommissioned")
        layout.disks.retire(broker_id, directory + ".decommissioned")
        layout.write_configs()

    # ------------------------------------------------------------------ reading the metadata
    def leader(self, topic: str, partition: int) -> int | None:
        registration = self._registration(topic, partition)
        return registration.leader if registration.leader >= 0 else None

    def isr(self, topic: str, partition: int) -> list[int]:
        return list(self._registration(topic, partition).isr)

    def replicas(self, topic: str, partition: int) -> list[int]:
        return list(self._registration(topic, partition).replicas)

    def _registration(self, topic: str, partition: int):
        image = self._processes.cluster_image()
        found = image.topics.get_topic(topic)
        if found is None:
            raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(
                f"Topic '{topic}' does not exist")
        if partition not in found.partitions:
            raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(
                f"Partition {partition} of topic '{topic}' does not exist")
        return found.partitions[partition]


def _retry_elsewhere(response: Any) -> bool:
    if isinstance(response, (RequestTimedOut, ConnectionRefused)):
        return True
    if getattr(response, "error_code", None) is Errors.NOT_CONTROLLER:
        return True
    for attr in ("topics", "responses", "results"):
        items = getattr(response, attr, None)
        if items and all(getattr(i, "error_code", None) is Errors.NOT_CONTROLLER for i in items):
            return True
    return False


def _config_string(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _partitions(image):
    for name in image.topic_names():
        topic = image.topics.get_topic(name)
        for index, registration in topic.partitions.items():
            yield name, index, registration


def _all_partitions_led(image, name: str) -> bool:
    topic = image.topics.get_topic(name)
    return topic is not None and all(r.leader >= 0 for r in topic.partitions.values())


def _partition_count(image, name: str) -> int:
    topic = image.topics.get_topic(name)
    return 0 if topic is None else len(topic.partitions)


def _topic_configs_applied(image, name: str, set, delete) -> bool:
    from minikafka.metadata.image import ConfigResource
    configs = image.configs.config(ConfigResource(ConfigResource.TOPIC, name))
    return all(configs.get(k) == _config_string(v) for k, v in (set or {}).items()) and \
        all(k not in configs for k in delete)
