"""`minikafka.network` is the wire layer: it imports nothing from the layers above it.

The request handlers live in ``minikafka.server`` (``kafka_apis`` and ``apis/``);
``network`` keeps framing, the codec, channels and request metadata, built
on the shared types of ``common`` and the meters of ``metrics`` only.  This
test reads every import statement of the package (top level, inside
functions and under ``TYPE_CHECKING`` alike) and fails on any other
``minikafka`` package.
"""

from __future__ import annotations

import ast
from pathlib import Path

NETWORK = Path(__file__).resolve().parents[2] / "minikafka" / "network"
ALLOWED = ("minikafka.network", "minikafka.common", "minikafka.metrics")


def imported_modules(path: Path, root: Path) -> list[tuple[int, str]]:
    package = "minikafka.network" + "".join(
        "." + part for part in path.relative_to(root).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:                                   # relative: resolve against the package
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.append((node.lineno, f"{base}.{node.module}" if node.module else base))
            elif node.module:
                found.append((node.lineno, node.module))
    return found


def violations(root: Path = NETWORK) -> list[str]:
    """``path:line imports module`` for every import of a package above the wire layer."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        for line, module in imported_modules(path, root):
            if module == "minikafka" or (module.startswith("minikafka.")
                                         and not module.startswith(ALLOWED)):
                bad.append(f"{path.relative_to(root).as_posix()}:{line} imports {module}")
    return bad


def test_network_imports_no_layer_above_it():
    assert violations() == []


def test_the_scan_sees_imports_inside_functions_and_relative_ones(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "probe.py").write_text("def f():\n    from minikafka.server import kafka_apis\n")
    (tmp_path / "sub" / "deep.py").write_text("from ...storage import log_manager\nfrom ..codec import x\n")
    assert violations(tmp_path) == ["probe.py:2 imports minikafka.server",
                                    "sub/deep.py:1 imports minikafka.storage"]


def test_no_handlers_package_is_left_in_network():
    assert not (NETWORK / "handlers").exists()
