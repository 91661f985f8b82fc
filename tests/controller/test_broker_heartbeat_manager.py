import pytest

from minikafka.controller.broker_heartbeat_manager import BrokerControlState as S
from minikafka.controller.broker_heartbeat_manager import BrokerHeartbeatManager

T0 = 1_000_000


def manager(*unfenced, fenced=()):
    """Brokers registered at epoch 10 + id; the unfenced ones have heartbeaten at T0."""
    m = BrokerHeartbeatManager(session_timeout_ms=1800)
    for broker in unfenced:
        m.register(broker, False)
        m.tracker.update_contact_time(broker, 10 + broker, T0)
    for broker in fenced:
        m.register(broker, True)
    return m


def test_session_is_valid_up_to_and_including_the_timeout():
    m = manager(1)
    assert m.has_valid_session(1, 11, T0 + 1800)
    assert not m.has_valid_session(1, 11, T0 + 1801)
    assert not m.has_valid_session(1, 99, T0)                  # another epoch: another session
    assert m.next_check_time_ms() == T0 + 1801


def test_a_broker_has_a_session_once_it_heartbeats_fenced_or_not():
    m = manager(fenced=(2,))
    assert not m.has_valid_session(2, 12, T0)
    assert m.next_check_time_ms() is None
    m.tracker.update_contact_time(2, 12, T0)                   # a fenced broker's heartbeat
    m.touch(2, True, 5)
    assert m.has_valid_session(2, 12, T0 + 1800)
    assert m.tracker.maybe_remove_expired(T0 + 1801) == (2, 12, T0)   # it expires all the same
    assert m.tracker.maybe_remove_expired(T0 + 10**6) is None and m.next_check_time_ms() is None


def test_expired_sessions_go_one_at_a_time_oldest_first():
    m = manager(1, 2, 3)
    m.tracker.update_contact_time(1, 11, T0 + 1000)
    m.tracker.update_contact_time(3, 13, T0 + 500)
    assert m.tracker.maybe_remove_expired(T0 + 1800) is None
    assert m.tracker.maybe_remove_expired(T0 + 2301) == (2, 12, T0)
    assert m.tracker.maybe_remove_expired(T0 + 2301) == (3, 13, T0 + 500)
    assert m.tracker.maybe_remove_expired(T0 + 2301) is None
    assert m.next_check_time_ms() == T0 + 2801


def test_unknown_broker_cannot_be_touched():
    with pytest.raises(RuntimeError, match="Broker 9 is not registered."):
        manager().touch(9, False, 0)


def next_state(m, broker, want_fence=False, want_shut_down=False, offset=100, register_offset=50,
               leads=False):
    return m.calculate_next_broker_state(broker, want_fence, want_shut_down, offset, register_offset,
                                         lambda: leads).next


def test_fenced_broker_is_unfenced_once_caught_up_with_its_registration():
    m = manager(fenced=(1,))
    assert next_state(m, 1, offset=49) is S.FENCED
    assert next_state(m, 1, offset=50) is S.UNFENCED
    assert next_state(m, 1, want_fence=True) is S.FENCED
    assert next_state(m, 1, want_shut_down=True) is S.SHUTDOWN_NOW


def test_unfenced_broker_transitions():
    m = manager(1)
    assert next_state(m, 1) is S.UNFENCED
    assert next_state(m, 1, want_fence=True) is S.FENCED
    assert next_state(m, 1, want_fence=True, want_shut_down=True) is S.SHUTDOWN_NOW
    assert next_state(m, 1, want_shut_down=True, leads=True) is S.CONTROLLED_SHUTDOWN
    assert next_state(m, 1, want_shut_down=True, leads=False) is S.SHUTDOWN_NOW


def test_controlled_shutdown_waits_for_leaderships_and_active_brokers_offsets():
    m = manager(1, 2)
    m.touch(2, False, 40)
    m.maybe_update_controlled_shutdown_offset(1, 60)
    assert m.current_broker_state(m.state(1)) is S.CONTROLLED_SHUTDOWN
    assert next_state(m, 1, want_shut_down=True, leads=True) is S.CONTROLLED_SHUTDOWN
    assert next_state(m, 1, want_shut_down=True, leads=False) is S.CONTROLLED_SHUTDOWN  # 2 is at 40
    m.touch(2, False, 60)
    assert next_state(m, 1, want_shut_down=True, leads=False) is S.SHUTDOWN_NOW


def test_shutting_down_broker_is_not_usable_for_placement():
    m = manager(1, 2, fenced=(3,))
    m.maybe_update_controlled_shutdown_offset(2, 5)
    usable = list(m.usable_brokers(lambda b: None))
    assert [(u.id, u.fenced) for u in usable] == [(1, False), (3, True)]


def test_fenced_broker_cannot_enter_controlled_shutdown():
    with pytest.raises(RuntimeError, match="Fenced brokers cannot enter controlled shutdown."):
        manager(fenced=(1,)).maybe_update_controlled_shutdown_offset(1, 5)


def test_state_flags_match_kafka():
    assert S.FENCED.fenced and not S.FENCED.should_shut_down
    assert not S.UNFENCED.fenced and not S.CONTROLLED_SHUTDOWN.fenced
    assert S.CONTROLLED_SHUTDOWN.in_controlled_shutdown
    assert S.SHUTDOWN_NOW.fenced and S.SHUTDOWN_NOW.should_shut_down
