"""`ClientRequest`: a decoded Kafka request on its way from a connection to its broker node.

A driver owns the socket and the `KafkaChannel`; it wraps each decoded request
with its `RequestContext` and sends it to the node as an ordinary envelope, so
requests queue behind a paused broker and are refused by a dead one.  The node
runs the API's handler and replies with the handler's outcome (a response
object, `NO_RESPONSE` or `CloseConnectionResponse`).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.network.codec import DecodedRequest
from minikafka.network.request_context import RequestContext


@dataclass(frozen=True, slots=True)
class ClientRequest:
    context: RequestContext
    request: DecodedRequest
