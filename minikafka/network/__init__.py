"""The Kafka wire protocol, as a 4.3.1 broker speaks it to real clients.

``frame`` cuts the byte stream into frames, ``codec`` turns frames into
kafka-python message objects and back, ``api_keys``/``api_versions`` hold the
release's protocol facts and what the sandbox advertises, ``kafka_channel``
is one connection's state (sans-IO), ``request_context``/``request_channel``
are what handlers receive and return, and ``handlers`` holds one module per
API plus the dispatch table.  Sockets live in ``minikafka.drivers`` only.
"""
