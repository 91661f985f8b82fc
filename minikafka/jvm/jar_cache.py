"""Maven artifacts and their runtime dependencies, fetched once into a cache outside the repository.

Theory of operation
-------------------
`fetch_jars(name, coordinates)` returns the jar files of the given Maven
coordinates (``group:artifact:version``) together with everything they need
at run time (Maven's compile and runtime scopes), as one flat directory
``<cache>/<name>/``.  ``<cache>`` is ``$MINIKAFKA_JARS`` when set, else
``$XDG_CACHE_HOME/minikafka/jars`` (``~/.cache/minikafka/jars``): never the
repository, so nothing fetched can be committed.

The first call resolves the coordinates from Maven Central:

* with **Maven** when ``mvn`` is on PATH: a throw-away ``pom.xml`` listing
  them, then the dependency plugin's ``copy-dependencies`` goal (Maven keeps
  its own download cache in ``~/.m2``);
* otherwise with **Ivy**, the resolver Spark itself uses for
  ``spark.jars.packages``: PySpark ships ``ivy-2.5.x.jar``, and Ivy's command
  line resolves a throw-away ``ivy.xml`` the same way (its download cache in
  ``<cache>/.ivy2``).  A learner's laptop has PySpark but rarely Maven.

The result is written to a temporary directory and renamed into place with a
``COORDINATES`` stamp last, so a half-finished fetch is never mistaken for a
complete one; a lock file makes concurrent callers (pytest workers, two
notebooks) wait for one fetch instead of racing.  The default cache is in
the user's home; the lock file is opened read-only and never through a
symbolic link, so a cache folder a class shares (``$MINIKAFKA_JARS``) works
for every learner and a link planted there is refused, not followed.  Later calls read the stamp
and return at once, without the network.  A failed fetch raises
`JarFetchError` in one line: which coordinates, and either what to install
or which address could not be reached.

This module is the sandbox's own plumbing; nothing in Kafka corresponds to
it.  Simplified: coordinates carry no classifier or type, and two artifacts
with the same file name from different groups would collide.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from minikafka.jvm.java_runtime import JavaNotFoundError, check_java

CACHE_ENV = "MINIKAFKA_JARS"
RESOLVER_ENV = "MINIKAFKA_JAR_RESOLVER"  # "maven" or "ivy" forces one; unset picks Maven when present
STAMP = "COORDINATES"
MAVEN_DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"
FETCH_TIMEOUT_S = 900
_COORDINATE = re.compile(r"^[A-Za-z0-9_.\-]+:[A-Za-z0-9_.\-]+:[A-Za-z0-9_.\-+]+$")
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")


class JarFetchError(RuntimeError):
    """The jars could not be fetched; the message says what to install or which address failed."""


def cache_root() -> Path:
    """``$MINIKAFKA_JARS``, else ``$XDG_CACHE_HOME/minikafka/jars``, else ``~/.cache/minikafka/jars``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "minikafka", "jars")


def jar_dir(name: str) -> Path:
    """Where the jars of the set called ``name`` live (complete only when `cached_jars` says so)."""
    return cache_root() / name


def cached_jars(name: str, coordinates: Sequence[str]) -> list[Path] | None:
    """The jars of an earlier complete fetch of exactly these coordinates, else None."""
    directory = jar_dir(name)
    try:
        stamp = (directory / STAMP).read_text().split()
    except OSError:
        return None
    if stamp != list(coordinates):
        return None
    jars = sorted(directory.glob("*.jar"))
    return jars or None


