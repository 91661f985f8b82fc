"""The sans-IO rule, enforced: the core packages never read a clock, sleep, start threads,
open sockets, run asyncio or subprocesses, draw from the global random generator or reach
into the drivers.

Time arrives as ``now``; randomness comes from a node's seeded ``random.Random``; only
``minikafka/drivers/`` and the ``Cluster`` facade deal with the world (docs/architecture.md,
"Rules every module follows").  The check reads each module's syntax tree and resolves
names through the module's imports, so a forbidden name is caught wherever it hides: under
an alias (``import time as t``), as a default argument (``clock=time.monotonic``, never
called in the module itself), in a nested function, or behind a relative import of the
drivers.  Importing ``random`` for the type ``random.Random`` is fine; creating an unseeded
``random.Random()`` is not.

A module that needs one of these things for a good reason is listed in ``ALLOWED`` with the
reason; an entry that no longer matches anything fails too, so the list cannot go stale.
Outside the core, only the drivers, the facade and the few modules in ``DRIVER_USERS``
import ``minikafka.drivers``; the facade (``minikafka/cluster/``) imports them but itself
reads no clock and opens no socket (``FACADE_ALLOWED`` lists its one exception).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "minikafka"
# The node logic (docs/architecture.md names them, "Sans-IO core"), the wire protocol its
# handlers speak, the shared Kafka types, and the pure formatters of tool output.
CORE = ("runtime", "raft", "controller", "metadata", "metrics", "server", "coordinator", "transaction_coordinator",
        "storage", "record", "network", "common", "tools")

# Importing any of these (or anything inside them) is a violation in the core.
FORBIDDEN_MODULES = ("time", "threading", "_thread", "socket", "ssl", "select", "selectors",
                     "asyncio", "subprocess", "multiprocessing", "concurrent", "sched", "signal",
                     "secrets")
# Names (fully qualified after resolving imports) that read a clock, draw unseeded
# randomness or run other programs.  ``random.*`` other than ``random.Random`` is checked
# separately: every module-level function of ``random`` uses the hidden global generator.
FORBIDDEN_NAMES = ("datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
                   "datetime.date.today", "os.urandom", "os.getrandom", "os.system", "os.popen",
                   "os.fork", "os.forkpty", "os.times", "uuid.uuid1", "uuid.uuid4")
FORBIDDEN_PREFIXES = ("os.spawn", "os.exec")
DRIVERS = "minikafka.drivers"

# (module, forbidden name it may use) -> why.  Keep it short; every entry must still match.
ALLOWED = {
    ("runtime/events.py", "threading"):
        "the event log is appended on the live driver's thread and read from a notebook's: "
        "it holds a lock, never starts a thread",
    ("runtime/events.py", "threading.Lock"):
        "the lock of the event log (see the import above)",
}


def core_modules() -> list[Path]:
    return sorted(p for package in CORE for p in (ROOT / package).rglob("*.py"))


def _forbidden_module(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in FORBIDDEN_MODULES)


def _forbidden_name(name: str) -> str | None:
    """Why a fully qualified name is forbidden in the core, or None."""
    if _forbidden_module(name):
        return "uses"
    if name in FORBIDDEN_NAMES or name.startswith(FORBIDDEN_PREFIXES):
        return "uses"
    if name.startswith("random.") and name != "random.Random":
        return "uses the global random generator:"
    if name == DRIVERS or name.startswith(DRIVERS + "."):
        return "uses"
    return None


def _absolute(module: str | None, level: int, package: str) -> str:
    """The absolute module name of ``from <level dots><module> import ...`` in ``package``."""
    if level == 0:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


class _Checker(ast.NodeVisitor):
    """Walks one module, remembering what each imported local name stands for."""

    def __init__(self, relative: str, package: str):
        self.relative = relative                  # e.g. "raft/quorum_state.py"
        self.package = package                    # e.g. "minikafka.raft"
        self.aliases: dict[str, str] = {}         # local name -> fully qualified name
        self.found: list[tuple[int, str, str]] = []   # (line, qualified name, message)

    def _flag(self, line: int, name: str, message: str) -> None:
        self.found.append((line, name, f"{self.relative}:{line} {message}"))

    def _check_import(self, line: int, name: str) -> None:
        if _forbidden_module(name) or name == DRIVERS or name.startswith(DRIVERS + "."):
            self._flag(line, name, f"imports {name}")
        elif _forbidden_name(name):
            self._flag(line, name, f"imports {name}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_import(node.lineno, alias.name)
            local = alias.asname or alias.name.split(".")[0]
            self.aliases[local] = alias.name if alias.asname else local

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = _absolute(node.module, node.level, self.package)
        whole = _forbidden_module(module) or module == DRIVERS or module.startswith(DRIVERS + ".")
        if whole:
            self._flag(node.lineno, module, f"imports {module}")
        for alias in node.names:
            full = f"{module}.{alias.name}"
            if not whole:
                self._check_import(node.lineno, full)
            self.aliases[alias.asname or alias.name] = full

    def _qualified(self, node: ast.AST) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id]] + list(reversed(parts)))

    def _check_use(self, node: ast.AST) -> bool:
        name = self._qualified(node)
        why = name and _forbidden_name(name)
        if why:
            self._flag(node.lineno, name, f"{why} {name}")
        return bool(why)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not self._check_use(node):     # report the longest name once, not each prefix
            self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in self.aliases \
                and self.aliases[node.id] != node.id:     # a from-import, e.g. ``sleep``
            self._check_use(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = self._qualified(node.func)
        if name == "random.Random" and not node.args and not node.keywords:
            self._flag(node.lineno, name, "creates an unseeded random.Random()")
        dynamic = name in ("importlib.import_module",) or (
            isinstance(node.func, ast.Name) and node.func.id == "__import__")
        if dynamic and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            self._check_import(node.lineno, node.args[0].value)
        self.generic_visit(node)


def violations_in(source: str, relative: str) -> list[str]:
    """The violations of the rule in one module's source, each as "file:line what"."""
    checker = _check(source, relative)
    return [message for _, name, message in checker.found if (relative, name) not in ALLOWED]


