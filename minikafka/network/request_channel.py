"""What a handler gives back: a response now, a response later, nothing, or "close the connection".

Theory of operation
-------------------
In Kafka the network threads and the request handler threads meet in the
``RequestChannel``: a handler's result goes back as one of a few kinds of
response.  The sandbox keeps the kinds and drops the threads.  A handler
returns one of:

* a kafka-python response object: encode it and send it now;
* `Deferred`: the answer is not known yet (a produce waiting for acks=all, a
  fetch waiting for data, an admin request waiting for the controller).  The
  broker node completes it later, from inside its ``deliver``/``poll``, with
  any of these kinds; whoever holds the connection subscribed with
  ``on_complete`` and sends the result then;
* `NO_RESPONSE` (Kafka's ``NoOpResponse``): nothing is sent, the connection
  reads its next request (a produce with ``acks=0``);
* `CloseConnectionResponse`: nothing is sent and the connection is closed
  (Kafka does this after an ``acks=0`` produce fails, so that the client
  refreshes its metadata, and after any error it cannot answer).

A connection handles one request at a time (Kafka mutes the socket until the
response is sent), so completing a `Deferred` also lets the connection read
its next request; responses on one connection therefore stay in order.

Mirrors ``kafka.network.RequestChannel.Response`` and its subclasses
``SendResponse``, ``NoOpResponse`` and ``CloseConnectionResponse``.
Simplified: no throttling responses (the sandbox has no quotas).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True, slots=True)
class NoOpResponse:
    """Send nothing; read the next request."""


NO_RESPONSE = NoOpResponse()


@dataclass(frozen=True, slots=True)
class CloseConnectionResponse:
    """Send nothing and close the connection; ``reason`` is logged the way Kafka logs it."""

    reason: BaseException | None = None


class Deferred:
    """A response that a broker node will supply later.

    The handler creates it and returns it; the component that will know the
    answer keeps it and calls ``complete(outcome)`` exactly once.  Callbacks
    registered with ``on_complete`` run at once if it is already complete.
    """

    def __init__(self, description: str = ""):
        self.description = description               # what it waits for, for debugging and lessons
        self._outcome: Any = None                     # the response, NO_RESPONSE or CloseConnectionResponse
        self._done = False                            # set once by complete()
        self._callbacks: list[Callable[[Any], None]] = []

    @property
    def done(self) -> bool:
        return self._done

    @property
    def outcome(self) -> Any:
        if not self._done:
            raise RuntimeError(f"Deferred response {self.description!r} is not complete yet")
        return self._outcome

    def complete(self, outcome: Any) -> None:
        if self._done:
            raise RuntimeError(f"Deferred response {self.description!r} was already completed")
        if isinstance(outcome, Deferred):
            raise TypeError("a Deferred cannot complete with another Deferred")
        self._outcome, self._done = outcome, True
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(outcome)

    def on_complete(self, callback: Callable[[Any], None]) -> None:
        if self._done:
            callback(self._outcome)
        else:
            self._callbacks.append(callback)

    def __repr__(self) -> str:
        state = f"done: {self._outcome!r}" if self._done else "pending"
        return f"Deferred({self.description!r}, {state})"
