"""Start-up: `schedlab --version` answers without building the command line (issue 26), and
says what the full command line says."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from in_process import main_in_process

HEAVY = ("numpy", "typer", "rich", "click", "pandas", "pyarrow", "matplotlib", "scipy", "dask")


def test_version_alone_imports_nothing_heavy(capsys: pytest.CaptureFixture[str]) -> None:
    code = (
        "import json, sys; sys.argv = ['schedlab', '--version']\n"
        "from schedlab.__main__ import main\n"
        "main()\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:]))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *HEAVY], capture_output=True, text=True, check=True
    )
    version, loaded = out.stdout.strip().splitlines()
    assert json.loads(loaded) == []
    assert version.startswith("schedlab ") and "availability profile:" in version
    # the same line as the command line's own --version (given with another option)
    code, stdout, _ = main_in_process(capsys, "-q", "--version")
    assert code == 0 and stdout.strip() == version
