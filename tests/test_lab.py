"""`make lab` works as a new reader runs it, root included (CI and containers run as root).

The test runs the Makefile's own target with a free port and a token, waits for the server,
and asks it for a chapter: the notebook's contents, the JupyterLab page that shows it, and a
kernel (the environment's python3) that starts.
"""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

from nbcommon import ROOT

CHAPTER = "notebooks/04_scaled_dot_product.ipynb"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url, method="GET", data=None):
    request = urllib.request.Request(url, method=method, data=data)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read().decode("utf-8")


@pytest.fixture(scope="module")
def lab():
    port, token = _free_port(), "attn-test-token"
    args = (f"LAB_ARGS=--no-browser --ip=127.0.0.1 --port={port} --ServerApp.port_retries=0 "
            f"--ServerApp.token={token} --log-level=WARN")
    proc = subprocess.Popen(["make", "--no-print-directory", "lab", args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            pytest.fail(f"`make lab` exited with {proc.returncode}:\n{proc.stdout.read()[-3000:]}")
        try:
            _get(f"{base}/api/status?token={token}")
            break
        except OSError:
            if time.monotonic() > deadline:
                os.killpg(proc.pid, signal.SIGTERM)
                pytest.fail("JupyterLab did not answer within 120 s")
            time.sleep(0.5)
    yield base, token
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def test_lab_serves_a_chapter(lab):
    base, token = lab
    status, body = _get(f"{base}/api/contents/{CHAPTER}?token={token}")
    model = json.loads(body)
    assert status == 200 and model["type"] == "notebook"
    assert model["content"]["cells"][0]["source"].startswith("# 4. ")
    status, page = _get(f"{base}/lab/tree/{CHAPTER}?token={token}")
    assert status == 200 and "JupyterLab" in page


def test_lab_starts_a_kernel(lab):
    base, token = lab
    status, body = _get(f"{base}/api/kernels?token={token}", method="POST",
                        data=json.dumps({"name": "python3"}).encode())
    kernel = json.loads(body)
    assert status == 201 and kernel["name"] == "python3"
    status, _ = _get(f"{base}/api/kernels/{kernel['id']}?token={token}", method="DELETE")
    assert status == 204
