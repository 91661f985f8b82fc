"""`InProcessConnection`: talk the Kafka protocol to a sandbox broker without a socket.

Theory of operation
-------------------
Tests, simulations and lessons sometimes want to send one Kafka request to
one broker and look at the answer, also on the simulated driver where no
port exists.  This connection does everything a TCP client and the live
listener would do, minus the socket: it encodes the request with
kafka-python's client-side classes (header and all), decodes those bytes with
the broker's own codec, delivers the decoded request to the broker node as
a `ClientRequest` envelope (so a paused broker makes it wait and a dead one
refuses it), encodes the handler's outcome as the response frame, and parses
that frame with kafka-python's client-side parser.  What comes back is
exactly what a real client would have received.

It is given a `Cluster` and uses only its testing hooks: ``processes.check_node``
(the broker id names a broker) and ``driver.request`` (deliver and wait).
"""

from __future__ import annotations

import itertools
from typing import Any

from kafka.protocol.parser import KafkaProtocol

from minikafka.drivers.cluster_runtime import ConnectionRefused
from minikafka.network.client_request import ClientRequest
from minikafka.network.codec import decode_request, encode_response
from minikafka.network.request_channel import CloseConnectionResponse, NoOpResponse
from minikafka.network.request_context import RequestContext
from minikafka.runtime.node import RequestTimedOut

_connection_ids = itertools.count()


class ConnectionClosed(Exception):
    """The broker closed the connection (or refused it) instead of answering."""


class InProcessConnection:
    def __init__(self, cluster, broker_id: int, client_id: str = "minikafka-inprocess"):
        cluster.processes.check_node(broker_id, "broker")
        self.cluster = cluster
        self.broker_id = broker_id
        self.client_id = client_id
        self.address = ("inprocess", broker_id, next(_connection_ids))
        self.protocol = KafkaProtocol(client_id=client_id)

    def send(self, request: Any, timeout_ms: int = 30_000) -> Any:
        """Send ``request`` (a kafka-python request object with its version set)."""
        self.protocol.send_request(request)
        frame = self.protocol.send_bytes()
        decoded = decode_request(frame[4:])
        context = RequestContext(
            connection_id=f"inprocess-{self.address[2]}", client_address="127.0.0.1",
            listener_name="PLAINTEXT", api_key=decoded.api_key, api_version=decoded.api_version,
            correlation_id=decoded.correlation_id, client_id=decoded.client_id,
            client_software_name="unknown", client_software_version="unknown", client_port=None,
            security_protocol="PLAINTEXT", header_version=decoded.header_version)
        outcome = self.cluster.driver.request(self.address, self.broker_id,
                                              ClientRequest(context, decoded), timeout_ms)
        if isinstance(outcome, (ConnectionRefused, RequestTimedOut)):
            self.protocol.in_flight_requests.clear()
            raise ConnectionClosed(f"broker {self.broker_id}: {type(outcome).__name__}")
        if isinstance(outcome, NoOpResponse):
            self.protocol.in_flight_requests.clear()
            return None
        if isinstance(outcome, CloseConnectionResponse):
            self.protocol.in_flight_requests.clear()
            raise ConnectionClosed(f"broker {self.broker_id} closed the connection: {outcome.reason}")
        responses = self.protocol.receive_bytes(encode_response(decoded, outcome))
        (_, response), = responses
        return response
