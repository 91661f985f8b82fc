"""The transaction coordinator's timers and limits, with Kafka 4.3.1's defaults.

Theory of operation
-------------------
* ``transaction.max.timeout.ms`` (15 minutes): the longest
  ``transaction.timeout.ms`` a producer may ask for; InitProducerId with a
  longer one is refused with INVALID_TRANSACTION_TIMEOUT;
* ``transaction.abort.timed.out.transaction.cleanup.interval.ms`` (10 s):
  how often the coordinator looks for transactions open longer than their
  timeout and aborts them, fencing their producer;
* ``transactional.id.expiration.ms`` (7 days): a transactional id with no
  transaction open and no update for this long is removed (a tombstone),
  checked every ``transaction.remove.expired.transaction.cleanup.interval.ms``
  (1 hour);
* ``transaction.two.phase.commit.enable`` (false): KIP-939's prepared
  transactions; when off, an InitProducerId asking for 2PC is refused with
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED.

Mirrors ``org.apache.kafka.coordinator.transaction.TransactionStateManagerConfig``.
Simplified: values arrive as a dict of strings; no documentation strings.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikafka.common.errors import ConfigException

TRANSACTIONAL_ID_EXPIRATION_MS_CONFIG = "transactional.id.expiration.ms"
TRANSACTIONS_MAX_TIMEOUT_MS_CONFIG = "transaction.max.timeout.ms"
TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_CONFIG = \
    "transaction.abort.timed.out.transaction.cleanup.interval.ms"
TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_CONFIG = \
    "transaction.remove.expired.transaction.cleanup.interval.ms"
TRANSACTIONS_2PC_ENABLED_CONFIG = "transaction.two.phase.commit.enable"

DEFAULTS: dict[str, int | bool] = {
    TRANSACTIONAL_ID_EXPIRATION_MS_CONFIG: 7 * 24 * 3600 * 1000,
    TRANSACTIONS_MAX_TIMEOUT_MS_CONFIG: 15 * 60 * 1000,
    TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_CONFIG: 10 * 1000,
    TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_CONFIG: 3600 * 1000,
    TRANSACTIONS_2PC_ENABLED_CONFIG: False,
}


@dataclass(frozen=True, slots=True)
class TransactionStateManagerConfig:
    transactional_id_expiration_ms: int = 7 * 24 * 3600 * 1000
    transaction_max_timeout_ms: int = 15 * 60 * 1000
    abort_timed_out_transactions_interval_ms: int = 10 * 1000
    remove_expired_transactional_ids_interval_ms: int = 3600 * 1000
    transaction_2pc_enabled: bool = False

    @classmethod
    def from_configs(cls, configs: dict[str, str]) -> "TransactionStateManagerConfig":
        values: dict[str, int | bool] = dict(DEFAULTS)
        for name, default in DEFAULTS.items():
            if name not in configs:
                continue
            raw = configs[name].strip()
            if isinstance(default, bool):
                if raw.lower() not in ("true", "false"):
                    raise ConfigException(f"Invalid value {raw} for configuration {name}: Expected value to be "
                                          "either true or false")
                values[name] = raw.lower() == "true"
                continue
            try:
                number = int(raw)
            except ValueError:
                raise ConfigException(f"Invalid value {raw} for configuration {name}: Not a number of type INT"
                                      ) from None
            if number < 1:
                raise ConfigException(f"Invalid value {number} for configuration {name}: Value must be at least 1")
            values[name] = number
        return cls(*(values[name] for name in DEFAULTS))  # type: ignore[arg-type]


__all__ = ["DEFAULTS", "TransactionStateManagerConfig"]
