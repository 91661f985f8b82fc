"""``minikafka up``: a live cluster in the foreground until Ctrl-C or SIGTERM.

Plays the part of ``kafka-storage.sh format`` and ``kafka-server-start.sh`` for a whole
cluster.  Like the start script, ``--override key=value`` (repeatable) adds a
``server.properties`` setting, here to every node; the settings are checked as Kafka's
``KafkaConfig`` checks them, before anything is written, and a bad one stops the command
with Kafka's exception and exit code 1.  A name without '=' gets the empty value and a name
no config has is accepted silently, as Kafka accepts them; the summary printed before the
cluster serves says which names the sandbox does not define.  Node ids may be given
(``--broker-ids``, ``--controller-ids``); settings the layout writes per node (``node.id``,
``listeners``, ``log.dirs``...) cannot be overridden, and the error says which option
chooses them instead.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def register(sub) -> None:
    parser = sub.add_parser("up", help="run a live cluster in the foreground",
                            description="Start a live minikafka cluster and keep it running until "
                                        "Ctrl-C or SIGTERM.")
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--brokers", type=int, default=None, help="number of brokers (default 3)")
    count.add_argument("--broker-ids", default=None, metavar="IDS",
                       help="explicit broker node ids, e.g. 0,1,2 (instead of --brokers)")
    quorum = parser.add_mutually_exclusive_group()
    quorum.add_argument("--controllers", type=int, default=None,
                        help="number of KRaft controllers (default 3)")
    quorum.add_argument("--controller-ids", default=None, metavar="IDS",
                        help="explicit controller node ids, e.g. 3000,3001,3002 (instead of "
                             "--controllers; with --combined, broker ids)")
    parser.add_argument("--combined", action="store_true",
                        help="make the first brokers (or the --controller-ids) broker,controller nodes")
    parser.add_argument("--data-dir", default=None,
                        help="keep the data here (default: a temporary directory, removed on exit)")
    parser.add_argument("--port", type=int, default=None,
                        help="first listener port; brokers take consecutive ports (default: free ports)")
    parser.add_argument("--seed", default=None, help="seed for a reproducible cluster id and placement")
    parser.add_argument("--timing", default="teaching", choices=["teaching", "kafka"],
                        help="timing profile (default: teaching, Kafka's timeouts divided by 5)")
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE",
                        help="a server.properties setting for every node, as kafka-server-start.sh "
                             "--override does (repeatable)")
    parser.set_defaults(run=run)


class UsageError(Exception):
    """A command line that cannot be used; printed as one line."""


def parse_ids(text: str, option: str) -> list[int]:
    try:
        ids = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"{option} takes comma-separated integer node ids, e.g. 0,1,2; "
                         f"got {text!r}") from None
    if len(set(ids)) != len(ids) or any(i < 0 for i in ids):
        raise UsageError(f"{option} must list distinct node ids >= 0; got {text!r}")
    return ids


def parse_overrides(items: list[str]) -> dict[str, str]:
    """``key=value`` pairs as Kafka's ``--override`` takes them: the value may contain '=', and
    a key without '=' gets the empty value (``CommandLineUtils.parseKeyValueArgs``), which
    the config check then judges like any other value."""
    overrides: dict[str, str] = {}
    for item in items:
        name, _, value = item.partition("=")
        overrides[name] = value
    return overrides


def summary(cluster) -> list[str]:
    """What ``minikafka up`` prints before it serves: node ids and the non-default settings."""
    lines = [f"brokers {','.join(map(str, cluster.broker_ids))}; controllers "
             f"{','.join(map(str, cluster.controller_ids))}; {cluster.timing.describe()}",
             "non-default configs:"]
    lines += [f"  {name}={value}" for name, value in cluster.non_default_configs().items()]
    lines += [f"note (sandbox): minikafka does not define {name}; it is kept in server.properties "
              f"and changes nothing here (Kafka starts without a word about names it does not use)"
              for name in cluster.unknown_configs]
    return lines


def _fatal(exc: Exception) -> int:
    """Kafka's start script logs the exception that stopped it and exits with 1."""
    java_name = getattr(exc, "java_class", None)
    name = java_name if isinstance(java_name, str) else type(exc).__name__
    print(f"minikafka: {name}: {exc}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    from minikafka.cluster import Cluster
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        brokers = parse_ids(args.broker_ids, "--broker-ids") if args.broker_ids else args.brokers
        controllers = (parse_ids(args.controller_ids, "--controller-ids") if args.controller_ids
                       else args.controllers)
        cluster = Cluster(brokers=3 if brokers is None else brokers,
                          controllers=3 if controllers is None else controllers,
                          combined=args.combined, data_dir=args.data_dir, seed=args.seed,
                          port=args.port, timing=args.timing,
                          broker_config=parse_overrides(args.override))
        for line in summary(cluster):
            print(line, file=sys.stderr)
        cluster.start()
    except (UsageError, ValueError) as exc:       # Kafka's ConfigException is neither
        print(f"minikafka up: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        return _fatal(exc)
    print(f"bootstrap.servers={cluster.bootstrap_servers}", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        cluster.stop()
    return 0
