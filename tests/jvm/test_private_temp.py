"""`private_temp_dir`: fixed file names live only in a directory of the user's own.

The unit tests choose directories under ``tmp_path`` (a fake temporary root
and runtime directory); the last test runs the Spark lesson's first step
that writes a file (opening the JVM's console log) as two throw-away users
of this machine, as on a single-host JupyterHub.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from minikafka.jvm.private_temp import candidate_dirs, choose_private_dir, is_private_dir

ROOT = Path(__file__).resolve().parents[2]
UID = os.getuid()


def test_a_fresh_place_is_made_with_mode_0700(tmp_path):
    chosen = choose_private_dir(UID, environ={}, temp_root=str(tmp_path))
    assert chosen == tmp_path / f"minikafka-{UID}"
    assert os.stat(chosen).st_mode & 0o777 == 0o700
    assert choose_private_dir(UID, environ={}, temp_root=str(tmp_path)) == chosen  # same next time


def test_the_login_session_s_runtime_directory_comes_first(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    assert candidate_dirs(UID, {"XDG_RUNTIME_DIR": str(runtime)}, str(tmp_path))[0] == runtime / "minikafka"
    assert choose_private_dir(UID, {"XDG_RUNTIME_DIR": str(runtime)}, str(tmp_path)) == runtime / "minikafka"


def test_a_runtime_directory_others_may_enter_is_not_used(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir()
    runtime.chmod(0o755)
    assert candidate_dirs(UID, {"XDG_RUNTIME_DIR": str(runtime)}, str(tmp_path)) == [tmp_path / f"minikafka-{UID}"]


def test_a_planted_link_is_never_followed(tmp_path):
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / f"minikafka-{UID}").symlink_to(elsewhere)
    chosen = choose_private_dir(UID, environ={}, temp_root=str(tmp_path))
    assert chosen.parent == tmp_path and chosen.name.startswith(f"minikafka-{UID}-")  # a mkdtemp one
    assert is_private_dir(chosen, UID) and not chosen.is_symlink()


@pytest.mark.parametrize("squat", ["file", "open directory"])
def test_a_squatted_name_falls_back_to_a_random_one(tmp_path, squat):
    name = tmp_path / f"minikafka-{UID}"
    if squat == "file":
        name.write_text("")
    else:
        name.mkdir()
        name.chmod(0o777)
    chosen = choose_private_dir(UID, environ={}, temp_root=str(tmp_path))
    assert chosen != name and is_private_dir(chosen, UID)


def test_a_directory_of_another_owner_is_not_ours(tmp_path):
    assert not is_private_dir(tmp_path, UID + 1)


def test_no_user_ids_means_a_random_directory(tmp_path):
    chosen = choose_private_dir(None, environ={}, temp_root=str(tmp_path))
    assert chosen.name.startswith("minikafka-") and chosen.is_dir()


def test_the_spark_log_is_in_the_private_directory():
    from minikafka.jvm.private_temp import private_temp_dir
    from minikafka.spark import session

    assert session.spark_log().parent == private_temp_dir()
    assert session.SPARK_LOG == session.spark_log()  # the old constant's name still answers
    assert is_private_dir(private_temp_dir(), UID)


# The part of get_spark() that failed for a second user ("PermissionError: [Errno 13]
# Permission denied: '/tmp/minikafka-spark.log'"): opening the JVM's console log and
# handing it to a child process, which writes to it as the JVM would.
_SNIPPET = """
import json, os, subprocess, sys
from minikafka.spark import session
log = session.spark_log()
with session._process_output_to(log):
    subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('jvm of ' + sys.argv[1])", sys.argv[1]])
print(json.dumps({"log": str(log), "text": log.read_text(), "mode": os.stat(log.parent).st_mode & 0o777}))
"""


def _throwaway_user(prefix: str) -> str:
    name = f"{prefix}{uuid.uuid4().hex[:8]}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True,
                   capture_output=True)
    return name


def _as_user(user: str, code: str, *args: str, python: str = "") -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    return subprocess.run(["runuser", "-u", user, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()),
                           python or _PYTHON[0], "-c", code, *args], capture_output=True, text=True,
                          timeout=60)


_PYTHON: list[str] = []


def _python_for(user: str) -> str | None:
    """An interpreter ``user`` may run that imports the sandbox's Spark session module: this
    test's own when the user can reach it (a venv under /root cannot be), else the system's."""
    for python in dict.fromkeys([sys.executable, "/usr/local/bin/python3", "/usr/bin/python3"]):
        if python and _as_user(user, "import minikafka.spark.session", python=python).returncode == 0:
            return python
    return None


@pytest.mark.skipif(os.name != "posix" or UID != 0 or not shutil.which("useradd") or not shutil.which("runuser"),
                    reason="needs root with useradd and runuser, to play two users on one machine")
def test_two_users_on_one_machine_each_open_their_own_spark_log():
    users = [_throwaway_user("mkta"), _throwaway_user("mktb")]
    made: list[Path] = []
    try:
        python = _python_for(users[0])
        if python is None:
            pytest.skip("no Python >= 3.11 that a throw-away user may run (this one lives under a private home)")
        _PYTHON[:] = [python]
        uid_b = int(subprocess.run(["id", "-u", users[1]], capture_output=True, text=True, check=True).stdout)
        # The first user also plants a link under the second user's fixed name, pointing at its own
        # directory: the second must neither fail nor write through it.
        first = _as_user(users[0], _SNIPPET, users[0])
        assert first.returncode == 0, first.stderr
        seen_a = json.loads(first.stdout)
        made.append(Path(seen_a["log"]).parent)
        trap = Path("/tmp") / f"minikafka-{uid_b}"
        planted = _as_user(users[0], "import os, sys; os.symlink(sys.argv[1], sys.argv[2])",
                           str(made[0]), str(trap)) if not os.path.lexists(trap) else None
        second = _as_user(users[1], _SNIPPET, users[1])
        assert second.returncode == 0, second.stderr
        seen_b = json.loads(second.stdout)
        made.append(Path(seen_b["log"]).parent)
        assert seen_a["text"] == f"jvm of {users[0]}" and seen_b["text"] == f"jvm of {users[1]}"
        assert seen_a["log"] != seen_b["log"] and seen_a["mode"] == seen_b["mode"] == 0o700
        if planted is not None:
            assert planted.returncode == 0, planted.stderr
            assert Path(seen_b["log"]).parent != trap
            assert Path(seen_a["log"]).read_text() == f"jvm of {users[0]}"  # nothing written through the link
            made.append(trap)
        # Neither can read the other's log.
        peek = _as_user(users[1], "import sys; open(sys.argv[1]).read()", seen_a["log"])
        assert peek.returncode != 0 and "PermissionError" in peek.stderr
    finally:
        for path in made:
            if path.is_symlink():
                path.unlink()
            else:
                shutil.rmtree(path, ignore_errors=True)
        for user in users:
            subprocess.run(["userdel", user], capture_output=True)
