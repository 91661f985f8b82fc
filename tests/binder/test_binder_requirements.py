"""Binder's environment, rebuilt here: binder/requirements.txt alone must run lesson 01.

Theory of operation
-------------------
repo2docker copies the repository into the image and runs ``pip install -r
binder/requirements.txt`` from its root, with the Python that
``binder/runtime.txt`` names.  Nothing else is installed: no test extras,
no ``.venv``.  This test does the same on this machine:

1. copy the repository to a temporary directory, as repo2docker checks it
   out: the files git would commit (tracked, plus new files .gitignore
   does not exclude, so uncommitted work is tested too); without git, the
   working tree minus ``.venv``, ``.git`` and caches;
2. create a fresh virtual environment with the runtime.txt Python when it
   is installed here (else with this test's Python, and a warning says so);
3. ``pip install -r binder/requirements.txt`` from the copy's root; then
   ``pip check`` and an import of what the lessons and JupyterLab need;
4. run lesson 01 under nbval in strict mode, with a kernel started from
   that environment (a kernelspec pointing at its interpreter).  nbval and
   pytest stay outside the environment, so they cannot hide a package
   that requirements.txt forgot.

It is fast because pip reuses its cache: ``make test`` installs the same
packages just before, and pip keeps the wheel it built from PySpark's
source distribution (the cache key includes the interpreter version, so
each Python builds it once).  Bytecode compilation is skipped
(``--no-compile``): it only caches what the interpreter would compile on
import, and costs half a minute for PySpark alone.  The duration of each
step is printed and recorded as a property of the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSON = "lessons/01_brokers_and_topics.ipynb"
KERNEL_NAME = "minikafka-binder"
# Without git: what never reaches a Binder image (screenshots being written included).
NOT_COPIED = (".venv", ".git", ".make-stamps", ".pytest_cache", "__pycache__", "*.egg-info",
              ".ipynb_checkpoints", "build", "dist", "*.partial.png")
IMPORTS = "import minikafka, widgets, kafka, pyspark, graphviz, ipywidgets, ipykernel, jupyterlab, " \
          "jupyterlab_widgets, matplotlib"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]   # a cold cache builds PySpark's wheel


def runtime_python() -> tuple[str, str]:
    """The interpreter to build the Binder environment with, and a note saying which.

    By default this test's own interpreter: pip's wheel cache (warm after
    ``make test`` installed the same packages) is keyed by Python version, and
    building PySpark's wheel for a second version would cost CI minutes.  Set
    ``MINIKAFKA_BINDER_PYTHON=runtime`` to use the version binder/runtime.txt
    names (if installed), as Binder itself does.
    """
    if os.environ.get("MINIKAFKA_BINDER_PYTHON") != "runtime":
        return sys.executable, (f"Python {sys.version.split()[0]} (this test's interpreter; "
                                f"MINIKAFKA_BINDER_PYTHON=runtime uses binder/runtime.txt's)")
    wanted = (ROOT / "binder/runtime.txt").read_text().strip()
    version = re.fullmatch(r"python-(\d+\.\d+)", wanted).group(1)
    candidates = [shutil.which(f"python{version}")]
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(str(p) for p in pyenv_root.glob(f"versions/{version}*/bin/python{version}"))
    for candidate in filter(None, candidates):
        check = subprocess.run([candidate, "-c", "import sys, venv; print(sys.version.split()[0])"],
                               capture_output=True, text=True, timeout=60)
        if check.returncode == 0 and check.stdout.startswith(f"{version}."):
            return candidate, f"Python {check.stdout.strip()} as binder/runtime.txt asks"
    note = (f"binder/runtime.txt asks for {wanted}, which is not installed here; "
            f"the Binder environment was built with Python {sys.version.split()[0]} instead")
    warnings.warn(note)
    return sys.executable, note


def copy_repository(destination: Path) -> None:
    """The files of the repository that a Binder build would see, copied to ``destination``."""
    listed = None
    if (ROOT / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, timeout=60)
    if listed is None or listed.returncode != 0:
        shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(*NOT_COPIED), symlinks=True)
        return
    for name in filter(None, listed.stdout.decode().split("\0")):
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copy2(ROOT / name, target, follow_symlinks=False)
        except FileNotFoundError:
            pass      # deleted since git listed it (a tracked file removed, a temporary file)


def timed(step: str, timings: dict[str, float], command: list[str], **kwargs) -> str:
    """Run a command, fail with its output if it fails, and record how long it took."""
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    timings[step] = round(time.monotonic() - started, 1)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{step} failed ({' '.join(command)}):\n{output[-5000:]}"
    return output


def kernelspec(jupyter_path: Path, python: Path) -> None:
    """A kernel that starts from the Binder environment's interpreter."""
    spec = jupyter_path / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    # An absolute path: jupyter_client swaps a bare "python" for its own interpreter.
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps(
        {"argv": argv, "display_name": "Binder environment", "language": "python"}))


