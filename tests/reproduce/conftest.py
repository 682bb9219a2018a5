"""The reproductions' tests share one expensive module fixture per file (a quick
reproduction run): each file's tests go to one xdist worker (``--dist loadgroup``, in
pyproject.toml), so the fixture runs once rather than once per worker."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent.name == "reproduce":
            item.add_marker(pytest.mark.xdist_group(item.path.stem))
