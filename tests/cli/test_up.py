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
