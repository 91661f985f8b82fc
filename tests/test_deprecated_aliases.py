"""Old import paths kept for older notebooks still work, and say where the names live now."""

from __future__ import annotations

import importlib
import sys

import pytest

import minikafka


def test_minikafka_snapshot_warns_and_gives_the_same_types(monkeypatch):
    monkeypatch.delitem(sys.modules, "minikafka.snapshot", raising=False)
    with pytest.warns(DeprecationWarning, match="from minikafka import ClusterSnapshot"):
        alias = importlib.import_module("minikafka.snapshot")
    assert alias.ClusterSnapshot is minikafka.ClusterSnapshot
    assert alias.ReplicaState is minikafka.ReplicaState
