"""`KafkaNode`: one Kafka process in KRaft mode, with the broker role, the controller role, or both.

Theory of operation
-------------------
Every KRaft node runs a raft client for ``__cluster_metadata``: controllers
as voters, brokers as observers (a combined node is a voter that also serves
clients).  On top of it sit the roles from ``process.roles``: a
`QuorumController` that decides by writing records, and a `BrokerServer`
that serves clients and replicates partitions.

At start-up the node checks its data directory the way Kafka does: the
directory must have been formatted (``meta.properties``, written by
``kafka-storage.sh format`` or, here, by `Cluster`) for this cluster id and
this node id, or the node refuses to start with Kafka's error.  Every file
the node reads or writes -- ``meta.properties``, the metadata log and its
``quorum-state``, the clean-shutdown marker, the broker's partition logs --
goes through the one `LogDirectory` the node receives: its machine's disk,
or memory for a simulated cluster (`minikafka.storage.log_directory`).

Messages reaching the node are dispatched by what they are: raft RPCs to the
raft client, controller APIs (registrations, heartbeats, AlterPartition,
forwarded admin requests: every `ControllerRequest`) to the controller,
replica fetches and client requests to the broker (client requests through
`kafka_apis.dispatch`).  The node builds the broker role with what it uses
of the process (settings, `KafkaConfig`, directory id, incarnation id,
raft client, metrics, `LogDirectory`); `BrokerServer` uses the node itself only as its runtime (time,
timers, messages, randomness), never to read the node's other attributes.

Mirrors ``kafka.server.KafkaRaftServer`` (and the shared ``SharedServer``).
"""

from __future__ import annotations

import os
import random
from typing import Callable

from minikafka.common.config.kafka_config import KafkaConfig
from minikafka.common.utils import parse_properties
from minikafka.controller.controller_metrics import register_controller_metrics
from minikafka.controller.quorum_controller import QuorumController, QuorumControllerConfig
from minikafka.common.java_hashing import hashmap_order
from minikafka.controller.feature_control_manager import SUPPORTED_FEATURES_4_3
from minikafka.controller.requests import (ControllerRegistrationRequest, ControllerRequest, Feature,
                                          Listener)
from minikafka.network.client_request import ClientRequest
from minikafka.metrics.metrics_registry import MetricsRegistry
from minikafka.network.request_channel import Deferred
from minikafka.network.request_metrics import RequestMetrics
from minikafka.raft.kafka_metadata_log import METADATA_LOG_DIR_NAME, KafkaMetadataLog
from minikafka.raft.kafka_raft_client import KafkaRaftClient
from minikafka.raft.quorum_state_store import FileQuorumStateStore
from minikafka.runtime.node import Envelope, Node
from minikafka.server.broker_lifecycle_manager import new_incarnation_id
from minikafka.server.broker_server import BrokerServer
from minikafka.server.fetch import FetchRequest
from minikafka.server.kafka_apis import dispatch
from minikafka.server.kafka_node_snapshot import KafkaNodeSnapshot, snapshot_of
from minikafka.server.node_config import NodeConfig
from minikafka.storage.clean_shutdown_file_handler import CleanShutdownFileHandler
from minikafka.storage.log_directory import LogDirectory
from minikafka.storage.meta_properties import MetaProperties



