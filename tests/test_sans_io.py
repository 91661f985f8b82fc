"""The sans-IO rule, enforced: the core packages never read a clock, sleep, start threads,
open sockets, run asyncio, draw from the global random generator or reach into the drivers.

Time arrives as ``now``; randomness comes from a node's seeded ``random.Random``; only
``minikafka/drivers/`` and the ``Cluster`` facade deal with the world (docs/architecture.md,
"Rules every module follows").  The check reads each module's syntax tree, so a forbidden
call is caught wherever it hides (a default argument, a nested function, an alias).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "minikafka"
CORE = ("runtime", "raft", "controller", "metadata", "server", "coordinator", "storage", "record",
        "network", "metrics", "common")

FORBIDDEN_MODULES = {"socket", "asyncio", "selectors", "subprocess", "concurrent.futures"}
FORBIDDEN_CALLS = {
    ("time", "time"), ("time", "monotonic"), ("time", "perf_counter"), ("time", "sleep"),
    ("time", "time_ns"), ("time", "monotonic_ns"),
    ("datetime", "now"), ("datetime", "utcnow"), ("datetime", "today"), ("date", "today"),
    ("threading", "Thread"), ("threading", "Timer"),
    ("random", "random"), ("random", "randint"), ("random", "randrange"), ("random", "choice"),
    ("random", "choices"), ("random", "shuffle"), ("random", "sample"), ("random", "uniform"),
    ("random", "getrandbits"), ("random", "seed"), ("os", "urandom"), ("uuid", "uuid4"),
    ("secrets", "token_bytes"), ("secrets", "randbits"),
}
# Modules of the core allowed one thing the rule otherwise forbids, and why.
ALLOWED = {
    # The event log is appended on the cluster's thread and read from a notebook's: a lock,
    # never a thread of its own.
    ("runtime/events.py", "threading"),
}


def core_modules() -> list[Path]:
    return sorted(p for package in CORE for p in (ROOT / package).rglob("*.py"))


def _dotted(node: ast.AST) -> tuple[str, ...]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return tuple(reversed(parts))


def violations(path: Path) -> list[str]:
    relative = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
            names += [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            names = []
        for name in names:
            if name.startswith("minikafka.drivers"):
                found.append(f"{relative}:{node.lineno} imports {name}")
            elif name in FORBIDDEN_MODULES or name.split(".")[0] in FORBIDDEN_MODULES:
                found.append(f"{relative}:{node.lineno} imports {name}")
            elif name in ("threading", "threading.Thread") and (relative, "threading") not in ALLOWED:
                found.append(f"{relative}:{node.lineno} imports {name}")
            elif isinstance(node, ast.ImportFrom) and name != node.module \
                    and (node.module, name.split(".")[-1]) in FORBIDDEN_CALLS:
                found.append(f"{relative}:{node.lineno} imports {name}")
        if isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            if len(dotted) >= 2 and dotted[-2:] in FORBIDDEN_CALLS:
                found.append(f"{relative}:{node.lineno} calls {'.'.join(dotted)}()")
    return found


def test_the_rule_finds_what_it_forbids(tmp_path):
    sample = ROOT / "raft" / "_sans_io_probe.py"
    sample.write_text("import time\nimport random\nfrom minikafka.drivers.live import LiveDriver\n"
                      "from time import monotonic\n"
                      "def f(clock=time.monotonic):\n    return random.choice([1]) + time.time()\n")
    try:
        found = "\n".join(violations(sample))
    finally:
        sample.unlink()
    for expected in ("imports minikafka.drivers.live", "imports time.monotonic",
                     "calls random.choice()", "calls time.time()"):
        assert expected in found


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_core_module_is_sans_io(path):
    assert violations(path) == []
