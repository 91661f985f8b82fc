"""``KafkaConfig``: one node's effective configuration, static and dynamic.

Theory of operation
-------------------
A Kafka node starts from its ``server.properties`` (the *static* config).
While the cluster runs, ``kafka-configs.sh`` can add *dynamic* broker
configs, stored as ConfigRecords in the metadata log: cluster-wide defaults
(resource ``""``) and per-broker values (resource ``"2"``).  The node's
effective config is the static properties with the dynamic defaults laid
over them and the per-broker values over those, but only for names that may
change dynamically; an invalid or read-only dynamic value is ignored, as
Kafka ignores it (with an error in its log).

A `KafkaConfig` is immutable: when dynamic configs change, build a new one
with `with_dynamic`.  It parses everything once (so a bad
``server.properties`` fails at start-up with Kafka's message), checks the
cross-setting rules Kafka checks at start-up (a subset, listed below), and
offers ``log_config_map()``: the topic-level defaults this node derives from
its ``log.*`` settings, which is what topic validation and `LogConfig`
building start from.

Mirrors ``kafka.server.KafkaConfig`` and the layering of
``kafka.server.DynamicBrokerConfig`` as in Kafka 4.3.1.  The list settings
are checked while parsing (see `broker_configs`), so a repeated role
(``process.roles=broker,broker``) is simply dropped, a missing
``controller.listener.names`` fails with ``Missing required configuration
"controller.listener.names" which has no default value.`` and an empty one
with ``Configuration 'controller.listener.names' must not be empty. Valid
values include: any non-empty value``.  Simplified: of the start-up checks,
only node/broker id, process roles, the quorum voters and bootstrap servers,
log time settings, log directories and the replica fetch timings are checked
(listener and security checks are not); a Scala ``Set`` of more than four
voter ids may print in a different order than Kafka's.
"""

from __future__ import annotations

from typing import Any, Mapping, cast

from minikafka.common.config.broker_configs import (
    BROKER_CONFIG_DEF, DYNAMIC_BROKER_CONFIGS, PER_BROKER_CONFIGS, parse_voters)
from minikafka.common.config.config_def import Password, Type, convert_to_string
from minikafka.common.config.java_values import hashmap_order, java_str
from minikafka.common.errors import ConfigException


class RequirementFailed(ConfigException):
    """A failed Scala ``require(...)`` in KafkaConfig: Kafka prints it as IllegalArgumentException."""

    @property
    def java_class(self) -> str:
        return "java.lang.IllegalArgumentException"


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise RequirementFailed(f"requirement failed: {message}")


def _as_property_string(value: Any) -> str:
    if isinstance(value, Password):
        return value.value
    if isinstance(value, (list, tuple)):
        return ",".join(java_str(v) for v in value)
    return value if isinstance(value, str) else java_str(value)


