"""``minikafka up`` prints the bootstrap line when ready and stops cleanly on SIGTERM."""

import os
import re
import signal
import socket
import subprocess
import sys

import pytest


@pytest.mark.live
def test_up_prints_bootstrap_servers_and_stops_on_sigterm(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "minikafka.cli", "up", "--brokers", "2", "--controllers", "1",
         "--data-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    try:
        line = process.stdout.readline().strip()
        match = re.fullmatch(r"bootstrap\.servers=(127\.0\.0\.1:\d+),(127\.0\.0\.1:\d+)", line)
        assert match, line
        host, port = match.group(1).split(":")
        socket.create_connection((host, int(port)), timeout=5).close()   # a broker listens
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert (tmp_path / "broker-1" / ".kafka_cleanshutdown").exists()   # a clean, controlled stop


def _up(tmp_path, *args):
    return subprocess.Popen(
        [sys.executable, "-m", "minikafka.cli", "up", "--data-dir", str(tmp_path), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


@pytest.mark.live
def test_up_with_overrides_and_explicit_ids_serves_them_as_static_broker_configs(tmp_path):
    process = _up(tmp_path, "--broker-ids", "0,1", "--controller-ids", "3000",
                  "--override", "log.retention.ms=60000", "--override", "replica.lag.time.max.ms=9000",
                  "--override", "acme.custom=yes")
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("bootstrap.servers="), process.stderr.read()
        bootstrap = line.split("=", 1)[1]
        from minikafka.commands import tool_commands
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            tool_commands.run_named("configs", ["--bootstrap-server", bootstrap, "--describe", "--entity-type",
                                        "brokers", "--entity-name", "0", "--all"])
        described = out.getvalue()
        assert re.search(r"log\.retention\.ms=60000 sensitive=false synonyms=\{STATIC_BROKER_CONFIG:"
                         r"log\.retention\.ms=60000", described), described
        assert re.search(r"replica\.lag\.time\.max\.ms=9000 sensitive=false synonyms=\{"
                         r"STATIC_BROKER_CONFIG:replica\.lag\.time\.max\.ms=9000", described), described
        properties = (tmp_path / "config" / "broker-0.properties").read_text()
        assert "node.id=0" in properties and "acme.custom=yes" in properties
        assert "3000@127.0.0.1:" in properties
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        printed = process.stderr.read()
        assert "  log.retention.ms=60000" in printed and "  replica.lag.time.max.ms=9000" in printed
        assert "note (sandbox): minikafka does not define acme.custom" in printed
    finally:
        if process.poll() is None:
            process.kill()


KAFKA = "minikafka: org.apache.kafka.common.config.ConfigException: "


# Kafka 4.3.1's kafka-server-start.sh printed the same exceptions (after its log prefix) and
# exited with 1; a key without '=' is an empty value there too.
@pytest.mark.parametrize("args, expected, code", [
    (["--override", "num.partitions=0"],
     KAFKA + "Invalid value 0 for configuration num.partitions: Value must be at least 1", 1),
    (["--override", "log.segment.bytes=big"],
     KAFKA + "Invalid value big for configuration log.segment.bytes: Not a number of type INT", 1),
    (["--override", "log.retention.ms"],
     KAFKA + "Invalid value  for configuration log.retention.ms: Not a number of type LONG", 1),
    (["--override", "compression.type=zip"],
     KAFKA + "Invalid value zip for configuration compression.type: String must be one of: "
             "uncompressed, zstd, lz4, snappy, gzip, producer", 1),
    (["--override", "replica.fetch.wait.max.ms=40000"],
     "minikafka: java.lang.IllegalArgumentException: requirement failed: replica.socket.timeout.ms "
     "should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts", 1),
    (["--broker-ids", "2147483648"],
     KAFKA + "Invalid value 2147483648 for configuration broker.id: Not a number of type INT", 1),
    (["--override", "node.id=7"], "minikafka up: node.id cannot be overridden here", 2),
    (["--broker-ids", "0,x"], "--broker-ids takes comma-separated integer node ids", 2),
    (["--broker-ids", "1,1"], "--broker-ids must list distinct node ids", 2),
    (["--brokers", "2", "--broker-ids", "0,1"], "argument --broker-ids: not allowed with argument --brokers", 2),
    (["--broker-ids", "0,1", "--controller-ids", "5", "--combined"],
     "minikafka up: combined=True makes controllers of brokers, but [5] is not a broker id", 2),
])
def test_up_refuses_bad_overrides_and_ids_and_writes_nothing(tmp_path, args, expected, code):
    process = _up(tmp_path, *args)
    out, err = process.communicate(timeout=60)
    assert process.returncode == code
    assert expected in err and out == ""
    assert not any(tmp_path.iterdir())                   # nothing formatted, nothing written
