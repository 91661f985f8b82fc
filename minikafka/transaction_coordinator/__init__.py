"""The transaction coordinator of Kafka 4.3.1, sans-IO: ``__transaction_state`` and the transaction states.

One module per Kafka concept (``org.apache.kafka.coordinator.transaction`` and
``kafka.coordinator.transaction``): `transaction_state` (the states and the
table of legal moves), `transaction_version` (``transaction.version``),
`txn_transit_metadata`, `transaction_metadata` (one transactional id),
`transaction_log` (the records, byte for byte, and the partition of an id),
`transaction_log_config` and `transaction_state_manager_config` (the
``transaction.*`` broker configs), `transaction_state_manager` (the cache of
the partitions this broker coordinates: loading, timeouts, expiration),
`transaction_marker_channel_manager` (the markers still to write) and
`transaction_coordinator` (the requests).  Nothing here reads a clock or
touches a socket: time comes in as ``now_ms``, records and marker intents go
out, and the caller reports when they are written.  Not yet wired into the
request handlers.
"""
