import pytest

from minikafka.network.request_channel import (NO_RESPONSE, CloseConnectionResponse, Deferred,
                                               NoOpResponse)


def test_callbacks_run_once_on_completion_in_registration_order():
    deferred = Deferred("produce to orders-0, acks=all")
    seen = []
    deferred.on_complete(lambda outcome: seen.append(("a", outcome)))
    deferred.on_complete(lambda outcome: seen.append(("b", outcome)))
    assert not deferred.done and seen == []
    deferred.complete("response")
    assert seen == [("a", "response"), ("b", "response")]
    assert deferred.done and deferred.outcome == "response"


def test_late_subscribers_are_called_at_once():
    deferred = Deferred()
    deferred.complete(NO_RESPONSE)
    seen = []
    deferred.on_complete(seen.append)
    assert seen == [NO_RESPONSE]


def test_completing_twice_or_reading_early_is_a_bug():
    deferred = Deferred("fetch")
    with pytest.raises(RuntimeError, match="not complete yet"):
        _ = deferred.outcome
    deferred.complete(CloseConnectionResponse())
    with pytest.raises(RuntimeError, match="already completed"):
        deferred.complete("again")


def test_a_deferred_cannot_complete_with_another():
    with pytest.raises(TypeError):
        Deferred().complete(Deferred())


def test_outcome_kinds():
    assert isinstance(NO_RESPONSE, NoOpResponse)
    reason = ValueError("boom")
    assert CloseConnectionResponse(reason).reason is reason
    assert "pending" in repr(Deferred("x"))
