"""Where the real traces are: ../shared/workloads beside the checkout (never in the repo)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_WORKLOADS = Path(__file__).resolve().parents[1].parent / "shared" / "workloads"


def trace_path(name: str) -> Path:
    """Path of a trace in ../shared/workloads, or skip the test with the reason."""
    path = SHARED_WORKLOADS / name
    if not path.exists():
        pytest.skip(f"real trace {name} not available: {SHARED_WORKLOADS} is absent")
    return path
