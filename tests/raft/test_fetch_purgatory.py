"""FetchPurgatory: parked fetches complete on new data, on expiry, or all at once."""

from minikafka.raft.fetch_purgatory import FetchPurgatory, ParkedFetch
from minikafka.raft.messages import FetchRequest, FetchResponse, LeaderIdAndEpoch
from minikafka.runtime.node import Envelope

EMPTY = FetchResponse(0, 5, 0, LeaderIdAndEpoch(1, 2))


def parked(replica, offset, deadline):
    request = FetchRequest("c", replica, 500, 2, offset, 2)
    return ParkedFetch(Envelope(replica, 1, request, correlation_id=replica), request, deadline, EMPTY)


def test_take_satisfied_expired_and_all():
    purgatory = FetchPurgatory()
    for p in (parked(2, 10, 700), parked(3, 12, 600), parked(101, 8, 900)):
        purgatory.park(p)
    assert purgatory.next_deadline() == 600
    assert [p.request.replica_id for p in purgatory.take_satisfied(11)] == [2, 101]
    assert len(purgatory) == 1
    assert purgatory.take_expired(599) == []
    assert [p.request.replica_id for p in purgatory.take_expired(600)] == [3]
    assert purgatory.next_deadline() is None
    purgatory.park(parked(2, 1, 5))
    assert len(purgatory.take_all()) == 1 and len(purgatory) == 0
