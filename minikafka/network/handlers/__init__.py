"""Request handlers: one module per Kafka API, and the registry that routes to them.

Theory of operation
-------------------
A handler turns one decoded request into its answer.  Its signature is

    handle(ctx: RequestContext, request, broker) -> outcome

* ``ctx`` is the `RequestContext` (connection, client, api version...);
* ``request`` is the kafka-python request object (``ProduceRequest`` ...) at
  the version the client used, already checked by the codec;
* ``broker`` is the broker node serving the connection.  Each handler module
  states which of the broker's methods it calls; it reaches the rest of the
  cluster only through them (sans-IO: no sockets, no clock, no sleeping);
* ``outcome`` is one of the kinds in `request_channel`: a response object
  (built with ``codec.response_class(api_key)``, any version-appropriate
  fields set), a `Deferred` the broker completes later, `NO_RESPONSE`, or
  `CloseConnectionResponse`.

Handlers answer bad requests with Kafka's error codes and messages in the
response, as Kafka's ``KafkaApis`` does; they should not raise.  If one does,
`dispatch` turns the exception into `CloseConnectionResponse` (the
connection is closed and the error logged), which is what Kafka does with an
error it cannot put into a response.

``HANDLERS`` maps api keys to handlers; it is collected from the modules of
this package, each of which declares its own ``HANDLERS = {api_key: handle}``.  The codec only lets advertised APIs
through, so an advertised key without a handler (while the sandbox is being
built) also ends in `CloseConnectionResponse`.

Mirrors the dispatch in ``kafka.server.KafkaApis.handle``.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable

from minikafka.common.errors import UnknownServerException
from minikafka.network.codec import DecodedRequest
from minikafka.network.request_channel import CloseConnectionResponse
from minikafka.network.request_context import RequestContext

Handler = Callable[[RequestContext, Any, Any], Any]


def _discover() -> dict[int, Handler]:
    """Every module of this package declares ``HANDLERS = {api_key: handler, ...}``."""
    table: dict[int, Handler] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for api_key, handler in getattr(module, "HANDLERS", {}).items():
            if api_key in table:
                raise RuntimeError(f"two handlers for api key {api_key}: {info.name} and another")
            table[api_key] = handler
    return table


HANDLERS: dict[int, Handler] = _discover()
"""api key -> handler.  Domain handlers (Produce, Fetch, ...) register here as they are written."""


def dispatch(ctx: RequestContext, request: DecodedRequest, broker: Any,
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
