"""`CoordinatorCall`: one ``Admin`` call to group coordinators, retried until its deadline.

Theory of operation
-------------------
Kafka's ``Admin`` client gives every call (``describeConsumerGroups``,
``deleteConsumerGroupOffsets``, ...) a deadline: the call's ``timeoutMs``
option from the moment it starts (``kafka-consumer-groups.sh --timeout``
sets it on every call the tool makes), else ``default.api.timeout.ms``.
A call to group coordinators goes in two stages:

1. *lookup*: FindCoordinator (one batched request) for the groups whose
   coordinator is unknown.  A group answered COORDINATOR_NOT_AVAILABLE or
   COORDINATOR_LOAD_IN_PROGRESS is looked up again at once: lookups have no
   backoff;
2. *request*: the call's own request to each coordinator.  A group answered
   COORDINATOR_LOAD_IN_PROGRESS is asked again; NOT_COORDINATOR or
   COORDINATOR_NOT_AVAILABLE sends it back to the lookup.  Either way the
   next request waits an exponential backoff: ``retry.backoff.ms`` (100 ms)
   doubled with each attempt, at most ``retry.backoff.max.ms`` (1 s), with
   +-20 % jitter.  Any other answer is the group's result.

When the deadline passes, each group still without a result fails with a
``TimeoutException`` worded after the stage it was in: ``Timed out waiting
for a node assignment. Call: offsetDelete(api=OFFSET_DELETE)`` while its
request waited to be sent (the usual case: the deadline falls in a
backoff), or, for a request sent and not answered in time, ``Call(callName=
..., deadlineMs=..., tries=..., nextAllowedTryMs=...) timed out at <ms>
after <n> attempt(s)`` (wall-clock milliseconds).  The name is the handler's
(``offsetDelete``, ``offsetFetch``, ``offsetCommit``, ``describeConsumer
Groups``, ``deleteConsumerGroups``) with the request's ``ApiKeys`` name.

Mirrors ``KafkaAdminClient`` (``Call.fail``, ``TimeoutProcessor``,
``invokeDriver``), ``AdminApiDriver`` and ``CoordinatorStrategy``, Kafka
4.3.1.  Simplified: requests go one at a time (Kafka's driver sends lookups
and requests to different coordinators side by side; each coordinator has
its own attempts and backoff in both); a connection that fails waits
``retry.backoff.ms`` before the next try, where Kafka's call waits for a
ready node; FindCoordinator is sent in its batched form (v4, Kafka 3.0 and
later) only.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable

from minikafka.commands.admin_client import AdminConnection, error_for, from_client_error
from minikafka.common.errors import Errors, KafkaException, TimeoutException

RETRY_BACKOFF_MS = 100                   # retry.backoff.ms
RETRY_BACKOFF_MAX_MS = 1000              # retry.backoff.max.ms
REQUEST_TIMEOUT_MS = 30_000              # the admin client's request.timeout.ms
LOOKUP_AGAIN = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS})
FIND_AGAIN = frozenset({Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE})
ASK_AGAIN = frozenset({Errors.COORDINATOR_LOAD_IN_PROGRESS})

# A request's answer split per group: group id -> (the group's error, what the caller gets back).
Split = Callable[[Any, list[str]], dict[str, tuple[Errors, Any]]]


def backoff_ms(attempts: int) -> int:
    """``ExponentialBackoff(retry.backoff.ms, 2, retry.backoff.max.ms, 0.2).backoff(attempts)``."""
    exponent = min(attempts, math.log2(RETRY_BACKOFF_MAX_MS / RETRY_BACKOFF_MS))
    return min(int(RETRY_BACKOFF_MS * 2 ** exponent * random.uniform(0.8, 1.2)), RETRY_BACKOFF_MAX_MS)


def wall_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class _Stage:
    """Lookup or request: the name Kafka's ``Call`` carries, its attempts, and when it may go next."""
    name: str
    tries: int = 0
    next_at: float = 0.0                 # time.monotonic() before which it waits


class _Expired(Exception):
    """The deadline passed; ``in_flight`` groups were in a request sent and not answered."""

    def __init__(self, in_flight: frozenset[str] = frozenset(), text: str = "",
                 cause: KafkaException | None = None):
        super().__init__(text)
        self.in_flight, self.text, self.cause = in_flight, text, cause


