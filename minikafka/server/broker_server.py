"""`BrokerServer`: the broker role of a KRaft node, and the parts it is made of.

Theory of operation
-------------------
A broker owns a log directory (`LogManager`), follows the metadata log as a
KRaft observer (`BrokerMetadataPublisher`), registers and heartbeats with the
active controller (`BrokerLifecycleManager`), hosts partition replicas
(`ReplicaManager`, `ReplicaFetcherManager`, `AlterPartitionManager`), the
group coordinator for its ``__consumer_offsets`` partitions and a producer id
manager.  Client requests arrive as decoded Kafka requests; the handler of
each API (`minikafka.server.kafka_apis` routes to ``minikafka.server.apis``)
turns them into calls on these parts, through the few methods and
attributes its module declares as a `typing.Protocol` (``ProduceBroker``,
``GroupsBroker`` ...); this class satisfies all of them.  Requests only the
controller can answer (CreateTopics...) are forwarded to the active
controller, as KRaft brokers do.

`KafkaNode` builds the broker with what it uses of the process: the node
(time, timers, messages, randomness), the node's settings and `KafkaConfig`,
its log directory id, the incarnation id of this process start, the raft
client it observes the metadata log with, its metrics registry and the
`LogDirectory` its files live in (disk or memory).  The broker never reads the node's other attributes.

Each part is built here with the collaborators it uses, named in its
constructor (the node, ids, settings, and small callables or a narrow
protocol for what it asks of the broker), so its module says what it
depends on and a test can build it alone, and none is completed by
assignment afterwards.  Every part works that way: the metadata publisher,
lifecycle, alter-partition, fetcher, replica, producer id and auto topic
creation managers, the group coordinator adapter, the metadata cache and
the broker's gauges.  None of them holds the `BrokerServer`; what they ask
of the broker as a whole (the current image and configs, the active
controller, forwarding to it, leadership changes for the group coordinator)
is passed as bound methods of this class.  The replica manager and the
fetcher manager share one map of hosted partitions, made here first.

Start-up follows Kafka's order: load the logs (recovering after a crash),
start the raft observer, register, catch up with the metadata log, then ask
to be unfenced.  A clean shutdown is a controlled shutdown: the controller
moves leadership away before the broker stops and writes its clean-shutdown
marker.

Mirrors ``kafka.server.BrokerServer``.  Simplified: one log directory, no
quotas, no transaction coordinator (transactional requests are answered with
Kafka's unsupported errors by their handlers).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Callable, Hashable, Mapping

from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.errors import Errors
from minikafka.common.uuid import Uuid
from minikafka.storage.log_config import log_config_for
from minikafka.common.topic_partition import TopicPartition
from minikafka.controller.feature_control_manager import SUPPORTED_FEATURES_4_3
from minikafka.controller.requests import Feature, Listener
from minikafka.coordinator.find_coordinator import Endpoint
from minikafka.metadata.image import ConfigResource, TopicImage
from minikafka.metrics.broker_topic_stats import BrokerTopicStats
from minikafka.metrics.metrics_registry import MetricsRegistry
from minikafka.network.api_versions import FinalizedFeatures
from minikafka.raft.kafka_raft_client import KafkaRaftClient
from minikafka.runtime.node import Node, RequestTimedOut
from minikafka.server.alter_partition_manager import AlterPartitionManager
from minikafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from minikafka.server.broker_lifecycle_manager import BrokerLifecycleManager, BrokerState
from minikafka.server.broker_metadata_publisher import BrokerMetadataPublisher
from minikafka.server.broker_metrics import register_broker_metrics
from minikafka.server.group_coordinator_adapter import GroupCoordinatorAdapter
from minikafka.server.metadata_cache import KRaftMetadataCache
from minikafka.server.node_config import NodeConfig
from minikafka.server.producer_id_manager import ProducerIdManager
from minikafka.server.replica_fetcher import (ReplicaFetcherConfig, ReplicaFetcherManager,
                                              ReplicationThrottle)
from minikafka.server.replica_manager import ReplicaManager
from minikafka.server.runtime_logger_manager import RuntimeLoggerManager
from minikafka.storage.clean_shutdown_file_handler import CleanShutdownFileHandler
from minikafka.storage.log_directory import LogDirectory
from minikafka.storage.log_manager import LogManager

if TYPE_CHECKING:
    from minikafka.coordinator.group_coordinator import GroupCoordinator
    from minikafka.metadata.image import MetadataImage
    from minikafka.server.partition import Partition
    from minikafka.storage.log_config import LogConfig


class BrokerServer:
    def __init__(self, node: Node, *, config: NodeConfig, kafka_config: KafkaConfig, directory_id: Uuid,
                 incarnation_id: Uuid, raft: KafkaRaftClient, metrics: MetricsRegistry,
                 directory: LogDirectory):
        self.node = node                               # time, timers, messages, randomness
        self.raft = raft
        self.config = config                           # NodeConfig
        self.static_config = kafka_config              # server.properties, before dynamic configs
        self.kafka_config: KafkaConfig = kafka_config
        self.broker_id = config.node_id
        self.cluster_id = config.cluster_id
        self.timing = config.timing
        self.directory_id = directory_id
        self.rng: random.Random = node.rng
        endpoint = config.broker_endpoint
        self.listener_name: str | None = endpoint.listener if endpoint else None
        data_dir = str(config.data_dir)
        self.log_manager = LogManager(data_dir, self.default_log_config(), timing=self.timing,
                                      rng=node.rng, emit=node.emit, directory=directory,
                                      flush_check_ms=kafka_config.values["log.flush.scheduler.interval.ms"])
        previous_epoch = CleanShutdownFileHandler(data_dir, directory).read() or -1
        self.lifecycle = BrokerLifecycleManager(
            node, broker_id=self.broker_id, cluster_id=self.cluster_id, timing=self.timing,
            rack=config.rack, directory_id=self.directory_id, incarnation_id=incarnation_id,
            active_controller_id=self.active_controller_id, metadata_offset=self.metadata_offset,
            registration_listeners=self.registration_listeners,
            supported_features=self.supported_features, previous_broker_epoch=previous_epoch,
            on_caught_up=self._on_caught_up, on_shutdown_granted=self._finish_shutdown)
        self.metadata_cache = KRaftMetadataCache(self._current_image)
        self.topic_stats = BrokerTopicStats(metrics)   # BrokerTopicMetrics: bytes/messages in and out
        self._build_replication(node, metrics)
        self.producer_ids = ProducerIdManager(
            node, broker_id=self.broker_id, timing=self.timing,
            active_controller_id=self.active_controller_id, broker_epoch=self.local_broker_epoch)
        self.groups = GroupCoordinatorAdapter(
            node, kafka_config=self.current_kafka_config, timing=self.timing,
            listener_name=self.listener_name, image=self._current_image,
            replica_manager=self.replica_manager, forward_to_controller=self.forward_to_controller)
        self.auto_topic_creation = AutoTopicCreationManager(
            kafka_config=self.current_kafka_config, forward_to_controller=self.forward_to_controller)
        self.runtime_logger_manager = RuntimeLoggerManager(self.broker_id)   # BROKER_LOGGER levels
        # Built last: it publishes to the replica manager and the group coordinator.
        self.publisher = BrokerMetadataPublisher(
            raft, broker_id=self.broker_id, apply_configs=self._apply_config_changes,
            replica_manager=self.replica_manager, group_coordinator=self.groups)
        self.shutdown_callback: Callable[[], None] | None = None

    def _build_replication(self, node: Node, metrics: MetricsRegistry) -> None:
        """The replica manager and the parts it works with, each given what it uses.

        The hosted partitions are one map, made here and shared: the replica
        manager adds and removes replicas, the fetcher manager and the gauges read it.
        """
        partitions: dict[TopicPartition, "Partition"] = {}
        self.alter_partition_manager = AlterPartitionManager(
            node, broker_id=self.broker_id, timing=self.timing,
            active_controller_id=self.active_controller_id, broker_epoch=self.local_broker_epoch,
            broker_epoch_of=self.broker_epoch_of)
        isr_meters = register_broker_metrics(
            metrics, partitions=partitions,
            broker_state=lambda: self.lifecycle.state, logs=self.log_manager.logs)
        fetcher_manager = ReplicaFetcherManager(
            node, broker_id=self.broker_id, broker_epoch=self.local_broker_epoch,
            config=ReplicaFetcherConfig.from_broker(self.timing, self.config_int),
            partitions=partitions, topic_stats=self.topic_stats,
            throttle=ReplicationThrottle(self.broker_id, self.dynamic_broker_config,
                                         self.topic_config_value))
        self.replica_manager = ReplicaManager(
            node, broker_id=self.broker_id, log_manager=self.log_manager, timing=self.timing,
            topic_stats=self.topic_stats, metadata=self.metadata_cache,
            log_config_for=self.log_config_for, on_became_leader=self.on_became_leader,
            on_resigned_leader=self.on_resigned_leader, alter_partition=self.alter_partition_manager.submit,
            partitions=partitions, fetcher_manager=fetcher_manager, isr_meters=isr_meters)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.log_manager.startup(self.node.now)
        self.raft.register_listener(self.publisher)
        self.replica_manager.start()
        self.lifecycle.start()
        self._schedule_maintenance()

    def _on_caught_up(self) -> None:
        self.lifecycle.set_ready_to_unfence()

    def begin_controlled_shutdown(self, done: Callable[[], None]) -> None:
        self.shutdown_callback = done
        self.lifecycle.begin_controlled_shutdown()

    def _finish_shutdown(self) -> None:
        self.replica_manager.shutdown()
        self.groups.shutdown()
        self.log_manager.shutdown(self.lifecycle.broker_epoch)
        if self.shutdown_callback:
            self.shutdown_callback()

    def crash(self) -> None:
        self.log_manager.crash()

    def _schedule_maintenance(self) -> None:
        deadline = self.log_manager.next_deadline()
        at = self.node.now + 1000 if deadline is None else max(deadline, self.node.now)
        self.node.schedule(("broker", "log-maintenance"), at, self._maintenance)

    def _maintenance(self) -> None:
        if self.lifecycle.state is not BrokerState.SHUTTING_DOWN:
            self.log_manager.maintenance(self.node.now)
            self._schedule_maintenance()

    @property
    def is_fenced(self) -> bool:
        return self.lifecycle.state is not BrokerState.RUNNING

    # ------------------------------------------------------------------ metadata
    @property
    def image(self) -> "MetadataImage":
        return self.publisher.image

    def _current_image(self) -> "MetadataImage":
        return self.publisher.image

    def metadata_offset(self) -> int:
        return self.publisher.offset

    def _apply_config_changes(self, previous, image) -> None:
        if previous.configs is image.configs:
            return
        default = dict(image.configs.broker_config(""))
        own = dict(image.configs.broker_config(str(self.broker_id)))
        self.kafka_config = self.static_config.with_dynamic(default, own)
        self.log_manager.default_config = self.default_log_config()
        for topic in set(self.log_manager.topic_configs) | {tp.topic for tp in self.log_manager.logs}:
            self.log_manager.update_topic_config(topic, self.log_config_for(topic))

    def active_controller_id(self) -> int | None:
        leader = self.raft.leader_and_epoch.leader_id
        return leader if leader is not None and leader >= 0 else None

    def partition_exists(self, tp: TopicPartition) -> bool:
        return self.metadata_cache.partition_exists(tp)

    def get_topic(self, name_or_id: str | Uuid) -> TopicImage | None:
        return self.metadata_cache.get_topic(name_or_id)

    def topic_name(self, topic_id: Uuid) -> str | None:
        return self.metadata_cache.topic_name(topic_id)

    def local_broker_epoch(self) -> int:
        """This broker's epoch from its current registration (-1 while unregistered)."""
        return self.lifecycle.broker_epoch

    def broker_epoch_of(self, broker_id: int) -> int:
        if broker_id == self.broker_id:
            return self.lifecycle.broker_epoch
        return self.metadata_cache.broker_epoch(broker_id)

    # ------------------------------------------------------------------ configs
    def current_kafka_config(self) -> KafkaConfig:
        """The static config with the dynamic broker configs applied (replaced as they change)."""
        return self.kafka_config

    def default_log_config(self) -> "LogConfig":
        return log_config_for({}, self.kafka_config)

    def topic_overrides(self, topic: str) -> dict[str, str]:
        return dict(self.image.configs.config(ConfigResource(ConfigResource.TOPIC, topic)))

    def log_config_for(self, topic: str) -> "LogConfig":
        return log_config_for(self.topic_overrides(topic), self.kafka_config)

    def topic_config_value(self, topic: str, name: str) -> str | None:
        return self.topic_overrides(topic).get(name)

    def dynamic_broker_configs(self, name: str) -> Mapping[str, str]:
        """The dynamic configs of BROKER resource ``name`` ("<id>", or "" for the cluster default)."""
        return self.image.configs.broker_config(name)

    def dynamic_broker_config(self, name: str) -> str | None:
        own = self.image.configs.broker_config(str(self.broker_id))
        if name in own:
            return own[name]
        return self.image.configs.broker_config("").get(name)

    def config_int(self, name: str, default: int) -> int:
        try:
            value = self.kafka_config.get(name)
        except KeyError:
            return default
        return default if value is None else int(value)

    # ------------------------------------------------------------------ registration data
    def registration_listeners(self) -> tuple[Listener, ...]:
        endpoint = self.config.broker_endpoint
        return (Listener(endpoint.listener, endpoint.host, endpoint.port, 0),) if endpoint else ()

    def supported_features(self) -> tuple[Feature, ...]:
        return tuple(Feature(name, low, high) for name, (low, high) in sorted(SUPPORTED_FEATURES_4_3.items()))

    def finalized_features(self) -> FinalizedFeatures:
        features = self.image.features
        levels = dict(features.finalized_versions)
        if features.metadata_version is not None:
            levels["metadata.version"] = features.metadata_version
        return FinalizedFeatures(levels, self.metadata_offset())

    # ------------------------------------------------------------------ leadership hooks
    def on_became_leader(self, partition: "Partition") -> None:
        self.groups.on_became_leader(partition)

    def on_resigned_leader(self, partition: "Partition") -> None:
        self.groups.on_resigned_leader(partition)

    # ------------------------------------------------------------------ groups
    @property
    def group_coordinator(self) -> "GroupCoordinator":
        return self.groups.coordinator

    def find_group_coordinator(self, group_id: str) -> tuple[Errors, Endpoint]:
        return self.groups.find_group_coordinator(group_id)

    # ------------------------------------------------------------------ time, for the handlers
    def now(self) -> int:
        return self.node.now

    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None:
        self.node.schedule(key, at_ms, fn)

    # ------------------------------------------------------------------ controller forwarding
    def forward_to_controller(self, request: Any, respond: Callable[[Any], None],
                              timeout_ms: int | None = None) -> None:
        """Send ``request`` to the active controller, retrying across controller changes
        until ``timeout_ms``; ``respond`` gets the response or a `RequestTimedOut`."""
        budget = timeout_ms if timeout_ms is not None else self.timing.ms("request.timeout.ms")
        deadline = self.node.now + max(budget, 1)
        attempt_timeout = self.timing.ms("controller.quorum.request.timeout.ms")

        def attempt() -> None:
            controller = self.active_controller_id()
            if controller is None:
                retry()
                return
            self.node.send_request(controller, request, on_answer,
                                   max(1, min(attempt_timeout, deadline - self.node.now)))

        def on_answer(response) -> None:
            if _is_not_controller(response) or isinstance(response, RequestTimedOut):
                retry(response)
            else:
                respond(response)

        def retry(last=None) -> None:
            if self.node.now + 50 >= deadline:
                respond(last if last is not None else RequestTimedOut(-1, request))
                return
            self.node.schedule(("broker", "forward", id(request)), self.node.now + 50, attempt)

        attempt()


def has_not_controller_error(response: Any) -> bool:
    """True when NOT_CONTROLLER appears at any level of a controller response.

    Kafka's forwarding channel asks ``errorCounts().containsKey(NOT_CONTROLLER)``:
    top-level and per-item error codes alike mean "ask the new controller".
    """
    import dataclasses
    if isinstance(response, (tuple, list)):
        return any(has_not_controller_error(item) for item in response)
    if not dataclasses.is_dataclass(response) or isinstance(response, type):
        return False
    for field in dataclasses.fields(response):
        value = getattr(response, field.name)
        if field.name == "error_code" and value in (Errors.NOT_CONTROLLER, Errors.NOT_CONTROLLER.code):
            return True
        if (isinstance(value, (tuple, list)) or dataclasses.is_dataclass(value)) \
                and has_not_controller_error(value):
            return True
    return False


_is_not_controller = has_not_controller_error