class KafkaConfig:
    """The effective configuration of one node (see the module docstring)."""

    def __init__(self, static_props: Mapping[str, Any],
                 dynamic_default: Mapping[str, str] | None = None,
                 dynamic_broker: Mapping[str, str] | None = None):
        self.static_props = self._populate_id_synonyms(                   # server.properties, as strings
            {name: _as_property_string(value) for name, value in static_props.items()})
        self.dynamic_default = self._applicable(dynamic_default or {}, per_broker=False)  # resource ""
        self.dynamic_broker = self._applicable(dynamic_broker or {}, per_broker=True)     # resource "<id>"
        self.originals = {**self.static_props, **self.dynamic_default, **self.dynamic_broker}  # as given
        self._values = BROKER_CONFIG_DEF.parse(self.originals)           # typed value of every known name
        self.custom_props = {k: v for k, v in self.originals.items() if k not in BROKER_CONFIG_DEF}
        self.process_roles = self._parse_process_roles()
        self._validate_values()

    # ------------------------------------------------------------------ construction helpers
    @staticmethod
    def _populate_id_synonyms(props: dict[str, str]) -> dict[str, str]:
        """``KafkaConfig.populateSynonyms``: broker.id and node.id fill in for each other."""
        if "broker.id" not in props and "node.id" in props:
            props["broker.id"] = props["node.id"]
        elif "broker.id" in props and "node.id" not in props:
            props["node.id"] = props["broker.id"]
        return props

    @staticmethod
    def _applicable(props: Mapping[str, str], per_broker: bool) -> dict[str, str]:
        """The dynamic values a broker would apply: dynamic names with valid values (and custom names)."""
        kept: dict[str, str] = {}
        for name, value in props.items():
            if value is None:
                continue
            if name in BROKER_CONFIG_DEF:
                if name not in DYNAMIC_BROKER_CONFIGS or (name in PER_BROKER_CONFIGS and not per_broker):
                    continue
                try:
                    BROKER_CONFIG_DEF.parse_value(BROKER_CONFIG_DEF[name], value, True)
                except ConfigException:
                    continue
            kept[name] = value
        return kept

    def with_dynamic(self, dynamic_default: Mapping[str, str] | None = None,
                     dynamic_broker: Mapping[str, str] | None = None) -> "KafkaConfig":
        """The same node after the metadata image's dynamic broker configs changed."""
        return KafkaConfig(self.static_props, dynamic_default, dynamic_broker)

    def _parse_process_roles(self) -> tuple[str, ...]:
        # Repeats were already dropped by the ConfigDef parse, so "broker,broker" is just the broker role.
        return tuple(self._values["process.roles"])

    # ------------------------------------------------------------------ start-up checks
    def _validate_values(self) -> None:
        if self.node_id != self.get("broker.id"):
            raise ConfigException("You must set `node.id` to the same value as `broker.id`.")
        _require(self.log_roll_time_millis >= 1, "log.roll.ms must be greater than or equal to 1")
        _require(self.log_roll_time_jitter_millis >= 0, "log.roll.jitter.ms must be greater than or equal to 0")
        _require(self.log_retention_time_millis >= 1 or self.log_retention_time_millis == -1,
                 "log.retention.ms must be unlimited (-1) or, greater than or equal to 1")
        # Kafka keeps this check although its list validators now refuse an empty log.dir(s) first.
        _require(len(self.log_dirs) > 0, "At least one log directory must be defined via log.dirs or log.dir.")
        wait = self.get("replica.fetch.wait.max.ms")
        _require(wait <= self.get("replica.socket.timeout.ms"),
                 "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms "
                 "to prevent unnecessary socket timeouts")
        _require(wait <= self.get("replica.lag.time.max.ms"),
                 "replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms "
                 "to prevent frequent changes in ISR")
        self._validate_kraft()

    def _validate_kraft(self) -> None:
        voters = self.quorum_voters
        voter_set = "Set(" + ", ".join(str(v) for v in hashmap_order(voters, initial_capacity=len(voters))) + ")"
        if not voters and not self.get("controller.quorum.bootstrap.servers"):
            raise ConfigException(
                "If using process.roles, either controller.quorum.bootstrap.servers must contain the set of "
                "bootstrap controllers or controller.quorum.voters must contain a parseable set of controllers.")
        if self.process_roles == ("broker",):
            _require(self.node_id not in voters,
                     f"If process.roles contains just the 'broker' role, the node id {self.node_id} must not "
                     f"be included in the set of voters controller.quorum.voters={voter_set}")
            _require(bool(self.controller_listener_names),
                     "controller.listener.names must contain at least one value when running KRaft with "
                     "just the broker role")
        if self.is_controller:
            _require(not voters or self.node_id in voters,
                     f"If process.roles contains the 'controller' role, the node id {self.node_id} must be "
                     f"included in the set of voters controller.quorum.voters={voter_set}")

    # ------------------------------------------------------------------ typed access
    def get(self, name: str) -> Any:
        """The typed effective value of a defined config (None if it has no value)."""
        return self._values[name]

    def ms(self, name: str) -> int:
        """A time setting in milliseconds (``*.seconds``/``*.minutes`` settings converted)."""
        value: int = self._values[name]
        if name.endswith(".seconds"):
            return value * 1000
        return value * 60_000 if name.endswith(".minutes") else value

    @property
    def values(self) -> dict[str, Any]:
        return dict(self._values)

    @property
    def non_internal_values(self) -> dict[str, Any]:
        """Typed values of the defined, non-internal names (Kafka's ``nonInternalValues``)."""
        return {k.name: self._values[k.name] for k in BROKER_CONFIG_DEF.keys() if not k.internal}

    @property
    def node_id(self) -> int:
        node_id: int = self._values["node.id"]
        return node_id

    @property
    def is_broker(self) -> bool:
        return "broker" in self.process_roles

    @property
    def is_controller(self) -> bool:
        return "controller" in self.process_roles

    @property
    def controller_listener_names(self) -> list[str]:
        return list(self._values["controller.listener.names"])

    @property
    def quorum_voters(self) -> dict[int, tuple[str, int]]:
        return parse_voters(self._values["controller.quorum.voters"])

    @property
    def log_dirs(self) -> list[str]:
        dirs = self._values["log.dirs"]
        return list(dirs if dirs is not None else self._values["log.dir"])

    @property
    def metadata_log_dir(self) -> str:
        return self._values["metadata.log.dir"] or self.log_dirs[0]

    @property
    def log_roll_time_millis(self) -> int:
        ms: int | None = self._values["log.roll.ms"]
        return ms if ms is not None else 3_600_000 * self._values["log.roll.hours"]

    @property
    def log_roll_time_jitter_millis(self) -> int:
        ms: int | None = self._values["log.roll.jitter.ms"]
        return ms if ms is not None else 3_600_000 * self._values["log.roll.jitter.hours"]

    @property
    def log_flush_interval_ms(self) -> int:
        ms: int | None = self._values["log.flush.interval.ms"]
        scheduler_ms: int = self._values["log.flush.scheduler.interval.ms"]
        return ms if ms is not None else scheduler_ms

    @property
    def log_retention_time_millis(self) -> int:
        millis = self._values["log.retention.ms"]
        if millis is None:
            minutes = self._values["log.retention.minutes"]
            millis = minutes * 60_000 if minutes is not None else self._values["log.retention.hours"] * 3_600_000
        return -1 if millis < 0 else millis

    def log_config_map(self) -> dict[str, Any]:
        """``KafkaConfig.extractLogConfigMap``: topic config name -> this node's typed default."""
        v = self._values
        return {
            "segment.bytes": v["log.segment.bytes"], "segment.ms": self.log_roll_time_millis,
            "segment.jitter.ms": self.log_roll_time_jitter_millis,
            "segment.index.bytes": v["log.index.size.max.bytes"],
            "flush.messages": v["log.flush.interval.messages"], "flush.ms": self.log_flush_interval_ms,
            "retention.bytes": v["log.retention.bytes"], "retention.ms": self.log_retention_time_millis,
            "max.message.bytes": v["message.max.bytes"], "index.interval.bytes": v["log.index.interval.bytes"],
            "delete.retention.ms": v["log.cleaner.delete.retention.ms"],
            "min.compaction.lag.ms": v["log.cleaner.min.compaction.lag.ms"],
            "max.compaction.lag.ms": v["log.cleaner.max.compaction.lag.ms"],
            "file.delete.delay.ms": v["log.segment.delete.delay.ms"],
            "min.cleanable.dirty.ratio": v["log.cleaner.min.cleanable.ratio"],
            "cleanup.policy": list(v["log.cleanup.policy"]), "min.insync.replicas": v["min.insync.replicas"],
            "compression.type": v["compression.type"], "compression.gzip.level": v["compression.gzip.level"],
            "compression.lz4.level": v["compression.lz4.level"],
            "compression.zstd.level": v["compression.zstd.level"],
            "unclean.leader.election.enable": v["unclean.leader.election.enable"],
            "preallocate": v["log.preallocate"], "message.timestamp.type": v["log.message.timestamp.type"],
            "message.timestamp.before.max.ms": v["log.message.timestamp.before.max.ms"],
            "message.timestamp.after.max.ms": v["log.message.timestamp.after.max.ms"],
            "local.retention.ms": v["log.local.retention.ms"],
            "local.retention.bytes": v["log.local.retention.bytes"],
        }

    # ------------------------------------------------------------------ for DescribeConfigs
    @staticmethod
    def static_default_strings() -> dict[str, str]:
        """``DynamicBrokerConfig.staticDefaultConfigs``: every non-null default, as a string."""
        out: dict[str, str] = {}
        for key in BROKER_CONFIG_DEF.keys():
            if key.has_default and key.default is not None:
                text = key.default.value if key.type is Type.PASSWORD else convert_to_string(key.default, key.type)
                out[key.name] = cast(str, text)  # not None, since the default is not None
        return out

    def __repr__(self) -> str:
        return f"KafkaConfig(node.id={self.node_id}, process.roles={','.join(self.process_roles)})"
