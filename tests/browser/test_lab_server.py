"""LabServer: a token-less JupyterLab on a free port that leaves no process behind.

No browser here: the REST API is enough to start a kernel and to check that
`LabServer.stop` ends the server and the kernel, so a failed browser test
cannot leave a JupyterLab or a kernel (with a live cluster inside) running.
"""

from __future__ import annotations

import json
import urllib.request

import psutil
import pytest

from lab_server import LabServer, LabServerError

pytestmark = pytest.mark.slow


def call(server: LabServer, path: str, method: str = "GET", body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url(path), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read() or b"{}")


def test_serves_a_private_root_without_token_and_stops_its_kernels(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "hello.txt").write_text("hi")
    server = LabServer(root, tmp_path / "jupyter")
    try:
        server.start()
        assert [item["name"] for item in call(server, "api/contents")["content"]] == ["hello.txt"]
        call(server, "api/kernels", "POST", {"name": "python3"})   # no token, no XSRF cookie
        process = psutil.Process(server.process.pid)
        kernels = [p for p in process.children(recursive=True) if "ipykernel" in " ".join(p.cmdline())]
        assert kernels, "the kernel is not a child of the server"
        # The settings that keep toasts off the page were written where the server reads them.
        assert (tmp_path / "jupyter/user-settings/@jupyterlab/apputils-extension/"
                "notification.jupyterlab-settings").exists()
    finally:
        server.stop()
    assert not process.is_running()
    assert not [k for k in kernels if k.is_running()], "a kernel outlived its server"
    assert "Shutting down on /api/shutdown request" in server.log_tail(200)


def test_a_server_that_cannot_start_fails_with_the_end_of_its_log(tmp_path):
    server = LabServer(tmp_path / "no-such-directory", tmp_path / "jupyter")
    with pytest.raises(LabServerError, match="did not start") as failure:
        server.start(timeout_s=60, attempts=1)
    assert "no-such-directory" in str(failure.value)
    assert server.process is None