def _check(source: str, relative: str, top: str = "minikafka") -> _Checker:
    # Relative imports count from the module's package (an __init__ is its own package).
    package = ".".join([top, *Path(relative).parent.parts])
    checker = _Checker(relative, package)
    checker.visit(ast.parse(source, filename=relative))
    return checker


def violations(path: Path) -> list[str]:
    relative = path.relative_to(ROOT).as_posix()
    return violations_in(path.read_text(encoding="utf-8"), relative)


BAD = """\
import time as clock
import random
import threading
from datetime import datetime
from time import sleep
from ..drivers.live import LiveDriver
from minikafka import drivers
import socket

def poll(now=clock.monotonic):
    sleep(0.1)
    return random.choice([1, 2]) + datetime.now().year

rng = random.Random()
seeded = random.Random("42:1:0")
worker = threading.Thread(target=poll)
"""


def test_the_rule_flags_each_forbidden_thing_with_file_and_line():
    found = violations_in(BAD, "raft/probe.py")
    for expected in ("raft/probe.py:1 imports time", "raft/probe.py:3 imports threading",
                     "raft/probe.py:5 imports time", "raft/probe.py:6 imports minikafka.drivers.live",
                     "raft/probe.py:7 imports minikafka.drivers", "raft/probe.py:8 imports socket",
                     "raft/probe.py:10 uses time.monotonic", "raft/probe.py:11 uses time.sleep",
                     "raft/probe.py:12 uses the global random generator: random.choice",
                     "raft/probe.py:12 uses datetime.datetime.now",
                     "raft/probe.py:14 creates an unseeded random.Random()",
                     "raft/probe.py:16 uses threading.Thread"):
        assert expected in found, (expected, found)
    assert not any(":15 " in line for line in found), found   # a seeded generator is fine


def test_the_rule_leaves_clean_code_alone():
    clean = ("import random\nimport os\nfrom minikafka.runtime.node import Node\n"
             "def pick(rng: random.Random, now: int) -> int:\n"
             "    os.makedirs('x', exist_ok=True)\n    return rng.randint(0, now)\n")
    assert violations_in(clean, "server/probe.py") == []


def test_dynamic_imports_are_flagged_too():
    source = "import importlib\nclock = importlib.import_module('time')\nnet = __import__('socket')\n"
    assert violations_in(source, "storage/probe.py") == [
        "storage/probe.py:2 imports time", "storage/probe.py:3 imports socket"]


