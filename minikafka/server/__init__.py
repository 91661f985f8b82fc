"""The broker's server side, as Kafka's ``kafka.server`` package: the node that runs a broker
and/or a controller (`kafka_node`), the broker's replica manager, fetchers, metadata cache and
publishers, its lifecycle with the controller, and its delayed operations.

Importing the package imports none of its modules (each is imported where it is used)."""
