"""ReplicaFetcher and ReplicaFetcherManager alone: a follower broker against a fake leader.

The follower's logs are real (`UnifiedLog` in a temporary directory); the leader is a
`FakeLeader` that serves stored batches or scripted answers (tests/server/harness.py).
"""

from minikafka.common.errors import Errors
from minikafka.common.topic_partition import TopicPartition
from minikafka.server.fetch import FetchPartitionData
from tests.server.harness import START, TIMING, FetcherHarness, stored_batch

ORDERS = TopicPartition("orders", 0)
AUDIT = TopicPartition("audit", 0)
BACKOFF = TIMING.ms("replica.fetch.backoff.ms")
MAX_WAIT = TIMING.ms("replica.fetch.wait.max.ms")


def scripted(error=Errors.NONE, **fields) -> FetchPartitionData:
    return FetchPartitionData("", 0, error, **fields)


def test_records_are_appended_as_stored_and_the_high_watermark_follows(tmp_path):
    h = FetcherHarness(tmp_path)
    batches = [stored_batch(0, 3, epoch=1), stored_batch(3, 2, epoch=2)]
    follower = h.follow(ORDERS, leader_epoch=2, batches=batches, high_watermark=4)
    h.tick(0)
    at, request = h.leader.received[0]
    assert at == START and (request.replica_id, request.replica_epoch) == (2, 7)
    assert (request.max_wait_ms, request.min_bytes, request.max_bytes) == (MAX_WAIT, 1, 10485760)
    part = request.partitions[0]
    assert (part.fetch_offset, part.current_leader_epoch, part.last_fetched_epoch) == (0, 2, -1)
    assert part.partition_max_bytes == 1048576 and part.topic_id == follower.topic_id
    log = follower.log
    assert log.log_end_offset == 5
    assert log.high_watermark == 4                    # min(leader HW, own log end offset)
    assert log.end_offset_for_epoch(1) == (1, 3)      # the leader's epochs came with the batches
    assert h.stats.marked == [(sum(len(b) for b in batches), START)]
    again = [p for _, p in h.leader.fetched(ORDERS)][1]   # sent as soon as the answer arrived
    assert (again.fetch_offset, again.last_fetched_epoch) == (5, 2)


def test_an_idle_leader_parks_the_fetch_and_one_stays_in_flight(tmp_path):
    h = FetcherHarness(tmp_path)
    h.follow(ORDERS)
    h.follow(AUDIT)                                    # same leader: same fetcher, same request
    h.tick(2 * MAX_WAIT)
    times = [at for at, _ in h.leader.received]
    assert times == [START, START + MAX_WAIT, START + 2 * MAX_WAIT]
    assert {len(r.partitions) for _, r in h.leader.received[1:]} == {2}
    assert len(h.manager.fetchers) == 1


def test_leader_log_start_offset_moves_the_followers_up_to_its_high_watermark(tmp_path):
    h = FetcherHarness(tmp_path)
    follower = h.follow(ORDERS, batches=[stored_batch(0, 6, epoch=1)], high_watermark=4,
                        log_start_offset=5)
    h.tick(0)
    assert follower.log.log_start_offset == 4          # never beyond what it knows is committed


def test_a_diverging_epoch_truncates_to_where_the_epochs_agree(tmp_path):
    h = FetcherHarness(tmp_path)
    follower = h.follow(ORDERS, leader_epoch=3,
                        batches=[stored_batch(0, 3, epoch=1), stored_batch(3, 3, epoch=2)],
                        high_watermark=2)
    h.tick(0)
    assert follower.log.log_end_offset == 6
    leader = h.leader.partitions[ORDERS]              # a new leader whose epoch 2 ended at 4
    leader.batches = [stored_batch(0, 3, epoch=1), stored_batch(3, 1, epoch=2)]
    leader.script.append(scripted(diverging_epoch=(2, 4)))
    h.tick(MAX_WAIT)                                   # the parked fetch returns; the next diverges
    assert follower.log.log_end_offset == 4            # min(own end of epoch 2 (6), leader's (4))
    after = [p for _, p in h.leader.fetched(ORDERS)][-1]
    assert (after.fetch_offset, after.last_fetched_epoch) == (4, 2)


