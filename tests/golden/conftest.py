"""Golden tests' command-line switch: ``--refresh-golden`` rewrites the committed CSVs.

Give the golden folder on the command line so that pytest loads this file before it parses
the options::

    python3 -m pytest tests/golden --refresh-golden

A refreshing run rewrites every golden CSV it reaches and then fails each such test on
purpose, so a refresh is never mistaken for a pass; rerun without the flag and review the
diff (``git diff tests/golden/data``) before committing.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--refresh-golden",
        action="store_true",
        default=False,
        help="Rewrite tests/golden/data/*.csv from the current code (the tests then fail).",
    )


@pytest.fixture
def refresh_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run was started with --refresh-golden."""
    return bool(request.config.getoption("--refresh-golden", default=False))
