"""`NodeProcesses` asks the driver for every node's port, in the layout's order, counting up
from the first port given (``Cluster(port=...)``, ``minikafka up --port``)."""

from pathlib import Path

from minikafka.cluster.layout import ClusterLayout
from minikafka.cluster.node_disks import NodeDisks
from minikafka.cluster.processes import NodeProcesses
from minikafka.runtime.events import EventLog
from minikafka.common.timing import TEACHING


class RecordingDriver:
    """Hands out ports and remembers what it was asked."""

    def __init__(self):
        self.asked = []

    def broker_port(self, host, broker_id, index, wanted=None):
        self.asked.append(("broker", broker_id, index, wanted))
        return 20000 + broker_id

    def controller_port(self, host, controller_id, index, wanted=None):
        self.asked.append(("controller", controller_id, index, wanted))
        return 30000 + controller_id


def processes(first_port):
    layout = ClusterLayout(root=Path("unused"), cluster_id="c", seed="s", timing=TEACHING,
                           host="127.0.0.1", brokers=[1, 2], controllers=[1001],
                           disks=NodeDisks("memory"))
    found = NodeProcesses(layout, EventLog(), simulated=False, first_port=first_port)
    found.driver = RecordingDriver()
    found._assign_ports()
    return found


def test_ports_count_up_from_the_first_port_brokers_first():
    found = processes(first_port=5000)
    assert found.driver.asked == [("broker", 1, 0, 5000), ("broker", 2, 1, 5001),
                                  ("controller", 1001, 0, 5002)]
    assert found.layout.broker_ports == {1: 20001, 2: 20002}
    assert found.layout.controller_ports == {1001: 31001}


def test_without_a_first_port_the_driver_picks_any():
    found = processes(first_port=None)
    assert [wanted for *_, wanted in found.driver.asked] == [None, None, None]
