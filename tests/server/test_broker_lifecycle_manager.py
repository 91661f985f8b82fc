"""BrokerLifecycleManager alone: registration, heartbeats, fencing and controlled shutdown.

The manager runs on a `FakeNode` and talks to a scripted `FakeController`
(tests/server/harness.py); virtual time moves only through ``tick``.
"""

from minikafka.common.errors import Errors
from minikafka.controller.requests import BrokerHeartbeatRequest, BrokerRegistrationRequest
from minikafka.server.broker_lifecycle_manager import BrokerState, new_incarnation_id
from tests.server.harness import (CLUSTER_ID, FEATURES, LISTENERS, TIMING, FakeNode,
                                  LifecycleHarness)

INTERVAL = TIMING.ms("broker.heartbeat.interval.ms")


def test_registers_with_what_the_broker_is_then_enters_recovery():
    h = LifecycleHarness(broker_id=4, previous_broker_epoch=7, rack="eu-1a")
    assert h.manager.state is BrokerState.NOT_RUNNING
    h.manager.start()
    assert h.manager.state is BrokerState.STARTING
    h.tick(0)
    first = h.controller.received[0]
    assert first == BrokerRegistrationRequest(
        broker_id=4, cluster_id=CLUSTER_ID, incarnation_id=h.manager.incarnation_id,
        listeners=LISTENERS, features=FEATURES, rack="eu-1a", log_dirs=(h.directory_id,),
        previous_broker_epoch=7)
    assert h.manager.state is BrokerState.RECOVERY
    assert h.manager.broker_epoch == 10
    heartbeat = h.controller.received[1]
    assert isinstance(heartbeat, BrokerHeartbeatRequest)
    assert (heartbeat.broker_id, heartbeat.broker_epoch) == (4, 10)


def test_waits_for_a_known_controller_before_registering():
    h = LifecycleHarness()
    h.controller_id = None
    h.manager.start()
    h.tick(500)
    assert h.controller.received == [] and h.manager.state is BrokerState.STARTING
    h.controller_id = 3000
    h.tick(20)                                        # the manager looks again every 20 ms
    assert len(h.controller.registrations()) == 1
    assert h.manager.state is BrokerState.RECOVERY


def test_a_refused_registration_is_retried():
    h = LifecycleHarness()
    h.controller.registration_error = Errors.NOT_CONTROLLER
    h.manager.start()
    h.tick(199)
    assert len(h.controller.registrations()) == 1 and h.manager.broker_epoch == -1
    h.controller.registration_error = Errors.NONE
    h.tick(1)                                         # min(heartbeat interval, 200 ms) later
    assert len(h.controller.registrations()) == 2
    assert h.manager.state is BrokerState.RECOVERY


def test_a_duplicate_registration_is_told_once_per_refusal_streak():
    h = LifecycleHarness(broker_id=4)
    h.controller.registration_error = Errors.DUPLICATE_BROKER_REGISTRATION   # the previous run's session lives
    h.manager.start()
    h.tick(1000)
    assert len(h.controller.registrations()) > 2                         # retried all along...
    [refused] = h.emitted("broker_registration_refused")                 # ...but told once
    assert refused.data == {"broker": 4, "error": "DUPLICATE_BROKER_REGISTRATION"}
    h.controller.registration_error = Errors.NOT_CONTROLLER              # another error is not this event
    h.tick(400)
    assert len(h.emitted("broker_registration_refused")) == 1
    h.controller.registration_error = Errors.NONE
    h.tick(200)
    assert h.manager.state is BrokerState.RECOVERY and not h.manager.refusal_reported


def test_heartbeats_ask_to_stay_fenced_until_caught_up_and_ready():
    h = LifecycleHarness()
    h.metadata_offset = 42
    h.manager.start()
    h.tick(100)
    behind = h.controller.heartbeats()
    assert len(behind) == 11                          # at 0, 10, ..., 100 ms while catching up
    assert all(hb.want_fence and hb.current_metadata_offset == 42 for hb in behind)
    assert h.manager.state is BrokerState.RECOVERY and h.caught_up_calls == 0

    h.controller.caught_up = True
    h.tick(10)
    assert h.caught_up_calls == 1 and h.manager.caught_up
    h.tick(3 * INTERVAL)                              # caught up, logs not loaded: stays fenced
    assert all(hb.want_fence for hb in h.controller.heartbeats())
    assert h.manager.state is BrokerState.RECOVERY and h.caught_up_calls == 1

    h.manager.set_ready_to_unfence()
    h.tick(0)
    last = h.controller.heartbeats()[-1]
    assert not last.want_fence
    assert h.manager.state is BrokerState.RUNNING


