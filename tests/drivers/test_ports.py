"""The drivers choose the nodes' ports and run the brokers' client listeners (the facade
only asks): Kafka's customary numbers in virtual time, reserved sockets when live."""

import pytest

from minikafka.drivers.live import LiveDriver
from minikafka.drivers.simulated import SimulatedDriver
from minikafka.drivers.tcp import reserve_port
from minikafka.runtime.events import EventLog

HOST = "127.0.0.1"


def no_nodes(node_id, incarnation, now):
    raise AssertionError("these tests start no node")


def test_simulated_ports_are_kafkas_spaced_by_100_and_nothing_listens():
    driver = SimulatedDriver(no_nodes, EventLog())
    assert [driver.broker_port(HOST, b, i) for i, b in enumerate((1, 2, 3))] == [9092, 9192, 9292]
    assert [driver.controller_port(HOST, c, i) for i, c in enumerate((1001, 1002))] == [9093, 9193]
    assert driver.broker_port(HOST, 7, 0, wanted=12345) == 9092      # no socket: no port to ask for
    driver.open_listener(1, HOST, 9092)
    driver.close_listener(1)
    assert driver.listeners == {} and driver.serving(1)


def port_is_free(port: int) -> bool:
    try:
        reserve_port(HOST, port).close()
    except OSError:
        return False
    return True


@pytest.mark.live
def test_live_broker_ports_stay_reserved_until_the_driver_closes():
    driver = LiveDriver(no_nodes, EventLog())
    try:
        broker = driver.broker_port(HOST, 1, 0)
        controller = driver.controller_port(HOST, 1001, 0)
        assert not port_is_free(broker)            # held for the broker's listener
        assert port_is_free(controller)            # only the number matters: nothing serves it
        assert driver.broker_port(HOST, 2, 1, wanted=controller) == controller
        with pytest.raises(OSError, match=f"Socket server failed to bind to {HOST}:{broker}"):
            driver.broker_port(HOST, 3, 2, wanted=broker)
    finally:
        driver.close()
    assert port_is_free(broker) and port_is_free(controller)    # never started: released