class KafkaNode(Node):
    def __init__(self, config: NodeConfig, rng: random.Random, now: int, directory: LogDirectory):
        super().__init__(config.node_id, rng)
        self.now = now                    # loading the logs below may note recovery events
        self.config = config
        self.directory = directory        # this machine's files: every file the node reads or writes
        self.kafka_config = KafkaConfig(parse_properties(config.server_properties()))
        data_dir = str(config.data_dir)
        meta = MetaProperties.read(data_dir, directory)
        meta.verify(data_dir, config.cluster_id, config.node_id)
        self.directory_id = meta.directory_id
        self.metadata_log = KafkaMetadataLog.open(data_dir, lambda: self.now, self.emit, directory)
        if not config.is_broker:
            # a broker's LogManager consumes the marker; a controller-only node does it here
            CleanShutdownFileHandler(data_dir, directory).delete()
        store = FileQuorumStateStore.in_partition_dir(
            os.path.join(data_dir, METADATA_LOG_DIR_NAME), directory)
        voters = {vid: str(endpoint) for vid, endpoint in config.voters.items()}
        self.raft = KafkaRaftClient(self, voters, self.metadata_log, store, config.timing,
                                    config.cluster_id, directory_id=self.directory_id)
        self.metrics = MetricsRegistry(lambda: self.now)   # this process's MBeans (minikafka.metrics)
        self.controller: QuorumController | None = None
        self.broker: BrokerServer | None = None
        self.request_metrics: RequestMetrics | None = None   # brokers: requests answered, by API
        if config.is_controller:
            bootstrap = {} if config.bootstrap_features is None else {
                "bootstrap_features": dict(config.bootstrap_features)}
            self.controller = QuorumController(self, self.raft, QuorumControllerConfig(
                config.cluster_id, config.decision_seed,
                static_config=dict(self.kafka_config.static_props), timing=config.timing, **bootstrap))
            register_controller_metrics(self.controller, self.metrics)
        if config.is_broker:
            self.broker = BrokerServer(
                self, config=config, kafka_config=self.kafka_config, directory_id=self.directory_id,
                incarnation_id=new_incarnation_id(self.rng, self.metadata_log.end_offset),
                raft=self.raft, metrics=self.metrics, directory=directory)
            self.request_metrics = RequestMetrics(self.metrics)
        self.stopped = False

    def snapshot(self, now: int, with_metrics: bool = False) -> KafkaNodeSnapshot:
        """This node as plain data (`kafka_node_snapshot`), for the facade's `ClusterSnapshot`."""
        return snapshot_of(self, now, with_metrics)

    # ------------------------------------------------------------------ lifecycle
    def on_start(self) -> None:
        self.raft.start()
        if self.broker is not None:
            self.broker.start()
        if self.controller is not None:
            self._register_controller()

    def _register_controller(self) -> None:
        """KIP-919: a controller announces its listeners once a leader is known."""
        leader = self.raft.leader_and_epoch.leader_id
        if leader is None or leader < 0:
            self.schedule(("node", "register-controller"), self.now + 50, self._register_controller)
            return
        endpoint = self.config.controller_endpoint
        request = ControllerRegistrationRequest(
            self.node_id, self.controller_incarnation,
            listeners=(Listener(endpoint.listener, endpoint.host, endpoint.port, 0),) if endpoint else (),
            features=controller_features())

        def answered(response) -> None:
            if getattr(response, "error_code", None) is None or response.error_code.code != 0:
                self.schedule(("node", "register-controller"), self.now + 200,
                              self._register_controller)
        self.send_request(leader, request, answered,
                          self.config.timing.ms("controller.quorum.request.timeout.ms"))

    @property
    def controller_incarnation(self):
        if not hasattr(self, "_controller_incarnation"):
            self._controller_incarnation = new_incarnation_id(self.rng, self.metadata_log.end_offset)
        return self._controller_incarnation

    def shutdown(self, done: Callable[[], None], resign: bool = True) -> None:
        """Graceful stop: controlled shutdown of the broker role, then the raft client.

        ``resign=False`` skips handing leadership over (the whole cluster is stopping).
        """
        def after_broker() -> None:
            if not resign:
                self._finish_stop(done)
                return
            self.raft.shutdown(on_complete=lambda timed_out: self._finish_stop(done))
        if self.broker is not None:
            self.broker.begin_controlled_shutdown(after_broker)
        else:
            after_broker()

    def _finish_stop(self, done: Callable[[], None]) -> None:
        self.metadata_log.close()
        if self.broker is None:
            CleanShutdownFileHandler(str(self.config.data_dir), self.directory).write(-1)
        self.stopped = True
        done()

    def on_crash(self) -> None:
        if self.broker is not None:
            self.broker.crash()
        self.metadata_log.crash()

    # ------------------------------------------------------------------ dispatch
    def on_request(self, envelope: Envelope) -> None:
        if self.raft.handle_request(envelope):
            return
        body = envelope.body
        if isinstance(body, ClientRequest) and self.broker is not None:
            self._handle_client(envelope, body)
        elif isinstance(body, FetchRequest) and self.broker is not None:
            self.broker.replica_manager.fetch_messages(
                body, lambda response: self._follower_fetch_reply(envelope, response))
        elif self.controller is not None and isinstance(body, ControllerRequest):
            self.controller.handle_request(body, lambda r: self.reply(envelope, r))
        else:
            raise TypeError(f"node {self.node_id} ({','.join(self.config.roles)}) cannot handle "
                            f"{type(body).__name__}")

    def _handle_client(self, envelope: Envelope, client_request: ClientRequest) -> None:
        outcome = dispatch(client_request.context, client_request.request, self.broker)
        # The callbacks capture only what they did before metrics existed: a closure more per
        # request would sit in the engine's reference cycles and make the collector run more.
        if isinstance(outcome, Deferred):
            outcome.on_complete(lambda result: self._client_reply(envelope, result))
        else:
            self._client_reply(envelope, outcome)

    def _client_reply(self, envelope: Envelope, outcome) -> None:
        # Kafka updates a request's metrics when its response is sent (RequestChannel)
        client_request = envelope.body
        self.request_metrics.client_request_completed(client_request.context, client_request.request,
                                                      outcome, self.broker.topic_name, self.now)
        self.reply(envelope, outcome)

    def _follower_fetch_reply(self, envelope: Envelope, response) -> None:
        self.request_metrics.follower_fetch_completed(envelope.body.replica_id, response, self.now)
        self.reply(envelope, response)


def controller_features() -> tuple[Feature, ...]:
    """What a 4.3 controller registers as supported (``QuorumFeatures.defaultSupportedFeatureMap``):
    the same ranges as a broker, listed in that map's ``HashMap`` order, as a real controller's
    RegisterControllerRecord shows them."""
    return tuple(Feature(name, *SUPPORTED_FEATURES_4_3[name]) for name in hashmap_order(SUPPORTED_FEATURES_4_3))
