"""Forwarding admin requests from a broker to the active controller, as a KRaft broker does.

Theory of operation
-------------------
In KRaft mode a broker cannot change metadata itself.  CreateTopics,
DeleteTopics, CreatePartitions, (Incremental)AlterConfigs, ElectLeaders and
the reassignment APIs are wrapped in an Envelope and sent to the active
controller over the broker's "forwarding" channel; the controller's answer
is relayed to the client unchanged.  The channel keeps trying while there is
no active controller, and whenever an answer carries NOT_CONTROLLER
*anywhere* (the controller lost its leadership while the request waited):
it forgets that controller, waits for the next one, and sends the request
again.  Only when its time runs out does it give up, and the client then
gets the API's whole-request error response with REQUEST_TIMED_OUT and no
message (Kafka builds it from a bare ``TimeoutException``).

`forward` gives a handler exactly that: a `Deferred` completed with
``build(domain_response)`` once the controller answered for real, or with
``build_timeout()`` when the time budget is spent.  The budget is the
request's own ``timeout_ms`` (capped at the 60 s of the forwarding channel),
so a learner who kills a quorum majority sees the timeout after the time
they asked for.

Mirrors ``kafka.server.ForwardingManager`` and the retry loop of
``NodeToControllerRequestThread.handleResponse``.  Simplified: no Envelope
(the domain request object travels as is); the time budget is applied on
the broker, where Kafka's forwarding channel always waits up to 60 s and the
request's own ``timeout_ms`` bounds the controller's work instead.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Protocol

from minikafka.common.errors import Errors
from minikafka.controller.requests import ControllerRequest
from minikafka.raft.messages import DescribeQuorumRequest
from minikafka.network.request_channel import CloseConnectionResponse, Deferred
from minikafka.runtime.node import RequestTimedOut
from minikafka.server.broker_server import has_not_controller_error  # noqa: F401  (re-exported)

FORWARDING_RETRY_TIMEOUT_MS = 60_000
"""``retryTimeoutMs`` of the broker's forwarding channel (``BrokerServer``)."""

RETRY_BACKOFF_MS = 50
"""How long the sandbox waits before resending after a NOT_CONTROLLER answer."""

ForwardedRequest = ControllerRequest | DescribeQuorumRequest
"""What a broker sends the active controller: a `QuorumController` request, or DescribeQuorum for its Raft client."""

class ForwardingBroker(Protocol):
    """What forwarding uses of the broker: its clock, a timer, and its channel to the active controller."""

    def now(self) -> int: ...

    def schedule(self, key: Hashable, at_ms: int, fn: Callable[[], None]) -> None: ...

    def forward_to_controller(self, request: ForwardedRequest, respond: Callable[[Any], None],
                              timeout_ms: int | None = None) -> None:
        """``respond`` gets the controller's response to ``request`` or a `RequestTimedOut`."""
        ...


def forwarding_budget_ms(timeout_ms: int | None) -> int:
    """The time the broker keeps trying: the request's timeout, at most the channel's 60 s."""
    if timeout_ms is None or timeout_ms <= 0 or timeout_ms > FORWARDING_RETRY_TIMEOUT_MS:
        return FORWARDING_RETRY_TIMEOUT_MS
    return timeout_ms


def forward(broker: ForwardingBroker, request: ForwardedRequest, timeout_ms: int | None,
            build: Callable[[Any], Any], build_timeout: Callable[[], Any], description: str) -> Deferred:
    """Send ``request`` to the active controller; the Deferred gets the client's response.

    ``build(domain_response)`` turns the controller's answer (the response type
    that goes with ``request``'s type) into the kafka-python response; ``build_timeout()`` makes the REQUEST_TIMED_OUT
    answer.  Neither may raise: if one does, the connection is closed (as
    Kafka does with an error it cannot put in a response).
    """
    deferred = Deferred(description)
    deadline = broker.now() + forwarding_budget_ms(timeout_ms)
    retry_key = ("handlers", "forward", id(deferred))   # unique while the retry timer holds the deferred

    def attempt() -> None:
        remaining = max(1, deadline - broker.now())
        broker.forward_to_controller(request, answered, timeout_ms=remaining)

    def answered(response: Any) -> None:
        if isinstance(response, RequestTimedOut):
            complete_with(deferred, build_timeout)
        elif has_not_controller_error(response):
            if broker.now() + RETRY_BACKOFF_MS >= deadline:
                complete_with(deferred, build_timeout)
            else:                         # the controller lost its leadership: wait for the next one
                broker.schedule(retry_key, broker.now() + RETRY_BACKOFF_MS, attempt)
        else:
            complete_with(deferred, lambda: build(response))

    attempt()
    return deferred


def complete_with(deferred: Deferred, make: Callable[[], Any]) -> None:
    """Complete ``deferred`` with ``make()``, or close the connection if ``make`` raises.

    Used by handlers whose answers are built inside a broker callback, where an
    exception would otherwise escape into the broker's event loop.
    """
    try:
        outcome = make()
    except Exception as exc:          # a handler bug: close the connection, keep the broker alive
        outcome = CloseConnectionResponse(exc)
    deferred.complete(outcome)