def test_an_allowance_covers_only_its_own_module():
    source = "import threading\nlock = threading.Lock()\n"
    assert violations_in(source, "runtime/events.py") == []
    assert violations_in(source, "runtime/node.py") == [
        "runtime/node.py:1 imports threading", "runtime/node.py:2 uses threading.Lock"]


def test_every_allowance_is_still_needed():
    for (relative, name), reason in ALLOWED.items():
        checker = _check((ROOT / relative).read_text(encoding="utf-8"), relative)
        assert any(found == name for _, found, _ in checker.found), (relative, name, reason)


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_core_module_is_sans_io(path):
    assert violations(path) == []


# Outside the core, only the drivers, the facade (``minikafka/cluster/``) and these modules
# may import the drivers.
DRIVER_USERS = {
    "minikafka/drills/drill_client.py":
        "a simulated drill's client speaks Kafka requests through drivers/inprocess.py "
        "(docs/architecture.md, Classroom drills)",
    "minikafka/drills/client_drills.py": "the same in-process connection, for the client drills",
    "minikafka/testing/quorum_stepper.py": "the KRaft stepper steps a quorum on the stepping driver",
    "minikafka/testing/stepped_quorum.py": "the stepper's readings name the stepping driver's happenings",
}


def outer_modules() -> list[Path]:
    paths = [p for p in ROOT.rglob("*.py") if p.parent != ROOT
             and p.relative_to(ROOT).parts[0] not in CORE + ("drivers", "cluster")]
    return sorted(paths + list((REPO / "widgets").rglob("*.py")))


def driver_imports(path: Path) -> list[str]:
    relative = path.relative_to(REPO).as_posix()
    top, _, inner = relative.partition("/")
    checker = _check(path.read_text(encoding="utf-8"), inner, top)
    return [f"{relative}:{line} imports {name}" for line, name, _ in checker.found
            if name == DRIVERS or name.startswith(DRIVERS + ".")]


def test_the_driver_rule_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from minikafka.drivers.simulated import SimulatedDriver\n")
    checker = _check(probe.read_text(), "cli/probe.py")
    assert [name for _, name, _ in checker.found] == ["minikafka.drivers.simulated"]


@pytest.mark.parametrize("path", outer_modules(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_only_the_drivers_and_the_facade_import_the_drivers(path):
    relative = path.relative_to(REPO).as_posix()
    found = driver_imports(path)
    if relative in DRIVER_USERS:
        assert found, f"{relative} no longer imports the drivers: drop it from DRIVER_USERS"
    else:
        assert found == []


# The facade (minikafka/cluster/) drives the drivers, so it imports them; but it reads no clock,
# opens no socket and starts no thread itself: time, ports and listeners come from the driver.
FACADE_ALLOWED = {
    ("cluster/layout.py", "secrets"):
        "a cluster created without a seed gets a random cluster id, as `kafka-storage.sh "
        "random-uuid` prints one",
    ("cluster/layout.py", "secrets.randbits"): "the same random cluster id",
}


def facade_violations_in(source: str, relative: str) -> list[str]:
    """What a facade module does that only a driver may (importing the drivers is fine)."""
    checker = _check(source, relative)
    return [message for _, name, message in checker.found
            if not (name == DRIVERS or name.startswith(DRIVERS + "."))
            and (relative, name) not in FACADE_ALLOWED]


def test_the_facade_rule_can_fail():
    source = ("import time\nimport secrets\nfrom minikafka.drivers.cluster_runtime import NodeState\n"
              "now = time.time()\n")
    assert facade_violations_in(source, "cluster/probe.py") == [
        "cluster/probe.py:1 imports time", "cluster/probe.py:2 imports secrets",
        "cluster/probe.py:4 uses time.time"]


def test_every_facade_allowance_is_still_needed():
    for (relative, name), reason in FACADE_ALLOWED.items():
        checker = _check((ROOT / relative).read_text(encoding="utf-8"), relative)
        assert any(found == name for _, found, _ in checker.found), (relative, name, reason)


@pytest.mark.parametrize("path", sorted((ROOT / "cluster").glob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_facade_leaves_clocks_sockets_and_threads_to_the_drivers(path):
    relative = path.relative_to(ROOT).as_posix()
    assert facade_violations_in(path.read_text(encoding="utf-8"), relative) == []
