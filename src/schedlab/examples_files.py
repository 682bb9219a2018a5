"""The example sweep and platform files shipped inside the package (``schedlab example``).

They live in ``schedlab/examples/`` so an installed copy has them; the repository's
``examples/`` folder links to the same files.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable

from schedlab.errors import ConfigError

__all__ = ["example_header", "example_names", "example_text"]


def _folder() -> Traversable:
    return resources.files("schedlab") / "examples"


def example_names() -> list[str]:
    """Names of the shipped examples (file names without ``.toml``), sorted."""
    return sorted(
        entry.name.removesuffix(".toml")
        for entry in _folder().iterdir()
        if entry.name.endswith(".toml")
    )


def example_text(name: str) -> str:
    """The text of example ``name`` (``sweep``, ``platform-dirac``, ...)."""
    names = example_names()
    if name.removesuffix(".toml") not in names:
        raise ConfigError("example", name, names)
    return (_folder() / f"{name.removesuffix('.toml')}.toml").read_text(encoding="utf-8")


def example_header(name: str) -> str:
    """The first paragraph of example ``name``'s leading comment, on one line: what the
    file is, for `schedlab example`'s listing (each file opens with one sentence)."""
    lines: list[str] = []
    for line in example_text(name).splitlines():
        text = line.strip()
        if not text.startswith("#") or (lines and not text.lstrip("#").strip()):
            break
        lines.append(text.lstrip("#").strip())
    return " ".join(line for line in lines if line)
