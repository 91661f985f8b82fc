"""Running a Java main class: small heap, quiet logging, and never a process left behind.

Theory of operation
-------------------
`java_command` builds the command line Kafka's ``bin/kafka-run-class.sh``
would build, scaled down for a 2-core laptop or a 2 GB Binder: the java of
`java_runtime.check_java`, ``-Xmx256m`` (the tools' default in Kafka's
scripts; a broker may want more), the serial collector, and for short-lived
tools the client compiler only (``fast_start``: a tool starts about a second
sooner, a long benchmark runs slower).  Logging goes through this package's
``log4j2.properties``: WARN and above, one line each, to stderr, so a tool's
stdout holds only its output (Kafka 4.x logs with log4j2 behind slf4j 1.7;
the jar set must include ``log4j-slf4j-impl``, see `apache_kafka`); Kafka's
``kafka.logs.dir`` points at this user's private temporary directory
(`private_temp`), never at the shared ``/tmp`` itself.

`run_java` runs a main class to completion and returns its exit code,
stdout and stderr, like ``subprocess.run``; on a timeout the JVM is killed
before ``subprocess.TimeoutExpired`` is raised.  `start_java` starts a
long-lived one (a broker, a console consumer) as a `JavaProcess`, with
stdout and stderr in files (a pipe nobody reads would block the JVM once
full), stdin optionally a pipe, and `JavaProcess.stop` sending SIGTERM (the
JVM runs its shutdown hooks: a Kafka broker closes its logs cleanly) then
SIGKILL after a grace period.  Each JVM leads its own process group, and
every one still running when Python exits is stopped then, so neither a
test nor a notebook leaves a JVM behind.

This module is the sandbox's own plumbing; nothing in Kafka corresponds to
it.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from minikafka.jvm.java_runtime import check_java
from minikafka.jvm.private_temp import private_temp_dir

DEFAULT_HEAP = "256m"
LOG4J_CONFIG = Path(__file__).with_name("log4j2.properties")
# Start-up matters more than peak speed for a tool that runs a second: client compiler only.
FAST_START_OPTIONS = ("-XX:TieredStopAtLevel=1",)
COMMON_OPTIONS = ("-XX:+UseSerialGC", "-Djava.awt.headless=true")
_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)  # Windows has no SIGKILL

_running: set[JavaProcess] = set()  # started and not yet seen stopped; stopped at interpreter exit
_output_dirs: list[Path] = []  # temporary directories start_java made for output; removed at exit
_running_lock = threading.Lock()


def java_command(main_class: str, args: Iterable[str] = (), *, classpath: str, heap: str = DEFAULT_HEAP,
                 log_level: str = "WARN", fast_start: bool = True, jvm_options: Iterable[str] = (),
                 system_properties: Mapping[str, str] | None = None) -> list[str]:
    """The ``java ... main_class args`` command line (see the module docstring for what it adds)."""
    if not re.fullmatch(r"\d+[kmgKMG]?", heap):
        raise ValueError(f"Invalid heap size {heap!r}: expected a number with an optional k, m or g suffix.")
    java = check_java(f"{main_class.rsplit('.', 1)[-1]} (Java)")
    properties = {"log4j2.configurationFile": LOG4J_CONFIG.as_uri(), "minikafka.log.level": log_level,
                  "kafka.logs.dir": str(private_temp_dir()), **(system_properties or {})}
    command = [java, f"-Xmx{heap}", *COMMON_OPTIONS, *(FAST_START_OPTIONS if fast_start else ()),
               *jvm_options, *(f"-D{key}={value}" for key, value in properties.items()),
               "-cp", classpath, main_class, *args]
    return command


def run_java(main_class: str, args: Iterable[str] = (), *, classpath: str, timeout: float = 120,
             input: str | None = None, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
             **command_options) -> subprocess.CompletedProcess[str]:
    """Run ``main_class`` to completion: its exit code, stdout and stderr as text (killed after ``timeout`` s)."""
    command = java_command(main_class, args, classpath=classpath, **command_options)
    process = subprocess.Popen(command, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                               env=_environment(env), start_new_session=True)
    try:
        stdout, stderr = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _signal_group(process, _KILL)
        stdout, stderr = process.communicate()
        raise subprocess.TimeoutExpired(command, timeout, output=stdout, stderr=stderr) from None
    except BaseException:  # KeyboardInterrupt in a notebook: the JVM must not outlive the cell
        _signal_group(process, _KILL)
        process.wait()
        raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def start_java(main_class: str, args: Iterable[str] = (), *, classpath: str, output_dir: str | Path | None = None,
               stdin: bool = False, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
               **command_options) -> JavaProcess:
    """Start ``main_class`` in the background; stdout and stderr go to files in ``output_dir`` (a new temp dir if None)."""
    command = java_command(main_class, args, classpath=classpath, **command_options)
    name = main_class.rsplit(".", 1)[-1]
    if output_dir is None:
        directory = Path(tempfile.mkdtemp(prefix=f"minikafka-{name}-"))
        _output_dirs.append(directory)     # ours: removed at interpreter exit, readable until then
    else:
        directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    stdout_path, stderr_path = directory / f"{name}.stdout", directory / f"{name}.stderr"
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        popen = subprocess.Popen(command, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=out,
                                 stderr=err, cwd=cwd, env=_environment(env), start_new_session=True)
    process = JavaProcess(popen, command, stdout_path, stderr_path)
    with _running_lock:
        _running.add(process)
    return process


class JavaProcess:
    """A JVM started by `start_java`; a context manager that stops it on exit."""

    def __init__(self, popen: subprocess.Popen, command: list[str], stdout_path: Path, stderr_path: Path):
        self.popen = popen  # the java process (leader of its own process group)
        self.command = command  # the full command line, for error messages
        self.stdout_path = stdout_path  # the JVM's stdout, written as it runs
        self.stderr_path = stderr_path  # the JVM's stderr (log lines at WARN and above)

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once it has ended, else None."""
        return self.popen.poll()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stdout(self) -> str:
        """What it has printed to stdout so far."""
        return self.stdout_path.read_text(errors="replace")

    def stderr(self) -> str:
        """What it has printed to stderr so far."""
        return self.stderr_path.read_text(errors="replace")

    def send(self, text: str) -> None:
        """Write ``text`` to its stdin (started with ``stdin=True``) and flush."""
        if self.popen.stdin is None:
            raise ValueError("This JVM was started without stdin=True.")
        self.popen.stdin.write(text.encode())
        self.popen.stdin.flush()

    def close_stdin(self) -> None:
        """Close its stdin: end of input, as Ctrl-D in a terminal."""
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            self.popen.stdin.close()

    def wait(self, timeout: float | None = None) -> int:
        """Wait until it ends by itself; ``subprocess.TimeoutExpired`` after ``timeout`` s (it keeps running)."""
        return self.popen.wait(timeout)

    def wait_for_output(self, pattern: str, timeout: float = 60, stream: str = "stdout") -> re.Match[str]:
        """Wait until its stdout (or stderr) matches the regex ``pattern``; the match.

        Raises ``TimeoutError`` (with the end of its stderr) after ``timeout`` s, or at once if it exits first.
        """
        read = self.stdout if stream == "stdout" else self.stderr
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(pattern, read(), re.MULTILINE)
            if match:
                return match
            if not self.alive() or time.monotonic() > deadline:
                state = f"exited with code {self.returncode}" if not self.alive() else f"still running after {timeout:g} s"
                tail = self.stderr()[-2000:]
                raise TimeoutError(f"{_main_class(self.command)} {state} without printing "
                                   f"{pattern!r}; its stderr ends with:\n{tail}")
            time.sleep(0.1)

    def stop(self, grace: float = 10) -> int:
        """SIGTERM (shutdown hooks run), then SIGKILL after ``grace`` s; the exit code.  Safe to call twice."""
        self.close_stdin()
        if self.popen.poll() is None:
            _signal_group(self.popen, signal.SIGTERM)
            try:
                self.popen.wait(grace)
            except subprocess.TimeoutExpired:
                _signal_group(self.popen, _KILL)
                self.popen.wait()
        else:  # the JVM ended by itself, but a child it started might not have
            _signal_group(self.popen, _KILL)
        with _running_lock:
            _running.discard(self)
        return self.popen.returncode

    def kill(self) -> int:
        """SIGKILL at once, as a crash or ``kill -9`` would; the exit code."""
        _signal_group(self.popen, _KILL)
        self.popen.wait()
        return self.stop()

    def __enter__(self) -> JavaProcess:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.alive() else f"exited {self.returncode}"
        return f"JavaProcess(pid={self.pid}, {_main_class(self.command)}, {state})"


def running_processes() -> list[JavaProcess]:
    """The JVMs started by `start_java` and not yet stopped (for tests: should be empty at the end)."""
    with _running_lock:
        return [process for process in _running if process.alive()]


def stop_all(grace: float = 5) -> None:
    """Stop every JVM `start_java` started and nobody stopped; runs at interpreter exit."""
    with _running_lock:
        processes = list(_running)
    for process in processes:
        process.stop(grace)


def _remove_output_dirs() -> None:
    for directory in _output_dirs:
        shutil.rmtree(directory, ignore_errors=True)


# atexit runs the last registered first: the JVMs stop, then their output directories go.
atexit.register(_remove_output_dirs)
atexit.register(stop_all)


def _main_class(command: list[str]) -> str:
    index = command.index("-cp") + 2 if "-cp" in command else len(command) - 1
    return command[index] if index < len(command) else command[-1]


def _signal_group(popen: subprocess.Popen, sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(popen.pid, sig)  # the JVM leads its own group (start_new_session)
        else:
            popen.kill()
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    return {**os.environ, **(env or {})}
