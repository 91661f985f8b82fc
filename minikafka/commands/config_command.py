"""``minikafka configs``: ``kafka-configs.sh`` for topics and brokers, over the Kafka protocol.

Theory of operation
-------------------
The entity is named with ``--entity-type topics|brokers`` and
``--entity-name N`` or ``--entity-default`` (brokers), or with the shortcut
flags ``--topic T``, ``--broker N``, ``--broker-defaults``.

``--describe`` checks that the entity exists (``The topic 'x' doesn't exist
and doesn't have dynamic config.``), asks DescribeConfigs with synonyms,
and `minikafka.tools.config_command_output` prints the entries set dynamically
on that entity (or all of them with ``--all``).  Without a name it
describes every topic, or every broker and then the cluster default.

``--alter`` parses ``--add-config k1=v1,k2=[a,b]`` (square brackets group
values containing commas) and ``--delete-config k1,k2``, then sends one
IncrementalAlterConfigs (deletes, then sets) without asking what is set
first: deleting a config the entity does not have is a no-op.  It prints
``Completed updating config for topic orders.``; what the broker refuses
(a bad value, a topic that does not exist) comes back as the error.

Argument and configuration mistakes print one line on standard error
(exit 1); any other failure prints ``Error while executing config command
with args '<args>'`` and the exception.

Mirrors ``kafka.admin.ConfigCommand`` (Kafka 4.3.1, Scala).  Simplified: the
entity types users, clients, ips, client-metrics, groups and
broker-loggers are recognised but not available; ``--bootstrap-controller``
is refused (kafka-python cannot talk to controllers); ``--command-config``
is accepted and not read; no stack traces.
"""

from __future__ import annotations

import re

from minikafka.commands import command_line_utils as clu
from minikafka.commands.admin_client import AdminConnection, ExecutionException, error_for, execution
from minikafka.commands.option_parser import OptionException, OptionParser, REQUIRED_ARG
from minikafka.common import topic as topic_rules
from minikafka.common.errors import InvalidConfigurationException, KafkaException
from minikafka.tools import config_command_output as output

NAME = "configs"
SUMMARY = "kafka-configs.sh: describe and alter topic and broker configs"
SUPPORTED_TYPES = ("topics", "clients", "users", "brokers", "ips", "client-metrics", "groups", "broker-loggers")
ENTITY_FLAGS = (("topic", "topics"), ("client", "clients"), ("user", "users"), ("broker", "brokers"),
                ("broker-logger", "broker-loggers"), ("ip", "ips"), ("client-metrics", "client-metrics"),
                ("group", "groups"))
DEFAULT_FLAGS = (("client-defaults", "clients"), ("user-defaults", "users"), ("broker-defaults", "brokers"),
                 ("ip-defaults", "ips"))
SOURCES = {0: "UNKNOWN", 1: "DYNAMIC_TOPIC_CONFIG", 2: "DYNAMIC_BROKER_CONFIG", 3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
           4: "STATIC_BROKER_CONFIG", 5: "DEFAULT_CONFIG", 6: "DYNAMIC_BROKER_LOGGER_CONFIG",
           7: "DYNAMIC_CLIENT_METRICS_CONFIG", 8: "DYNAMIC_GROUP_CONFIG"}
RESOURCE_TYPES = {"topics": 2, "brokers": 4}


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "The broker(s) to connect to.", argument=REQUIRED_ARG,
              described_as="server to connect to")
    p.accepts("bootstrap-controller", "The controller(s) to connect to.", argument=REQUIRED_ARG,
              described_as="controller to connect to")
    p.accepts("command-config", "Admin client properties file.", argument=REQUIRED_ARG,
              described_as="command config property file")
    p.accepts("alter", "Alter the configs of the entity.")
    p.accepts("describe", "List the configs of the entity.")
    p.accepts("all", "List all configs, including static and default ones.")
    p.accepts("entity-type", "topics, brokers (also clients, users, broker-loggers, ips, client-metrics, groups).",
              argument=REQUIRED_ARG)
    p.accepts("entity-name", "The topic name or broker id.", argument=REQUIRED_ARG)
    p.accepts("entity-default", "The cluster-wide default of the entity type (brokers).")
    p.accepts("add-config", "Configs to set: k1=v1,k2=[v1,v2],k3=v3.", argument=REQUIRED_ARG)
    p.accepts("add-config-file", "Properties file of configs to set.", argument=REQUIRED_ARG)
    p.accepts("delete-config", "Configs to remove: k1,k2.", argument=REQUIRED_ARG)
    for flag, entity in ENTITY_FLAGS:
        p.accepts(flag, f"Shortcut for --entity-type {entity} --entity-name.", argument=REQUIRED_ARG)
    for flag, entity in DEFAULT_FLAGS:
        p.accepts(flag, f"Shortcut for --entity-type {entity} --entity-default.")
    return p


def entity_types(o) -> list[str]:
    return list(o.values_of("entity-type")) + [t for f, t in ENTITY_FLAGS + DEFAULT_FLAGS if o.has(f)]


