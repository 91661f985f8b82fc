"""Real TCP listeners for the live driver: bytes in, `ClientRequest` envelopes to the node, bytes out.

Theory of operation
-------------------
Each broker of a live cluster listens on its own 127.0.0.1 port.  For every
accepted connection a `KafkaChannel` (sans-IO, in ``minikafka.network``)
cuts the byte stream into requests and decodes them.  The listener sends each
decoded request to the broker node as a `ClientRequest` envelope from the
connection's own address, exactly like any other message, so a paused broker
lets requests queue and a killed broker refuses them.  The node runs the
request's handler and replies with the handler's outcome; the listener asks
the channel to encode it and writes the frame.  The channel handles one
request at a time, which keeps responses in order.

The listening socket is bound before the node starts and kept for the node's
whole life in the cluster (``Cluster`` reserves the port), so a restarted
broker comes back on the same port, as a real one configured with a fixed
listener would.  Killing a broker closes its server and every connection.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket

from minikafka.drivers.cluster_runtime import ConnectionRefused
from minikafka.network.client_request import ClientRequest
from minikafka.network.kafka_channel import KafkaChannel, server_connection_id
from minikafka.network.request_channel import CloseConnectionResponse
from minikafka.runtime.node import Envelope, RequestTimedOut

log = logging.getLogger("minikafka.network")


def reserve_port(host: str, port: int = 0) -> socket.socket:
    """Bind a listening socket now, so the port is ours before the broker starts."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(exc.errno, f"Socket server failed to bind to {host}:{port}: "
                                 f"{exc.strerror}.") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


class _Connection(asyncio.Protocol):
    def __init__(self, listener: "BrokerListener", address: tuple):
        self.listener = listener
        self.address = address                # the envelope address of this connection
        self.transport: asyncio.Transport | None = None
        self.channel: KafkaChannel | None = None
        self.waiting = False                   # a request is at the node; the channel is muted

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport             # type: ignore[assignment]
        local_host, local_port = transport.get_extra_info("sockname")[:2]
        remote_host, remote_port = transport.get_extra_info("peername")[:2]
        connection_id = server_connection_id(local_host, local_port, remote_host, remote_port,
                                             0, self.address[2])
        self.channel = KafkaChannel(connection_id, remote_host, remote_port,
                                    listener_name=self.listener.listener_name,
                                    max_request_bytes=self.listener.max_request_bytes)
        self.listener.connections[self.address] = self
        self.listener.runtime.client_sinks[self.address] = self.on_outcome

    def data_received(self, data: bytes) -> None:
        try:
            self.channel.receive(data)
        except Exception as exc:
            self._close_for(exc)
            return
        self._pump()

    def connection_lost(self, exc: Exception | None) -> None:
        self.listener.connections.pop(self.address, None)
        self.listener.runtime.client_sinks.pop(self.address, None)

    def _pump(self) -> None:
        if self.waiting or self.transport is None or self.transport.is_closing():
            return
        try:
            item = self.channel.next_request()
        except Exception as exc:
            self._close_for(exc)
            return
        if item is None:
            return
        context, decoded = item
        self.waiting = True
        self.listener.runtime.send_from_client(self.address, self.listener.node_id,
                                               ClientRequest(context, decoded),
                                               next(self.listener.correlation))

    def on_outcome(self, envelope: Envelope) -> None:
        outcome = envelope.body
        if isinstance(outcome, (ConnectionRefused, RequestTimedOut)):
            self.close()
            return
        self.waiting = False
        try:
            frame = self.channel.complete(outcome)
        except Exception as exc:
            self._close_for(exc)
            return
        if frame:
            self.transport.write(frame)
        if self.channel.closed:
            if isinstance(outcome, CloseConnectionResponse) and outcome.reason is not None:
                self._log_close(outcome.reason)
            self.close()
            return
        self._pump()

    def _close_for(self, exc: BaseException) -> None:
        self._log_close(exc)
        self.close()

    def _log_close(self, exc: BaseException) -> None:
        connection_id = self.channel.connection_id if self.channel else "?"
        self.listener.log_line(f"Closing socket for {connection_id} because of error: "
                               f"{type(exc).__name__}: {exc}")

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


class BrokerListener:
    """The PLAINTEXT listener of one broker on the live driver's loop."""

    _ids = itertools.count()

    def __init__(self, runtime, node_id: int, host: str, port: int,
                 sock: socket.socket | None = None, listener_name: str = "PLAINTEXT",
                 max_request_bytes: int = 104857600):
        self.runtime = runtime
        self.node_id = node_id
        self.host = host
        self.port = port                        # fixed for the broker's life, across restarts
        self.sock = sock                        # a socket reserved in advance, used by the next start
        self.listener_name = listener_name
        self.max_request_bytes = max_request_bytes
        self.server: asyncio.AbstractServer | None = None
        self.connections: dict[tuple, _Connection] = {}
        self.correlation = itertools.count(1)
        self.log_lines: list[str] = []          # "Closing socket for ..." lines, newest last
        self._connection_index = itertools.count()

    async def start(self, serve: bool = True) -> None:
        """Bind the port; accept connections now, or (``serve=False``) only after `enable`.

        Until then connections wait in the socket backlog, as they do on a Kafka
        broker that has not yet enabled request processing."""
        sock, self.sock = self.sock, None
        if sock is None:
            sock = reserve_port(self.host, self.port)
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(
            lambda: _Connection(self, ("conn", self.node_id, next(self._connection_index))),
            sock=sock, start_serving=serve)

    def enable(self) -> None:
        """Start accepting connections (loop thread)."""
        if self.server is not None and not self.server.is_serving():
            asyncio.get_running_loop().create_task(self.server.start_serving())

    @property
    def serving(self) -> bool:
        return self.server is not None and self.server.is_serving()

    def stop(self) -> None:
        """Stop accepting, release the port and drop every connection (a dead broker refuses)."""
        if self.server is not None:
            self.server.close()
            self.server = None
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        for connection in list(self.connections.values()):
            connection.close()

    def log_line(self, text: str) -> None:
        self.log_lines.append(text)
        del self.log_lines[:-200]
        log.info(text)
