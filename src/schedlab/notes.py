"""Remarks for the user on stderr ("schedlab: note: ..."), silenced by ``--quiet``.

One channel for the library and the CLI, so ``--quiet`` silences every remark (the missing C
profile, a trace with several partitions, DBF without deadlines) while errors and results
still show. Notes never go to stdout, which ``--json`` and ``-o -`` keep clean.
"""

from __future__ import annotations

import sys

from schedlab.errors import printable

_quiet = False


def set_quiet(quiet: bool) -> None:
    """Silence (or restore) the notes of this process."""
    global _quiet
    _quiet = quiet


def is_quiet() -> bool:
    """True when notes, progress bars and "wrote FILE" lines are silenced."""
    return _quiet


def one_line(text: str) -> str:
    """``text`` on one line, control characters shown escaped (never sent to the terminal)."""
    return printable(" | ".join(part.strip() for part in str(text).splitlines() if part.strip()))


def note(text: str) -> None:
    """One line on stderr, unless quiet."""
    if not _quiet:
        sys.stderr.write(f"schedlab: note: {one_line(text)}\n")
