"""A pytest plugin for `bench_simulated_storage`: ``MINIKAFKA_BENCH_STORAGE=disk|memory`` makes every
`Cluster` built without ``storage=`` use that storage, so a test suite can be timed both ways."""

from __future__ import annotations

import os

import minikafka.cluster.facade as facade
from minikafka.cluster.node_disks import storage_choice

_FORCED = os.environ.get("MINIKAFKA_BENCH_STORAGE")

if _FORCED:
    facade.storage_choice = lambda chosen, simulated, data_dir_given: storage_choice(
        chosen or _FORCED, simulated, data_dir_given)
