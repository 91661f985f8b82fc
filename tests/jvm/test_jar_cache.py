"""Fetching Maven artifacts into the cache: stamps, bad input, and one-line failures."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from minikafka.jvm import jar_cache
from minikafka.jvm.jar_cache import JarFetchError, cache_root, cached_jars, fetch_jars, jar_dir


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("MINIKAFKA_JARS", str(tmp_path / "jars"))
    return tmp_path / "jars"


def test_the_cache_is_outside_the_repository_and_overridable(monkeypatch, tmp_path):
    monkeypatch.delenv("MINIKAFKA_JARS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "minikafka" / "jars"
    monkeypatch.setenv("MINIKAFKA_JARS", str(tmp_path / "mine"))
    assert jar_dir("kafka-4.3.1") == tmp_path / "mine" / "kafka-4.3.1"


def test_a_complete_fetch_is_found_by_its_stamp(cache):
    directory = cache / "clients"
    directory.mkdir(parents=True)
    (directory / "b.jar").write_bytes(b"")
    (directory / "a.jar").write_bytes(b"")
    assert cached_jars("clients", ["g:a:1"]) is None  # jars without a stamp: an interrupted fetch
    (directory / "COORDINATES").write_text("g:a:1\n")
    assert cached_jars("clients", ["g:a:1"]) == [directory / "a.jar", directory / "b.jar"]
    assert cached_jars("clients", ["g:a:2"]) is None  # other coordinates: fetch again


def test_a_cached_set_is_returned_without_resolving(cache, monkeypatch):
    directory = cache / "clients"
    directory.mkdir(parents=True)
    (directory / "a.jar").write_bytes(b"")
    (directory / "COORDINATES").write_text("g:a:1\n")
    monkeypatch.setattr(jar_cache, "_resolve", lambda *args: pytest.fail("resolved although cached"))
    assert fetch_jars("clients", ["g:a:1"]) == [directory / "a.jar"]


def test_a_failed_fetch_leaves_nothing_that_looks_complete(cache, monkeypatch):
    def failing(coordinates, target, root):
        (target / "half.jar").write_bytes(b"")
        raise JarFetchError("Could not fetch g:a:1 with Maven: boom")

    monkeypatch.setattr(jar_cache, "_resolve", failing)
    with pytest.raises(JarFetchError, match="boom"):
        fetch_jars("clients", ["g:a:1"], quiet=True)
    assert cached_jars("clients", ["g:a:1"]) is None
    assert not jar_dir("clients").exists()
    assert [path.name for path in cache.iterdir()] == [".clients.lock"]


@pytest.mark.parametrize("coordinates, message", [
    ([], "No Maven coordinates given"),
    (["org.apache.kafka:kafka-tools"], "Invalid Maven coordinate 'org.apache.kafka:kafka-tools'"),
    (["a:b:c:d:e"], "Invalid Maven coordinate"),
    (["g:a:1</version><evil/>"], "Invalid Maven coordinate"),
])
def test_bad_coordinates_are_refused_before_anything_runs(cache, coordinates, message):
    with pytest.raises(ValueError, match=message):
        fetch_jars("set", coordinates)
    assert not cache.exists()


def test_a_bad_set_name_is_refused(cache):
    with pytest.raises(ValueError, match="Invalid jar set name '../up'"):
        fetch_jars("../up", ["g:a:1"])


def test_the_pom_lists_every_coordinate():
    pom = ElementTree.fromstring(jar_cache._pom(["org.apache.kafka:kafka_2.13:4.3.1", "g:a:1"]))
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    found = [tuple(d.find(f"m:{tag}", ns).text for tag in ("groupId", "artifactId", "version"))
             for d in pom.iterfind("m:dependencies/m:dependency", ns)]
    assert found == [("org.apache.kafka", "kafka_2.13", "4.3.1"), ("g", "a", "1")]


def test_the_ivy_module_lists_every_coordinate():
    module = ElementTree.fromstring(jar_cache._ivy_module(["org.apache.kafka:kafka-tools:4.3.1"]))
    dependency = module.find("dependencies/dependency")
    assert (dependency.get("org"), dependency.get("name"), dependency.get("rev")) == (
        "org.apache.kafka", "kafka-tools", "4.3.1")


def test_maven_failures_become_one_sentence():
    not_found = (
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies "
        "(default-cli) on project jars: Could not resolve dependencies for project minikafka.local:jars:pom:1: "
        "Could not find artifact g:a:jar:9 in central (https://repo.maven.apache.org/maven2) -> [Help 1]\n"
        "[ERROR] \n[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n"
    )
    assert jar_cache._maven_reason(not_found) == (
        "Could not find artifact g:a:jar:9 in central (https://repo.maven.apache.org/maven2) -> [Help 1]")
    offline = "[ERROR] Plugin x could not be resolved: ... : Unknown host repo.maven.apache.org: Name or service\n"
    assert jar_cache._maven_reason(offline).startswith(
        "repo.maven.apache.org could not be reached (no network, or a proxy is needed).")


def test_ivy_failures_become_one_sentence():
    output = ("\t\t::::::::::::::::::::::::::::::::::::::::::::::\n\t\t::          UNRESOLVED DEPENDENCIES         ::\n"
              "\t\t:: g#a;9: not found\n\t\t::::::::::::::::::::::::::::::::::::::::::::::\n")
    assert jar_cache._ivy_reason(output) == "g:a:9 not found"
    assert jar_cache._ivy_reason("Server access error (java.net.UnknownHostException: repo1.maven.org)") == (
        "repo1.maven.org could not be reached (no network, or a proxy is needed)")


def test_without_maven_and_pyspark_the_line_says_what_to_install(cache, monkeypatch):
    monkeypatch.setenv("MINIKAFKA_JAR_RESOLVER", "ivy")
    monkeypatch.setattr(jar_cache, "_pyspark_ivy_jar", lambda: None)
    with pytest.raises(JarFetchError) as error:
        fetch_jars("set", ["g:a:1"], quiet=True)
    assert str(error.value) == (
        "Could not fetch g:a:1: neither Maven (mvn) nor PySpark's Ivy is installed. "
        "Install one with: sudo apt-get install maven, or pip install pyspark")
