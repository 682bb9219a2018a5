"""Whether the compiled SWF tokenizer loads, told without importing numpy: `schedlab
--version` says which parser runs and must answer at once (`workload.swf` uses it)."""

from __future__ import annotations

from collections.abc import Callable


def load_c_parser() -> Callable[[bytes], bytearray | None] | None:
    """The C tokenizer (job lines to float64 rows), or None when it was not compiled (no
    compiler at install time): numpy.loadtxt then does the job."""
    try:
        from schedlab.workload._cswf import parse_jobs
    except ImportError:
        return None
    return parse_jobs


def parser_note_for(compiled: bool) -> str:
    """What ``schedlab --version`` says of the SWF parser."""
    if compiled:
        return "SWF parser: C extension"
    return "SWF parser: numpy.loadtxt (the C extension was not compiled)"
