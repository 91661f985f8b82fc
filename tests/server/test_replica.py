"""The leader's view of one follower (`ReplicaState`, Kafka's ``Replica``): when it was caught up.

The ISR decisions built on it are tested through `Partition` in test_partition.py.
"""

from minikafka.server.replica import ReplicaState, isr_set

LAG = 30_000


def test_a_fetch_at_the_leaders_end_is_caught_up_now():
    state = ReplicaState()
    state.update_fetch_state(fetch_offset=10, log_start_offset=0, leader_end_offset=10,
                             broker_epoch=5, now=1000)
    assert (state.log_end_offset, state.last_caught_up_time_ms, state.broker_epoch) == (10, 1000, 5)
    assert state.is_caught_up(leader_end_offset=10, now=1000 + 10 * LAG, max_lag_ms=LAG)


def test_reaching_the_leaders_previous_end_means_caught_up_as_of_the_previous_fetch():
    state = ReplicaState()
    state.update_fetch_state(4, 0, leader_end_offset=10, broker_epoch=5, now=1000)
    assert state.last_caught_up_time_ms == 0                   # behind, and no earlier fetch
    state.update_fetch_state(10, 0, leader_end_offset=15, broker_epoch=5, now=2000)
    assert state.last_caught_up_time_ms == 1000                # had all the leader had at 1000
    state.update_fetch_state(12, 0, leader_end_offset=20, broker_epoch=5, now=3000)
    assert state.last_caught_up_time_ms == 1000                # 12 < 15: not even that


def test_a_follower_behind_for_longer_than_the_lag_is_out_of_sync():
    state = ReplicaState()
    state.update_fetch_state(10, 0, leader_end_offset=10, broker_epoch=5, now=1000)
    assert state.is_caught_up(leader_end_offset=11, now=1000 + LAG, max_lag_ms=LAG)
    assert not state.is_caught_up(leader_end_offset=11, now=1001 + LAG, max_lag_ms=LAG)


def test_the_proposed_isr_goes_out_in_java_hash_set_order():
    assert isr_set((3, 2)) == (2, 3)
    assert isr_set((3, 1, 2)) == (1, 2, 3)