def test_a_diverging_epoch_the_follower_never_had_truncates_to_its_own_end_of_the_epoch_before(tmp_path):
    h = FetcherHarness(tmp_path)
    follower = h.follow(ORDERS, leader_epoch=5,
                        batches=[stored_batch(0, 3, epoch=1), stored_batch(3, 3, epoch=4)],
                        high_watermark=1)
    h.tick(0)
    leader = h.leader.partitions[ORDERS]              # a leader that never saw epoch 4
    leader.batches = [stored_batch(0, 3, epoch=1), stored_batch(3, 2, epoch=3)]
    leader.script.append(scripted(diverging_epoch=(3, 5)))
    h.tick(MAX_WAIT)
    assert [p.fetch_offset for _, p in h.leader.fetched(ORDERS)][-3:] == [6, 3, 5]
    # epoch 3 was never ours: it cut back to where its epoch 1 ended, then fetched epoch 3 anew
    assert follower.log.end_offset_for_epoch(1) == (1, 3)
    assert (follower.log.latest_epoch(), follower.log.log_end_offset) == (3, 5)


def test_an_unknown_diverging_epoch_truncates_to_the_high_watermark(tmp_path):
    h = FetcherHarness(tmp_path)
    follower = h.follow(ORDERS, batches=[stored_batch(0, 6, epoch=1)], high_watermark=2)
    h.tick(0)
    leader = h.leader.partitions[ORDERS]
    leader.batches = []
    leader.script.append(scripted(diverging_epoch=(-1, -1)))
    h.tick(MAX_WAIT)
    assert follower.log.log_end_offset == 2


def test_offset_out_of_range_empties_the_log_and_restarts_at_the_leaders_log_start(tmp_path):
    h = FetcherHarness(tmp_path)
    follower = h.follow(ORDERS, batches=[stored_batch(0, 3, epoch=1)], high_watermark=3)
    h.tick(0)
    h.leader.partitions[ORDERS].script.append(scripted(Errors.OFFSET_OUT_OF_RANGE, log_start_offset=40))
    h.tick(MAX_WAIT)
    log = follower.log
    assert (log.log_start_offset, log.log_end_offset) == (40, 40)
    after = [p for _, p in h.leader.fetched(ORDERS)][-1]
    assert (after.fetch_offset, after.last_fetched_epoch) == (40, -1)


def test_a_leadership_error_backs_off_that_partition_only(tmp_path):
    h = FetcherHarness(tmp_path)
    h.follow(ORDERS)
    h.follow(AUDIT, batches=[stored_batch(0, 1, epoch=1)], high_watermark=1)
    h.tick(0)
    h.leader.partitions[ORDERS].script.append(scripted(Errors.NOT_LEADER_OR_FOLLOWER))
    h.leader.partitions[AUDIT].batches.append(stored_batch(1, 1, epoch=1))
    h.tick(MAX_WAIT)                                   # this answer carries the error
    failed_at = [at for at, _ in h.leader.fetched(ORDERS)][-1]
    h.tick(BACKOFF - 1)
    assert [at for at, _ in h.leader.fetched(ORDERS)][-1] == failed_at
    assert [at for at, _ in h.leader.fetched(AUDIT)][-1] > failed_at   # still fetched meanwhile
    h.tick(MAX_WAIT + 1)                               # the parked AUDIT fetch returns first
    assert [at for at, _ in h.leader.fetched(ORDERS)][-1] >= failed_at + BACKOFF


def test_a_timed_out_fetch_backs_off_every_partition(tmp_path):
    h = FetcherHarness(tmp_path)
    h.follow(ORDERS)
    h.leader.silent = True
    timeout = TIMING.ms("replica.socket.timeout.ms")
    h.tick(timeout)                                    # the only request times out
    assert len(h.leader.received) == 1
    h.leader.silent = False
    h.tick(BACKOFF - 1)
    assert len(h.leader.received) == 1
    h.tick(1)
    assert [at for at, _ in h.leader.received] == [START, START + timeout + BACKOFF]


def test_an_answer_for_an_older_leader_epoch_is_ignored(tmp_path):
    h = FetcherHarness(tmp_path)
    h.leader.latency_ms = 5
    follower = h.follow(ORDERS, batches=[stored_batch(0, 3, epoch=1)], high_watermark=3)
    h.tick(0)                                          # asked in epoch 1
    follower.leader_epoch = 2                          # the metadata moved on while it was asked
    h.tick(5)                                          # the answer: ignored; it asks again
    assert len(h.leader.received) == 2 and follower.log.log_end_offset == 0
    h.manager.add(follower)                            # as the ReplicaManager does for a new epoch
    h.tick(5)                                          # the next answer belongs to epoch 2
    assert follower.log.log_end_offset == 3


