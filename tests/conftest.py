"""Shared test configuration.

* Modules in tests/ (e.g. ``reference``, ``workloads``) are importable.
* Inputs are never written: every real trace in ../shared/workloads and every committed
  test input (scenarios, golden tables, examples) has the same SHA-256 after the session
  as before it, whatever the commands under test did (issue 8: outputs never overwrite
  inputs).
"""

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))

from workloads import SHARED_WORKLOADS  # noqa: E402

_INPUT_FOLDERS = (
    SHARED_WORKLOADS,
    TESTS / "scenarios",
    TESTS / "golden" / "data",
    TESTS.parent / "examples",
)


def _input_digests() -> dict[str, str]:
    digests = {}
    for folder in _INPUT_FOLDERS:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digests[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


@pytest.fixture(scope="session", autouse=True)
def inputs_are_never_written() -> Iterator[None]:
    before = _input_digests()
    yield
    after = _input_digests()
    changed = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    assert not changed, f"test inputs were modified, created or removed: {changed}"
