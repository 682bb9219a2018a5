"""``schedlab --help`` (and ``schedlab`` alone), written without building the command line.

Building it imports typer and rich, about three times what the answer costs, for a page that
only lists the options and commands. So the page's text is kept here and laid out at the
terminal's width in plain Python; tests/unit/test_startup.py checks that every option and
command below is the command line's own, with the same words, so this list cannot drift.
A command's own help (``schedlab run --help``) is typer's, as before.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence

USAGE = "schedlab [OPTIONS] COMMAND [ARGS]..."
DESCRIPTION = "Replay job traces and workload models through batch scheduling policies."
# (long name, short name, metavar, help), in the command line's order
OPTIONS: tuple[tuple[str, str, str, str], ...] = (
    ("--version", "", "", "Print the version and which availability profile and SWF parser run."),
    (
        "--quiet",
        "-q",
        "",
        "No notes, progress bars or 'wrote FILE' lines on stderr; errors and results still "
        "show. May also be given after the command.",
    ),
    (
        "--max-input-size",
        "",
        "SIZE",
        "The most a file read may hold once decompressed, e.g. 8G (default 1G, or the "
        "SCHEDLAB_MAX_INPUT_SIZE environment variable): bigger files are refused.",
    ),
    ("--install-completion", "", "", "Install completion for the current shell."),
    (
        "--show-completion",
        "",
        "",
        "Show completion for the current shell, to copy it or customize the installation.",
    ),
    ("--help", "-h", "", "Show this message and exit."),
)
# (command, the first paragraph of its help), in `schedlab --help`'s order
COMMANDS: tuple[tuple[str, str], ...] = (
    ("run", "Replay WORKLOAD through one policy and report the metrics."),
    (
        "policies",
        "List the registered policies and their parameters, and which run on node types.",
    ),
    ("example", "Print an example sweep or platform file shipped with schedlab."),
    (
        "demo",
        "Compare FCFS, EASY and conservative backfilling on a generated workload (no download).",
    ),
    (
        "sweep",
        "Run every configuration of a sweep file; finished runs are skipped on a re-run.",
    ),
    (
        "results",
        "Compare policies across the runs of a results folder (tables with intervals).",
    ),
    (
        "report",
        "Write one self-contained HTML page: tables, charts and every run's configuration.",
    ),
    ("reproduce", "Run a paper's experiments and print its tables next to the published ones."),
    (
        "validate",
        "Check the engine against queueing theory: M/M/c through the general path vs Erlang C.",
    ),
    ("workload", "Inspect, generate and convert workloads."),
    ("grid", "Grids: meta-schedulers over several clusters."),
    (
        "tdcs",
        "Absolute priorities across clusters (dispatchers): Baranov and Tikhomirov "
        "(Computational Technologies 2017).",
    ),
)
_NARROWEST = 40  # below this the boxes would hold a word a line
_HELP_AT_LEAST = 24  # columns of help beside the names, else the help goes under them


def render(width: int | None = None) -> str:
    """The page at ``width`` columns (default: the terminal's, else 80)."""
    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    width = max(width, _NARROWEST)
    lines = ["", f" Usage: {USAGE}", ""]
    lines += [f" {line}" for line in textwrap.wrap(DESCRIPTION, width - 2)]
    lines.append("")
    options = [(long, short, metavar) for long, short, metavar, _ in OPTIONS]
    lines += _panel("Options", options, [help_ for *_, help_ in OPTIONS], width)
    lines += _panel("Commands", [(name,) for name, _ in COMMANDS], [h for _, h in COMMANDS], width)
    return "\n".join(lines) + "\n"


def _panel(
    title: str, names: Sequence[tuple[str, ...]], helps: Sequence[str], width: int
) -> list[str]:
    """A titled box: name columns, then each help wrapped in what is left of the width."""
    widths = [max(len(row[c]) for row in names) for c in range(len(names[0]))]
    used = [w for w in widths if w]
    lead = sum(used) + 2 * len(used)  # each used column and the two spaces after it
    inner = width - 4  # "│ " ... " │"
    stacked = inner - lead < _HELP_AT_LEAST  # too narrow: each help under its names
    indent = 4 if stacked else lead
    out = [f"╭─ {title} " + "─" * max(width - len(title) - 5, 0) + "╮"]
    for row, help_ in zip(names, helps):
        cells = "".join(cell.ljust(w) + "  " for cell, w in zip(row, widths) if w)
        parts = textwrap.wrap(help_, inner - indent, break_long_words=False, break_on_hyphens=False)
        if stacked:
            body = [cells.rstrip()] + [" " * indent + part for part in parts]
        else:
            body = [cells + parts[0]] + [" " * indent + part for part in parts[1:]]
        # a word longer than the box (a narrow terminal) goes past its right edge
        out += [f"│ {line.ljust(inner)} │" if len(line) <= inner else f"│ {line}" for line in body]
    out.append("╰" + "─" * (width - 2) + "╯")
    return out
