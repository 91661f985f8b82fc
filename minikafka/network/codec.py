"""Turning request frames into Python objects and responses back into frames.

Theory of operation
-------------------
A request frame (size prefix already removed by `FrameReader`) is a request
header followed by a body:

    api_key int16 | api_version int16 | correlation_id int32 | client_id nullable string
    [ tagged fields, in header v2 = when the API version is flexible ] | body ...

`decode_request` reads it the way a Kafka 4.x broker does
(``RequestHeader.parse``, ``Processor.parseRequestHeader``,
``RequestContext.parseRequest``), in this order:

1. the api key must be one the release knows, with at least one valid
   version, and the header must parse; otherwise ``InvalidRequestException``;
2. the API must be enabled on this broker at that version: a version the
   release cannot parse gives ``UnsupportedVersionException``, a parseable
   version of an API the broker does not serve gives
   ``InvalidRequestException`` ("disabled api");
3. ApiVersions at a version the broker does not list is *not* parsed: it
   becomes an empty v0 request flagged ``api_versions_fallback``, to be
   answered in the v0 format with UNSUPPORTED_VERSION (KIP-511);
4. the body is parsed with kafka-python's classes, which are generated from
   Kafka's own JSON message specs (those kafka-python lacks, the KIP-848
   consumer group APIs, come from `minikafka.network.messages`); any failure (truncated data, a null where
   the spec forbids one, bad UTF-8) gives ``InvalidRequestException`` with
   Kafka's "Error getting request for apiKey: ..." text.

Every one of those exceptions means what it means in Kafka: the broker
closes the connection without answering (it logs "Closing socket for <id>
because of error").  ``decode_request`` raises nothing else.

`encode_response` frames a response object for the request it answers: the
response header carries the request's correlation id and is v1 (tagged
fields) for flexible versions, v0 otherwise, and always v0 for ApiVersions.

Mirrors ``RequestHeader``, ``RequestContext.parseRequest`` and
``AbstractResponse.toSend``.  Simplified: bytes left after the body are
ignored (as Kafka ignores them); invalid UTF-8 in a string is rejected,
where Java would substitute U+FFFD.
"""

from __future__ import annotations

import io
import struct
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, TypeAlias

import kafka.protocol.admin  # noqa: F401  (imported for their message classes)
import kafka.protocol.consumer  # noqa: F401
import kafka.protocol.metadata  # noqa: F401
import kafka.protocol.producer  # noqa: F401
from kafka.protocol.api_header import RequestHeader
from kafka.protocol.api_message import ApiMessage

import minikafka.network.messages  # noqa: F401  (the KIP-848 APIs kafka-python lacks)
from minikafka.common.uuid import Uuid
from minikafka.common.errors import (InvalidRequestException, UnknownServerException,
                                     UnsupportedVersionException)
from minikafka.network.api_keys import API_KEYS, API_VERSIONS, ApiKey
from minikafka.network.api_versions import ADVERTISED_API_VERSIONS, is_api_enabled

_KEY_AND_VERSION = struct.Struct(">hh")

ApiMessageClass: TypeAlias = Any
"""A kafka-python message class (``ProduceRequest``, ``ProduceResponse`` ...).  kafka-python
has no type information, so to the type checker its classes and their objects are `Any`."""


