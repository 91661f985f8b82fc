"""The text outputs of Kafka's shell tools, reproduced byte for byte.

Learners compare what the sandbox prints with what ``kafka-topics.sh`` and
friends print against a real cluster, so every formatter here reproduces the
Kafka 4.3.1 tool's output exactly (most were first written from 4.1.1's
sources; the differential suite compares them with 4.3.1's tools): tabs, padding, ordering (including the
``HashMap`` orders Kafka does not sort), singular and plural wording, and
which lines go to standard error.  One module per tool, named after the Java
class whose output it reproduces with the suffix ``_output``, so that the
command that gathers the data over the wire (`minikafka.commands`, named after the
same class) never shares its module name:

==========================================  ==========================================
``topic_command_output``                     ``kafka-topics.sh`` (TopicCommand)
``metadata_quorum_command_output``           ``kafka-metadata-quorum.sh describe``
``reassign_partitions_command_output``       ``kafka-reassign-partitions.sh``
``reassignment_json``                        its JSON files
``broker_api_versions_command_output``       ``kafka-broker-api-versions.sh``
``consumer_group_command_output``            ``kafka-consumer-groups.sh`` (ConsumerGroupCommand)
``config_command_output``                    ``kafka-configs.sh`` (ConfigCommand)
``groups_command_output``                    ``kafka-groups.sh`` (GroupsCommand)
``dump_log`` / ``dump_log_index``            ``kafka-dump-log.sh`` (no command of its own)
==========================================  ==========================================

Each tool module defines small neutral input dataclasses (no kafka-python
types), pure formatting functions, ``ToolOutput``-returning command functions
(`tool_output`), and adapters from the sandbox's ``ClusterSnapshot`` or its
protocol objects where the snapshot holds the data.  So the same formatters
serve the in-process ``Cluster`` facade and command-line tools built on
kafka-python's admin client against any Kafka cluster.
"""

from minikafka.tools.tool_output import Console, ToolOutput

__all__ = ["Console", "ToolOutput"]
