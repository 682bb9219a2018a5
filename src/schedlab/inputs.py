"""Reading the user's files safely: regular files only, a cap on what a file may expand
to, and a record of every file a command read so that no output can replace one.

Every file schedlab reads for a user (traces, logs, platforms, sweep files, priority,
deadline and service-time tables) goes through `read_input`:

- a device (``/dev/zero``), a FIFO or a socket is refused before it is opened: opening a
  FIFO with no writer would block for ever, and a device never ends;
- the content, decompressed when it starts with the gzip magic bytes, is read as a stream
  and refused once it passes the input size limit (`DEFAULT_LIMIT`, 1 GiB; raised with
  ``schedlab --max-input-size SIZE`` or the ``SCHEDLAB_MAX_INPUT_SIZE`` environment
  variable): a 2 MB gzip bomb is refused after reading what the limit allows, instead of
  exhausting the memory;
- inside a command (`tracking`), the file is recorded; the output guard (`schedlab.outputs`)
  refuses to write onto any recorded file, even with ``--force``. The input set is thus
  what was opened, not a list each command must keep up to date.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

from schedlab.errors import ConfigError, SchedlabError, WorkloadError, printable

__all__ = [
    "DEFAULT_LIMIT",
    "ENV_LIMIT",
    "input_limit",
    "is_recorded_input",
    "parse_size",
    "read_input",
    "record_input",
    "recorded_inputs",
    "set_input_limit",
    "tracking",
]

DEFAULT_LIMIT = 1024**3  # bytes a file may hold once decompressed (1 GiB)
ENV_LIMIT = "SCHEDLAB_MAX_INPUT_SIZE"
_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20

_limit: int | None = None  # set by the command line; None: the environment, else the default
_recorded: set[tuple[int, int]] | None = None  # (device, inode) of the files read; None: off


_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_size(text: str, option: str = "--max-input-size") -> int:
    """Bytes from ``512M``, ``4G``, ``1.5GiB`` or a plain number of bytes (at least 1 KiB)."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if found is None:
        raise ConfigError(option, text, "a size such as 512M, 4G or 1.5GiB (bytes if no unit)")
    value = float(found.group(1)) * _UNITS[found.group(2)]
    if not 1024 <= value <= 2**50:
        raise ConfigError(option, text, "a size between 1K and 1024T")
    return int(value)


def set_input_limit(limit: int | None) -> None:
    """The decompressed size a file may reach (None: back to the environment or default).
    Also exported to the environment, so sweep worker processes read the same limit."""
    global _limit
    _limit = limit
    if limit is not None:
        os.environ[ENV_LIMIT] = str(limit)


def input_limit() -> int:
    """The decompressed size a file may reach: `set_input_limit`, else the environment
    variable ``SCHEDLAB_MAX_INPUT_SIZE``, else `DEFAULT_LIMIT`."""
    if _limit is not None:
        return _limit
    env = os.environ.get(ENV_LIMIT)
    return DEFAULT_LIMIT if not env else parse_size(env, ENV_LIMIT)


@contextmanager
def tracking() -> Iterator[None]:
    """Within: every file read is recorded, and outputs may not replace one (one command).

    Off outside (library use): a script may rewrite a file it read earlier."""
    global _recorded
    saved = _recorded
    _recorded = set()
    try:
        yield
    finally:
        _recorded = saved


def record_input(path: str | os.PathLike[str]) -> None:
    """Mark ``path`` as read by this command (no-op outside `tracking` or if it is gone)."""
    if _recorded is None:
        return
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return
    _recorded.add((st.st_dev, st.st_ino))


def is_recorded_input(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` names a file this command has read (links resolved)."""
    if not _recorded:
        return False
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) in _recorded


def recorded_inputs() -> frozenset[tuple[int, int]]:
    """The (device, inode) pairs read so far in this command (empty outside `tracking`)."""
    return frozenset(_recorded or ())


def _workload_error(where: str) -> Callable[[str], SchedlabError]:
    return lambda message: WorkloadError(where, message)


def read_input(
    path: str | os.PathLike[str],
    *,
    kind: str = "a file",
    where: str | None = None,
    error: Callable[[str], SchedlabError] | None = None,
    limit: int | None = None,
) -> bytes:
    """The content of the regular file ``path``, gunzipped when it starts with the gzip
    magic bytes, without a UTF-8 byte-order mark; recorded as an input of the command.

    ``kind`` ("an SWF file", "a platform file") completes "is a directory, not ...";
    ``where`` is the file as errors name it (default: ``path``, made printable); ``error``
    turns a message into the error to raise (default: `WorkloadError` at ``where``).
    ``limit`` (default `input_limit`) bounds the bytes after decompression.
    """
    name = os.fspath(path)
    where = printable(name) if where is None else where
    fail = error or _workload_error(where)
    cap = input_limit() if limit is None else limit
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise fail("no such file") from None
    except ValueError:  # a NUL character in the name: no file can have it
        raise fail("no such file (the name holds a NUL character)") from None
    except OSError as exc:
        raise fail(f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise fail(f"is a directory, not {kind}")
    if not stat.S_ISREG(st.st_mode):
        raise fail(f"is not a regular file (a device, FIFO or socket); {kind} is read from a file")
    try:
        with open(name, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            if head == _GZIP_MAGIC:
                raw = _gunzip(fh, cap, fail)
            else:  # (sized by the file: read(cap + 1) would reserve the whole cap)
                if st.st_size > cap:
                    raise fail(_too_big(cap))
                raw = fh.read()
                if len(raw) > cap:  # grown since
                    raise fail(_too_big(cap))
    except OSError as exc:
        raise fail(f"cannot read: {exc.strerror or exc}") from None
    record_input(name)
    if raw[:3] == _UTF8_BOM:  # written by some Windows editors; not part of the first line
        raw = raw[3:]
    return raw


def _gunzip(fh: BinaryIO, cap: int, fail: Callable[[str], SchedlabError]) -> bytes:
    """Decompress a gzip stream (several members allowed) to at most ``cap`` bytes."""
    parts: list[bytes] = []
    total = 0
    try:
        with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
            while True:
                block = gz.read(min(_CHUNK * 16, cap + 1 - total))
                if not block:
                    break
                parts.append(block)
                total += len(block)
                if total > cap:
                    raise fail(_too_big(cap, compressed=True))
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise fail(f"corrupt gzip data: {printable(str(exc))}") from None
    return b"".join(parts)


def _too_big(cap: int, *, compressed: bool = False) -> str:
    what = "expands to" if compressed else "holds"
    return (
        f"{what} more than {_human(cap)}, the input size limit; raise it with "
        f"schedlab --max-input-size SIZE (or {ENV_LIMIT}=SIZE) if the file is right"
    )


def _human(n: int) -> str:
    for unit, size in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"