def _message_classes() -> tuple[dict[int, ApiMessageClass], dict[int, ApiMessageClass]]:
    """kafka-python's request and response classes by api key."""
    requests: dict[int, ApiMessageClass] = {}
    responses: dict[int, ApiMessageClass] = {}
    pending = list(ApiMessage.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls._class_version is not None or getattr(cls, "_json", None) is None:
            continue                                # a per-version wrapper, or abstract
        target = requests if cls.is_request() else responses
        target.setdefault(cls.API_KEY, cls)
    return requests, responses


REQUEST_CLASSES, RESPONSE_CLASSES = _message_classes()


@dataclass(frozen=True, slots=True)
class DecodedRequest:
    """A request frame, parsed: header fields plus the kafka-python body object."""

    api_key: int                       # e.g. 0 for Produce
    api_version: int                   # the version in the header (may be unknown for ApiVersions)
    correlation_id: int                # echoed in the response header
    client_id: str                     # "" when the client sent null, as Kafka treats it
    header_version: int                # 1, or 2 for flexible versions
    header: Any                        # kafka-python RequestHeader
    body: Any                          # kafka-python request object (e.g. ProduceRequest)
    size: int                          # frame size in bytes, without the size prefix
    api_versions_fallback: bool = False  # ApiVersions at a version the broker does not know

    @property
    def name(self) -> str:
        return API_KEYS[self.api_key].name

    @property
    def response_version(self) -> int:
        """Version of the response: the request's, except v0 for an ApiVersions fallback."""
        return 0 if self.api_versions_fallback else self.api_version


def decode_request(data: bytes | bytearray | memoryview, *,
                   advertised: Mapping[int, tuple[int, int]] = ADVERTISED_API_VERSIONS,
                   connection_id: str = "", listener_name: str = "PLAINTEXT",
                   principal: str = "User:ANONYMOUS") -> DecodedRequest:
    """Parse one request frame (without its size prefix) as a 4.x broker would.

    Raises only ``InvalidRequestException`` and ``UnsupportedVersionException``,
    both meaning "close the connection".  ``connection_id``, ``listener_name``
    and ``principal`` only appear in error messages, as in Kafka's.
    """
    view = memoryview(data).cast("B")
    api, version, header, body_start = _parse_header(view)
    if not is_api_enabled(api.id, version, advertised):
        if api.is_version_supported(version):
            raise InvalidRequestException(f"Received request for disabled api with key {api.id} "
                                          f"({api.name}) and version {version}")
        raise UnsupportedVersionException(f"Received request for api with key {api.id} "
                                          f"({api.name}) and unsupported version {version}")
    fallback = False
    if api.id == API_VERSIONS:
        low, high = advertised.get(API_VERSIONS, (api.oldest or 0, api.latest or 0))
        fallback = not low <= version <= high
    if fallback:
        body = REQUEST_CLASSES[API_VERSIONS][0]()  # not parsed: answered as v0
        body._header = header
    else:
        try:
            body = _decode_body(REQUEST_CLASSES[api.id], version, view, body_start)
        except Exception as exc:              # Kafka catches Throwable here too
            raise InvalidRequestException(
                f"Error getting request for apiKey: {api.enum_name}, apiVersion: {version}, "
                f"connectionId: {connection_id}, listenerName: ListenerName({listener_name}), "
                f"principal: {principal}") from exc
        body._header = header
    return DecodedRequest(api.id, version, header.correlation_id, header.client_id or "",
                          api.request_header_version(version), header, body, len(view), fallback)


def _parse_header(view: memoryview) -> tuple[ApiKey, int, Any, int]:
    """Api key, version, header object and body offset, with Kafka's error texts."""
    key_id = struct.unpack_from(">h", view, 0)[0] if len(view) >= 2 else -1
    guess = f"Error parsing request header. Our best guess of the apiKeyId is: {key_id}"
    if len(view) < 4 or key_id not in API_KEYS:
        raise InvalidRequestException(guess)
    api = API_KEYS[key_id]
    version = _KEY_AND_VERSION.unpack_from(view, 0)[1]
    if not api.has_valid_version():
        raise InvalidRequestException(f"Unsupported api with key {key_id} ({api.name}) "
                                      f"and version {version}")
    stream = io.BytesIO(view)
    try:
        header = RequestHeader.decode(stream, flexible=api.request_header_version(version) == 2)
    except Exception as exc:
        raise InvalidRequestException(guess) from exc
    return api, version, header, stream.tell()


class _MalformedBody(Exception):
    """Why a body did not parse; becomes the cause of InvalidRequestException."""


def _decode_body(cls: ApiMessageClass, version: int, view: memoryview, start: int) -> Any:
    """Decode with kafka-python's generated decoder, then check what it does not.

    The generated decoder slices strings and bytes without checking that they
    fit, so a truncated body can silently yield short values: the end position
    tells.  It also reads a negative length as null without asking whether the
    field may be null; Kafka refuses that, and so do we.
    """
    flexible = cls.flexible_version_q(version)
    decoder = cls._struct.compiled_decode_from(version, compact=flexible, tagged=flexible,
                                               data_class=cls)
    body, end = decoder(view, start)
    if end > len(view):
        raise _MalformedBody(f"the {cls.__name__} v{version} body needs {end - start} bytes, "
                             f"only {len(view) - start} remain")
    _check_nulls(cls._struct, body, version)
    return body


def _check_nulls(struct_field: Any, item: Any, version: int) -> None:
    for field in struct_field.untagged_fields(version):
        value = getattr(item, field.name)
        if value is None:
            may_be_null = field.nullable_for_version_q(version)
            if not may_be_null and (field.is_array() or field.is_struct()
                                    or field.type_str in ("string", "bytes", "records")):
                camel = field._name[:1].lower() + field._name[1:]
                raise _MalformedBody(f"non-nullable field {camel} was serialized as null")
        elif field.is_struct():
            _check_nulls(field, value, version)
        elif field.is_struct_array():
            for element in value:
                _check_nulls(field, element, version)


def request_class(api_key: int) -> ApiMessageClass:
    """kafka-python's request class for ``api_key`` (index it with a version: ``cls[3]``)."""
    return REQUEST_CLASSES[api_key]


def response_class(api_key: int) -> ApiMessageClass:
    """kafka-python's response class for ``api_key``; handlers build their answers with it."""
    return RESPONSE_CLASSES[api_key]


def encode_response(request: DecodedRequest, response: Any) -> bytes:
    """The framed bytes (size prefix, response header, body) answering ``request``.

    ``response`` must be an instance of ``response_class(request.api_key)``; its
    version is set to ``request.response_version``.  A response that cannot be
    encoded at that version (a handler bug) raises ``UnknownServerException``.
    """
    expected = RESPONSE_CLASSES[request.api_key]
    if not isinstance(response, expected):
        raise UnknownServerException(f"{request.name} request answered with "
                                     f"{type(response).__name__}, not {expected.__name__}")
    version = request.response_version
    try:
        response._header = None             # set the version first: kafka-python's setter
        response.API_VERSION = version      # would touch a request-only header field
        response.with_header(correlation_id=request.correlation_id)
        return bytes(response.encode(header=True, framed=True))
    except Exception as exc:
        raise UnknownServerException(f"Cannot encode {expected.__name__} v{version}: {exc}") from exc


__all__ = ["DecodedRequest", "decode_request", "encode_response", "request_class",
           "response_class", "REQUEST_CLASSES", "RESPONSE_CLASSES", "from_wire_uuid", "to_wire_uuid"]


def to_wire_uuid(value: Uuid | None) -> uuid.UUID:
    """A sandbox `Uuid` as kafka-python's ``uuid.UUID`` (None -> the zero id)."""
    return uuid.UUID(bytes=(value or Uuid.ZERO).to_bytes())


def from_wire_uuid(value: uuid.UUID | None) -> Uuid:
    """kafka-python's ``uuid.UUID`` as a sandbox `Uuid` (None -> the zero id)."""
    return Uuid.ZERO if value is None else Uuid.from_bytes(value.bytes)
