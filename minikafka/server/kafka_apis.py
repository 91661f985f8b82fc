"""`KafkaApis`: the broker's request layer, an explicit table from API key to handler.

Theory of operation
-------------------
A handler turns one decoded request into its answer.  Its signature is

    handle(ctx: RequestContext, request, broker) -> outcome

* ``ctx`` is the `RequestContext` (connection, client, api version...);
* ``request`` is the kafka-python request object (``ProduceRequest`` ...) at
  the version the client used, already checked by the codec;
* ``broker`` is what the handler's module declares it needs, as a small
  `typing.Protocol` next to its handlers (``ProduceBroker``,
  ``GroupsBroker`` ...).  `BrokerServer` satisfies every one of them; a test
  can pass anything that does.  Handlers reach the rest of the cluster only
  through those methods (sans-IO: no sockets, no clock, no sleeping);
* ``outcome`` is one of the kinds in `request_channel`: a response object
  (built with ``codec.response_class(api_key)``, any version-appropriate
  fields set), a `Deferred` the broker completes later, `NO_RESPONSE`, or
  `CloseConnectionResponse`.

Handlers answer bad requests with Kafka's error codes and messages in the
response, as Kafka's ``KafkaApis`` does; they should not raise.  If one does,
`dispatch` turns the exception into `CloseConnectionResponse` (the
connection is closed and the error logged), which is what Kafka does with an
error it cannot put into a response.

``HANDLERS`` below is written out by hand, one line per API, so a reader (or
an editor's "go to definition") goes from an API key straight to its
handler.  The codec only lets advertised APIs through, so an advertised key
without a handler (while the sandbox is being built) also ends in
`CloseConnectionResponse`.

Mirrors the ``request.header.apiKey match`` of ``kafka.server.KafkaApis.handle``;
the handlers live in ``minikafka.server.apis``, one module per API family.
Requests for the controller (``kafka.server.ControllerApis``) never come
through here: `KafkaNode` hands them to the `QuorumController` by their type
(`minikafka.controller.requests.ControllerRequest`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from minikafka.common.errors import UnknownServerException
from minikafka.network import api_keys as keys
from minikafka.network.codec import DecodedRequest
from minikafka.network.request_channel import CloseConnectionResponse
from minikafka.network.request_context import RequestContext
from minikafka.server.apis import (acls, api_versions, configs, consumer_groups, fetch, group_admin,
                                   group_offsets, groups, leadership, log_dirs, metadata, offset_delete,
                                   offsets, produce, quorum, topics_admin)



class KafkaApisBroker(api_versions.ApiVersionsBroker, configs.ConfigsBroker, fetch.FetchBroker,
                      group_offsets.GroupOffsetsBroker, log_dirs.LogDirsBroker, metadata.MetadataBroker,
                      offsets.OffsetsBroker, produce.ProduceBroker, produce.InitProducerIdBroker,
                      Protocol):
    """Everything the handlers use of the broker: the union of their modules' Protocols.

    `BrokerServer` is the one implementation; each handler is typed by its own,
    smaller Protocol, so it can be called with this one.
    """


if TYPE_CHECKING:
    from minikafka.server.broker_server import BrokerServer

    def _broker_server_serves_the_handlers(server: BrokerServer) -> KafkaApisBroker:
        return server       # the type checker's proof that BrokerServer has all the Protocols ask for


Handler = Callable[[RequestContext, Any, KafkaApisBroker], Any]

HANDLERS: dict[int, Handler] = {
    keys.PRODUCE: produce.handle_produce,
    keys.FETCH: fetch.handle_fetch,
    keys.LIST_OFFSETS: offsets.handle_list_offsets,
    keys.METADATA: metadata.handle_metadata,
    keys.OFFSET_COMMIT: group_offsets.handle_offset_commit,
    keys.OFFSET_FETCH: group_offsets.handle_offset_fetch,
    keys.FIND_COORDINATOR: groups.handle_find_coordinator,
    keys.JOIN_GROUP: groups.handle_join_group,
    keys.HEARTBEAT: groups.handle_heartbeat,
    keys.LEAVE_GROUP: groups.handle_leave_group,
    keys.SYNC_GROUP: groups.handle_sync_group,
    keys.DESCRIBE_GROUPS: group_admin.handle_describe_groups,
    keys.LIST_GROUPS: group_admin.handle_list_groups,
    keys.API_VERSIONS: api_versions.handle_api_versions,
    keys.CREATE_TOPICS: topics_admin.handle_create_topics,
    keys.DELETE_TOPICS: topics_admin.handle_delete_topics,
    keys.DELETE_RECORDS: offsets.handle_delete_records,
    keys.INIT_PRODUCER_ID: produce.handle_init_producer_id,
    keys.OFFSET_FOR_LEADER_EPOCH: offsets.handle_offset_for_leader_epoch,
    keys.DESCRIBE_ACLS: acls.handle_describe_acls,
    keys.CREATE_ACLS: acls.handle_create_acls,
    keys.DELETE_ACLS: acls.handle_delete_acls,
    keys.DESCRIBE_CONFIGS: configs.handle_describe_configs,
    keys.ALTER_CONFIGS: configs.handle_alter_configs,
    keys.ALTER_REPLICA_LOG_DIRS: log_dirs.handle_alter_replica_log_dirs,
    keys.DESCRIBE_LOG_DIRS: log_dirs.handle_describe_log_dirs,
    keys.CREATE_PARTITIONS: topics_admin.handle_create_partitions,
    keys.DELETE_GROUPS: group_admin.handle_delete_groups,
    keys.ELECT_LEADERS: leadership.handle_elect_leaders,
    keys.INCREMENTAL_ALTER_CONFIGS: configs.handle_incremental_alter_configs,
    keys.ALTER_PARTITION_REASSIGNMENTS: leadership.handle_alter_partition_reassignments,
    keys.LIST_PARTITION_REASSIGNMENTS: leadership.handle_list_partition_reassignments,
    keys.OFFSET_DELETE: offset_delete.handle_offset_delete,
    keys.DESCRIBE_QUORUM: quorum.handle_describe_quorum,
    keys.DESCRIBE_CLUSTER: metadata.handle_describe_cluster,
    keys.CONSUMER_GROUP_HEARTBEAT: consumer_groups.handle_consumer_group_heartbeat,
    keys.CONSUMER_GROUP_DESCRIBE: consumer_groups.handle_consumer_group_describe,
    keys.LIST_CONFIG_RESOURCES: configs.handle_list_config_resources,
    keys.DESCRIBE_TOPIC_PARTITIONS: metadata.handle_describe_topic_partitions,
}
"""api key -> handler, for every API the sandbox's broker serves."""


def dispatch(ctx: RequestContext, request: DecodedRequest, broker: KafkaApisBroker,
             handlers: dict[int, Handler] | None = None) -> Any:
    """Run the handler for ``request`` and return its outcome (never raises)."""
    table = HANDLERS if handlers is None else handlers
    handler = table.get(request.api_key)
    if handler is None:
        return CloseConnectionResponse(UnknownServerException(
            f"The sandbox has no handler for {request.name} (api key {request.api_key}) yet"))
    try:
        return handler(ctx, request.body, broker)
    except Exception as exc:               # a handler bug must not take the broker down
        return CloseConnectionResponse(exc)
