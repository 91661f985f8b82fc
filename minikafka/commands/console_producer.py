"""``minikafka console-producer``: ``kafka-console-producer.sh``, lines from standard input to a topic.

Theory of operation
-------------------
Every line read from standard input becomes one record (`LineMessageReader`
decides key, value and headers from ``--reader-property`` settings such as
``parse.key=true`` and ``key.separator=:``).  Records are sent
asynchronously (``--sync``: one at a time, waiting for each
acknowledgement); at the end of input the producer is closed, which sends
whatever is still batched.  When both standard input and standard output
are a terminal, a ``>`` prompt is printed before each line is read.

The producer runs with the console producer's settings unless
``--command-property``, a ``--command-config`` file or the matching option
says otherwise: ``acks=-1`` (all), ``linger.ms=1000`` (``--timeout``),
``request.timeout.ms=1500``, ``retries=3``, ``batch.size=16384``,
``client.id=console-producer``.

Errors: option mistakes print the message and the option table (exit 1);
``--bootstrap-server`` is checked like ``ToolsUtils.validateBootstrapServer``
(``Please provide valid host:port like host1:9091,host2:9092``); a reader
error (``No key separator found on line number 1: 'abc'``) prints the
exception and exits 1 after the earlier records are sent; a failed
asynchronous send is logged (``Error when sending message to topic ...``).

The older names ``--property``, ``--producer-property`` and
``--producer.config`` still work, and so does ``--max-partition-memory-bytes``
(``--batch-size``'s old synonym): each one used prints a line on standard
output, ``Warning: --property is deprecated and will be removed in a future
version. Use --reader-property instead.`` (``... in Apache Kafka 5.0. Use
--batch-size instead.`` for the last), after the required-option checks and
before the bootstrap check; an option given together with its old name is
refused (``Options --reader-property and --property cannot be specified
together.``).

Mirrors ``org.apache.kafka.tools.ConsoleProducer`` (4.3.1).  Simplified:
the producer is kafka-python's ``KafkaProducer`` (only the properties it
knows are passed on); ``--line-reader`` only accepts Kafka's
``LineMessageReader``; ``--reader-config``/``--command-config`` files are
read as Java properties files of ``key=value`` lines; errors print the
exception's first line, without the stack trace.
"""

from __future__ import annotations

import sys

from minikafka.commands import command_line_utils as clu
from minikafka.commands.line_message_reader import LineMessageReader, ReaderException
from minikafka.commands.option_parser import OPTIONAL_ARG, OptionException, OptionParser, REQUIRED_ARG, integer, long
from minikafka.commands.tools_log import log_line
from minikafka.common.errors import KafkaException
from minikafka.tools.tool_output import system_out

NAME = "console-producer"
SUMMARY = "kafka-console-producer.sh: send lines from standard input to a topic"
READER_CLASS = "org.apache.kafka.tools.LineMessageReader"
# (option, producer config, default) merged by CommandLineUtils.maybeMergeOptions, in Kafka's order
MERGED = (("timeout", "linger.ms"), ("request-required-acks", "acks"), ("request-timeout-ms", "request.timeout.ms"),
          ("message-send-max-retries", "retries"), ("retry-backoff-ms", "retry.backoff.ms"),
          ("socket-buffer-size", "send.buffer.bytes"), ("max-memory-bytes", "buffer.memory"),
          ("batch-size", "batch.size"), ("max-partition-memory-bytes", "batch.size"),
          ("metadata-expiry-ms", "metadata.max.age.ms"), ("max-block-ms", "max.block.ms"))
