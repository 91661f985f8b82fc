"""The broker's side of one client connection, without the socket.

Theory of operation
-------------------
A driver that owns a TCP connection feeds the bytes it reads into
``receive(data)`` and asks ``next_request()`` for work.  The channel cuts the
stream into frames (`FrameReader`), decodes them (`decode_request`), and builds
the `RequestContext` from what it knows about the connection.

Like a Kafka broker, the channel handles **one request at a time**: after
``next_request`` returns a request the channel is *muted* and returns None
until ``complete(outcome)`` is called with the handler's outcome (a response
object, `NO_RESPONSE` or `CloseConnectionResponse`).  Frames that arrive
meanwhile wait.  That is what keeps responses in request order although
clients pipeline several requests (``max.in.flight.requests.per.connection``).

The channel also records the client software announced by a valid
ApiVersions request (KIP-511), for the contexts of later requests.

Any of ``InvalidReceiveException`` (from ``receive``),
``InvalidRequestException`` or ``UnsupportedVersionException`` (from
``next_request``) marks the channel closed: the driver closes the socket
and logs ``Closing socket for <connection id> because of error``, as Kafka's
``Processor`` does.

A driver loop::

    channel.receive(data)                       # may raise: close
    while (item := channel.next_request()):     # may raise: close
        ctx, request = item
        outcome = dispatch(ctx, request, broker)
        if isinstance(outcome, Deferred):
            outcome.on_complete(lambda o: write(channel.complete(o)))
            break                               # muted until the Deferred completes
        write(channel.complete(outcome))        # None: nothing to write
    if channel.closed: close the socket

Mirrors ``org.apache.kafka.common.network.KafkaChannel`` (mute state, client
information) and the request path of ``kafka.network.Processor``.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Mapping

from minikafka.network.api_keys import API_VERSIONS
from minikafka.network.api_versions import ADVERTISED_API_VERSIONS
from minikafka.network.codec import DecodedRequest, decode_request, encode_response
from minikafka.network.frame import SOCKET_REQUEST_MAX_BYTES_DEFAULT, FrameReader
from minikafka.network.request_channel import CloseConnectionResponse, NoOpResponse
from minikafka.network.request_context import (EMPTY_CLIENT_INFORMATION, ClientInformation,
                                               RequestContext, is_valid_client_software)


def server_connection_id(local_host: str, local_port: int, remote_host: str, remote_port: int,
                         processor_id: int = 0, connection_index: int = 0) -> str:
    """Kafka's connection id, e.g. ``127.0.0.1:9092-127.0.0.1:50514-0-3`` (``ServerConnectionId``)."""
    return f"{local_host}:{local_port}-{remote_host}:{remote_port}-{processor_id}-{connection_index}"


class KafkaChannel:
    """One client connection as the broker sees it (sans-IO)."""

    def __init__(self, connection_id: str, client_address: str, client_port: int | None = None, *,
                 listener_name: str = "PLAINTEXT", security_protocol: str = "PLAINTEXT",
                 max_request_bytes: int = SOCKET_REQUEST_MAX_BYTES_DEFAULT,
                 advertised: Mapping[int, tuple[int, int]] = ADVERTISED_API_VERSIONS):
        self.connection_id = connection_id          # Kafka's connection id string
        self.client_address = client_address        # remote IP
        self.client_port = client_port              # remote TCP port
        self.listener_name = listener_name          # e.g. PLAINTEXT
        self.security_protocol = security_protocol  # PLAINTEXT only, in the sandbox
        self.advertised = advertised                # the ApiVersions table this listener serves
        self.client_information: ClientInformation = EMPTY_CLIENT_INFORMATION  # from ApiVersions v3+
        self.closed = False                         # set on a protocol error or CloseConnectionResponse
        self._reader = FrameReader(max_request_bytes)
        self._frames: deque[bytes] = deque()        # complete frames not yet handed out
        self._in_flight: DecodedRequest | None = None  # the request being handled (channel muted)

    @property
    def muted(self) -> bool:
        """True while a request is being handled: no further request is read."""
        return self._in_flight is not None

    @property
    def queued_requests(self) -> int:
        return len(self._frames)

    def receive(self, data: bytes | bytearray | memoryview) -> None:
        """Bytes read from the socket.  Raises ``InvalidReceiveException`` on a bad frame size."""
        try:
            self._frames.extend(self._reader.feed(data))
        except Exception:
            self.closed = True
            raise

    def next_request(self) -> tuple[RequestContext, DecodedRequest] | None:
        """The next request to handle, or None (nothing complete, muted, or closed)."""
        if self.closed or self._in_flight is not None or not self._frames:
            return None
        payload = self._frames.popleft()
        try:
            request = decode_request(payload, advertised=self.advertised,
                                     connection_id=self.connection_id,
                                     listener_name=self.listener_name)
        except Exception:
            self.closed = True
            raise
        context = self._context_for(request)
        if request.api_key == API_VERSIONS:
            self._remember_client_software(request.body)
        self._in_flight = request
        return context, request

    def complete(self, outcome: Any) -> bytes | None:
        """Finish the in-flight request; returns the framed response to write, if any."""
        request = self._in_flight
        if request is None:
            raise RuntimeError(f"No request in flight on connection {self.connection_id}")
        self._in_flight = None
        if isinstance(outcome, NoOpResponse):
            return None
        if isinstance(outcome, CloseConnectionResponse):
            self.closed = True
            return None
        return encode_response(request, outcome)

    def _context_for(self, request: DecodedRequest) -> RequestContext:
        info = self.client_information
        return RequestContext(
            connection_id=self.connection_id, client_address=self.client_address,
            listener_name=self.listener_name, api_key=request.api_key,
            api_version=request.api_version, correlation_id=request.correlation_id,
            client_id=request.client_id, client_software_name=info.software_name,
            client_software_version=info.software_version, client_port=self.client_port,
            security_protocol=self.security_protocol, header_version=request.header_version)

    def _remember_client_software(self, body: Any) -> None:
        if body.version < 3:
            # v0-v2 (and the v0 stand-in for an unknown version) carry no software
            # fields; Kafka still registers them, which reads as "unknown"
            self.client_information = EMPTY_CLIENT_INFORMATION
        elif is_valid_client_software(body.client_software_name, body.client_software_version):
            self.client_information = ClientInformation.of(body.client_software_name,
                                                           body.client_software_version)
