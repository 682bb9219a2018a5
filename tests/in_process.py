"""``schedlab ARGS`` in the test's own process, through the console entry point (errors as
one line, every file read recorded as an input), without monkeypatch: hypothesis tests call
it many times within one function-scoped fixture."""

from __future__ import annotations

import sys

import pytest

from schedlab.cli import main


def main_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``schedlab ARGS``. Anything but a SystemExit (a
    traceback) propagates and fails the test."""
    saved = sys.argv
    sys.argv = ["schedlab", *args]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = saved
    captured = capsys.readouterr()
    return code, captured.out, captured.err
