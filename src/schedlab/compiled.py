"""Whether the compiled extensions may run. ``SCHEDLAB_PURE_PYTHON`` set to anything but ""
or "0" asks for the pure-Python twin of each one that has a twin (the availability profile,
the event queue, and so the kernel's loop, which needs the C queue): to compare them, or to
time the fallback a machine without a C compiler gets. One rule, read by each part that
chooses (`schedlab.platform`, `engine.queue`) and by ``schedlab --version``
(`schedlab.about`)."""

from __future__ import annotations

import os

__all__ = ["pure_python_forced"]


def pure_python_forced() -> bool:
    """True when the user asked for the pure-Python twins (module docstring)."""
    return os.environ.get("SCHEDLAB_PURE_PYTHON", "") not in ("", "0")