def test_cordoned_log_dirs_are_reported_only_after_the_initial_catch_up():
    h = LifecycleHarness()
    h.manager.start()
    h.tick(30)                                        # heartbeats at 0, 10, 20, 30 ms: behind
    h.controller.caught_up = True
    h.tick(10)                                        # the one answered "caught up"
    h.tick(INTERVAL)                                  # caught up, not ready: the interval
    flags = [hb.cordoned_log_dirs for hb in h.controller.heartbeats()]
    assert flags == [None] * 5 + [()]                 # None until the controller said so
    h.manager.set_ready_to_unfence()
    h.tick(0)
    assert h.manager.state is BrokerState.RUNNING
    assert h.controller.heartbeats()[-1].cordoned_log_dirs == ()


def test_stale_broker_epoch_makes_it_register_again_with_the_same_incarnation():
    h = LifecycleHarness()
    h.start_until_running()
    assert h.manager.state is BrokerState.RUNNING and h.manager.broker_epoch == 10
    h.controller.errors.append(Errors.STALE_BROKER_EPOCH)
    h.tick(INTERVAL)
    registrations = h.controller.registrations()
    assert len(registrations) == 2
    assert registrations[1].incarnation_id == registrations[0].incarnation_id
    assert h.manager.broker_epoch == 11
    assert h.controller.heartbeats()[-1].broker_epoch == 11


def test_an_unregistered_broker_registers_again():
    h = LifecycleHarness()
    h.start_until_running()
    h.controller.errors.append(Errors.BROKER_ID_NOT_REGISTERED)
    h.tick(INTERVAL)
    assert len(h.controller.registrations()) == 2 and h.manager.broker_epoch == 11


def test_other_heartbeat_errors_and_timeouts_are_retried_soon():
    h = LifecycleHarness()
    h.start_until_running()
    sent = len(h.controller.heartbeats())
    h.controller.errors.append(Errors.NOT_CONTROLLER)
    h.tick(INTERVAL)                                  # the failing heartbeat
    h.tick(100)                                       # retried min(interval, 100 ms) later
    assert len(h.controller.heartbeats()) == sent + 2
    assert h.manager.broker_epoch == 10 and len(h.controller.registrations()) == 1

    h.controller.silent = True
    h.tick(INTERVAL)                                  # sent, never answered
    timeout = TIMING.ms("controller.quorum.request.timeout.ms")
    h.tick(timeout - 1)
    assert len(h.controller.heartbeats()) == sent + 3  # one in flight at a time
    h.tick(1 + 100)
    assert len(h.controller.heartbeats()) == sent + 4


def test_running_broker_heartbeats_at_the_interval():
    h = LifecycleHarness()
    h.start_until_running()
    sent = len(h.controller.heartbeats())
    h.tick(5 * INTERVAL)
    assert len(h.controller.heartbeats()) == sent + 5


def test_controlled_shutdown_waits_for_the_controller_then_shuts_down():
    h = LifecycleHarness()
    h.start_until_running()
    h.manager.begin_controlled_shutdown()
    assert h.manager.state is BrokerState.PENDING_CONTROLLED_SHUTDOWN
    h.tick(100)
    asking = h.controller.heartbeats()[-10:]
    assert all(hb.want_shut_down for hb in asking)
    assert h.shutdown_calls == 0 and h.manager.state is BrokerState.PENDING_CONTROLLED_SHUTDOWN
    h.controller.grant_shutdown = True
    h.tick(10)
    assert h.manager.state is BrokerState.SHUTTING_DOWN and h.shutdown_calls == 1
    sent = len(h.controller.received)
    h.tick(10 * INTERVAL)
    assert len(h.controller.received) == sent          # no heartbeat after SHUTTING_DOWN


def test_broker_started_is_noted_at_the_first_unfencing_only():
    h = LifecycleHarness(broker_id=2)
    h.manager.start()
    h.tick(100)
    assert h.emitted("broker_started") == []
    h.ready_on_catch_up = True
    h.controller.caught_up = True
    h.tick(20)
    started = h.emitted("broker_started")
    assert [(e.node, e.text, e.data) for e in started] == [
        (2, "broker 2 is unfenced and serves client requests", {"broker": 2})]
    h.controller.caught_up = False                    # the controller fences it (e.g. a pause)...
    h.tick(INTERVAL)
    assert h.manager.state is BrokerState.RECOVERY
    h.controller.caught_up = True                     # ...and unfences it again
    h.tick(INTERVAL)
    assert h.manager.state is BrokerState.RUNNING
    assert len(h.emitted("broker_started")) == 1


def test_incarnation_id_is_new_for_every_start_on_the_same_directory():
    same_start = [new_incarnation_id(FakeNode(1).rng, 5) for _ in range(2)]
    assert same_start[0] == same_start[1]              # a seed replays exactly
    later = new_incarnation_id(FakeNode(1).rng, 6)
    assert later != same_start[0]                      # more metadata on disk: a later life
