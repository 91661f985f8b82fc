"""The jars are fetched by the set-up, never by a test or a learner's first cell: Makefile, script, Binder."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from minikafka.jvm import __main__ as jvm_command

ROOT = Path(__file__).resolve().parents[2]


def recipe(target: str) -> str:
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", text, re.M)
    assert match, target
    return match.group(1)


@pytest.mark.parametrize("target, sets", [("test", ""), ("lab", " spark")])
def test_make_fetches_the_jars_after_the_system_programs(target, sets):
    lines = recipe(target).splitlines()
    system = next(i for i, line in enumerate(lines) if "ensure_system_deps.sh" in line)
    jars = next(i for i, line in enumerate(lines) if "ensure_jars.sh" in line)
    assert system < jars
    assert lines[jars].endswith(f"bash scripts/ensure_jars.sh{sets}")


def run_ensure_jars(tmp_path: Path, python_body: str, java: str) -> subprocess.CompletedProcess:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(f"#!/bin/sh\n{python_body}\n")
    (venv / "bin" / "python").chmod(0o755)
    env = {"PATH": os.environ["PATH"], "MINIKAFKA_VENV": str(venv), "MINIKAFKA_JAVA": java}
    return subprocess.run(["bash", str(ROOT / "scripts" / "ensure_jars.sh")], env=env, capture_output=True,
                          text=True, timeout=60)


def test_without_java_the_script_does_nothing(tmp_path):
    result = run_ensure_jars(tmp_path, "echo called; exit 1", java="")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_a_failed_fetch_is_one_line_and_not_a_failed_make(tmp_path):
    line = "minikafka: Could not fetch g:a:1 with Ivy: repo1.maven.org could not be reached"
    result = run_ensure_jars(tmp_path, f"echo '{line}' >&2; exit 1", java="/usr/bin/java")
    assert (result.returncode, result.stderr.strip()) == (0, line)


def test_the_script_asks_for_both_sets_by_default(tmp_path):
    result = run_ensure_jars(tmp_path, 'echo "$@"', java="/usr/bin/java")
    assert result.stdout.strip() == "-m minikafka.jvm fetch"


def test_binder_fetches_at_build_time():
    post_build = (ROOT / "binder" / "postBuild").read_text()
    assert post_build.startswith("#!/bin/bash\n")  # repo2docker runs it as a program
    assert os.access(ROOT / "binder" / "postBuild", os.X_OK)
    code = [line for line in post_build.splitlines() if line.strip() and not line.startswith("#")]
    assert code == ["set -euo pipefail", "python -m minikafka.jvm fetch spark kafka",
                    # then the learner's cleared copies and JupyterLab's settings (tests/course)
                    "python -m minikafka.course copies --source lessons --dest my-lessons",
                    "python -m minikafka.course lab-settings"]


def test_the_fetch_command_refuses_unknown_sets(capsys):
    assert jvm_command.main(["fetch", "hadoop"]) == 2
    assert jvm_command.main([]) == 2
    assert capsys.readouterr().err.splitlines() == [jvm_command.USAGE] * 2


def test_the_fetch_command_reports_each_failure_in_one_line(monkeypatch, capsys):
    from minikafka.jvm import JarFetchError

    def failing(quiet):
        raise JarFetchError("Could not fetch g:a:1: Maven (mvn) is not installed.")

    monkeypatch.setitem(jvm_command.SETS, "kafka", failing)
    monkeypatch.setitem(jvm_command.SETS, "spark", lambda quiet: None)
    assert jvm_command.main(["fetch"]) == 1
    assert capsys.readouterr().err == "minikafka: Could not fetch g:a:1: Maven (mvn) is not installed.\n"
