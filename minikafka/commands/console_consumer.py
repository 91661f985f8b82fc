"""``minikafka console-consumer``: ``kafka-console-consumer.sh``, records of a topic to standard output.

Theory of operation
-------------------
The tool reads with a consumer in a group: ``--group``, or a fresh
``console-consumer-<n>`` group (random n below 100000) that does not
commit offsets.  ``--topic`` subscribes to one topic, ``--include`` to the
topics matching a regular expression, and ``--partition`` (with
``--offset earliest|latest|<n>``) reads one partition without a group.
Where a group has no committed offset, ``--from-beginning`` starts at the
earliest offset (``auto.offset.reset=earliest``), otherwise at the end.

Each record is printed by `DefaultMessageFormatter` (``--formatter-property
print.key=true`` ...).  Consumer settings come from ``--command-property
key=value`` and a ``--command-config`` file, formatter settings from
``--formatter-property`` and ``--formatter-config``.  The older names
``--consumer-property``, ``--consumer.config`` and ``--property`` still
work: each one used prints ``Option --consumer-property is deprecated and
will be removed in a future version. Use --command-property instead.`` (and
likewise) on standard output, and giving both names of a pair is refused
(``Options --consumer-property and --command-property cannot be specified
together.``).  Subscribed to topics (no ``--partition``) with the classic
group protocol (no ``group.protocol`` setting, or ``classic``), the tool
prints, once the consumer is created, ``The consumer rebalance protocol
(KIP-848) is production-ready! ...`` on standard error.

The tool stops after ``--max-messages`` records, when no record arrived
for ``--timeout-ms`` (Kafka logs ``ERROR Error processing message,
terminating consumer process:`` with a ``TimeoutException``), or on
Ctrl-C; it always ends with ``Processed a total of N messages`` on
standard error.  The exit code is 0 even after a
timeout, and 130 after Ctrl-C (the JVM's code for SIGINT).

Option mistakes print Kafka's message and the option table (exit 1), e.g.
``Exactly one of the following arguments is required: [topic], [include]``
or ``The partition is required when offset is specified.``

Mirrors ``org.apache.kafka.tools.consumer.ConsoleConsumer`` and
``ConsoleConsumerOptions`` (4.3.1).  Simplified: the consumer is
kafka-python's (only the properties it knows are passed on); only the
default formatter exists; ``--enable-systest-events`` is accepted and
ignored; kafka-python always uses the classic group protocol, so
``group.protocol=consumer`` only silences the KIP-848 line (which is printed
as under Kafka's default tools logging, where INFO is off).
"""

from __future__ import annotations

import random
import time

from minikafka.commands import command_line_utils as clu
from minikafka.commands.default_message_formatter import DefaultMessageFormatter
from minikafka.commands.option_parser import OptionException, OptionParser, REQUIRED_ARG, integer, long
from minikafka.commands.tools_log import log_line
from minikafka.common.errors import KafkaException
from minikafka.tools.tool_output import system_out

