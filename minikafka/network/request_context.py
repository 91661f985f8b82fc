"""Who sent a request, over which connection and listener: what a handler may know besides the body.

Theory of operation
-------------------
When a broker has parsed a request header it wraps it, together with the
connection's facts, in a `RequestContext`: the connection id (Kafka's
``localHost:localPort-remoteHost:remotePort-processor-index``), the client's
address, the listener name and security protocol, the principal, and the
client software name and version that the connection announced in its
ApiVersions request (KIP-511).  Handlers read the context for logging, for
per-client decisions, and to answer at the request's version; they never
touch the connection itself.

`ClientInformation` is what a connection learnt from ApiVersions v3+.  It
starts as ``unknown``/``unknown``; a *valid* ApiVersions request replaces it
after the context for that same request was built, so the ApiVersions
request itself still carries the previous values, as in Kafka's
``Processor.processCompletedReceives``.  Valid means both strings match
``[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?`` (``ApiVersionsRequest.isValid``).

Mirrors ``org.apache.kafka.common.requests.RequestContext`` and
``org.apache.kafka.common.network.ClientInformation``.  Simplified: the
principal is always ``User:ANONYMOUS`` (PLAINTEXT listeners only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNKNOWN_NAME_OR_VERSION = "unknown"

_SOFTWARE_NAME_VERSION = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def is_valid_client_software(name: str | None, version: str | None) -> bool:
    """Whether an ApiVersions v3+ request's software name and version are acceptable."""
    return (name is not None and version is not None
            and _SOFTWARE_NAME_VERSION.fullmatch(name) is not None
            and _SOFTWARE_NAME_VERSION.fullmatch(version) is not None)


@dataclass(frozen=True, slots=True)
class ClientInformation:
    """The client software a connection announced (KIP-511); empty strings read as ``unknown``."""

    software_name: str = UNKNOWN_NAME_OR_VERSION
    software_version: str = UNKNOWN_NAME_OR_VERSION

    @classmethod
    def of(cls, name: str | None, version: str | None) -> "ClientInformation":
        return cls(name or UNKNOWN_NAME_OR_VERSION, version or UNKNOWN_NAME_OR_VERSION)


EMPTY_CLIENT_INFORMATION = ClientInformation()


@dataclass(frozen=True, slots=True)
class RequestContext:
    """Everything about a request except its body."""

    connection_id: str                      # "127.0.0.1:9092-127.0.0.1:50514-0-3"
    client_address: str                     # the client's IP address
    listener_name: str                      # e.g. "PLAINTEXT"
    api_key: int                            # e.g. 3 for Metadata
    api_version: int                        # the version in the header
    correlation_id: int                     # echoed in the response
    client_id: str                          # "" if the client sent none
    client_software_name: str = UNKNOWN_NAME_OR_VERSION     # from the connection's ApiVersions (KIP-511)
    client_software_version: str = UNKNOWN_NAME_OR_VERSION
    client_port: int | None = None          # the client's TCP port, when known
    security_protocol: str = "PLAINTEXT"    # the listener's security protocol
    principal: str = "User:ANONYMOUS"       # KafkaPrincipal as Kafka prints it
    header_version: int = 1                 # 1, or 2 for flexible versions

    @property
    def client_information(self) -> ClientInformation:
        return ClientInformation(self.client_software_name, self.client_software_version)
