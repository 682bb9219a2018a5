"""What ``schedlab --version`` says: the version, and which compiled parts run (the
availability profile, the SWF tokenizer, the kernel's event queue and loop). Importing this never
imports numpy, typer or rich, so that the answer costs no more than the interpreter's
start."""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from schedlab.compiled import pure_python_forced
from schedlab.platform import profile_note
from schedlab.version import __version__
from schedlab.workload.cparser import load_c_parser, parser_note_for


def _built(name: str) -> bool:
    """Whether the engine's extension ``name`` was compiled, told from the files: importing
    ``schedlab.engine`` would import numpy."""
    folder = Path(__file__).parent / "engine"
    return any((folder / f"{name}{suffix}").is_file() for suffix in EXTENSION_SUFFIXES)


def event_queue_note() -> str:
    """Which event queue the general kernel runs (`engine.queue`)."""
    if not _built("_cevents"):
        return "event queue: heapq (the C extension was not compiled)"
    if pure_python_forced():
        return "event queue: heapq (SCHEDLAB_PURE_PYTHON is set)"
    return "event queue: C extension"


def kernel_loop_note() -> str:
    """Which loop the general kernel runs (`engine.compiled_loop`): the C one needs the C
    event queue too."""
    if not _built("_ckernel"):
        return "kernel loop: Python (the C extension was not compiled)"
    if not _built("_cevents"):
        return "kernel loop: Python (the C event queue was not compiled)"
    if pure_python_forced():
        return "kernel loop: Python (SCHEDLAB_PURE_PYTHON is set)"
    return "kernel loop: C extension"


def version_line() -> str:
    return (
        f"schedlab {__version__}; {profile_note()}; "
        f"{parser_note_for(load_c_parser() is not None)}; {event_queue_note()}; "
        f"{kernel_loop_note()}"
    )
