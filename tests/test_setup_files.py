"""Checks of the set-up files: Makefile, .ci/run, scripts/, binder/, conftest.py.

The shell scripts are run for real against fake programs in a private PATH
(a fake apt-get, java, dot...), so their decisions -- which Python builds the
venv, when apt-get runs, what the one-line message says -- are tested without
touching the machine.  The Binder files are checked the way repo2docker reads
them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASH = shutil.which("bash") or "/bin/bash"
# Tools the scripts use besides the programs under test.
COREUTILS = ("awk", "cat", "cut", "dirname", "env", "id", "mkdir", "mv", "rm", "sha256sum", "tr")


def load_root_conftest():
    spec = importlib.util.spec_from_file_location("minikafka_root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


def fake_bin(tmp_path: Path, programs: dict[str, str]) -> Path:
    """A PATH directory with the core tools plus fake programs (name -> sh body)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in COREUTILS:
        real = shutil.which(tool)
        if real and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(real)
    for name, body in programs.items():
        path = bin_dir / name
        path.unlink(missing_ok=True)
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return bin_dir


def run_script(script: str, args: list[str], bin_dir: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {"PATH": str(bin_dir), "HOME": os.environ.get("HOME", "/tmp"), **env}
    return subprocess.run(
        [BASH, str(ROOT / "scripts" / script), *args], capture_output=True, text=True, env=environment, timeout=60
    )


def java_body(version: str) -> str:
    return f"echo 'openjdk version \"{version}\" 2025-04-15' >&2"


# -- binder/ --------------------------------------------------------------


def requirement_lines(text: str) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()]


def test_binder_requirements_install_the_repository_root():
    lines = requirement_lines((ROOT / "binder/requirements.txt").read_text())
    local = [re.sub(r"^(-e|--editable)[ =]?\s*", "", line) for line in lines]
    # repo2docker runs pip from the repository root, so "." must resolve there.
    roots = [target for target in local if (ROOT / target).resolve() == ROOT]
    assert roots, f"binder/requirements.txt does not install the repository root: {lines}"
    pyproject = (ROOT / roots[0] / "pyproject.toml").read_text()
    assert re.search(r'^name = "minikafka"$', pyproject, re.M)


def test_binder_folder_has_no_file_that_disables_requirements_txt():
    binder = ROOT / "binder"
    # environment.yml switches repo2docker to conda and ignores requirements.txt;
    # a Dockerfile or default.nix ignores everything else; .binder/ + binder/ is an error.
    for name in ("environment.yml", "environment.yaml", "Dockerfile", "default.nix", "Pipfile"):
        assert not (binder / name).exists(), name
    assert not (ROOT / ".binder").exists()


def test_binder_apt_txt_names_java_17_and_graphviz():
    packages = requirement_lines((ROOT / "binder/apt.txt").read_text())
    assert sorted(packages) == ["graphviz", "openjdk-17-jre-headless"]
    assert all(re.fullmatch(r"[a-z0-9.+-]+", name) for name in packages)


def test_binder_runtime_is_a_python_pyspark_supports():
    text = (ROOT / "binder/runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+)\.(\d+)", text)
    assert match, f"runtime.txt must read python-X.Y, got {text!r}"
    version = (int(match.group(1)), int(match.group(2)))
    assert (3, 11) <= version <= (3, 14)  # project minimum .. newest PySpark 4.3 supports


def test_quickstart_binder_link_opens_the_lesson_index():
    text = (ROOT / "docs/quickstart.md").read_text()
    assert re.search(r"mybinder\.org/v2/gh/[^?\s]+\?urlpath=lab/tree/my-lessons/00_index\.ipynb", text)
    assert "make lab" in text and "make test" in text


# -- Makefile and .ci/run -------------------------------------------------


def makefile_targets() -> dict[str, str]:
    """Target name -> its recipe text."""
    targets: dict[str, str] = {}
    current = None
    for line in (ROOT / "Makefile").read_text().splitlines():
        rule = re.match(r"^([A-Za-z][\w-]*):(?!=)(.*)$", line)
        if rule and ":=" not in rule.group(2) and "export" not in rule.group(2):
            current = rule.group(1)
            targets[current] = ""
        elif line.startswith("\t") and current:
            targets[current] += line + "\n"
        elif line.strip() and not line.startswith("\t"):
            current = None
    return targets


