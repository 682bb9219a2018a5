"""A minimal Chrome DevTools Protocol driver for headless Chromium (tests only).

It starts Debian's chromium with the flags this machine needs (no sandbox as root, no
background networking on a closed network), opens a page, collects script errors and
evaluates JavaScript. Only websocket-client is needed.

Two things make it work across Chromium versions and leave nothing behind:

* Origin. Chromium 111+ rejects DevTools WebSocket connections whose ``Origin`` header it
  does not allow (403), and websocket-client sends ``Origin: http://host:port`` by
  default.
  The client sends no Origin (``suppress_origin``), which Chromium accepts from
  non-browser clients, and the browser is also started with ``--remote-allow-origins=*``
  for versions that check differently.
* Cleanup. Chromium is a tree of processes (zygotes, renderers, GPU and network services)
  plus crashpad handlers that detach into their own sessions. Each carries a unique tag
  (in its environment or in its profile folder's name, see `browser_pids`); ``close``
  terminates the process group, then kills whatever still carries the tag. ``close`` runs
  whenever construction fails and on leaving the ``with`` block, whatever the test did; on
  Linux the browser also gets a parent-death signal, so a killed test run takes its
  browser with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--remote-allow-origins=*",
    "--remote-debugging-port=0",
    "--window-size=1280,2000",
]
TAG_VARIABLE = "SCHEDLAB_CDP_TAG"
PROFILE_PREFIX = "schedlab-chromium-"
_PR_SET_PDEATHSIG = 1


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """The Chromium executable; a skip where it is not installed, a failure on CI (where
    .ci/run installs it), a skip without websocket-client (the test extras have it)."""
    import pytest

    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing on CI: .ci/run should have installed it")
        pytest.skip("chromium not installed (apt-get install chromium)")
    pytest.importorskip("websocket", reason="websocket-client is in the test extras")
    return path


# Each <figure class="chart">: its name, the size of its SVG and how many marks it draws
CHARTS_JS = """(() => Array.from(document.querySelectorAll('figure.chart')).map(f => {
     const svg = f.querySelector('svg');
     const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
     return {name: f.dataset.chart, width: box.width, height: box.height,
             marks: svg ? svg.querySelectorAll('path, rect, use').length : 0};
   }))()"""
# How many src/href attributes point to the network (a page must need none)
EXTERNAL_JS = """Array.from(document.querySelectorAll('[src],[href]'))
     .map(e => e.getAttribute('src') || e.getAttribute('href'))
     .filter(u => /^(https?:)?\\/\\//.test(u)).length"""


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the test process dies (Linux only)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def browser_pids(tag: str) -> list[int]:
    """Live processes of the browser tagged ``tag`` (Linux /proc).

    Crashpad handlers keep the environment (``SCHEDLAB_CDP_TAG=tag``); the other processes
    rewrite theirs for their process titles but keep the profile folder, named after the
    tag, on their command line.
    """
    marker = f"{TAG_VARIABLE}={tag}".encode()
    folder = f"{PROFILE_PREFIX}{tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read()
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:
            continue
        if state != b"Z" and (folder in cmdline or marker in environ.split(b"\0")):
            found.append(int(entry))
    return found


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, executable: str, *, tag: str | None = None) -> None:
        self.tag = tag or uuid.uuid4().hex
        self.profile = tempfile.mkdtemp(prefix=f"{PROFILE_PREFIX}{self.tag}-")
        self.ws: Any = None
        self._id = 0
        self.events: list[dict[str, Any]] = []
        env = {**os.environ, TAG_VARIABLE: self.tag}
        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        try:
            self._connect()
        except BaseException:
            self.close()
            raise

    def _connect(self) -> None:
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        page = next(t for t in targets if t.get("type") == "page")
        import websocket

        self.ws = websocket.create_connection(
            page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True
        )

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command; returns its result (events seen meanwhile are kept)."""
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self._id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, event: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(event)
            self.events.append(json.loads(self.ws.recv()))

    def open(self, url: str) -> None:
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(domain)
        self.events.clear()
        self.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluation failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self) -> list[str]:
        """Uncaught exceptions, console.error calls and error log entries so far."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                out.append(json.dumps(params.get("args", []))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(params["entry"].get("text", ""))
        return out

    def close(self) -> None:
        """Stop the whole browser: the process group, then anything still tagged."""
        try:
            if self.ws is not None:
                self.ws.close()
        except Exception:  # noqa: BLE001 - the browser goes away regardless
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        deadline = time.monotonic() + 10
        while True:
            left = browser_pids(self.tag)
            if not left:
                break
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