def fetch_jars(name: str, coordinates: Sequence[str], *, quiet: bool = False) -> list[Path]:
    """The jars of ``coordinates`` and their runtime dependencies, fetched on first use into ``<cache>/<name>/``."""
    coordinates = _checked(name, coordinates)
    jars = cached_jars(name, coordinates)
    if jars:
        return jars
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root / f".{name}.lock"):
        jars = cached_jars(name, coordinates)  # another process may have finished it meanwhile
        if jars:
            return jars
        if not quiet:
            print(f"Fetching {', '.join(coordinates)} and their dependencies into {jar_dir(name)} "
                  "(once; later runs use the copy)...", file=sys.stderr, flush=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
        try:
            _resolve(coordinates, staging, root)
            (staging / STAMP).write_text("\n".join(coordinates) + "\n")
            shutil.rmtree(jar_dir(name), ignore_errors=True)
            staging.rename(jar_dir(name))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return cached_jars(name, coordinates) or []


def classpath(jars: Iterable[Path]) -> str:
    """The jars joined with the platform's path separator, for ``java -cp``."""
    return os.pathsep.join(str(jar) for jar in jars)


def _checked(name: str, coordinates: Sequence[str]) -> list[str]:
    if not _NAME.match(name):
        raise ValueError(f"Invalid jar set name {name!r}: use letters, digits, '.', '_' and '-' only.")
    coordinates = list(coordinates)
    if not coordinates:
        raise ValueError("No Maven coordinates given: expected group:artifact:version.")
    for coordinate in coordinates:
        if not _COORDINATE.match(coordinate):
            raise ValueError(f"Invalid Maven coordinate {coordinate!r}: expected group:artifact:version.")
    return coordinates


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; concurrent first fetches just repeat the work
        yield
        return
    # Opened read-only (flock needs no more) and never through a link: in a cache folder
    # shared by a class, a lock file made by another learner, or a link planted under its
    # name, must neither fail the fetch nor be followed.
    handle = os.open(path, os.O_RDONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


def resolver() -> str:
    """"maven" when ``mvn`` is on PATH (or forced by $MINIKAFKA_JAR_RESOLVER), else "ivy"."""
    forced = os.environ.get(RESOLVER_ENV, "").strip().lower()
    if forced in ("maven", "ivy"):
        return forced
    return "maven" if shutil.which("mvn") else "ivy"


def _resolve(coordinates: list[str], target: Path, root: Path) -> None:
    if resolver() == "maven":
        _resolve_with_maven(coordinates, target)
    else:
        _resolve_with_ivy(coordinates, target, root / ".ivy2")


def _resolve_with_maven(coordinates: list[str], target: Path) -> None:
    mvn = shutil.which("mvn")
    if not mvn:
        raise JarFetchError(f"Could not fetch {', '.join(coordinates)}: Maven (mvn) is not installed. "
                            "Install it with: sudo apt-get install maven")
    with tempfile.TemporaryDirectory(prefix="minikafka-pom-") as work:
        pom = Path(work, "pom.xml")
        pom.write_text(_pom(coordinates))
        command = [mvn, "-B", "-q", "-f", str(pom), f"{MAVEN_DEPENDENCY_PLUGIN}:copy-dependencies",
                   f"-DoutputDirectory={target}", "-DincludeScope=runtime"]
        result = _run_resolver(command, coordinates)
    if result.returncode != 0:
        raise JarFetchError(f"Could not fetch {', '.join(coordinates)} with Maven: {_maven_reason(result.stdout)}")


def _pom(coordinates: list[str]) -> str:
    dependencies = "".join(
        f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version></dependency>\n"
        for g, a, v in (coordinate.split(":") for coordinate in coordinates)
    )
    return ('<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>\n'
            "<groupId>minikafka.local</groupId><artifactId>jars</artifactId><version>1</version>"
            "<packaging>pom</packaging>\n"
            f"<dependencies>\n{dependencies}</dependencies></project>\n")


def _maven_reason(output: str) -> str:
    """The one informative sentence of Maven's error output."""
    errors = [line.removeprefix("[ERROR]").strip() for line in output.splitlines() if line.startswith("[ERROR]")]
    first = next((line for line in errors if line), output.strip().splitlines()[-1] if output.strip() else "")
    # "Failed to execute goal <plugin> (default-cli) on project jars: <the reason>" -> the reason
    reason = re.sub(r"^Failed to execute goal .*? on project [^:]+: ", "", first)
    reason = re.sub(r"^Could not resolve dependencies for project [^:]+:[^:]+:[^:]+:[^:]+: ", "", reason)
    host = re.search(r"UnknownHostException: ([\w.\-]+)|Unknown host ([\w.\-]+)", output)
    if host:
        return f"{host.group(1) or host.group(2)} could not be reached (no network, or a proxy is needed). " + reason
    return reason or "Maven failed without a message"


def _resolve_with_ivy(coordinates: list[str], target: Path, ivy_cache: Path) -> None:
    try:
        java = check_java("Fetching jars with Ivy")
    except JavaNotFoundError as error:
        raise JarFetchError(str(error)) from None
    ivy_jar = _pyspark_ivy_jar()
    if ivy_jar is None:
        raise JarFetchError(f"Could not fetch {', '.join(coordinates)}: neither Maven (mvn) nor PySpark's Ivy "
                            "is installed. Install one with: sudo apt-get install maven, or pip install pyspark")
    with tempfile.TemporaryDirectory(prefix="minikafka-ivy-") as work:
        module = Path(work, "ivy.xml")
        module.write_text(_ivy_module(coordinates))
        command = [java, "-Xmx256m", "-jar", str(ivy_jar), "-ivy", str(module), "-confs", "default",
                   "-cache", str(ivy_cache), "-retrieve", f"{target}/[artifact]-[revision](-[classifier]).[ext]"]
        result = _run_resolver(command, coordinates)
    if result.returncode != 0 or "UNRESOLVED DEPENDENCIES" in result.stdout:
        raise JarFetchError(f"Could not fetch {', '.join(coordinates)} with Ivy: {_ivy_reason(result.stdout)}")


def _pyspark_ivy_jar() -> Path | None:
    try:
        import pyspark
    except ImportError:
        return None
    jars = sorted(Path(pyspark.__file__).parent.joinpath("jars").glob("ivy-*.jar"))
    return jars[-1] if jars else None


def _ivy_module(coordinates: list[str]) -> str:
    dependencies = "".join(
        f'<dependency org="{g}" name="{a}" rev="{v}" conf="default->default"/>\n'
        for g, a, v in (coordinate.split(":") for coordinate in coordinates)
    )
    return ('<ivy-module version="2.0"><info organisation="minikafka.local" module="jars"/>\n'
            f'<configurations><conf name="default"/></configurations>\n<dependencies>\n{dependencies}'
            "</dependencies></ivy-module>\n")


def _ivy_reason(output: str) -> str:
    host = re.search(r"UnknownHostException: ([\w.\-]+)", output)
    if host:
        return f"{host.group(1)} could not be reached (no network, or a proxy is needed)"
    missing = re.findall(r"::\s+(\S+#\S+;\S+): (not found|.+)$", output, re.MULTILINE)
    if missing:
        return "; ".join(f"{module.replace('#', ':').replace(';', ':')} {why}" for module, why in missing)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else "Ivy failed without a message"


def _run_resolver(command: list[str], coordinates: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=FETCH_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise JarFetchError(f"Could not fetch {', '.join(coordinates)}: no answer from {MAVEN_CENTRAL} "
                            f"within {FETCH_TIMEOUT_S} s") from None
    except OSError as error:
        raise JarFetchError(f"Could not fetch {', '.join(coordinates)}: {command[0]} did not start ({error})") from None
