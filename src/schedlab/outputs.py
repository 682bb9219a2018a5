"""Writing the user's output files safely: never onto an input, never over an existing file
unless asked (``--force``), never half a file.

Every file schedlab writes for a user (SWF from ``workload generate/convert``, per-job and
time-series tables, reports, exported tables) goes through `check_output` before any work
and through `atomic_output` when written: the content goes to a temporary file in the same
folder, renamed over the target only once complete, so an interrupted write leaves the old
file (or nothing), never a truncated one.

``-`` as a path means standard output (the Unix convention): the content is written whole to
stdout once complete, in the format a path without suffix would get (CSV for tables, plain
SWF, HTML for reports).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from schedlab.errors import ConfigError, OutputError
from schedlab.inputs import is_recorded_input

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FILE_MODE",
    "STDOUT",
    "atomic_output",
    "check_output",
    "is_stdout",
    "same_file",
    "write_atomic",
]

STDOUT = "-"  # the path that means standard output

_UMASK = os.umask(0o022)
os.umask(_UMASK)  # (read once: the only portable way to know it)
FILE_MODE = 0o666 & ~_UMASK  # what open() gives a new file; mkstemp gives 0600


def is_stdout(path: str | os.PathLike[str] | None) -> bool:
    """True when ``path`` is ``-``: write to standard output."""
    return path is not None and os.fspath(path) == STDOUT


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when ``a`` and ``b`` name one file (links and relative paths resolved)."""
    pa, pb = Path(a), Path(b)
    try:
        if pa.exists() and pb.exists():
            return os.path.samefile(pa, pb)
    except OSError:
        pass
    return pa.expanduser().resolve() == pb.expanduser().resolve()


def check_output(
    path: str | os.PathLike[str],
    *,
    option: str,
    force: bool = False,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> Path:
    """``path`` if it may be written: not one of ``inputs``, new unless ``force``, in a folder.

    ``inputs`` may hold model specs or None (ignored): only existing files are compared.
    Writing onto an input is refused even with ``force``: the input would be lost.
    ``-`` (standard output) is always accepted.
    """
    if is_stdout(path):
        return Path(STDOUT)
    target = Path(path).expanduser()
    if is_recorded_input(target):
        raise OutputError(option, str(path), "is an input of this command; write to another file")
    for source in inputs:
        if source is None:
            continue
        if Path(source).is_file() and same_file(target, source):
            raise OutputError(
                option, str(path), "is an input of this command; write to another file"
            )
    if target.is_dir():
        raise OutputError(option, str(path), "is a folder; give a file name")
    if target.exists() and not force:
        raise OutputError(option, str(path), "already exists; add --force to replace it")
    if not target.parent.is_dir():
        raise OutputError(option, str(path), f"folder {target.parent} does not exist")
    return target


@contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` on success.

    The temporary name keeps the suffix (writers that pick a format by suffix still work).
    On any error the temporary file is removed and ``path`` is left as it was. For ``-`` the
    complete content is copied to standard output instead of renamed. A file this command
    has read (`schedlab.inputs`) is never replaced, whatever the caller checked before.
    """
    if is_stdout(path):
        with _stdout_output() as piped:
            yield piped
        return
    target = Path(path)
    if is_recorded_input(target):
        raise OutputError("output", str(path), "is an input of this command; write to another file")
    fd, tmp = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=f".tmp{''.join(target.suffixes)}"
    )
    os.close(fd)
    try:
        os.chmod(tmp, FILE_MODE)  # mkstemp makes it 0600; give what open() would
        yield Path(tmp)
        if is_recorded_input(target):  # read while the output was being made
            raise OutputError(
                "output", str(path), "is an input of this command; write to another file"
            )
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def _stdout_output() -> Iterator[Path]:
    """A temporary file whose complete content goes to stdout (nothing on an error)."""
    fd, tmp = tempfile.mkstemp(prefix="schedlab-stdout.")
    os.close(fd)
    try:
        yield Path(tmp)
        sys.stdout.flush()
        with open(tmp, "rb") as fh:
            shutil.copyfileobj(fh, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_atomic(path: str | os.PathLike[str], data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (see the module)."""
    if is_stdout(path):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    with atomic_output(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
        if fsync:
            fh.flush()
            os.fsync(fh.fileno())


TABLE_SUFFIXES = (".csv", ".parquet", ".pq")


def check_table_path(path: str | os.PathLike[str], option: str = "path") -> Path:
    """A path a table can be written to: known extension, existing folder (or ``-``,
    standard output, as CSV)."""
    p = Path(path)
    if is_stdout(path):
        return p
    if p.suffix.lower() not in TABLE_SUFFIXES:
        raise ConfigError(option, str(path), ["FILE.csv", "FILE.parquet"])
    if not p.parent.is_dir():
        raise ConfigError(option, str(path), "a file in an existing directory")
    return p


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``frame`` as .csv or .parquet (chosen by the extension), whole or not at all."""
    p = check_table_path(path)
    with atomic_output(p) as tmp:
        if is_stdout(p) or p.suffix.lower() == ".csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)
