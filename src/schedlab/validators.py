"""Input checks shared by every layer: a value is what its option allows, or a `ConfigError`
naming the option, the value and what is allowed.

Models, platform files, policies, meta-schedulers and the CLI all check numbers the same
way: a bool is never a number (``true`` is not a count of 1), NaN is never in range, an int
beyond the float range is refused instead of overflowing. Each check words what is allowed
from its bounds; a call site whose message users (and tests) already know passes its own
``allowed``.

Lowest import layer: stdlib, numpy and `schedlab.errors` only.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from schedlab.errors import ConfigError

__all__ = [
    "expand_user",
    "MAX_MEMORY_MIB",
    "MAX_SEED",
    "MAX_TIME",
    "check_fraction",
    "check_int",
    "check_number",
    "check_seconds",
    "check_seed",
    "is_finite",
    "is_int",
    "is_number",
    "parse_memory_mib",
]

MAX_SEED = 2**63 - 1  # numpy takes any int >= 0; a stored seed must fit an int64 column
# The end of time (s): at 1e15 s float64 still resolves 1/8 s, so a duration added to an
# instant keeps its value; no instant of a simulation may pass it. The same value as
# `workload.job.MAX_TIME`, here so that the layers below `workload` (`platform`) bound
# their times by it too.
MAX_TIME = 1e15

Allowed = str | Iterable[str]


def is_int(value: object) -> bool:
    """True for ints (numpy's too), never for bools."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def is_number(value: object) -> bool:
    """True for real numbers a float can hold (ints and floats, numpy's too; inf and NaN
    included), never for bools or strings, nor for an int beyond the float range."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_):
        return False
    try:
        float(value)
    except OverflowError:  # e.g. 10**400
        return False
    return True


def is_finite(value: object) -> bool:
    """True for a finite real number (`is_number`, neither inf nor NaN)."""
    return is_number(value) and math.isfinite(float(value))  # type: ignore[arg-type]


def check_int(
    option: str,
    value: object,
    *,
    low: int = 0,
    high: int | None = None,
    allowed: Allowed | None = None,
) -> int:
    """``value`` as an int in ``low``..``high`` (no upper bound when None), else ConfigError.

    Default wording: ``an integer >= LOW``, or ``an integer in LOW..HIGH`` (HIGH with
    thousands separators).
    """
    if allowed is None:
        allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high:,}"
    if not is_int(value):
        raise ConfigError(option, value, allowed)
    number = int(value)  # type: ignore[call-overload]
    if number < low or (high is not None and number > high):
        raise ConfigError(option, value, allowed)
    return number


def check_number(
    option: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    inf: bool = False,
    allowed: Allowed | None = None,
) -> float:
    """``value`` as a float in [``low``, ``high``] (``open_low``: (low, high]), else
    ConfigError. NaN is always refused, infinities unless ``inf``.

    Default wording: ``a number >= LOW`` (``> LOW``, `` (inf allowed)``), or ``a number in
    [LOW, HIGH]`` (``(LOW, HIGH]``), or ``a number``.
    """
    if allowed is None:
        allowed = _number_text(low, high, open_low, inf)
    if not is_number(value):
        raise ConfigError(option, value, allowed)
    x = float(value)  # type: ignore[arg-type]
    if math.isnan(x) or (math.isinf(x) and not inf):
        raise ConfigError(option, value, allowed)
    if low is not None and (x < low or (open_low and x == low)):
        raise ConfigError(option, value, allowed)
    if high is not None and x > high:
        raise ConfigError(option, value, allowed)
    return x


def _number_text(low: float | None, high: float | None, open_low: bool, inf: bool) -> str:
    if low is not None and high is not None:
        return f"a number in {'(' if open_low else '['}{low:g}, {high:g}]"
    if low is not None:
        bound = f"{'>' if open_low else '>='} {low:g}"
        return f"a number {bound}" + (" (inf allowed)" if inf else "")
    return "a number"


def check_seed(
    option: str, value: object, *, high: int | None = None, allowed: Allowed | None = None
) -> int:
    """A seed: an int >= 0 (at most ``high`` when given). Default wording: ``an integer seed
    >= 0``, or ``an integer in 0..HIGH``."""
    if allowed is None:
        allowed = "an integer seed >= 0" if high is None else f"an integer in 0..{high}"
    return check_int(option, value, low=0, high=high, allowed=allowed)


def check_fraction(option: str, value: object, allowed: Allowed = "a number in [0, 1]") -> float:
    """A probability, share or fraction: a number in [0, 1]."""
    return check_number(option, value, low=0.0, high=1.0, allowed=allowed)


def check_seconds(
    option: str,
    value: object,
    *,
    positive: bool = False,
    high: float | None = None,
    allowed: Allowed | None = None,
) -> float:
    """A duration: a finite number of seconds >= 0 (> 0 when ``positive``; at most
    ``high`` when given). Default wording: ``a number of seconds >= 0`` (``> 0``), or ``a
    number of seconds in [0, HIGH]`` (``(0, HIGH]``)."""
    if allowed is None:
        if high is None:
            allowed = f"a number of seconds {'>' if positive else '>='} 0"
        else:
            allowed = f"a number of seconds in {'(' if positive else '['}0, {high:g}]"
    return check_number(option, value, low=0.0, high=high, open_low=positive, allowed=allowed)


# Memory sizes (MiB, the unit of every memory in a run). Slurm (``--mem``, ``RealMemory``,
# ``ReqMem``, TRES ``mem=``) writes K, M, G, T with M the default; PBS (``mem=256gb``) writes
# b, kb, mb, gb, tb. Both mean powers of 1024, so here K, M, G and T do too, whether
# followed by B, iB or nothing; a bare B is bytes. 2**40 MiB (1 EiB) is far beyond any node
# or job, and a sum of them over 2**31 nodes stays a finite float.
MAX_MEMORY_MIB = float(2**40)
_MEMORY = re.compile(
    r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(?:([kmgt])(?:i?b)?|(b))?\s*", re.IGNORECASE
)
_MIB_PER_UNIT = {None: 1.0, "k": 1 / 1024, "m": 1.0, "g": 1024.0, "t": 1024.0**2}


def parse_memory_mib(value: object, where: str, *, positive: bool = True) -> float:
    """A memory size in MiB from a number (MiB) or a string with a unit (``"256G"``,
    ``"512M"``, ``"1.5T"``, ``"64GiB"``, ``"4096"``; K, M, G, T are 1024-based and
    case-insensitive, B alone is bytes), in (0, `MAX_MEMORY_MIB`] (``positive``) or
    [0, `MAX_MEMORY_MIB`]; else a `ConfigError` naming ``where``. One parser for platform
    files and importers, so "256G" means the same everywhere."""
    allowed = (
        f"a memory size {'>' if positive else '>='} 0 and at most 2**40 MiB (1 EiB): a number "
        'of MiB or a string such as "256G", "512M" or "1.5T" (K, M, G, T: 1024-based; B or '
        "iB may follow)"
    )
    if isinstance(value, str):
        found = _MEMORY.fullmatch(value) if len(value) <= 100 else None
        if found is None:
            raise ConfigError(where, value, allowed)
        unit = found.group(2).lower() if found.group(2) else None
        per = 1 / 1024**2 if found.group(3) else _MIB_PER_UNIT[unit]
        mib = float(found.group(1)) * per
    elif is_number(value):
        mib = float(value)  # type: ignore[arg-type]
    else:
        raise ConfigError(where, value, allowed)
    above_zero = mib > 0 if positive else mib >= 0
    if not (above_zero and mib <= MAX_MEMORY_MIB):  # NaN fails too
        raise ConfigError(where, value, allowed)
    return mib


def expand_user(where: str, value: str, allowed: str) -> Path:
    """``Path(value).expanduser()``, a ConfigError for ``~user`` of an unknown user."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        raise ConfigError(where, value, f"{allowed} (no such home folder)") from None
