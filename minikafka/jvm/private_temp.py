"""A temporary directory of this user's own, for files whose names are fixed (a JVM's console log).

Theory of operation
-------------------
On a shared host (a single-machine JupyterHub: every learner shares
``/tmp``) a fixed file name in the temporary directory belongs to whoever
created it first: the next user gets ``PermissionError``, and anyone can
plant a symbolic link under that name that the next writer follows into a
file of theirs.  So nothing the sandbox writes under a fixed name goes to
the shared temporary directory itself; it goes to `private_temp_dir()`:

1. ``$XDG_RUNTIME_DIR/minikafka`` when the login session has a runtime
   directory (``/run/user/<uid>``, made by the system, readable by this user
   only);
2. else ``<tmp>/minikafka-<uid>`` made with mode 0700;
3. when that name is already taken by something that is not a private
   directory of ours (a planted link or file, another user's directory, a
   directory others may enter), a fresh ``mkdtemp`` directory (random name,
   mode 0700) for this process instead, so a squatter never blocks the
   lesson.

A directory is accepted only after ``lstat`` (which never follows a link)
shows a real directory owned by this user that no one else may read, write
or enter; inside it only this user can create names, so a fixed file name
there is safe.  The answer is kept for the life of the process.

The sandbox's own plumbing (it lives beside the JVM helpers, its first
users): nothing in Kafka corresponds to it.  Simplified: on a system without
user ids (Windows) the ``mkdtemp`` directory is always used.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path

RUNTIME_DIR_ENV = "XDG_RUNTIME_DIR"

_chosen: Path | None = None
_lock = threading.Lock()


def is_private_dir(path: Path, uid: int) -> bool:
    """Whether ``path`` itself (never a link's target) is a directory owned by ``uid`` with no
    permission for group or others."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077


def _made_private(path: Path, uid: int) -> bool:
    """Create ``path`` with mode 0700 unless it exists; whether it is then our private directory."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    return is_private_dir(path, uid)


def candidate_dirs(uid: int, environ: dict[str, str] | os._Environ[str] = os.environ,
                   temp_root: str | None = None) -> list[Path]:
    """The fixed private places tried, in order (see the module docstring)."""
    found: list[Path] = []
    runtime = environ.get(RUNTIME_DIR_ENV, "")
    if runtime and os.path.isabs(runtime) and is_private_dir(Path(runtime), uid):
        found.append(Path(runtime) / "minikafka")
    found.append(Path(temp_root or tempfile.gettempdir()) / f"minikafka-{uid}")
    return found


def choose_private_dir(uid: int | None, environ: dict[str, str] | os._Environ[str] = os.environ,
                       temp_root: str | None = None) -> Path:
    """The first candidate that is (or can be made) ours and private, else a new ``mkdtemp`` one."""
    if uid is not None:
        for path in candidate_dirs(uid, environ, temp_root):
            if _made_private(path, uid):
                return path
    prefix = "minikafka-" if uid is None else f"minikafka-{uid}-"
    return Path(tempfile.mkdtemp(prefix=prefix, dir=temp_root))


def private_temp_dir() -> Path:
    """This user's private temporary directory, created on first use (the same one afterwards)."""
    global _chosen
    uid = _uid()
    with _lock:
        # chosen again if it vanished (a cleaner emptied /tmp while the kernel ran)
        if _chosen is None or (uid is not None and not is_private_dir(_chosen, uid)):
            _chosen = choose_private_dir(uid)
        return _chosen


def _uid() -> int | None:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None
