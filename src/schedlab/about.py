"""What ``schedlab --version`` says: the version, and which compiled parts run (the
availability profile, the SWF tokenizer, the kernel's event queue). Importing this never
imports numpy, typer or rich, so that the answer costs no more than the interpreter's
start."""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from schedlab.compiled import pure_python_forced
from schedlab.platform import profile_note
from schedlab.version import __version__
from schedlab.workload.cparser import load_c_parser, parser_note_for


def event_queue_note() -> str:
    """Which event queue the general kernel runs (`engine.queue`), told from the files:
    importing ``schedlab.engine`` would import numpy."""
    folder = Path(__file__).parent / "engine"
    if not any((folder / f"_cevents{suffix}").is_file() for suffix in EXTENSION_SUFFIXES):
        return "event queue: heapq (the C extension was not compiled)"
    if pure_python_forced():
        return "event queue: heapq (SCHEDLAB_PURE_PYTHON is set)"
    return "event queue: C extension"


def version_line() -> str:
    return (
        f"schedlab {__version__}; {profile_note()}; "
        f"{parser_note_for(load_c_parser() is not None)}; {event_queue_note()}"
    )