NAME = "console-consumer"
SUMMARY = "kafka-console-consumer.sh: print the records of a topic"
FORMATTER_CLASS = "org.apache.kafka.tools.consumer.DefaultMessageFormatter"
LOGGER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
EARLIEST, LATEST = -2, -1                      # ListOffsetsRequest.EARLIEST_TIMESTAMP / LATEST_TIMESTAMP
DEPRECATED = (("consumer-property", "command-property"), ("consumer.config", "command-config"))
DEPRECATION = "Option --{deprecated} is deprecated and will be removed in a future version. Use --{option} instead."
PROTOCOL_HINT = ("The consumer rebalance protocol (KIP-848) is production-ready! Set group.protocol=consumer to try it "
                 "out. See https://kafka.apache.org/documentation/#consumer_rebalance_protocol")


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("topic", "The topic to read.", argument=REQUIRED_ARG, described_as="topic")
    p.accepts("include", "Regular expression of the topics to read.", argument=REQUIRED_ARG,
              described_as="Java regex (String)")
    p.accepts("partition", "Read only this partition (from the end unless --offset says otherwise).",
              argument=REQUIRED_ARG, convert=integer, described_as="partition")
    p.accepts("offset", "Where to start in --partition: a non-negative offset, 'earliest' or 'latest'.",
              argument=REQUIRED_ARG, default="latest", described_as="consume offset")
    p.accepts("consumer-property", "(DEPRECATED) A consumer setting, key=value; use --command-property instead.",
              argument=REQUIRED_ARG, described_as="consumer_prop")
    p.accepts("command-property", "A consumer setting, key=value.", argument=REQUIRED_ARG,
              described_as="consumer_prop")
    p.accepts("consumer.config", "(DEPRECATED) Consumer properties file; use --command-config instead.",
              argument=REQUIRED_ARG, described_as="config file")
    p.accepts("command-config", "Consumer properties file ([command-property] wins over it).", argument=REQUIRED_ARG,
              described_as="config file")
    p.accepts("formatter", "The class that prints records.", argument=REQUIRED_ARG, default=FORMATTER_CLASS,
              described_as="class")
    p.accepts("property", "(DEPRECATED) A formatter setting, key=value; use --formatter-property instead.",
              argument=REQUIRED_ARG, described_as="prop")
    p.accepts("formatter-property", "A formatter setting, key=value (print.key, print.partition, print.offset, ...).",
              argument=REQUIRED_ARG, described_as="prop")
    p.accepts("formatter-config", "Formatter properties file ([formatter-property] wins over it).",
              argument=REQUIRED_ARG, described_as="config file")
    p.accepts("from-beginning", "Without a committed offset, start at the earliest record.")
    p.accepts("max-messages", "Stop after this many records.", argument=REQUIRED_ARG, convert=integer,
              described_as="num_messages")
    p.accepts("timeout-ms", "Stop when no record arrives for this long.", argument=REQUIRED_ARG, convert=long,
              described_as="timeout_ms")
    p.accepts("skip-message-on-error", "Skip a record that cannot be printed.")
    p.accepts("bootstrap-server", "REQUIRED: the broker(s) to connect to.", argument=REQUIRED_ARG,
              described_as="server to connect to")
    p.accepts("key-deserializer", "The class that deserializes keys.", argument=REQUIRED_ARG,
              described_as="deserializer for keys")
    p.accepts("value-deserializer", "The class that deserializes values.", argument=REQUIRED_ARG,
              described_as="deserializer for values")
    p.accepts("enable-systest-events", "Log lifecycle events (for system tests).")
    p.accepts("isolation-level", "read_committed or read_uncommitted.", argument=REQUIRED_ARG,
              default="read_uncommitted")
    p.accepts("group", "The consumer group.", argument=REQUIRED_ARG, described_as="consumer group id")
    return p


def check_required_args(p: OptionParser, o) -> None:
    clu.check_one_of_args(p, o, "topic", "include")
    if o.has("partition"):
        if not o.has("topic"):
            clu.print_usage_and_exit(p, "The topic is required when partition is specified.")
        if o.has("from-beginning") and o.has("offset"):
            clu.print_usage_and_exit(p, "Options from-beginning and offset cannot be specified together.")
    elif o.has("offset"):
        clu.print_usage_and_exit(p, "The partition is required when offset is specified.")
    clu.check_required_args(p, o, "bootstrap-server")


def _either(o, deprecated: str, option: str) -> str:
    """The option that holds the value: the deprecated synonym when it was given."""
    return deprecated if o.has(deprecated) else option


def check_deprecated_options(p: OptionParser, o) -> None:
    """Refuse an option given together with its deprecated synonym; warn (on stdout) about the synonyms used."""
    for deprecated, option in DEPRECATED:
        if o.has(deprecated) and o.has(option):
            clu.print_usage_and_exit(p, f"Options --{deprecated} and --{option} cannot be specified together.")
    for deprecated, option in DEPRECATED:
        if o.has(deprecated):
            clu.println(DEPRECATION.format(deprecated=deprecated, option=option))


def check_formatter_property(p: OptionParser, o) -> None:
    """``--property`` and ``--formatter-property`` are checked (and warned about) when the formatter is built."""
    if o.has("formatter-property") and o.has("property"):
        clu.print_usage_and_exit(p, "Options --property and --formatter-property cannot be specified together.")
    if o.has("property"):
        clu.println(DEPRECATION.format(deprecated="property", option="formatter-property"))