def entity_names(o) -> list[str]:
    """Names in command-line order (``--entity-default`` is the empty name), then the flags'."""
    names = iter(o.values_of("entity-name"))
    result = [next(names) if s.name == "entity-name" else "" for s in o.specs()
              if s.name in ("entity-name", "entity-default")]
    result += [o.value_of(f) for f, _ in ENTITY_FLAGS if o.has(f)]
    return result + ["" for f, _ in DEFAULT_FLAGS if o.has(f)]


def check_args(p: OptionParser, o) -> None:
    """``ConfigCommandOptions.checkArgs`` (ValueError is Kafka's IllegalArgumentException)."""
    if sum(o.has(a) for a in ("alter", "describe")) != 1:
        clu.print_usage_and_exit(p, "Command must include exactly one action: --describe, --alter")
    clu.check_invalid_args(p, o, "alter", ("describe",))
    clu.check_invalid_args(p, o, "describe", ("alter", "add-config", "delete-config"))
    types = entity_types(o)
    if len(types) != len(set(types)):
        repeated = list(types)
        for t in dict.fromkeys(types):
            repeated.remove(t)
        raise ValueError(f"Duplicate entity type(s) specified: {','.join(repeated)}")
    if not o.has("bootstrap-server") and not o.has("bootstrap-controller"):
        raise ValueError("Either --bootstrap-server or --bootstrap-controller must be specified.")
    for t in types:
        if t not in SUPPORTED_TYPES:
            raise ValueError(f"Invalid entity type {t}, the entity type must be one of {', '.join(SUPPORTED_TYPES)} "
                             "with a --bootstrap-server or --bootstrap-controller argument")
    if not types:
        raise ValueError("At least one entity type must be specified")
    if len(types) > 1 and set(types) != {"users", "clients"}:
        raise ValueError("Only 'users' and 'clients' entity types may be specified together")
    if any(o.has(n) for n in ("entity-name", "entity-type", "entity-default")) \
            and any(o.has(f) for f, _ in ENTITY_FLAGS + DEFAULT_FLAGS):
        raise ValueError("--entity-{type,name,default} should not be used in conjunction with specific entity flags")
    _check_entities(o, types)


def _check_entities(o, types: list[str]) -> None:
    names = entity_names(o)
    has_name, has_default = any(names), any(n == "" for n in names)
    if o.has("bootstrap-server") and o.has("bootstrap-controller"):
        raise ValueError("Only one of --bootstrap-server or --bootstrap-controller can be specified")
    if has_name and ("brokers" in types or "broker-loggers" in types):
        for option in ("entity-name", "broker", "broker-logger"):
            if o.has(option) and not re.fullmatch(r"[+-]?[0-9]+", o.value_of(option)):
                raise ValueError(f"The entity name for {types[0]} must be a valid integer broker id, but it is: "
                                 f"{o.value_of(option)}")
    if o.has("describe"):
        if not {"users", "clients", "brokers", "ips"} & set(types) and o.has("entity-default"):
            raise ValueError(f"--entity-default must not be specified with --describe of {','.join(types)}")
        if "broker-loggers" in types and not has_name:
            raise ValueError(f"An entity name must be specified with --describe of {','.join(types)}")
    if o.has("alter"):
        if {"users", "clients", "brokers", "ips"} & set(types):
            if not has_name and not has_default:
                raise ValueError("An entity-name or default entity must be specified with --alter of users, clients, "
                                 "brokers or ips")
        elif not has_name:
            raise ValueError(f"An entity name must be specified with --alter of {','.join(types)}")
        if o.has("add-config") and o.has("add-config-file"):
            raise ValueError("Only one of --add-config or --add-config-file must be specified")
        if not any(o.has(n) for n in ("add-config", "add-config-file", "delete-config")):
            raise ValueError("At least one of --add-config, --add-config-file, or --delete-config must be specified "
                             "with --alter")


# ----------------------------------------------------------------------------- configs to change
def parse_configs_to_be_added(o) -> dict[str, str]:
    props = clu.load_props(o.value_of("add-config-file")) if o.has("add-config-file") else {}
    if o.has("add-config"):
        outside_brackets = r"(?=[^\]]*(?:\[|$))"
        pairs = [re.split(r"\s*=\s*" + outside_brackets, item) for item in
                 re.split("," + outside_brackets, o.value_of("add-config"))]
        if not all(len(pair) == 2 for pair in pairs):
            raise ValueError('requirement failed: Invalid entity config: all configs to be added must be in the '
                             'format "key=val" or  "key=[val1,val2]" to group values which contain commas.')
        props.update({k.strip(): re.sub(r"\[?\]?", "", v).strip() for k, v in pairs})
    for key in props:
        if not re.fullmatch(r"[a-zA-Z0-9._-]*", key):
            raise ValueError(f"Invalid character found for config key: {key}")
    return props


def parse_configs_to_be_deleted(o) -> list[str]:
    return [name.strip() for value in o.values_of("delete-config") for name in value.split(",")]


