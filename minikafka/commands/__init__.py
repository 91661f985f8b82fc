"""The look-alikes of Kafka's shell tools: ``kafka-topics.sh`` and its siblings, over the wire.

Theory of operation
-------------------
Each tool module is named after the Java class it mirrors (``topic_command``
for ``org.apache.kafka.tools.TopicCommand``, ``consumer_group_command`` for
``ConsumerGroupCommand``, ``console_consumer``...), parses its options as
that class does (`option_parser`, `command_line_utils`), gathers its data
over the Kafka protocol through kafka-python's clients (`admin_client`,
`coordinator_call`) and prints it with the pure formatters of
`minikafka.tools` (``topic_command_output``...).  `tool_commands` finds a
tool by its name and runs it.

Kafka keeps these classes in its ``tools`` module, which depends on the
clients and never on the broker or on anything that starts one.  So does
this package: it sits below the facade and imports neither `cluster` nor
`cli`.  The terminal's ``minikafka <tool>`` (`minikafka.cli`) and the
facade's ``Cluster.run_tool`` both run the tools from here.  Unlike the
formatters of `minikafka.tools`, these modules are clients that read
clocks and open sockets (kafka-python's), so they are not part of the
sans-IO core.
"""
