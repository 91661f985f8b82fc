"""``minikafka broker-api-versions``: every broker's ApiVersions answer, as Kafka's tool prints it."""

import pytest

from minikafka import Cluster
from minikafka.tools import broker_api_versions_command_output as output


def test_bootstrap_server_is_required(cli):
    result = cli("broker-api-versions")
    assert result.code == 1 and result.err.startswith("This tool helps to retrieve broker version information.\n")
    result = cli("broker-api-versions", "--command-config", "x")
    assert result.code == 1 and result.err.startswith('Missing required argument "[bootstrap-server]"\nOption ')


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(brokers=3, controllers=1, seed=15).start()
    yield c
    c.stop()


@pytest.mark.live
def test_the_blocks_match_what_the_brokers_advertise(cluster, cli):
    result = cli("broker-api-versions", "--bootstrap-server", cluster.bootstrap_servers)
    assert result.code == 0 and result.err == ""
    expected = output.format_brokers(output.from_snapshot(cluster.snapshot())).stdout
    assert result.out == expected
    assert "\tProduce(0): 0 to 13 [usable: 13],\n" in result.out
    assert result.out.count(" -> (\n") == 3
