"""``ControllerResult`` and ``ApiError``: what every controller operation returns.

Theory of operation
-------------------
A control manager never changes state itself.  Given the current metadata
image and a request, it returns the records that would make the change and
the response to send once those records are committed.  The quorum
controller appends the records to the metadata log, replays them into its
working image (so the next request already sees them), and answers only
when the Raft high watermark has passed them.  An empty record list is a
read, answered once everything written before it is committed.

``events`` carries the learner-facing event lines the controller emits when
the records commit; they are computed when the records are generated, where
the reason (a session timeout, a broker's request...) is still known.

Mirrors ``org.apache.kafka.controller.ControllerResult`` and
``org.apache.kafka.common.requests.ApiError``.  Simplified: Kafka's
``isAtomic`` flag is dropped, since the sandbox always appends one
operation's records as one batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from minikafka.common.errors import Errors, KafkaException
from minikafka.metadata.records import MetadataRecord

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ControllerEvent:
    """One line for the cluster event log: ``node.emit(kind, text, **data)``."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ControllerResult(Generic[T]):
    records: tuple[MetadataRecord, ...] = ()  # metadata records to append, in order
    # What the caller gets once the records are committed.  A result that answers nothing is a
    # ControllerResult[None]: the default fits only that case, which mypy cannot express.
    response: T = None                       # type: ignore[assignment]
    events: tuple[ControllerEvent, ...] = ()  # emitted when the records are committed

    def without_records(self) -> "ControllerResult[T]":
        """The same answer with nothing written (``validate_only``)."""
        return ControllerResult((), self.response, ())


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error code with an optional message, as Kafka's responses carry them."""

    error: Errors = Errors.NONE
    message: str | None = None

    NONE: ClassVar[ApiError]                 # no error, no message (set below the class)

    @classmethod
    def from_exception(cls, exc: BaseException) -> "ApiError":
        if isinstance(exc, KafkaException):
            return cls(exc.error, exc.message)
        return cls(Errors.UNKNOWN_SERVER_ERROR, str(exc) or None)

    @property
    def is_failure(self) -> bool:
        return self.error is not Errors.NONE

    @property
    def message_with_fallback(self) -> str | None:
        """The message, or the error's default text when there is none."""
        return self.message if self.message is not None else self.error.message

    def exception(self) -> KafkaException:
        return self.error.exception(self.message)


ApiError.NONE = ApiError()
