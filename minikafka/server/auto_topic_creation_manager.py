"""`AutoTopicCreationManager`: a Metadata request for a missing topic asks the controller to create it.

Theory of operation
-------------------
With ``auto.create.topics.enable=true`` (Kafka's default) and a client that
allows it (``allow_auto_topic_creation``, true unless the client says
otherwise), a Metadata request naming a topic that does not exist makes the
broker send a CreateTopics request to the active controller -- it does not
wait for the answer.  The Metadata response says UNKNOWN_TOPIC_OR_PARTITION
for the topic meanwhile (Kafka 4.x; 2.x and 3.x brokers said
LEADER_NOT_AVAILABLE), and the client asks again until the topic and its
leaders appear.

* a name Kafka refuses gets INVALID_TOPIC_EXCEPTION and nothing is sent;
* a name whose creation is already in flight is not sent twice;
* an ordinary topic is asked for with ``num.partitions`` partitions and
  ``default.replication.factor`` replicas if this broker's properties set
  them, otherwise with -1, which the controller replaces by its own
  settings (KAFKA-19655; Kafka 4.1 always sent the broker's values); the
  internal topics get their
  coordinators' settings (``__consumer_offsets``: ``offsets.topic.*`` and a
  compacted log).

What it depends on, both passed in by `BrokerServer`: the broker's current
`KafkaConfig` (a callable, since dynamic broker configs replace it) for the
defaults above and ``request.timeout.ms``, and the channel that forwards a
request to the active controller (retrying across controller changes until
the timeout) and calls back with the answer.

Mirrors ``kafka.server.DefaultAutoTopicCreationManager`` (Kafka 4.3.1).
Simplified: the request is not
wrapped in an Envelope carrying the client's principal (the sandbox has no
principals); ``__transaction_state`` and ``__share_group_state`` use Kafka's
default coordinator settings, as the sandbox has no transaction or share
coordinator to configure them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from minikafka.common.errors import Errors, KafkaException
from minikafka.common.topic import (GROUP_METADATA_TOPIC_NAME, SHARE_GROUP_STATE_TOPIC_NAME,
                                    TRANSACTION_STATE_TOPIC_NAME, validate)
from minikafka.controller.requests import CreatableTopic, CreatableTopicConfig, CreateTopicsRequest

if TYPE_CHECKING:
    from minikafka.common.config.kafka_config import KafkaConfig

# BrokerServer.forward_to_controller: (request, respond, timeout_ms or None for the default).
ForwardToController = Callable[[Any, Callable[[Any], None], "int | None"], None]

_MIB = 1024 * 1024

# Kafka 4.3.1 defaults of TransactionLogConfig and ShareCoordinatorConfig:
# (partitions, replication factor, topic configs).
_COORDINATOR_TOPICS = {
    TRANSACTION_STATE_TOPIC_NAME: (50, 3, (("unclean.leader.election.enable", "false"),
                                           ("compression.type", "uncompressed"),
                                           ("cleanup.policy", "compact"),
                                           ("min.insync.replicas", "2"),
                                           ("segment.bytes", str(100 * _MIB)))),
    SHARE_GROUP_STATE_TOPIC_NAME: (50, 3, (("cleanup.policy", "delete"),
                                           ("compression.type", "producer"),
                                           ("segment.bytes", str(100 * _MIB)),
                                           ("min.insync.replicas", "2"),
                                           ("retention.ms", "-1"))),
}


class AutoTopicCreationManager:
    def __init__(self, *, kafka_config: Callable[[], "KafkaConfig"],
                 forward_to_controller: ForwardToController):
        self.kafka_config = kafka_config
        self.forward_to_controller = forward_to_controller
        self.inflight_topics: set[str] = set()      # names whose CreateTopics has not been answered

    def create_topics(self, topics: list[str]) -> dict[str, Errors]:
        """Start creating ``topics``; returns the error each gets in the Metadata response now."""
        errors: dict[str, Errors] = {}
        creatable = []
        for topic in topics:
            try:
                validate(topic)
            except KafkaException:
                errors[topic] = Errors.INVALID_TOPIC_EXCEPTION
                continue
            errors[topic] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            if topic not in self.inflight_topics:
                self.inflight_topics.add(topic)
                creatable.append(self.creatable_topic(topic))
        if creatable:
            self._send(tuple(creatable))
        return errors

    def creatable_topic(self, topic: str) -> CreatableTopic:
        """What Kafka asks the controller for when it creates ``topic`` on a client's behalf."""
        config = self.kafka_config()
        if topic == GROUP_METADATA_TOPIC_NAME:
            return CreatableTopic(topic, int(config.get("offsets.topic.num.partitions")),
                                  int(config.get("offsets.topic.replication.factor")),
                                  configs=(CreatableTopicConfig("cleanup.policy", "compact"),
                                           CreatableTopicConfig("compression.type", "producer"),
                                           CreatableTopicConfig(
                                               "segment.bytes",
                                               str(config.get("offsets.topic.segment.bytes")))))
        if topic in _COORDINATOR_TOPICS:
            partitions, replication, configs = _COORDINATOR_TOPICS[topic]
            return CreatableTopic(topic, partitions, replication,
                                  configs=tuple(CreatableTopicConfig(k, v) for k, v in configs))
        # Only what this broker's own properties set is sent; -1 lets the controller apply its
        # own defaults, so a topic's shape does not depend on which broker a client asked.
        return CreatableTopic(topic, _explicit_int(config, "num.partitions"),
                              _explicit_int(config, "default.replication.factor"))

    def _send(self, topics: tuple[CreatableTopic, ...]) -> None:
        timeout_ms = int(self.kafka_config().get("request.timeout.ms"))
        names = [t.name for t in topics]

        def answered(response) -> None:
            # Success or failure, the next Metadata request may try again (Kafka clears the set).
            self.inflight_topics.difference_update(names)

        self.forward_to_controller(CreateTopicsRequest(topics, timeout_ms), answered, timeout_ms)


def _explicit_int(config: KafkaConfig, name: str) -> int:
    """``name``'s value if the broker's properties set it, else -1 (the controller's default)."""
    return int(config.get(name)) if name in config.originals else -1
