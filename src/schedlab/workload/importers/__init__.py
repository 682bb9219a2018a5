"""Job logs that are not SWF: Slurm ``sacct``, PBS/Torque/OpenPBS accounting, CSV
(docs/importers.md). Each importer builds a `Workload` as `read_swf` does: the same
columns, the same skipped-by-reason counts, errors naming the file, line and field.

A WORKLOAD (a command's argument, a sweep's ``path``, `load_workload`) may say its
format with a prefix, else the content tells it (`sniff_format`)::

    slurm:PATH                 sacct --parsable2 output (importers.slurm)
    pbs:PATH                   PBS accounting records (importers.pbs)
    csv:PATH                   a CSV whose header names the columns (importers.csvlog)
    csv:PATH?KEY=COLUMN,...    ... with the columns named (same as --columns KEY=COLUMN,...)
    swf:PATH                   SWF, whatever the content looks like

A name that is an existing file is always taken as a path, prefix-like or not. Any of
these files may be gzipped (recognised by its first bytes, whatever its name).
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from schedlab.errors import ConfigError, printable
from schedlab.workload.importers.csvlog import COLUMN_KEYS, parse_columns, read_csv_log
from schedlab.workload.importers.pbs import RECORD, read_pbs
from schedlab.workload.importers.slurm import read_sacct
from schedlab.workload.job import Workload

__all__ = [
    "COLUMN_KEYS",
    "FORMATS",
    "LogSource",
    "import_log",
    "log_format",
    "parse_columns",
    "parse_source",
    "read_trace",
    "sniff_format",
]

FORMATS = ("swf", "slurm", "pbs", "csv")
# Bytes read to tell a format by its first line.
_HEAD_BYTES = 1 << 16
_NUMERIC = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class LogSource:
    """A WORKLOAD that names a file: its format (None: told by the content), its path and,
    for a CSV, the columns given in ``csv:PATH?KEY=COLUMN,...``."""

    format: str | None
    path: str
    columns: dict[str, str] | None = None

    @property
    def prefix(self) -> str:
        """What came before the path (``"slurm:"``, ...; ``""`` without a prefix)."""
        return "" if self.format is None else f"{self.format}:"

    @property
    def suffix(self) -> str:
        """``"?KEY=COLUMN,..."`` of a CSV with columns, else ``""``."""
        if not self.columns:
            return ""
        return "?" + ",".join(f"{k}={v}" for k, v in self.columns.items())


def _exists(path: str) -> bool:
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def parse_source(text: str) -> LogSource:
    """Split a WORKLOAD into format, path and CSV columns (module docstring)."""
    head, sep, rest = text.partition(":")
    fmt = head.lower()
    if not sep or fmt not in FORMATS or not rest or _exists(text):
        return LogSource(None, text)
    if fmt == "csv" and "?" in rest and not _exists(rest):
        path, _, spec = rest.partition("?")
        return LogSource(fmt, path, parse_columns(spec, option="csv:PATH?KEY=COLUMN"))
    return LogSource(fmt, rest)


def _first_line(path: str) -> str | None:
    """The first non-blank line of file ``path`` ("" if none), None if it cannot be read.
    Lines end at "\\n" only (a U+2028 or form feed in a value does not end one)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # (a FIFO would block the open; the reader refuses it by name)
        with open(path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as gz:
                head = gz.read(_HEAD_BYTES)
    except (OSError, EOFError, ValueError, zlib.error):
        return None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    return next((ln.strip() for ln in text.split("\n") if ln.strip()), "")


def _looks_like_swf(path: str) -> bool:
    """True for a readable file whose first line is an SWF comment or numbers only."""
    line = _first_line(path)
    if not line:
        return False
    return line.startswith(";") or all(_NUMERIC.fullmatch(t) for t in line.split())


def sniff_format(path: str) -> str:
    """The format of file ``path`` told by its first non-blank line: ``;`` or numbers only
    -> swf; ``|``-separated with a JobID column -> slurm; ``MM/DD/YYYY HH:MM:SS;X;...``
    -> pbs; other text with ``,``, ``;`` or tabs -> csv. Anything else (or an unreadable
    file) -> swf, whose reader then says what is wrong."""
    line = _first_line(path)
    if not line or line.startswith(";"):
        return "swf"
    cells = [c.strip().lower() for c in line.split("|")]
    if len(cells) > 1 and ("jobid" in cells or "jobidraw" in cells):
        return "slurm"
    if RECORD.fullmatch(line):
        return "pbs"
    if all(_NUMERIC.fullmatch(token) for token in line.split()):
        return "swf"
    if any(d in line for d in (",", ";", "\t")):
        return "csv"
    return "swf"


def log_format(source: str) -> str:
    """The format of the file WORKLOAD ``source`` names: its prefix, else `sniff_format`."""
    src = parse_source(source)
    return src.format or sniff_format(src.path)


def import_log(
    path: str,
    fmt: str,
    *,
    max_procs: int | None = None,
    columns: Mapping[str, str] | None = None,
) -> tuple[Workload, list[str]]:
    """Read a log of format ``fmt`` (``slurm``, ``pbs`` or ``csv``): the `Workload` and the
    notes worth telling the user (how the machine size was found)."""
    if fmt == "slurm":
        return read_sacct(path, max_procs=max_procs)
    if fmt == "pbs":
        return read_pbs(path, max_procs=max_procs)
    if fmt == "csv":
        return read_csv_log(path, columns=columns, max_procs=max_procs)
    raise ConfigError("log format", fmt, [f for f in FORMATS if f != "swf"])


def read_trace(
    source: str,
    *,
    max_procs: int | None = None,
    columns: Mapping[str, str] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> Workload:
    """Read the trace or log that WORKLOAD ``source`` names (module docstring); SWF goes
    to `read_swf`. ``columns`` (``--columns``) only for a CSV; ``on_note`` receives what
    the user should know (e.g. a machine size inferred from the log)."""
    src = parse_source(source)
    if columns and src.columns:
        raise ConfigError(
            "--columns", dict(columns), f"not with columns in the workload too ({source})"
        )
    fmt = src.format or sniff_format(src.path)
    wanted = dict(columns or src.columns or {})
    if wanted and src.format is None and fmt == "swf" and not _looks_like_swf(src.path):
        fmt = "csv"  # (empty, corrupt, unreadable: the CSV reader says what is wrong with it)
    if wanted and fmt != "csv":
        raise ConfigError("--columns", wanted, f"only for a CSV log ({source} is {fmt})")
    if fmt == "swf":
        from schedlab.workload.swf import read_swf

        return read_swf(src.path, max_procs=max_procs)
    workload, notes = import_log(src.path, fmt, max_procs=max_procs, columns=wanted or None)
    if on_note is not None:
        for text in notes:
            on_note(f"{printable(os.fspath(src.path))}: {text}")
    return workload
