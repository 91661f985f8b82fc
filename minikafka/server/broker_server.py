"""`BrokerServer`: the broker role of a KRaft node, and the parts it is made of.

Theory of operation
-------------------
A broker owns a log directory (`LogManager`), follows the metadata log as a
KRaft observer (`BrokerMetadataPublisher`), registers and heartbeats with the
active controller (`BrokerLifecycleManager`), hosts partition replicas
(`ReplicaManager`, `ReplicaFetcherManager`, `AlterPartitionManager`), the
group coordinator for its ``__consumer_offsets`` partitions and a producer id
manager.  Client requests arrive as decoded Kafka requests; the handler of
each API (``minikafka.network.handlers``) turns them into calls on these
parts.  Requests only the controller can answer (CreateTopics...) are
forwarded to the active controller, as KRaft brokers do.

Each part is built here with the collaborators it uses, named in its
constructor (the node, ids, settings, and small callables or a narrow
protocol for what it asks of the broker), so its module says what it
depends on and a test can build it alone.  Every part works that way: the
metadata publisher, lifecycle, alter-partition, fetcher, replica, producer id
and auto topic creation managers, the group coordinator adapter and the
broker's gauges.  None of them holds the `BrokerServer`; what they ask of
the broker as a whole (the current image and configs, the active
controller, forwarding to it) is passed as bound methods of this class.

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

from typing import TYPE_CHECKING, Any, Callable

from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.storage.log_config import log_config_for
from minikafka.common.topic_partition import TopicPartition
from minikafka.controller.feature_control_manager import SUPPORTED_FEATURES_4_3
from minikafka.controller.requests import Feature, Listener
from minikafka.metadata.image import ConfigResource
from minikafka.metrics.broker_topic_stats import BrokerTopicStats
from minikafka.runtime.node import RequestTimedOut
from minikafka.server.alter_partition_manager import AlterPartitionManager
from minikafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from minikafka.server.broker_lifecycle_manager import BrokerLifecycleManager, BrokerState
from minikafka.server.broker_metadata_publisher import BrokerMetadataPublisher
from minikafka.server.broker_metrics import register_broker_metrics
from minikafka.server.group_coordinator_adapter import GroupCoordinatorAdapter
from minikafka.server.producer_id_manager import ProducerIdManager
from minikafka.server.replica_fetcher import (ReplicaFetcherConfig, ReplicaFetcherManager,
                                              ReplicationThrottle)
from minikafka.server.replica_manager import ReplicaManager
from minikafka.storage.clean_shutdown_file_handler import CleanShutdownFileHandler
from minikafka.storage.log_manager import LogManager

if TYPE_CHECKING:
    from minikafka.server.kafka_node import KafkaNode
    from minikafka.storage.log_config import LogConfig


class BrokerServer:
    def __init__(self, node: "KafkaNode"):
        self.node = node
        self.config = node.config                      # NodeConfig
        self.kafka_config: KafkaConfig = node.kafka_config
        self.broker_id = node.node_id
        self.cluster_id = node.config.cluster_id
        self.timing = node.config.timing
        self.directory_id = node.directory_id
        data_dir = str(node.config.data_dir)
        self.log_manager = LogManager(data_dir, self.default_log_config(), timing=self.timing,
                                      rng=node.rng, emit=node.emit)
        previous_epoch = CleanShutdownFileHandler(data_dir).read() or -1
        self.lifecycle = BrokerLifecycleManager(
            node, broker_id=self.broker_id, cluster_id=self.cluster_id, timing=self.timing,
            rack=self.config.rack, directory_id=self.directory_id,
            active_controller_id=self.active_controller_id, metadata_offset=self.metadata_offset,
            registration_listeners=self.registration_listeners,
            supported_features=self.supported_features, previous_broker_epoch=previous_epoch)
        self.topic_stats = BrokerTopicStats(node.metrics)   # BrokerTopicMetrics: bytes/messages in and out
        self._build_replication(node)
        self.producer_ids = ProducerIdManager(
            node, broker_id=self.broker_id, timing=self.timing,
            active_controller_id=self.active_controller_id, broker_epoch=self.local_broker_epoch)
        endpoint = self.config.broker_endpoint
        self.groups = GroupCoordinatorAdapter(
            node, kafka_config=self.current_kafka_config, timing=self.timing,
            listener_name=endpoint.listener if endpoint else None, image=lambda: self.image,
            replica_manager=self.replica_manager, forward_to_controller=self.forward_to_controller)
        self.auto_topic_creation = AutoTopicCreationManager(
            kafka_config=self.current_kafka_config, forward_to_controller=self.forward_to_controller)
        # Built last: it publishes to the replica manager and the group coordinator.
        self.publisher = BrokerMetadataPublisher(
            node.raft, broker_id=self.broker_id, apply_configs=self._apply_config_changes,
            replica_manager=self.replica_manager, group_coordinator=self.groups)
        self.lifecycle.on_caught_up = self._on_caught_up
        self.shutdown_callback: Callable[[], None] | None = None

    def _build_replication(self, node: "KafkaNode") -> None:
        """The replica manager and the parts it works with, each given what it uses."""
        self.alter_partition_manager = AlterPartitionManager(
            node, broker_id=self.broker_id, timing=self.timing,
            active_controller_id=self.active_controller_id, broker_epoch=self.local_broker_epoch,
            broker_epoch_of=self.broker_epoch_of)
        self.replica_manager = ReplicaManager(
            node, broker_id=self.broker_id, log_manager=self.log_manager, timing=self.timing,
            topic_stats=self.topic_stats, metadata=self, leadership=self,
            alter_partition=self.alter_partition_manager.submit)
        self.replica_manager.isr_meters = register_broker_metrics(
            node.metrics, partitions=self.replica_manager.partitions,
            broker_state=lambda: self.lifecycle.state, logs=self.log_manager.logs)
        self.replica_manager.fetcher_manager = ReplicaFetcherManager(
            node, broker_id=self.broker_id, broker_epoch=self.local_broker_epoch,
            config=ReplicaFetcherConfig.from_broker(self.timing, self.config_int),
            partitions=self.replica_manager.partitions, topic_stats=self.topic_stats,
            throttle=ReplicationThrottle(self.broker_id, self.dynamic_broker_config,
                                         self.topic_config_value))

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.log_manager.startup(self.node.now)
        self.node.raft.register_listener(self.publisher)
        self.replica_manager.start()
        self.lifecycle.start()
        self._schedule_maintenance()

    def _on_caught_up(self) -> None:
        self.lifecycle.set_ready_to_unfence()

    def begin_controlled_shutdown(self, done: Callable[[], None]) -> None:
        self.shutdown_callback = done
        self.lifecycle.on_shutdown_granted = self._finish_shutdown
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
    def image(self):
        return self.publisher.image

    def metadata_offset(self) -> int:
        return self.publisher.offset

    def _apply_config_changes(self, previous, image) -> None:
        if previous.configs is image.configs:
            return
        default = dict(image.configs.broker_config(""))
        own = dict(image.configs.broker_config(str(self.broker_id)))
        self.kafka_config = self.node.kafka_config.with_dynamic(default, own)
        self.log_manager.default_config = self.default_log_config()
        for topic in set(self.log_manager.topic_configs) | {tp.topic for tp in self.log_manager.logs}:
            self.log_manager.update_topic_config(topic, self.log_config_for(topic))

    def active_controller_id(self) -> int | None:
        leader = self.node.raft.leader_and_epoch.leader_id
        return leader if leader is not None and leader >= 0 else None

    def partition_exists(self, tp: TopicPartition) -> bool:
        topic = self.image.topics.get_topic(tp.topic)
        return topic is not None and tp.partition in topic.partitions

    def is_broker_fenced(self, broker_id: int) -> bool:
        """Fenced, or not registered at all, in the current image."""
        return self.image.is_fenced(broker_id)

    def is_broker_isr_eligible(self, broker_id: int, broker_epoch: int) -> bool:
        registration = self.image.cluster.broker(broker_id)
        if registration is None or registration.fenced or registration.in_controlled_shutdown:
            return False
        return broker_epoch < 0 or registration.epoch == broker_epoch

    def local_broker_epoch(self) -> int:
        """This broker's epoch from its current registration (-1 while unregistered)."""
        return self.lifecycle.broker_epoch

    def broker_epoch_of(self, broker_id: int) -> int:
        if broker_id == self.broker_id:
            return self.lifecycle.broker_epoch
        registration = self.image.cluster.broker(broker_id)
        return registration.epoch if registration else -1

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

    def finalized_features(self):
        from minikafka.network.api_versions import FinalizedFeatures
        features = self.image.features
        levels = dict(features.finalized_versions)
        if features.metadata_version is not None:
            levels["metadata.version"] = features.metadata_version
        return FinalizedFeatures(levels, self.metadata_offset())

    # ------------------------------------------------------------------ leadership hooks
    def on_became_leader(self, partition) -> None:
        self.groups.on_became_leader(partition)

    def on_resigned_leader(self, partition) -> None:
        self.groups.on_resigned_leader(partition)

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
    from minikafka.common.errors import Errors
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