def nbval_environment(env_dir: Path, jupyter_path: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTEST_XDIST_WORKER")}
    python = str(env_dir / "bin" / "python")
    environment.update({
        "JUPYTER_PATH": str(jupyter_path),
        "PATH": f"{env_dir / 'bin'}{os.pathsep}{environment.get('PATH', '')}",
        # Spark's Python workers, should the lesson start any, come from Binder's env too.
        "PYSPARK_PYTHON": python, "PYSPARK_DRIVER_PYTHON": python,
    })
    return environment


def test_binder_requirements_alone_run_lesson_01_strictly(tmp_path, record_property):
    if not (ROOT / LESSON).exists():
        pytest.fail(f"{LESSON} is missing")
    timings: dict[str, float] = {}
    repo, env_dir, jupyter_path = tmp_path / "repo", tmp_path / "binder-env", tmp_path / "jupyter"
    copy_repository(repo)
    python, note = runtime_python()

    timed("venv", timings, [python, "-m", "venv", str(env_dir)])
    env_python = env_dir / "bin" / "python"
    pip_log = timed("pip install", timings,
                    [str(env_python), "-m", "pip", "install", "--no-compile", "--progress-bar", "off",
                     "--disable-pip-version-check", "-r", "binder/requirements.txt"], cwd=repo)
    timed("pip check", timings, [str(env_python), "-m", "pip", "check"])
    where = timed("imports", timings,
                  [str(env_python), "-c", f"{IMPORTS}; print(minikafka.__file__)"], cwd=tmp_path)
    assert Path(where.strip()).is_relative_to(repo), f"minikafka was imported from {where.strip()}"

    kernelspec(jupyter_path, env_python)
    report = nbval(repo, env_dir, jupyter_path, timings)
    code_cells = sum(cell["cell_type"] == "code" for cell in json.loads((repo / LESSON).read_text())["cells"])
    summary = report.strip().splitlines()[-1]
    assert re.search(rf"\b{code_cells} passed\b", summary) and not re.search(
        r"failed|error|skipped|deselected", summary), f"nbval: {summary}\n{report[-5000:]}"

    pyspark_from_cache = "Using cached pyspark" in pip_log
    message = (f"{note}; timings (s): {timings}; PySpark wheel "
               f"{'reused from pip cache' if pyspark_from_cache else 'built or downloaded'}")
    print(message)
    record_property("binder_timings", message)


def nbval(repo: Path, env_dir: Path, jupyter_path: Path, timings: dict[str, float]) -> str:
    """Lesson 01 in strict nbval mode (as `make test-lessons` runs it), kernel from Binder's env."""
    sanitize = repo / "lessons" / "nbval_sanitize.cfg"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
               "-p", "no:python", "--nbval", "--nbval-kernel-name", KERNEL_NAME,
               "--nbval-cell-timeout=300", "-q", "-rfEs", LESSON]
    if sanitize.exists():
        command[-1:-1] = ["--nbval-sanitize-with", str(sanitize)]
    return timed("nbval", timings, command, cwd=repo, env=nbval_environment(env_dir, jupyter_path),
                 timeout=600)