# (deprecated option, its replacement), in the order Kafka warns about them
DEPRECATED = (("producer-property", "command-property"), ("producer.config", "command-config"),
              ("property", "reader-property"), ("max-partition-memory-bytes", "batch-size"))


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("topic", "REQUIRED: the topic to produce to.", argument=REQUIRED_ARG, described_as="topic")
    p.accepts("bootstrap-server", "REQUIRED: the broker(s) to connect to, HOST1:PORT1,HOST2:PORT2.",
              argument=REQUIRED_ARG, described_as="server to connect to")
    p.accepts("sync", "Send each record synchronously.")
    p.accepts("compression-codec", "none, gzip, snappy, lz4 or zstd; without a value gzip.", argument=OPTIONAL_ARG,
              described_as="compression-codec")
    for name, text, convert, default, what in (
            ("batch-size", "Records per batch (batch.size).", integer, 16384, "size"),
            ("message-send-max-retries", "Retries before a record is dropped (retries).", integer, 3, ""),
            ("retry-backoff-ms", "Wait before a retry (retry.backoff.ms).", long, 100, ""),
            ("timeout", "How long a record may wait for a batch (linger.ms).", long, 1000, "timeout_ms"),
            ("request-required-acks", "The producer's acks.", str, "-1", "request required acks"),
            ("request-timeout-ms", "The producer's request.timeout.ms.", integer, 1500, "request timeout ms"),
            ("metadata-expiry-ms", "The producer's metadata.max.age.ms.", long, 300000,
             "metadata expiration interval"),
            ("max-block-ms", "The producer's max.block.ms.", long, 60000, "max block on send"),
            ("max-memory-bytes", "The producer's buffer.memory.", long, 33554432, "total memory in bytes"),
            ("max-partition-memory-bytes", "(Deprecated) The producer's batch.size; use --batch-size instead.",
             integer, 16384, "memory in bytes per partition"),
            ("line-reader", "The class that reads records from standard input.", str, READER_CLASS, "reader_class"),
            ("socket-buffer-size", "The producer's send.buffer.bytes.", integer, 102400, "size")):
        p.accepts(name, text, argument=REQUIRED_ARG, convert=convert, default=default, described_as=what)
    p.accepts("property", "(DEPRECATED) A reader setting, key=value; use --reader-property instead.",
              argument=REQUIRED_ARG, described_as="prop")
    p.accepts("reader-property", "A reader setting, key=value (parse.key, key.separator, parse.headers, ...).",
              argument=REQUIRED_ARG, described_as="prop")
    p.accepts("reader-config", "Reader properties file ([reader-property] wins over it).", argument=REQUIRED_ARG,
              described_as="config file")
    p.accepts("producer-property", "(DEPRECATED) A producer setting, key=value; use --command-property instead.",
              argument=REQUIRED_ARG, described_as="producer_prop")
    p.accepts("command-property", "A producer setting, key=value.", argument=REQUIRED_ARG,
              described_as="producer_prop")
    p.accepts("producer.config", "(DEPRECATED) Producer properties file; use --command-config instead.",
              argument=REQUIRED_ARG, described_as="config file")
    p.accepts("command-config", "Producer properties file ([command-property] wins over it).", argument=REQUIRED_ARG,
              described_as="config file")
    return p


def _either(o, deprecated: str, option: str) -> str:
    """The option that holds the value: the deprecated synonym when it was given."""
    return deprecated if o.has(deprecated) else option


def check_deprecated_options(p: OptionParser, o) -> None:
    """Refuse an option given with its deprecated synonym, then warn (on stdout) about each deprecated one used."""
    for option, deprecated in (("command-config", "producer.config"), ("command-property", "producer-property"),
                               ("reader-property", "property")):
        if o.has(option) and o.has(deprecated):
            clu.print_usage_and_exit(p, f"Options --{option} and --{deprecated} cannot be specified together.")
    for deprecated, option in DEPRECATED:
        if o.has(deprecated):
            until = "Apache Kafka 5.0" if deprecated == "max-partition-memory-bytes" else "a future version"
            clu.println(f"Warning: --{deprecated} is deprecated and will be removed in {until}. Use --{option} "
                        "instead.")


def producer_props(o) -> dict[str, str]:
    """``ConsoleProducerOptions.producerProps``: files, properties, then the merged options."""
    config = _either(o, "producer.config", "command-config")
    props = clu.load_props(o.value_of(config)) if o.has(config) else {}
    props.update(clu.parse_key_value_args(o.values_of(_either(o, "producer-property", "command-property"))))
    props["bootstrap.servers"] = o.value_of("bootstrap-server")
    codec = o.value_of("compression-codec") if o.has("compression-codec") else "none"
    props["compression.type"] = codec or "gzip"
    props.setdefault("client.id", "console-producer")
    for option, config in MERGED:
        if o.has(option) or config not in props:
            props[config] = str(o.value_of(option))
    return props