# ----------------------------------------------------------------------------- DescribeConfigs
def resource_config(connection: AdminConnection, entity_type: str, name: str,
                    include_synonyms: bool = True) -> list[output.DescribedConfig]:
    """``getResourceConfig`` without the filter: every entry of one topic or broker (or the broker default)."""
    from kafka.protocol.admin import DescribeConfigsRequest
    if entity_type == "topics" and name:
        topic_rules.validate(name)
    if entity_type == "brokers" and name and not re.fullmatch(r"[+-]?[0-9]+", name):
        raise ValueError(f"The entity name for brokers must be a valid integer broker id, found: {name}")
    node = int(name) if entity_type == "brokers" and name else None
    request = DescribeConfigsRequest(resources=[(RESOURCE_TYPES[entity_type], name, None)],
                                     include_synonyms=include_synonyms)
    response = execution(lambda: connection.send(request, "describeConfigs", node_id=node))
    result = response.results[0]
    if result.error_code:
        raise ExecutionException(error_for(result.error_code, result.error_message))
    return [output.DescribedConfig(c.name, c.value, SOURCES.get(c.config_source, "UNKNOWN"), c.is_sensitive,
                                   tuple(output.ConfigSynonym(s.name, s.value, SOURCES.get(s.source, "UNKNOWN"))
                                         for s in (c.synonyms or ())))
            for c in result.configs]


def _exists(connection: AdminConnection, entity_type: str, name: str) -> bool:
    if entity_type == "topics":
        topic_rules.validate(name)
        return name in execution(lambda: connection.admin("listTopics").list_topics())
    return name == "" or any(str(b["broker_id"]) == name for b in _brokers(connection))


def _brokers(connection: AdminConnection) -> list[dict]:
    cluster = execution(lambda: connection.admin("describeCluster").describe_cluster())
    return [b for b in cluster["brokers"] if not b.get("is_fenced")]


def describe(connection: AdminConnection, entity_type: str, name: str | None, describe_all: bool):
    if name is not None and not describe_all and not _exists(connection, entity_type, name):
        console = output.Console()
        console.println(output.does_not_exist(entity_type, name))
        return console.result()
    if name is not None:
        names = [name]
    elif entity_type == "topics":
        names = output.entity_order("topics", execution(lambda: connection.admin("listTopics").list_topics()))
    else:
        names = output.entity_order("brokers", [str(b["broker_id"]) for b in _brokers(connection)])
    return output.describe(entity_type, [(n, resource_config(connection, entity_type, n)) for n in names],
                           describe_all=describe_all)


# ----------------------------------------------------------------------------- IncrementalAlterConfigs
def alter(connection: AdminConnection, entity_type: str, name: str, to_add: dict[str, str], to_delete: list[str]):
    """One IncrementalAlterConfigs, unchecked: deleting a config that is not set is the broker's no-op."""
    from kafka.protocol.admin import IncrementalAlterConfigsRequest
    entries = [(n, 1, None) for n in to_delete] + [(n, 0, v) for n, v in to_add.items()]
    request = IncrementalAlterConfigsRequest(resources=[(RESOURCE_TYPES[entity_type], name, entries)],
                                             validate_only=False)
    node = int(name) if entity_type == "brokers" and name else None
    response = execution(lambda: connection.send(request, "incrementalAlterConfigs", node_id=node))
    for result in response.responses:
        if result.error_code:
            raise ExecutionException(error_for(result.error_code, result.error_message))
    return output.alter_completed(entity_type, name)


def process_command(o) -> object:
    types, names = entity_types(o), entity_names(o)
    if o.has("alter") and len(types) != len(names):
        raise ValueError("An entity name must be specified for every entity type")
    if types[0] not in RESOURCE_TYPES:
        raise ValueError(f"minikafka's configs tool does not support --entity-type {types[0]} (only topics and "
                         "brokers)")
    with AdminConnection(o.value_of("bootstrap-server")) as connection:
        if o.has("alter"):
            return alter(connection, types[0], names[0], parse_configs_to_be_added(o), parse_configs_to_be_deleted(o))
        return describe(connection, types[0], names[0] if names else None, o.has("all"))


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
        clu.maybe_print_help_or_version(p, o, args, "This tool helps to manipulate and describe entity config for a "
                                                    "topic, client, user, broker, ip, client-metrics or group")
        check_args(p, o)
        if o.has("bootstrap-controller"):
            raise ValueError("minikafka's tools cannot connect to a controller listener; use --bootstrap-server")
        result = process_command(o)
    except (OptionException, ValueError, InvalidConfigurationException) as exc:
        clu.eprintln(str(exc))
        return 1
    except KafkaException as exc:
        clu.eprintln(f"Error while executing config command with args '{' '.join(args)}'")
        clu.eprintln(f"{exc.java_class}: {exc.message}")
        return 1
    clu.emit(result)
    return result.exit_code


__all__ = ["NAME", "SUMMARY", "build_parser", "entity_types", "entity_names", "check_args",
           "parse_configs_to_be_added", "parse_configs_to_be_deleted", "resource_config", "describe", "alter",
           "process_command", "main"]
