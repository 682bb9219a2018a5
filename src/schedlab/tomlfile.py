"""Reading the TOML files users write (sweeps, platforms), with errors that name the file,
the line and its text: one reader for every kind of file. The file is read as every input is
(`schedlab.inputs.read_input`): a regular file only (a FIFO or a device is one line, not a
hang), under the input size limit, a UTF-8 byte-order mark dropped, and recorded so that no
output of the command may replace it."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError
from schedlab.inputs import read_input

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["read_toml"]


def read_toml(path: str | os.PathLike[str], what: str) -> tuple[dict[str, Any], Path, str]:
    """The parsed table of the TOML file at ``path``, its folder (for relative names in it)
    and its name as the user gave it. ``what`` ("sweep file", "platform file") names the
    kind of file in the errors. The folder is where the path names the file, a symbolic link
    not followed: ``examples/sweep.toml`` (a link into the package) reads its traces from
    beside ``examples/``."""
    source = os.fspath(path)
    file = Path(os.path.expanduser(source) if "\0" not in source else source)  # ~unknown: as is

    def fail(message: str) -> ConfigError:
        return ConfigError(what, source, f"an existing, readable .toml file ({message})")

    raw = read_input(file, kind=f"a {what}", error=fail)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(what, source, f"UTF-8 text ({exc.reason})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _syntax_error(what, source, text, exc) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise ConfigError(f"{what} {source}", "(unparsable)", f"valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(
            f"{what} {source}", "(unparsable)", "valid TOML without deeply nested arrays"
        ) from None
    return data, Path(os.path.abspath(file)).parent, source


def _syntax_error(what: str, source: str, text: str, exc: Exception) -> ConfigError:
    """ConfigError naming the file, the line (and its text) of a TOML syntax error."""
    message = str(exc)
    lineno = getattr(exc, "lineno", None)  # Python >= 3.14 sets it
    lines = text.splitlines()
    if lineno is None:
        found = re.search(r"line (\d+)", message)
        if found:
            lineno = int(found.group(1))
        elif "end of document" in message:
            lineno = max(len(lines), 1)
        else:
            return ConfigError(f"{what} {source}", "(unparsable)", f"valid TOML: {message}")
    line_text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    return ConfigError(f"{source} line {lineno}", line_text, f"valid TOML: {message}")
