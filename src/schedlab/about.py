"""What ``schedlab --version`` says: the version, and which compiled parts run (the
availability profile, the SWF tokenizer). Importing this never imports numpy, typer or rich,
so that the answer costs no more than the interpreter's start."""

from __future__ import annotations

from schedlab.platform import profile_note
from schedlab.version import __version__
from schedlab.workload.cparser import load_c_parser, parser_note_for


def version_line() -> str:
    return (
        f"schedlab {__version__}; {profile_note()}; "
        f"{parser_note_for(load_c_parser() is not None)}"
    )
