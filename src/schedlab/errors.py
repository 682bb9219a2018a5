"""The SchedlabError tree: every error a user can cause, with a message that names the culprit.

Library code raises these and never prints or exits; the CLI turns them into one line on
stderr and exit code 2 (DESIGN.md section 5).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def printable(text: str) -> str:
    """``text`` with every non-printable character escaped as repr escapes it (``\\x1b``,
    ``\\r``): user input shown in a message never steers the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


QUOTE_LIMIT = 200  # characters of a user's text an error quotes


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` made `printable`, cut to about ``limit`` characters: an error line quotes
    the culprit, not a 5,000-digit number or a whole corrupt line."""
    shown = printable(text)
    if len(shown) <= limit:
        return shown
    return f"{shown[: limit - 40]}...({len(shown) - limit + 40:,} more characters)"


def shown(value: object, *, as_repr: bool = False) -> str:
    """``value`` as an error quotes it (`quote`); an integer too long for Python to print
    (over 4,300 digits) is described by its size instead."""
    try:
        text = repr(value) if as_repr else str(value)
    except ValueError:
        size = int(value.bit_length() * 0.30103) + 1 if isinstance(value, int) else 0
        text = f"<an integer of about {size:,} digits>"
    return quote(text)


class SchedlabError(Exception):
    """Base of every error schedlab raises on purpose.

    Its subclasses take their own arguments; ``__reduce__`` rebuilds them from those, so an
    error raised in a worker process (a sweep, a validation) crosses back whole instead of
    breaking the pool that unpickles it.
    """

    _fields: tuple[str, ...] = ()

    def __reduce__(self) -> str | tuple[Any, ...]:
        if not self._fields:
            return super().__reduce__()
        return (_rebuild, (type(self), {f: getattr(self, f) for f in self._fields}))


def _rebuild(cls: type[SchedlabError], fields: dict[str, object]) -> SchedlabError:
    return cls(**fields)


class WorkloadError(SchedlabError):
    """A workload file or model spec is unusable: names the file, line, field and value."""

    _fields = ("path", "message", "line", "field", "value")

    def __init__(
        self,
        path: str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
        value: str | None = None,
    ) -> None:
        self.path = path
        self.message = message
        self.line = line
        self.field = field
        self.value = value
        where = path if line is None else f"{path}:{line}"
        what = message
        if field is not None:
            what = f"field {field}: {message}"
        if value is not None:
            what = f"{what} (got '{shown(value)}')"
        super().__init__(f"{where}: {what}")


class ConfigError(SchedlabError):
    """An option has a value outside what is allowed: names the option, value and choices."""

    _fields = ("option", "value", "allowed")

    def __init__(self, option: str, value: object, allowed: str | Iterable[str]) -> None:
        self.option = option
        self.value = value
        if not isinstance(allowed, str):
            allowed = ", ".join(str(a) for a in allowed)
        self.allowed = allowed
        if value is None:  # nothing was given where something is needed
            super().__init__(f"missing {option}: {allowed}")
        else:
            super().__init__(
                f"invalid value {shown(value, as_repr=True)} for {option}; allowed: {allowed}"
            )


class OutputError(SchedlabError):
    """An output file cannot be written as asked: names the option, the path and why.

    Raised before anything is written: onto an input, over an existing file without
    ``--force``, into a missing folder.
    """

    _fields = ("option", "path", "message")

    def __init__(self, option: str, path: str, message: str) -> None:
        self.option = option
        self.path = path
        self.message = message
        super().__init__(f"{option} {path}: {message}")


class PolicyError(SchedlabError):
    """A policy returned a decision the engine cannot apply (names the job and the rule)."""


class InvariantError(SchedlabError):
    """A simulation broke an invariant of SPEC section 1 (only raised with checking on)."""


class PluginWarning(UserWarning):
    """A third-party plug-in (an entry point of ``schedlab.policies`` or
    ``schedlab.meta_schedulers``) is unusable and skipped: a warning, not an error, so that
    one broken package leaves schedlab and the other plug-ins working (`registry`)."""
