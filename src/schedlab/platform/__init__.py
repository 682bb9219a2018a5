"""Platforms: the availability profile shared by the reservation-based policies.

Conservative backfilling spends nearly all its time in the profile, so ``Profile`` is the C
type of ``_cprofile`` (an optional extension, built by setup.py when a compiler is there)
whenever it was compiled. The pure-Python class of ``profile.py`` is the fallback, and the
oracle the C type is tested against (same API, same results bit for bit). Setting
``SCHEDLAB_PURE_PYTHON`` to anything but "" or "0" forces it (read once, at import).

``PyProfile`` is always the Python class, ``CProfile`` the C type or None, and
``USING_C_PROFILE`` says which one ``Profile`` is. `profile_note` says it in words, and
`warn_once_if_python_profile` tells the user once per process when the C type is missing:
conservative and DBF are then about 4x slower, which nobody should find out by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from schedlab.compiled import pure_python_forced
from schedlab.platform.profile import Profile as PyProfile
from schedlab.platform.profile import split_due as py_split_due


def _load_c_profile() -> type[PyProfile] | None:
    try:
        from schedlab.platform._cprofile import Profile as c_profile
    except ImportError:  # not compiled (no compiler at install time)
        return None
    return c_profile


def _load_split_due() -> Callable[[list[int], Sequence[float], float], tuple[list[int], float]]:
    try:
        from schedlab.platform._cprofile import split_due as c_split_due
    except ImportError:  # not compiled, or compiled before split_due existed
        return py_split_due
    return c_split_due


CProfile = _load_c_profile()
USING_C_PROFILE = CProfile is not None and not pure_python_forced()

if TYPE_CHECKING:
    from schedlab.platform.profile import Profile
else:
    Profile = CProfile if USING_C_PROFILE else PyProfile
split_due = _load_split_due() if USING_C_PROFILE else py_split_due

__all__ = [
    "CProfile",
    "Profile",
    "PyProfile",
    "USING_C_PROFILE",
    "profile_note",
    "split_due",
    "warn_once_if_python_profile",
]

_warned = False


def profile_note() -> str:
    """Which availability profile runs, and why."""
    if USING_C_PROFILE:
        return "availability profile: C extension"
    if CProfile is not None:
        return "availability profile: pure Python (SCHEDLAB_PURE_PYTHON is set)"
    return (
        "availability profile: pure Python: the C extension was not compiled (no C compiler "
        "at install time); conservative and dbf run about 4x slower. Install a C compiler "
        "(e.g. gcc) and reinstall schedlab to build it"
    )


def warn_once_if_python_profile() -> None:
    """One line on stderr, once per process, when the C profile is missing (not when the
    user forced the Python one)."""
    global _warned
    if _warned or CProfile is not None:
        return
    _warned = True
    from schedlab.notes import note

    note(profile_note())
