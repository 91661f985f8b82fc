"""``minikafka broker-api-versions``: ``kafka-broker-api-versions.sh`` over the Kafka protocol.

Theory of operation
-------------------
The tool learns the brokers from a Metadata request, opens a connection
to each, and keeps the ApiVersions answer that every Kafka connection
starts with.  `minikafka.tools.broker_api_versions_command_output` prints one
block per broker, judging each API's version range against the Java
client of Kafka 4.3 (``usable: 13``, ``UNSUPPORTED``...), in the order of
the tool's ``HashMap`` of nodes.  A broker that cannot be reached prints
``-> ERROR: org.apache.kafka.common.errors.DisconnectException``.

``--bootstrap-server`` is required (``Missing required argument
"[bootstrap-server]"`` and the option table on standard error, exit 1).

Mirrors ``org.apache.kafka.tools.BrokerApiVersionsCommand`` (4.3.1).
Simplified: ``--command-config`` is accepted and not read; the tool does
not wait for brokers to appear in metadata (the first answer is used).
"""

from __future__ import annotations


from minikafka.commands import command_line_utils as clu
from minikafka.commands.admin_client import AdminConnection, from_client_error
from minikafka.commands.option_parser import OptionException, OptionParser, REQUIRED_ARG
from minikafka.common.errors import KafkaException
from minikafka.tools import broker_api_versions_command_output as output
from minikafka.tools.tool_output import system_out

NAME = "broker-api-versions"
SUMMARY = "kafka-broker-api-versions.sh: the API versions every broker supports"
DISCONNECTED = "org.apache.kafka.common.errors.DisconnectException"


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("command-config", "Admin client properties file.", argument=REQUIRED_ARG,
              described_as="command config property file")
    p.accepts("bootstrap-server", "REQUIRED: the broker(s) to connect to.", argument=REQUIRED_ARG,
              described_as="server(s) to use for bootstrapping")
    return p


def broker_versions(connection: AdminConnection) -> list[output.BrokerApiVersions]:
    """Every broker in the metadata with its ApiVersions table (or the error instead)."""
    admin = connection.admin("listNodes")
    cluster = admin.describe_cluster()
    result = []
    for broker in cluster["brokers"]:
        node = output.BrokerNode(broker["broker_id"], broker["host"], broker["port"], broker.get("rack"))
        try:
            versions = admin.get_broker_version_data(node.id).api_versions
            result.append(output.BrokerApiVersions(node, {int(k): tuple(v) for k, v in versions.items()}))
        except Exception:
            result.append(output.BrokerApiVersions(node, error=DISCONNECTED))
    return result


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
        clu.maybe_print_help_or_version(p, o, args, "This tool helps to retrieve broker version information.")
        clu.check_required_args(p, o, "bootstrap-server")
        servers = o.value_of("bootstrap-server")
    except OptionException as exc:            # mainNoExit: the message (and a stack trace) on stderr
        clu.eprintln(str(exc))
        return 1
    with AdminConnection(servers) as connection:
        try:
            brokers = broker_versions(connection)
        except KafkaException as exc:
            clu.eprintln(exc.message)
            return 1
        except Exception as exc:
            clu.eprintln(from_client_error(exc).message)
            return 1
    system_out().write(output.format_brokers(brokers).stdout)
    return 0


__all__ = ["NAME", "SUMMARY", "build_parser", "broker_versions", "main"]
