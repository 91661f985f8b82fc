"""The text outputs of Kafka's shell tools, reproduced byte for byte.

Learners compare what the sandbox prints with what ``kafka-topics.sh`` and
friends print against a real cluster, so every formatter here reproduces the
Kafka 4.3.1 tool's output exactly (most were first written from 4.1.1's
sources; the differential suite compares them with 4.3.1's tools): tabs, padding, ordering (including the
``HashMap`` orders Kafka does not sort), singular and plural wording, and
which lines go to standard error.  One module per tool:

========================================  ==========================================
``topic_command``                          ``kafka-topics.sh``
``metadata_quorum_command``                ``kafka-metadata-quorum.sh describe``
``reassign_partitions_command``            ``kafka-reassign-partitions.sh``
``reassignment_json``                      its JSON files
``broker_api_versions_command``            ``kafka-broker-api-versions.sh``
``consumer_groups_command``                ``kafka-consumer-groups.sh``
``configs_command``                        ``kafka-configs.sh``
``dump_log`` / ``dump_log_index``          ``kafka-dump-log.sh``
========================================  ==========================================

Each tool module defines small neutral input dataclasses (no kafka-python
types), pure formatting functions, ``ToolOutput``-returning command functions
(`tool_output`), and adapters from the sandbox's ``ClusterSnapshot`` or its
protocol objects where the snapshot holds the data.  So the same formatters
serve the in-process ``Cluster`` facade and command-line tools built on
kafka-python's admin client against any Kafka cluster.
"""

from minikafka.tools.tool_output import Console, ToolOutput

__all__ = ["Console", "ToolOutput"]