def kafka_python_config(props: dict[str, str]) -> dict:
    """The settings kafka-python's producer knows, under its names."""
    from kafka import KafkaProducer
    config = clu.kafka_python_kwargs(props, KafkaProducer.DEFAULT_CONFIG)
    if "acks" in config:
        config["acks"] = "all" if str(config["acks"]) in ("all", "-1") else int(config["acks"])
    if config.get("compression_type") == "none":
        config["compression_type"] = None
    return config


def reader_props(o) -> dict[str, str]:
    props = clu.load_props(o.value_of("reader-config")) if o.has("reader-config") else {}
    props["topic"] = o.value_of("topic")
    props.update(clu.parse_key_value_args(o.values_of(_either(o, "property", "reader-property"))))
    return props


def _lines():
    """Standard input line by line, without line breaks; the ``>`` prompt on a terminal."""
    prompt = sys.stdin.isatty() and system_out().isatty()
    while True:
        if prompt:
            system_out().write(">")
            system_out().flush()
        line = sys.stdin.readline()
        if not line:
            return
        yield line[:-1] if line.endswith("\n") else line


def _log_send_error(topic: str, record, exc: Exception) -> None:
    from minikafka.commands.admin_client import from_client_error, java_string
    key = "null" if record.key is None else f"{len(record.key)} bytes"
    value = "null" if record.value is None else f"{len(record.value)} bytes"
    log_line("ERROR", f"Error when sending message to topic {topic} with key: {key}, value: {value} with error:",
             "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback", java_string(from_client_error(exc)))


def produce(o) -> None:
    """Read records until the end of input and send them."""
    from kafka import KafkaProducer
    reader = LineMessageReader.configure(reader_props(o))
    topic = o.value_of("topic")
    producer = KafkaProducer(**kafka_python_config(producer_props(o)))
    try:
        for record in reader.read_records(_lines()):
            if record.key is None and record.value is None:
                raise ValueError("minikafka: kafka-python cannot send a record whose key and value are both null "
                                 f"(line number {reader.line_number})")
            future = producer.send(topic, key=record.key, value=record.value, headers=list(record.headers))
            if o.has("sync"):
                future.get()
            else:
                future.add_errback(lambda exc, record=record: _log_send_error(topic, record, exc))
    finally:
        producer.close()


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
    except OptionException as exc:
        clu.print_usage_and_exit(p, str(exc))
    clu.maybe_print_help_or_version(p, o, args, "This tool helps to read data from standard input and publish it "
                                                "to Kafka.")
    clu.check_required_args(p, o, "topic")
    check_deprecated_options(p, o)
    try:
        clu.validate_bootstrap_server(o.value_of("bootstrap-server"))
    except ValueError as exc:
        clu.print_usage_and_exit(p, str(exc))
    if o.value_of("line-reader") != READER_CLASS:
        clu.eprintln(f"java.lang.ClassNotFoundException: {o.value_of('line-reader')}")
        return 1
    try:
        produce(o)
    except OptionException as exc:
        clu.eprintln(str(exc))
        return 1
    except ReaderException as exc:
        clu.eprintln(f"{exc.java_class}: {exc.message}")
        return 1
    except ValueError as exc:                   # a sandbox limit, said plainly
        clu.eprintln(str(exc))
        return 1
    except KafkaException as exc:
        clu.eprintln(f"{exc.java_class}: {exc.message}")
        return 1
    except Exception as exc:
        from minikafka.commands.admin_client import from_client_error, java_string
        clu.eprintln(f"java.util.concurrent.ExecutionException: {java_string(from_client_error(exc))}")
        return 1
    return 0


__all__ = ["NAME", "SUMMARY", "build_parser", "check_deprecated_options", "producer_props", "kafka_python_config",
           "reader_props", "produce", "main"]
