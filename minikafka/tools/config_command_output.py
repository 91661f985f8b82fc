"""``kafka-configs.sh --describe`` and ``--alter`` for topics and brokers, as Kafka 4.3.1 prints them.

Theory of operation
-------------------
``--describe`` asks DescribeConfigs (with synonyms) for one resource and
prints, under a heading, one line per entry, sorted by name::

    Dynamic configs for topic orders are:
      retention.ms=60000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=60000}

Without ``--all`` only the entries set dynamically *on that resource* are
shown: ``DYNAMIC_TOPIC_CONFIG`` for a topic, ``DYNAMIC_BROKER_CONFIG`` for a
broker id, ``DYNAMIC_DEFAULT_BROKER_CONFIG`` for ``--entity-default`` (whose
heading is ``Default configs for brokers in the cluster are:``).  With
``--all`` every entry is shown and the heading says ``All configs``.  The
synonyms list every layer the value could come from, highest priority
first, as ``SOURCE:name=value`` joined by ``, ``; a sensitive value (and an
unset one) prints as ``null``.  Without ``--entity-name`` the tool repeats
this for every topic, or every broker followed by the cluster default.

``--describe`` of a topic or broker that does not exist prints ``The topic
'x' doesn't exist and doesn't have dynamic config.`` on stdout.  ``--alter`` prints
``Completed updating config for topic orders.`` (``... default config for
brokers in the cluster.`` for the default), also when it only deleted a
config the resource does not have: that deletion is a no-op.

Mirrors ``kafka.admin.ConfigCommand`` (Kafka 4.3.1: ``describeResourceConfig``,
``getResourceConfig``, ``alterConfig``).  Simplified: quotas, users, clients,
IPs, broker loggers and SCRAM credentials are not modelled (nor their
``Invalid config(s): a,b`` and ``Invalid broker logger(s): a,b`` refusals of a
deletion); unexpected failures, which Kafka reports with the whole
command line and a stack trace, are not either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from minikafka.tools.java_hash_codes import int_order, string_order
from minikafka.tools.tool_output import Console, ToolOutput

TOPICS, BROKERS, BROKER_LOGGERS, GROUPS, CLIENT_METRICS = ("topics", "brokers", "broker-loggers", "groups",
                                                           "client-metrics")
BROKER_DEFAULT = ""            # the entity name of --entity-default


@dataclass(frozen=True, slots=True)
class ConfigSynonym:
    name: str
    value: str | None
    source: str                     # ConfigSource name, e.g. "STATIC_BROKER_CONFIG"


@dataclass(frozen=True, slots=True)
class DescribedConfig:
    """``ConfigEntry`` as the admin client returns it."""

    name: str
    value: str | None               # None for sensitive configs
    source: str
    is_sensitive: bool = False
    synonyms: tuple[ConfigSynonym, ...] = ()


def _java(value: str | None) -> str:
    return "null" if value is None else value


def _dynamic_source(entity_type: str, entity_name: str) -> str | None:
    """The only source shown without ``--all`` (None: show everything)."""
    if entity_type == BROKERS:
        return "DYNAMIC_DEFAULT_BROKER_CONFIG" if entity_name == BROKER_DEFAULT else "DYNAMIC_BROKER_CONFIG"
    return {TOPICS: "DYNAMIC_TOPIC_CONFIG", GROUPS: "DYNAMIC_GROUP_CONFIG",
            CLIENT_METRICS: "DYNAMIC_CLIENT_METRICS_CONFIG"}.get(entity_type)


def entry_line(entry: DescribedConfig) -> str:
    synonyms = ", ".join(f"{s.source}:{s.name}={_java(s.value)}" for s in entry.synonyms)
    return f"  {entry.name}={_java(entry.value)} sensitive={str(entry.is_sensitive).lower()} synonyms={{{synonyms}}}"


def heading(entity_type: str, entity_name: str, describe_all: bool = False) -> str:
    if entity_type in (BROKERS, BROKER_LOGGERS) and entity_name == BROKER_DEFAULT:
        return f"Default configs for {entity_type} in the cluster are:"
    return f"{'All' if describe_all else 'Dynamic'} configs for {entity_type[:-1]} {entity_name} are:"


def format_entity(entity_type: str, entity_name: str, entries: Iterable[DescribedConfig],
                  describe_all: bool = False) -> str:
    """Heading and entry lines of one resource (entries filtered and sorted as Kafka does)."""
    source = None if describe_all else _dynamic_source(entity_type, entity_name)
    shown = sorted((e for e in entries if source is None or e.source == source), key=lambda e: e.name)
    return "".join(line + "\n" for line in [heading(entity_type, entity_name, describe_all),
                                             *(entry_line(e) for e in shown)])


def does_not_exist(entity_type: str, entity_name: str) -> str:
    return f"The {entity_type[:-1]} '{entity_name}' doesn't exist and doesn't have dynamic config."


def _check_broker_id(entity_type: str, entity_name: str) -> None:
    if entity_type in (BROKERS, BROKER_LOGGERS) and entity_name != BROKER_DEFAULT:
        try:
            int(entity_name)
        except ValueError:
            raise ValueError(f"The entity name for {entity_type} must be a valid integer broker id, "
                             f"found: {entity_name}") from None


def describe(entity_type: str, entities: Sequence[tuple[str, Sequence[DescribedConfig] | None]], *,
             describe_all: bool = False) -> ToolOutput:
    """``--describe``: ``entities`` are (name, entries), entries None for a resource that does not exist.

    Pass one entity for ``--entity-name``/``--entity-default``; for all of them
    pass them in the order Kafka lists them (`entity_order`).
    """
    console = Console()
    for name, entries in entities:
        if entries is None:
            console.println(does_not_exist(entity_type, name))
            return console.result()
        try:
            _check_broker_id(entity_type, name)
        except ValueError as exc:
            failed = Console()
            failed.eprintln(str(exc))
            return failed.result(exit_code=1)
        console.print(format_entity(entity_type, name, entries, describe_all))
    return console.result()


def entity_order(entity_type: str, names: Iterable[str]) -> list[str]:
    """The order of a describe without a name: topics as the admin client's ``HashMap`` keeps them,
    brokers by id (as ``describeCluster`` returns them) followed by the cluster default."""
    if entity_type == TOPICS:
        return string_order(sorted(names))
    if entity_type in (BROKERS, BROKER_LOGGERS):
        return [str(b) for b in int_order(sorted(int(n) for n in names))] + [BROKER_DEFAULT]
    return list(names)


def alter_completed(entity_type: str, entity_name: str) -> ToolOutput:
    console = Console()
    if entity_name:
        console.println(f"Completed updating config for {entity_type[:-1]} {entity_name}.")
    else:
        console.println(f"Completed updating default config for {entity_type} in the cluster.")
    return console.result()


def from_describe_result(result) -> list[DescribedConfig]:
    """Adapt `minikafka.common.config.describe.DescribeConfigsResult` (or any entries with the same fields)."""
    return [DescribedConfig(e.name, e.value, e.source.name, e.is_sensitive,
                            tuple(ConfigSynonym(s.name, s.value, s.source.name) for s in e.synonyms))
            for e in result.entries]


__all__ = ["ConfigSynonym", "DescribedConfig", "entry_line", "heading", "format_entity", "does_not_exist",
           "describe", "entity_order", "alter_completed", "from_describe_result",
           "TOPICS", "BROKERS", "BROKER_LOGGERS", "GROUPS", "CLIENT_METRICS", "BROKER_DEFAULT"]
