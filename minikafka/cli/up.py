"""``minikafka up``: a live cluster in the foreground until Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def register(sub) -> None:
    parser = sub.add_parser("up", help="run a live cluster in the foreground",
                            description="Start a live minikafka cluster and keep it running until "
                                        "Ctrl-C or SIGTERM.")
    parser.add_argument("--brokers", type=int, default=3, help="number of brokers (default 3)")
    parser.add_argument("--controllers", type=int, default=3,
                        help="number of KRaft controllers (default 3)")
    parser.add_argument("--combined", action="store_true",
                        help="make the first brokers broker,controller nodes")
    parser.add_argument("--data-dir", default=None,
                        help="keep the data here (default: a temporary directory, removed on exit)")
    parser.add_argument("--port", type=int, default=None,
                        help="first listener port; brokers take consecutive ports (default: free ports)")
    parser.add_argument("--seed", default=None, help="seed for a reproducible cluster id and placement")
    parser.add_argument("--timing", default="teaching", choices=["teaching", "kafka"],
                        help="timing profile (default: teaching, Kafka's timeouts divided by 5)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from minikafka import Cluster
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        cluster = Cluster(brokers=args.brokers, controllers=args.controllers, combined=args.combined,
                          data_dir=args.data_dir, seed=args.seed, port=args.port, timing=args.timing)
        cluster.start()
    except Exception as exc:
        print(f"minikafka: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(f"bootstrap.servers={cluster.bootstrap_servers}", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        cluster.stop()
    return 0