def consumer_props(p: OptionParser, o) -> dict[str, str]:
    """``buildConsumerProps``: group, offset reset, client id, isolation level."""
    config = _either(o, "consumer.config", "command-config")
    from_file = clu.load_props(o.value_of(config)) if o.has(config) else {}
    extra = clu.parse_key_value_args(o.values_of(_either(o, "consumer-property", "command-property")))
    groups = list(dict.fromkeys(g for g in (o.value_of("group"), from_file.get("group.id"), extra.get("group.id"))
                                if g is not None))
    if len(groups) > 1:
        clu.print_usage_and_exit(p, "The group ids provided in different places (directly using '--group', via "
                                    "'--consumer-property', or via '--consumer.config') do not match. Detected group "
                                    "ids: " + ", ".join(f"'{g}'" for g in groups))
    if groups and o.has("partition"):
        clu.print_usage_and_exit(p, "Options group and partition cannot be specified together.")
    props = {**from_file, **extra}
    if "auto.offset.reset" in props:
        if o.has("from-beginning") and props["auto.offset.reset"] != "earliest":
            clu.eprintln(f"Can't simultaneously specify --from-beginning and 'auto.offset.reset="
                         f"{props['auto.offset.reset']}', please remove one option")
            raise clu.ToolExit(1)
    else:
        props["auto.offset.reset"] = "earliest" if o.has("from-beginning") else "latest"
    props["bootstrap.servers"] = o.value_of("bootstrap-server")
    props.setdefault("client.id", "console-consumer")
    if o.has("isolation-level") or "isolation.level" not in props:
        props["isolation.level"] = o.value_of("isolation-level")
    if not groups:
        props["group.id"] = f"console-consumer-{random.randrange(100000)}"
        props.setdefault("enable.auto.commit", "false")
    else:
        props["group.id"] = groups[0]
    return props


def parse_offset(p: OptionParser, o) -> int:
    if o.has("offset"):
        text = o.value_of("offset")
        if text.lower() in ("earliest", "latest"):
            return EARLIEST if text.lower() == "earliest" else LATEST
        try:
            offset = long(text)
        except ValueError:
            offset = -1
        if offset < 0:
            clu.print_usage_and_exit(p, f"The provided offset value '{text}' is incorrect. Valid values are "
                                        "'earliest', 'latest', or a non-negative long.")
        return offset
    return EARLIEST if o.has("from-beginning") else LATEST


def formatter_configs(o) -> dict[str, str]:
    configs = clu.load_props(o.value_of("formatter-config")) if o.has("formatter-config") else {}
    for option, name in (("key-deserializer", "key.deserializer"), ("value-deserializer", "value.deserializer")):
        if o.value_of(option):
            configs[name] = o.value_of(option)
    configs.update(clu.parse_key_value_args(o.values_of(_either(o, "property", "formatter-property"))))
    return configs


def kafka_python_config(props: dict[str, str]) -> dict:
    """The settings kafka-python's consumer knows, under its names."""
    from kafka import KafkaConsumer
    return clu.kafka_python_kwargs(props, KafkaConsumer.DEFAULT_CONFIG)


def _open_consumer(o, props: dict[str, str], offset: int):
    """A kafka-python consumer subscribed (or assigned and positioned) as the options say."""
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(**kafka_python_config(props))
    maybe_print_protocol_hint(o, props)
    if o.has("partition"):
        tp = TopicPartition(o.value_of("topic"), o.value_of("partition"))
        consumer.assign([tp])
        if offset == EARLIEST:
            consumer.seek_to_beginning(tp)
        elif offset == LATEST:
            consumer.seek_to_end(tp)
        else:
            consumer.seek(tp, offset)
    elif o.has("topic"):
        consumer.subscribe([o.value_of("topic")])
    else:
        consumer.subscribe(pattern=o.value_of("include"))
    return consumer


def maybe_print_protocol_hint(o, props: dict[str, str]) -> None:
    """With a group subscription on the classic protocol, invite the user to try KIP-848's (standard error)."""
    protocol = props.get("group.protocol")
    if not o.has("partition") and (protocol is None or protocol.lower() == "classic"):
        clu.eprintln(PROTOCOL_HINT)


def _write(data: bytes) -> None:
    system_out().flush()
    out = getattr(system_out(), "buffer", None)
    if out is None:
        system_out().write(data.decode("utf-8", errors="replace"))
    else:
        out.write(data)
        out.flush()