class CoordinatorCall:
    """One Admin call to the coordinators of some groups, bounded by ``connection.api_timeout_ms``."""

    def __init__(self, connection: AdminConnection, api_name: str, api_key: str,
                 ask_again: frozenset[Errors] = ASK_AGAIN):
        timeout_ms = connection.api_timeout_ms
        self._connection = connection
        self._deadline = time.monotonic() + timeout_ms / 1000
        self._deadline_ms = wall_ms() + timeout_ms          # as Kafka prints it
        self._lookup = _Stage(f"{api_name}(api=FIND_COORDINATOR)")
        self._request_name = f"{api_name}(api={api_key})"
        self._requests: dict[int, _Stage] = {}              # per coordinator, as Kafka's FulfillmentScope
        self._ask_again = ask_again
        self.coordinators: dict[str, int] = {}          # group id -> node id of its coordinator, once found

    def run(self, group_ids: list[str], build: Callable[[list[str]], Any], split: Split) -> dict[str, Any]:
        """Each group's result from ``split``, or the `KafkaException` its future fails with."""
        results: dict[str, Any] = {}
        pending = list(dict.fromkeys(group_ids))
        try:
            while pending:
                unknown = [g for g in pending if g not in self.coordinators]
                if unknown:
                    self._find(unknown, results)
                else:
                    self._ask(pending, build, split, results)
                pending = [g for g in pending if g not in results]
        except _Expired as expired:
            results.update({g: self._timeout(g, expired) for g in pending if g not in results})
        except Exception as exc:             # kafka-python failed the call as a whole
            results.update({g: from_client_error(exc) for g in pending if g not in results})
        return results

    def _timeout(self, group_id: str, expired: _Expired) -> KafkaException:
        if expired.cause is not None:
            return expired.cause
        if group_id in expired.in_flight:
            return TimeoutException(expired.text)
        name = self._request_name if group_id in self.coordinators else self._lookup.name
        return TimeoutException(f"Timed out waiting for a node assignment. Call: {name}")

    def _find(self, group_ids: list[str], results: dict[str, Any]) -> None:
        """One FindCoordinator round; groups answered with a retriable error stay unknown."""
        from kafka.protocol.metadata import CoordinatorType, FindCoordinatorRequest
        request = FindCoordinatorRequest(key_type=CoordinatorType.GROUP.value, coordinator_keys=group_ids,
                                         min_version=4)
        response = self._send(self._lookup, request, None, group_ids)
        if response is None:
            return
        for found in response.coordinators:
            error = Errors.for_code(found.error_code)
            if error is Errors.NONE:
                self.coordinators[found.key] = self._connection.add_group_coordinator(self._lookup.name, found)
            elif error is Errors.GROUP_AUTHORIZATION_FAILED:
                results[found.key] = error.exception(
                    f"FindCoordinator request for groupId `{found.key}` failed due to authorization failure")
            elif error not in LOOKUP_AGAIN:
                results[found.key] = error.exception(
                    f"FindCoordinator request for key `{found.key}` failed due to an unexpected error")

    def _ask(self, group_ids: list[str], build, split: Split, results: dict[str, Any]) -> None:
        """The request to each coordinator; a retriable answer keeps the group pending."""
        by_node: dict[int, list[str]] = {}
        for group_id in group_ids:
            by_node.setdefault(self.coordinators[group_id], []).append(group_id)
        for node, groups in by_node.items():
            stage = self._requests.setdefault(node, _Stage(self._request_name))
            self._wait(stage)
            response = self._send(stage, build(groups), node, groups)
            stage.next_at = time.monotonic() + backoff_ms(stage.tries - 1) / 1000
            if response is None:              # disconnected: Kafka looks the coordinator up again
                self._forget(groups)
                continue
            for group_id, (error, answer) in split(response, groups).items():
                if error in FIND_AGAIN:
                    self._forget([group_id])
                elif error not in self._ask_again:
                    results[group_id] = answer

    def _forget(self, group_ids: list[str]) -> None:
        for group_id in group_ids:
            self.coordinators.pop(group_id, None)

    def _wait(self, stage: _Stage) -> None:
        """Sleep out the stage's backoff; a deadline that comes first ends the call."""
        now = time.monotonic()
        if stage.next_at >= self._deadline:
            time.sleep(max(0.0, self._deadline - now))
            raise _Expired()
        if stage.next_at > now:
            time.sleep(stage.next_at - now)

    def _send(self, stage: _Stage, request, node: int | None, groups: list[str]):
        """The response, or None when the connection failed or the request timed out before the deadline."""
        from kafka.errors import KafkaConnectionError, KafkaTimeoutError, NodeNotReadyError, RequestTimedOutError
        remaining_ms = (self._deadline - time.monotonic()) * 1000
        if remaining_ms <= 0:
            raise _Expired()
        try:
            self._connection.admin(stage.name)
        except TimeoutException as exc:       # no broker answered within the deadline
            raise _Expired(cause=exc) from None
        stage.tries += 1
        # Like Kafka, a request may take request.timeout.ms or what is left of the call, whichever is less.
        bounded_by_deadline = remaining_ms <= REQUEST_TIMEOUT_MS
        try:
            return self._connection.send(request, stage.name, node_id=node,
                                         request_timeout_ms=math.ceil(min(REQUEST_TIMEOUT_MS, remaining_ms)))
        except (RequestTimedOutError, KafkaTimeoutError):
            if bounded_by_deadline:
                raise _Expired(frozenset(groups), self._sent_and_unanswered(stage)) from None
            return None
        except (KafkaConnectionError, NodeNotReadyError):
            # Kafka's call waits for a ready node; a short pause keeps this loop from spinning meanwhile.
            time.sleep(max(0.0, min(RETRY_BACKOFF_MS / 1000, self._deadline - time.monotonic())))
            return None

    def _sent_and_unanswered(self, stage: _Stage) -> str:
        """``Call.fail`` past the deadline: the Call's own text, counting the attempt that timed out."""
        now = wall_ms()
        return (f"Call(callName={stage.name}, deadlineMs={self._deadline_ms}, tries={stage.tries}, "
                f"nextAllowedTryMs={now + backoff_ms(stage.tries - 1)}) timed out at {now} "
                f"after {stage.tries} attempt(s)")


def group_error(code: int, message: str | None = None) -> KafkaException | None:
    """A group-level answer as the exception Kafka's handler completes the group with (None: no error)."""
    return error_for(code, message) if code else None


__all__ = ["CoordinatorCall", "backoff_ms", "group_error", "RETRY_BACKOFF_MS", "RETRY_BACKOFF_MAX_MS",
           "FIND_AGAIN", "ASK_AGAIN", "LOOKUP_AGAIN"]
