"""Kafka's configuration model: ConfigDef, topic and broker configs, DescribeConfigs, alters.

Modules, each mirroring one Kafka concept (Kafka 4.3.1):

* `config_def` / `validators` -- ``ConfigDef``: types, parsing, validators, error texts;
* `java_values` -- how the JVM parses and prints config values;
* `topic_configs` -- ``LogConfig``/``TopicConfig``: topic configs, validation, typed LogConfig;
* `broker_configs` / `kafka_config` -- ``KafkaConfig`` and ``DynamicBrokerConfig``;
* `describe` -- DescribeConfigs (``ConfigHelper``, ``KafkaConfigSchema``);
* `alter` -- IncrementalAlterConfigs (``ConfigurationControlManager``).
"""