class ConsumerWrapper:
    """``ConsoleConsumer.ConsumerWrapper``: one record at a time, with the tool's timeout."""

    def __init__(self, consumer, timeout_ms: int | None):
        self.consumer = consumer
        self.timeout_ms = timeout_ms             # None: wait forever
        self.pending: list = []                  # fetched records not handed out yet

    def receive(self):
        """The next record; TimeoutError when none arrived within the timeout."""
        started = time.monotonic()
        while not self.pending:
            wait = 1000 if self.timeout_ms is None else self.timeout_ms
            batches = self.consumer.poll(timeout_ms=wait)
            self.pending = [r for records in batches.values() for r in records]
            if not self.pending and self.timeout_ms is not None \
                    and (time.monotonic() - started) * 1000 > self.timeout_ms:
                raise TimeoutError()
        return self.pending.pop(0)

    def cleanup(self) -> None:
        """Seek back to the first record not printed (so a commit never skips one), then close."""
        from kafka import TopicPartition
        first: dict = {}
        for record in self.pending:
            first.setdefault(TopicPartition(record.topic, record.partition), record.offset)
        for tp, offset in first.items():
            self.consumer.seek(tp, offset)
        self.consumer.close()


def process(wrapper: ConsumerWrapper, formatter: DefaultMessageFormatter, max_messages: int,
            skip_on_error: bool, counter: list[int]) -> None:
    """Print records until the limit or the timeout; ``counter[0]`` counts the records processed."""
    while max_messages < 0 or counter[0] < max_messages:
        try:
            record = wrapper.receive()
        except TimeoutError:
            log_line("ERROR", "Error processing message, terminating consumer process: ", LOGGER,
                     "org.apache.kafka.common.errors.TimeoutException")
            return
        counter[0] += 1
        try:
            _write(formatter.format(record))
        except Exception as exc:
            if not skip_on_error:
                raise
            log_line("ERROR", "Error processing message, skipping this message: ", LOGGER, str(exc))


def main(args: list[str]) -> int:
    p = build_parser()
    try:
        o = p.parse(args)
    except OptionException as exc:
        clu.print_usage_and_exit(p, str(exc))
    clu.maybe_print_help_or_version(p, o, args, "This tool helps to read data from Kafka topics and outputs it to "
                                                "standard output.")
    try:
        check_required_args(p, o)
        check_deprecated_options(p, o)
        props = consumer_props(p, o)
        offset = parse_offset(p, o)
        max_messages = o.value_of("max-messages") if o.has("max-messages") else -1
        timeout = o.value_of("timeout-ms")
        if o.value_of("formatter") != FORMATTER_CLASS:
            clu.print_usage_and_exit(p, o.value_of("formatter"))
        check_formatter_property(p, o)
        formatter = DefaultMessageFormatter.configure(formatter_configs(o))
    except OptionException as exc:
        clu.eprintln(str(exc))
        return 1
    except KafkaException as exc:              # escapes Kafka's main: the JVM reports it
        clu.eprintln(f'Exception in thread "main" {exc.java_class}: {exc.message}')
        return 1
    return _run(o, props, offset, formatter, max_messages, None if timeout is None or timeout < 0 else timeout)


def _run(o, props, offset, formatter, max_messages, timeout) -> int:
    from minikafka.commands.admin_client import from_client_error, java_string

    def unknown_error(exc: Exception) -> int:
        text = f"{exc.java_class}: {exc.message}" if isinstance(exc, KafkaException) else java_string(
            from_client_error(exc))
        log_line("ERROR", "Unknown error when running consumer: ", LOGGER, text)
        return 1
    try:                                        # outside the try/finally that reports the count, as in Kafka
        wrapper = ConsumerWrapper(_open_consumer(o, props, offset), timeout)
    except Exception as exc:
        return unknown_error(exc)
    counter, code, failure = [0], 0, None
    try:
        process(wrapper, formatter, max_messages, o.has("skip-message-on-error"), counter)
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:                    # reported by main, after run's finally block
        failure = exc
    finally:
        wrapper.cleanup()
        clu.eprintln(f"Processed a total of {counter[0]} messages")
    return code if failure is None else unknown_error(failure)


__all__ = ["NAME", "SUMMARY", "build_parser", "check_required_args", "check_deprecated_options",
           "check_formatter_property", "consumer_props", "parse_offset", "formatter_configs", "kafka_python_config",
           "maybe_print_protocol_hint", "ConsumerWrapper", "process", "main"]
