"""Smoke checks that binder/ would build, in addition to tests/test_setup_files.py.

tests/test_setup_files.py already checks that requirements.txt installs the
repository root, that no file switches repo2docker away from it, the apt
packages and the runtime.txt format.  These add what a typo would break
silently: repo2docker ignores a file whose name it does not know
(``requirement.txt``, ``postbuild``), and pip, not repo2docker, is the
judge of a requirement line.  They also tie runtime.txt to the project's
own ``requires-python``.  The real build is exercised by
test_binder_requirements.py.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"

# Configuration files repo2docker reads (its docs, "Configuration files"
# section; buildpacks/*): anything else in binder/ is ignored by it.
REPO2DOCKER_FILES = {
    "apt.txt", "runtime.txt", "requirements.txt", "postBuild", "start", "environment.yml",
    "environment.yaml", "Pipfile", "Pipfile.lock", "setup.py", "pyproject.toml", "install.R",
    "DESCRIPTION", "Project.toml", "JuliaProject.toml", "Manifest.toml", "default.nix",
    "Dockerfile", "repo2docker.version",
}
# Lines pip treats as local references (installed after the repository is copied).
LOCAL_REQUIREMENT = re.compile(r"(-e|--editable)(\s+|=)?\.\S*|\.\S*|file://\S+")


def lines(path: Path) -> list[str]:
    stripped = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in stripped if line]


def test_binder_holds_only_files_repo2docker_reads():
    names = {path.name for path in BINDER.iterdir()}
    unknown = sorted(names - REPO2DOCKER_FILES)
    assert not unknown, f"repo2docker would silently ignore binder/{unknown[0]}"
    assert {"requirements.txt", "runtime.txt", "apt.txt"} <= names


def test_every_requirement_line_is_one_pip_understands():
    for line in lines(BINDER / "requirements.txt"):
        if LOCAL_REQUIREMENT.fullmatch(line):
            continue
        try:
            Requirement(line)
        except InvalidRequirement as exc:
            raise AssertionError(f"binder/requirements.txt: {line!r} is not a requirement: {exc}")


def test_runtime_python_satisfies_the_projects_requires_python():
    runtime = re.fullmatch(r"python-(\d+\.\d+)", (BINDER / "runtime.txt").read_text().strip())
    assert runtime, "runtime.txt must read python-X.Y"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert SpecifierSet(requires).contains(f"{runtime.group(1)}.0"), \
        f"runtime.txt's Python {runtime.group(1)} does not satisfy requires-python {requires}"


def test_the_local_requirement_pattern_tells_paths_from_packages():
    assert all(LOCAL_REQUIREMENT.fullmatch(line) for line in ("-e .", "--editable=.", ".", "./sub"))
    assert not any(LOCAL_REQUIREMENT.fullmatch(line) for line in ("pyspark>=4.3", "minikafka"))