def test_throttled_partitions_wait_until_the_measured_rate_falls_below_the_limit(tmp_path):
    h = FetcherHarness(tmp_path)
    first = stored_batch(0, 40, epoch=1)               # about 2.6 kB in one fetch
    h.broker_config["follower.replication.throttled.rate"] = "1000"
    h.topic_configs["orders"] = {"follower.replication.throttled.replicas": "0:2"}
    h.follow(ORDERS, batches=[first], high_watermark=80)   # still 40 behind after it: not in sync
    h.follow(AUDIT)                                    # not throttled: keeps its parked fetches
    h.tick(0)
    assert h.manager.fetchers[1].throttle_window == [(START, len(first))]
    released = START + len(first)                      # at 1000 B/s the rate falls to it after 1 ms a byte
    h.tick(released - START + MAX_WAIT)
    orders_times = [at for at, _ in h.leader.fetched(ORDERS)]
    assert orders_times[0] == START
    assert all(at >= released for at in orders_times[1:]) and len(orders_times) >= 2
    # AUDIT joined after the first request left; then it goes alone, parked each time
    assert [at for at, _ in h.leader.fetched(AUDIT)][:3] == [START, START + MAX_WAIT,
                                                             START + 2 * MAX_WAIT]


def test_a_fetch_that_catches_up_ends_the_throttle_for_that_partition(tmp_path):
    h = FetcherHarness(tmp_path)
    h.broker_config["follower.replication.throttled.rate"] = "1"
    h.topic_configs["orders"] = {"follower.replication.throttled.replicas": "0:2"}
    h.follow(ORDERS, batches=[stored_batch(0, 40, epoch=1)], high_watermark=40)
    h.tick(0)
    fetcher = h.manager.fetchers[1]
    assert fetcher.partitions[ORDERS].in_sync and fetcher._over_quota(START)
    h.tick(MAX_WAIT)                                   # over quota, yet it asks again at once
    assert [at for at, _ in h.leader.fetched(ORDERS)][:2] == [START, START]


def test_throttled_replicas_name_partition_and_broker_pairs(tmp_path):
    h = FetcherHarness(tmp_path, broker_id=2)
    throttle = h.throttle
    assert throttle.rate() is None and throttle.throttled_partitions([ORDERS]) == set()
    h.broker_config["follower.replication.throttled.rate"] = str(2**63 - 1)   # Kafka's "unlimited"
    assert throttle.rate() is None
    h.broker_config["follower.replication.throttled.rate"] = "500"
    h.topic_configs["orders"] = {"follower.replication.throttled.replicas": "0:1, 0:2"}
    h.topic_configs["audit"] = {"follower.replication.throttled.replicas": "0:3"}
    assert throttle.throttled_partitions([ORDERS, AUDIT]) == {ORDERS}
    h.topic_configs["audit"] = {"follower.replication.throttled.replicas": " * "}
    assert throttle.throttled_partitions([ORDERS, AUDIT]) == {ORDERS, AUDIT}


def test_the_manager_keeps_one_fetcher_per_leader_and_moves_partitions(tmp_path):
    h = FetcherHarness(tmp_path)
    orders = h.follow(ORDERS)
    h.follow(AUDIT)
    assert h.manager.is_fetching(ORDERS) and set(h.manager.fetchers) == {1}
    orders.leader_id = 3                               # a new leader: the fetcher moves
    h.manager.add(orders)
    assert set(h.manager.fetchers) == {1, 3}
    assert ORDERS in h.manager.fetchers[3].partitions and ORDERS not in h.manager.fetchers[1].partitions
    h.manager.remove_all()
    assert not h.manager.is_fetching(ORDERS) and not h.manager.is_fetching(AUDIT)
    assert all(not f.partitions for f in h.manager.fetchers.values())


def test_the_followers_high_watermark_never_passes_its_own_log_end(tmp_path):
    h = FetcherHarness(tmp_path)
    follower = h.follow(ORDERS)
    partial = stored_batch(0, 3, epoch=1)              # the leader sent part of what is committed
    h.leader.partitions[ORDERS].script.append(scripted(high_watermark=8, log_start_offset=0,
                                                       records=partial))
    h.tick(0)
    assert (follower.log.log_end_offset, follower.log.high_watermark) == (3, 3)
