"""A throw-away JupyterLab server for browser tests: start, wait, stop everything.

Theory of operation
-------------------
`LabServer` runs ``python -m jupyterlab`` (the interpreter of this test
run, so the server and its kernels use the same venv as the tests) in a
child process, configured for a test and nothing else:

* no token, no password and no XSRF check, bound to 127.0.0.1 on a free
  port (``port_retries=0``: the server takes exactly that port or fails);
* ``LabApp.expose_app_in_browser``, so the page has ``window.jupyterapp``
  and a test can run JupyterLab commands instead of hunting for menus;
* private Jupyter/IPython directories under the test's work directory, so
  neither the user's settings, workspaces and kernels leak in nor does the
  test leave anything in the home directory; user settings that would put
  a toast over the picture (news, update checks) are switched off, and
  notebook windowing is off so every cell is in the DOM;
* the server's output goes to ``jupyterlab.log`` in the work directory;
  `log_tail` quotes it in failure messages.

`stop` first asks the server to shut down through its REST API (which also
shuts down its kernels), then terminates the server and finally kills, by
process id, any descendant (a kernel, a JVM a kernel started) that is
still alive.  The descendants are listed before the server goes, because
an orphan cannot be traced back to it afterwards.

The module is not named ``jupyter_server`` on purpose: pytest puts this
directory on ``sys.path``, and that name would hide the real package.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil

# The JupyterLab user settings a test run starts with (plugin id -> values).
TEST_USER_SETTINGS = {
    # No "get Jupyter news?" toast and no update check over the screenshot.
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false",
                                                    "checkForUpdates": False},
    # Render every cell, so the DOM holds all outputs however long the notebook.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}


class LabServerError(RuntimeError):
    """JupyterLab did not start; the message carries the end of its log."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LabServer:
    """JupyterLab rooted at ``root_dir``; its private files live in ``work_dir``."""

    def __init__(self, root_dir: Path, work_dir: Path, python: str = sys.executable):
        self.root_dir = Path(root_dir)
        self.work_dir = Path(work_dir)
        self.python = python
        self.port: int | None = None                     # chosen when started
        self.process: subprocess.Popen | None = None     # the jupyter lab process
        self.log_path = self.work_dir / "jupyterlab.log"

    # ------------------------------------------------------------------ start
    def start(self, timeout_s: float = 60.0, attempts: int = 3) -> "LabServer":
        """Start and wait until the REST API answers; retries if the port was taken."""
        for attempt in range(attempts):
            self.port = free_port()
            self.process = subprocess.Popen(
                self._command(), cwd=self._private_dir("cwd"), env=self._environment(),
                stdin=subprocess.DEVNULL, stdout=self._log_file(), stderr=subprocess.STDOUT,
                start_new_session=True)        # Ctrl-C in the test run must not reach it first
            if self._wait_ready(timeout_s):
                return self
            self.stop()
            if "already in use" not in self.log_tail():
                break                            # a real failure, not a lost port race
        raise LabServerError(f"JupyterLab did not start within {timeout_s:.0f} s "
                             f"(attempt {attempt + 1}); its log ends with:\n{self.log_tail()}")

    def _command(self) -> list[str]:
        return [
            self.python, "-m", "jupyterlab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0", "--ServerApp.token=", "--ServerApp.password=",
            "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={self.root_dir}",
            "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            f"--LabApp.user_settings_dir={self._user_settings_dir()}",
            f"--LabApp.workspaces_dir={self._private_dir('workspaces')}",
            *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        ]

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({
            "JUPYTER_CONFIG_DIR": str(self._private_dir("config")),
            "JUPYTER_DATA_DIR": str(self._private_dir("data")),
            "JUPYTER_RUNTIME_DIR": str(self._private_dir("runtime")),
            "IPYTHONDIR": str(self._private_dir("ipython")),
        })
        return env

    def _private_dir(self, name: str) -> Path:
        path = self.work_dir / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _user_settings_dir(self) -> Path:
        settings = self._private_dir("user-settings")
        for plugin, values in TEST_USER_SETTINGS.items():
            package, name = plugin.rsplit("/", 1)
            target = settings / package / f"{name}.jupyterlab-settings"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(values, indent=2))
        return settings

    def _log_file(self):
        self.work_dir.mkdir(parents=True, exist_ok=True)
        return open(self.log_path, "ab")  # the child keeps its own copy of the descriptor

    def _wait_ready(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=2) as answer:
                    if answer.status == 200:
                        return True
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)           # polling interval while the server boots
        return False

    # ------------------------------------------------------------------ use
    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    # ------------------------------------------------------------------ stop
    def stop(self, grace_s: float = 15.0) -> None:
        """Shut down the server and its kernels; kill by pid whatever is left."""
        process, self.process = self.process, None
        if process is None:
            return
        descendants = _descendants(process.pid)
        if process.poll() is None:
            self._request_shutdown()
            try:
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5)
        descendants += _descendants(process.pid)
        _kill_all(descendants)

    def _request_shutdown(self) -> None:
        request = urllib.request.Request(self.url("api/shutdown"), method="POST", data=b"")
        try:
            urllib.request.urlopen(request, timeout=5).close()
        except (urllib.error.URLError, OSError):
            pass                      # the signals in stop() take over

    def __enter__(self) -> "LabServer":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _kill_all(processes: list[psutil.Process]) -> None:
    """Kill the listed processes that still run (psutil checks each is the same process)."""
    alive = []
    for process in processes:
        try:
            if process.is_running():
                process.kill()
                alive.append(process)
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=5)
