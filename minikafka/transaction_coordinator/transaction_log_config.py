"""``transaction.state.log.*``: how ``__transaction_state`` is laid out, with Kafka 4.3.1's defaults.

Theory of operation
-------------------
The transaction coordinator's topic is created on first use (the first
FindCoordinator of type TRANSACTION) with these settings: 50 partitions (an
id's partition never changes, so neither may the count), replication factor
3 with ``min.insync.replicas`` 2 (a decision is acknowledged only once two
replicas hold it), compacted (``cleanup.policy=compact``: only each id's last
record matters), small segments (100 MiB) so compaction and loading stay
fast, and records written uncompressed with ``acks=all``.  The loader reads
a partition in batches of ``transaction.state.log.load.buffer.size``.
``transaction.partition.verification.enable`` turns on the partition
leaders' check that a transactional write belongs to an ongoing transaction
(KIP-890 part 1).

A teaching cluster of one to three brokers cannot create a topic of
replication factor 3 with one broker; Kafka lowers the internal topic's
replication factor to the number of live brokers only in tests, so a caller
scales it down explicitly with `TransactionLogConfig.scaled_to` and says so.

Mirrors ``org.apache.kafka.coordinator.transaction.TransactionLogConfig``
(the ``transaction.state.log.*`` keys, their defaults and lower bounds) and
the topic configs of ``TransactionStateManager.transactionTopicConfigs``.
Simplified: no ConfigDef documentation strings; values arrive as a dict of
strings (``server.properties``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from minikafka.common.errors import ConfigException

TRANSACTIONS_TOPIC_PARTITIONS_CONFIG = "transaction.state.log.num.partitions"
TRANSACTIONS_TOPIC_REPLICATION_FACTOR_CONFIG = "transaction.state.log.replication.factor"
TRANSACTIONS_TOPIC_MIN_ISR_CONFIG = "transaction.state.log.min.isr"
TRANSACTIONS_TOPIC_SEGMENT_BYTES_CONFIG = "transaction.state.log.segment.bytes"
TRANSACTIONS_LOAD_BUFFER_SIZE_CONFIG = "transaction.state.log.load.buffer.size"
TRANSACTION_PARTITION_VERIFICATION_ENABLE_CONFIG = "transaction.partition.verification.enable"
PRODUCER_ID_EXPIRATION_MS_CONFIG = "producer.id.expiration.ms"
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG = "producer.id.expiration.check.interval.ms"

DEFAULTS: dict[str, int | bool] = {
    TRANSACTIONS_TOPIC_PARTITIONS_CONFIG: 50,
    TRANSACTIONS_TOPIC_REPLICATION_FACTOR_CONFIG: 3,
    TRANSACTIONS_TOPIC_MIN_ISR_CONFIG: 2,
    TRANSACTIONS_TOPIC_SEGMENT_BYTES_CONFIG: 100 * 1024 * 1024,
    TRANSACTIONS_LOAD_BUFFER_SIZE_CONFIG: 5 * 1024 * 1024,
    TRANSACTION_PARTITION_VERIFICATION_ENABLE_CONFIG: True,
    PRODUCER_ID_EXPIRATION_MS_CONFIG: 86400000,
    PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG: 600000,
}
# The integer settings and their lower bound (ConfigDef.Range.atLeast).
AT_LEAST = {TRANSACTIONS_TOPIC_PARTITIONS_CONFIG: 1, TRANSACTIONS_TOPIC_REPLICATION_FACTOR_CONFIG: 1,
            TRANSACTIONS_TOPIC_MIN_ISR_CONFIG: 1, TRANSACTIONS_TOPIC_SEGMENT_BYTES_CONFIG: 1,
            TRANSACTIONS_LOAD_BUFFER_SIZE_CONFIG: 1, PRODUCER_ID_EXPIRATION_MS_CONFIG: 1,
            PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG: 1}


@dataclass(frozen=True, slots=True)
class TransactionLogConfig:
    transaction_topic_partitions: int = 50
    transaction_topic_replication_factor: int = 3
    transaction_topic_min_isr: int = 2
    transaction_topic_segment_bytes: int = 100 * 1024 * 1024
    transaction_load_buffer_size: int = 5 * 1024 * 1024
    transaction_partition_verification_enable: bool = True
    producer_id_expiration_ms: int = 86400000
    producer_id_expiration_check_interval_ms: int = 600000

    @classmethod
    def from_configs(cls, configs: dict[str, str]) -> "TransactionLogConfig":
        """Read the ``transaction.state.log.*`` keys of ``configs``; an absent key takes Kafka's default."""
        values: dict[str, int | bool] = dict(DEFAULTS)
        for name in DEFAULTS:
            if name not in configs:
                continue
            raw = configs[name].strip()
            if isinstance(DEFAULTS[name], bool):
                if raw.lower() not in ("true", "false"):
                    raise ConfigException(f"Invalid value {raw} for configuration {name}: Expected value to be "
                                          "either true or false")
                values[name] = raw.lower() == "true"
                continue
            try:
                number = int(raw)
            except ValueError:
                raise ConfigException(f"Invalid value {raw} for configuration {name}: Not a number of type "
                                      f"{'SHORT' if name == TRANSACTIONS_TOPIC_REPLICATION_FACTOR_CONFIG else 'INT'}"
                                      ) from None
            if number < AT_LEAST[name]:
                raise ConfigException(f"Invalid value {number} for configuration {name}: Value must be at least "
                                      f"{AT_LEAST[name]}")
            values[name] = number
        return cls(*(values[name] for name in DEFAULTS))  # type: ignore[arg-type]

    def scaled_to(self, live_brokers: int) -> "TransactionLogConfig":
        """The teaching cluster's settings: replication and min ISR no higher than its brokers allow."""
        replication = min(self.transaction_topic_replication_factor, live_brokers)
        return replace(self, transaction_topic_replication_factor=replication,
                       transaction_topic_min_isr=min(self.transaction_topic_min_isr, replication))

    def topic_configs(self) -> dict[str, str]:
        """The configs ``__transaction_state`` is created with (``transactionTopicConfigs``)."""
        return {"compression.type": "uncompressed", "cleanup.policy": "compact",
                "min.insync.replicas": str(self.transaction_topic_min_isr),
                "unclean.leader.election.enable": "false",
                "segment.bytes": str(self.transaction_topic_segment_bytes)}


__all__ = ["DEFAULTS", "TransactionLogConfig"]
