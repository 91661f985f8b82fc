"""Wire formats of the APIs kafka-python has no classes for: the KIP-848 consumer group APIs.

Theory of operation
-------------------
The codec parses every request with kafka-python's message classes, which
are built at import time from Kafka's JSON message specs.  kafka-python
ships no spec for ConsumerGroupHeartbeat (api key 68) or
ConsumerGroupDescribe (69), so this package carries them: the JSON files
beside this module describe the fields, their types, the versions each
field exists in and which may be null, exactly as Kafka 4.3.1's generated
``ConsumerGroupHeartbeatRequestData`` etc. read and write them (checked with
``javap`` against the 4.3.1 client jar: both APIs are v0-1, flexible from
v0; the heartbeat's ``SubscribedTopicRegex`` exists from v1; a described
member's ``MemberType`` is an int8 from v1, default -1).  The classes below
are kafka-python ``ApiMessage`` subclasses loading those files, so the codec
finds them like any other message class.

Mirrors ``clients/src/main/resources/common/message/ConsumerGroup{Heartbeat,Describe}{Request,Response}.json``.
Simplified: the files keep only what the wire needs (no documentation strings
or entity types).
"""

from __future__ import annotations

from kafka.protocol.api_message import ApiMessage

_HERE = __name__

# kafka-python has no type information, so `ApiMessage` is `Any` to mypy: subclassing it
# and passing its class keyword (`load_json`) are what the ignores below allow.


class ConsumerGroupHeartbeatRequest(ApiMessage, load_json=_HERE):  # type: ignore[misc,call-arg]
    pass


class ConsumerGroupHeartbeatResponse(ApiMessage, load_json=_HERE):  # type: ignore[misc,call-arg]
    pass


class ConsumerGroupDescribeRequest(ApiMessage, load_json=_HERE):  # type: ignore[misc,call-arg]
    pass


class ConsumerGroupDescribeResponse(ApiMessage, load_json=_HERE):  # type: ignore[misc,call-arg]
    pass


__all__ = ["ConsumerGroupHeartbeatRequest", "ConsumerGroupHeartbeatResponse",
           "ConsumerGroupDescribeRequest", "ConsumerGroupDescribeResponse"]
