"""The test browser never outlives its test: failed connections, failing tests, killed runs."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from cdp import Browser, browser_pids, require_chromium

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent


@pytest.fixture
def executable() -> str:
    return require_chromium()


def _kill_tagged(tag: str) -> list[int]:
    """Kill (and return) whatever is left of the browser ``tag``: the test's own safety net."""
    left = browser_pids(tag)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


def _gone_within(tag: str, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while browser_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return browser_pids(tag)


def test_refused_devtools_connection_closes_the_browser(
    executable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 403 on the DevTools WebSocket (Chromium's Origin check) stops the browser it started."""
    import websocket

    def refuse(*args: object, **kwargs: object) -> None:
        raise websocket.WebSocketBadStatusException(
            "Handshake status %d %s", 403, "Forbidden", {}, b"Rejected an incoming WebSocket"
        )

    monkeypatch.setattr(websocket, "create_connection", refuse)
    tag = uuid.uuid4().hex
    try:
        with pytest.raises(websocket.WebSocketBadStatusException):
            Browser(executable, tag=tag)
        assert browser_pids(tag) == []
    finally:
        _kill_tagged(tag)


def test_failing_browser_test_leaves_no_chromium(executable: str, tmp_path: Path) -> None:
    """A browser test that fails (in a pytest run of its own) leaves no Chromium process."""
    tag = uuid.uuid4().hex
    test_file = tmp_path / "test_fails_in_browser.py"
    test_file.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(HERE)!r})
            from cdp import Browser

            def test_fails():
                with Browser({executable!r}, tag={tag!r}) as browser:
                    browser.open("about:blank")
                    assert browser.evaluate("1 + 1") == 3
            """
        )
    )
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            check=False,
        )
        assert run.returncode == 1, run.stdout + run.stderr
        assert "1 failed" in run.stdout, run.stdout
        assert browser_pids(tag) == []
    finally:
        _kill_tagged(tag)


def test_killed_test_process_takes_its_browser_along(executable: str, tmp_path: Path) -> None:
    """SIGKILL of the process that drives the browser ends every browser process within 5 s."""
    tag = uuid.uuid4().hex
    script = tmp_path / "drive.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys, time
            sys.path.insert(0, {str(HERE)!r})
            from cdp import Browser
            browser = Browser({executable!r}, tag={tag!r})
            browser.open("about:blank")
            print("open", flush=True)
            time.sleep(120)
            """
        )
    )
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
        assert browser_pids(tag), "the browser should be running before the kill"
        proc.kill()
        proc.wait(timeout=10)
        assert _gone_within(tag, 5.0) == []
    finally:
        proc.kill()
        proc.wait()
        _kill_tagged(tag)