def test_makefile_has_the_documented_targets():
    targets = makefile_targets()
    for name in ("lab", "test", "clean", "bench"):
        assert name in targets, name
    phony = re.search(r"^\.PHONY:(.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()
    assert {"lab", "test", "clean", "bench"} <= set(phony)


def test_makefile_test_and_lab_point_spark_at_the_venv_python():
    text = (ROOT / "Makefile").read_text()
    for variable in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"):
        line = re.search(rf"^(.*): export {variable} := (.*)$", text, re.M)
        assert line, variable
        assert {"test", "lab"} <= set(line.group(1).split())
        assert line.group(2) == "$(CURDIR)/$(PY)"


def test_makefile_runs_notebooks_in_strict_nbval_mode():
    recipe = makefile_targets()["test-lessons"]
    for flag in ("-p no:python", "--nbval ", "--nbval-current-env", "--dist loadscope", "lessons/nbval_sanitize.cfg"):
        assert flag in recipe, flag
    assert "--nbval-lax" not in recipe
    assert "for pass in 1 2" in recipe          # issue 22: twice in a row
    assert 'MINIKAFKA_PROGRESS="$$scores/progress/"' in recipe   # never the user's own progress


def test_ci_run_runs_make_test_strictly():
    text = (ROOT / ".ci/run").read_text()
    assert text.startswith("#!/usr/bin/env bash\n") or text.startswith("#!/bin/bash\n")
    code = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert code[0] == "set -euo pipefail"
    assert code[-1] == "make test"


# -- scripts/find_python.sh -----------------------------------------------

REAL_PYTHON = f'exec "{sys.executable}" "$@"'  # a working Python >= 3.11 (this one)
BROKEN_SHIM = "echo 'pyenv: python3.13: command not found' >&2; exit 127"
OLD_PYTHON = "exit 1"  # fails the version check, as Python 3.10 would


def test_find_python_prefers_the_newest_working_interpreter(tmp_path):
    bin_dir = fake_bin(tmp_path, {"python3.13": BROKEN_SHIM, "python3.12": REAL_PYTHON, "python3.11": "exit 99"})
    result = run_script("find_python.sh", [], bin_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == sys.executable


def test_find_python_rejects_old_and_broken_interpreters_with_one_clear_line(tmp_path):
    bin_dir = fake_bin(tmp_path, {"python3.13": BROKEN_SHIM, "python3": OLD_PYTHON})
    result = run_script("find_python.sh", [], bin_dir)
    assert result.returncode == 1
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Python >= 3.11" in result.stderr


def test_find_python_never_replaces_an_explicit_choice(tmp_path):
    bin_dir = fake_bin(tmp_path, {"python3.12": REAL_PYTHON, "mypython": OLD_PYTHON})
    result = run_script("find_python.sh", [], bin_dir, MINIKAFKA_PYTHON="mypython")
    assert result.returncode == 1
    assert "MINIKAFKA_PYTHON=mypython" in result.stderr


# -- scripts/ensure_venv.sh -----------------------------------------------


def test_ensure_venv_skips_pip_while_the_stamp_matches_pyproject(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    stamps = tmp_path / "stamps"
    stamps.mkdir()
    stamp = stamps / "venv-install.sha256"
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    bin_dir = fake_bin(tmp_path, {})
    env = {"MINIKAFKA_VENV": str(venv), "MINIKAFKA_STAMP_DIR": str(stamps)}

    stamp.write_text(digest + "\n")
    unchanged = run_script("ensure_venv.sh", [], bin_dir, **env)
    assert (unchanged.returncode, unchanged.stdout, unchanged.stderr) == (0, "", "")

    # A stale stamp makes it reinstall: this venv has no pip, so that fails
    # loudly and the stale stamp is left alone for the next attempt.
    stamp.write_text("0" * 64 + "\n")
    stale = run_script("ensure_venv.sh", [], bin_dir, **env)
    assert stale.returncode != 0
    assert "pip install -e '.[test]'" in stale.stdout
    assert stamp.read_text() == "0" * 64 + "\n"


# -- scripts/ensure_system_deps.sh ----------------------------------------

ALL_PRESENT = {"dot": "exit 0", "java": java_body("17.0.15"), "chromium": "exit 0"}


def read_status(stamps: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in (stamps / "system-deps.env").read_text().splitlines())
    return {key: value.strip("'") for key, value in pairs}


def test_system_deps_are_quiet_when_everything_is_present(tmp_path):
    bin_dir = fake_bin(tmp_path, {**ALL_PRESENT, "apt-get": "echo apt-get must not run >&2; exit 1"})
    result = run_script("ensure_system_deps.sh", [], bin_dir, MINIKAFKA_STAMP_DIR=str(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert read_status(tmp_path) == {
        "MINIKAFKA_DOT": str(bin_dir / "dot"),
        "MINIKAFKA_JAVA": str(bin_dir / "java"),
        "MINIKAFKA_CHROMIUM": str(bin_dir / "chromium"),
    }


def test_system_deps_print_one_line_when_they_cannot_install(tmp_path):
    bin_dir = fake_bin(tmp_path, {"java": java_body("11.0.2")})  # too old for Spark 4
    result = run_script(
        "ensure_system_deps.sh", [], bin_dir, MINIKAFKA_STAMP_DIR=str(tmp_path), MINIKAFKA_NO_SYSTEM_INSTALL="1"
    )
    assert result.returncode == 0
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert "sudo apt-get install graphviz openjdk-17-jre-headless chromium" in lines[0]
    assert read_status(tmp_path) == {"MINIKAFKA_DOT": "", "MINIKAFKA_JAVA": "", "MINIKAFKA_CHROMIUM": ""}


@pytest.mark.parametrize(("version", "accepted"), [("1.8.0_292", False), ("11.0.2", False), ("17.0.15", True), ("21", True)])
def test_system_deps_need_java_17_or_newer(tmp_path, version, accepted):
    bin_dir = fake_bin(tmp_path, {"java": java_body(version)})
    env = {"MINIKAFKA_STAMP_DIR": str(tmp_path), "MINIKAFKA_NO_SYSTEM_INSTALL": "1"}
    result = run_script("ensure_system_deps.sh", ["java"], bin_dir, **env)
    assert (result.stdout == "") is accepted
    assert read_status(tmp_path) == {"MINIKAFKA_JAVA": str(bin_dir / "java") if accepted else ""}


def test_system_deps_install_only_what_is_missing_when_root(tmp_path):
    log = tmp_path / "apt-calls"
    # The fake apt-get records its arguments and "installs" graphviz.
    apt = f'echo "$@" >> {log}; case "$*" in *graphviz*) printf "#!/bin/sh\\n" > {tmp_path}/bin/dot; chmod +x {tmp_path}/bin/dot;; esac'
    programs = {"java": java_body("17.0.15"), "chromium": "exit 0", "id": "echo 0", "apt-get": apt}
    bin_dir = fake_bin(tmp_path, programs)
    result = run_script("ensure_system_deps.sh", [], bin_dir, MINIKAFKA_STAMP_DIR=str(tmp_path))
    assert result.returncode == 0
    assert result.stdout.splitlines() == [f"Installing Debian packages: graphviz (log: {tmp_path}/apt.log)"]
    calls = log.read_text().splitlines()
    assert calls[0] == "update -q"
    assert calls[1].startswith("install") and calls[1].split()[-1] == "graphviz" and "openjdk" not in calls[1]
    assert read_status(tmp_path)["MINIKAFKA_DOT"] == str(bin_dir / "dot")


def test_system_deps_reject_unknown_program_names(tmp_path):
    result = run_script("ensure_system_deps.sh", ["dott"], fake_bin(tmp_path, {}), MINIKAFKA_STAMP_DIR=str(tmp_path))
    assert result.returncode == 2
    assert "unknown program 'dott'" in result.stderr


# -- conftest.py ----------------------------------------------------------


def test_java_major_version_reads_old_and_new_numbering():
    conftest = load_root_conftest()
    assert conftest.java_major_version('openjdk version "17.0.15" 2025-04-15') == 17
    assert conftest.java_major_version('java version "1.8.0_292"') == 8
    assert conftest.java_major_version('openjdk version "21" 2023-09-19') == 21
    assert conftest.java_major_version("command not found") is None


def test_program_path_trusts_what_make_recorded(tmp_path, monkeypatch):
    conftest = load_root_conftest()
    dot = conftest.PROGRAMS["graphviz"]
    monkeypatch.setenv("MINIKAFKA_DOT", "")
    assert conftest.program_path(dot) == ""
    fake = fake_bin(tmp_path, {"dot": "exit 0"}) / "dot"
    conftest.program_path.cache_clear()
    monkeypatch.setenv("MINIKAFKA_DOT", str(fake))
    assert conftest.program_path(dot) == str(fake)


def test_notebook_markers_must_be_a_list_of_names():
    conftest = load_root_conftest()
    assert conftest.notebook_markers({}) == []
    assert conftest.notebook_markers({"minikafka": {"markers": ["spark", "slow"]}}) == ["spark", "slow"]
    with pytest.raises(pytest.UsageError, match="must be a list of marker names"):
        conftest.notebook_markers({"minikafka": {"markers": "spark"}})


def test_missing_programs_skip_marked_tests_and_notebooks(tmp_path):
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    spark: x\n    graphviz: x\n    browser: x\n")
    fake_dot = fake_bin(tmp_path, {"dot": "exit 0"}) / "dot"
    (tmp_path / "test_marked.py").write_text(
        "import pytest\n\n@pytest.mark.spark\ndef test_needs_java():\n    pass\n\n"
        "@pytest.mark.graphviz\ndef test_needs_dot():\n    pass\n\n"
        "def test_needs_chromium(chromium_executable):\n    pass\n"
    )
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": "1 + 1"}
    for name, markers, cells in (("lesson_java", ["spark"], [cell, cell]), ("lesson_slow", ["slow"], [cell])):
        notebook = {"cells": cells, "metadata": {"minikafka": {"markers": markers}}, "nbformat": 4, "nbformat_minor": 5}
        (tmp_path / f"{name}.ipynb").write_text(json.dumps(notebook))
    env = {**os.environ, "MINIKAFKA_JAVA": "", "MINIKAFKA_CHROMIUM": "", "MINIKAFKA_DOT": str(fake_dot)}
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "--nbval", "-rs"]

    # One pytest run (each costs seconds of imports): no kernel starts, because
    # lesson_java's cells are skipped and lesson_slow's deselected by -m.
    result = subprocess.run(
        [*command, "-m", "not slow", "."], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert "1 passed, 4 skipped, 1 deselected" in result.stdout, result.stdout
    assert "install the Debian package openjdk-17-jre-headless" in result.stdout
    assert "install the Debian package chromium" in result.stdout
