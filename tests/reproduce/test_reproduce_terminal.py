"""`schedlab reproduce` prints for a terminal (issue 23, item 5): tables sized to COLUMNS,
split rather than cut when too wide, every cell shown; the Markdown stays in tables.md;
"wrote ..." goes to stderr and `-q` silences it. On the cheapest reproduction, tdcs
--quick (its runs are cached in OUT after the first call)."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


def _invoke(out: Path, columns: int, *front: str) -> tuple[str, str]:
    """The command in its own process, as a user runs it: the terminal width is what
    COLUMNS says, whatever earlier tests of this process did to the consoles."""
    args = [*front, "reproduce", "tdcs", "--quick", "--out", str(out), "--workers", "2"]
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run(
        [sys.executable, "-m", "schedlab", *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    return done.stdout, done.stderr


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tdcs") / "reproduce-tdcs"


@pytest.fixture(scope="module")
def at_80(out: Path) -> tuple[str, str]:
    return _invoke(out, 80)


def _cells(out: Path) -> list[str]:
    cells = []
    for path in sorted(out.glob("table*.csv")):
        with path.open(newline="") as f:
            cells += [cell for row in csv.reader(f) for cell in row[1:]]
    return cells


@pytest.mark.parametrize("columns", [80, 120])
def test_no_printed_line_is_wider_than_the_terminal(
    out: Path, at_80: tuple[str, str], columns: int
) -> None:
    """Every line of stdout and stderr fits; every table cell of the CSV files is printed
    whole (a table too wide is split, each part repeating the row names; a table with a
    cell longer than the terminal, the claims' sentences, is printed as one record per
    row, its cells wrapped between words only); the wider terminal is used."""
    stdout, stderr = at_80 if columns == 80 else _invoke(out, columns)
    lines = (stdout + stderr).splitlines()
    assert max(len(line) for line in lines) <= columns
    printed = " ".join(stdout.split())  # (a cell wrapped between words reads whole)
    assert all(" ".join(cell.split()) in printed for cell in _cells(out))
    # a cell that fits the terminal is never wrapped
    assert all(cell in stdout for cell in _cells(out) if len(cell) <= 30)
    assert "(1 of 2)" in stdout  # the 7 columns of the first table need more than 120
    if columns == 120:
        assert max(len(line) for line in stdout.splitlines()) > 100


def test_markdown_stays_in_the_files_and_wrote_goes_to_stderr(
    out: Path, at_80: tuple[str, str]
) -> None:
    stdout, stderr = at_80
    assert "|---|" not in stdout and "wrote" not in stdout
    markdown = (out / "tables.md").read_text()
    assert "|---|" in markdown and max(len(line) for line in markdown.splitlines()) > 120
    said = " ".join(stderr.split())  # (wrapped at the terminal's width)
    assert said.startswith(f"wrote {out}: rows.json, tables.md, table1.csv")
    assert said.endswith(
        "tdcs_components.svg, tdcs_horizon.svg, tdcs_ablations.svg, tdcs_repeated.svg"
    )


def test_quiet_silences_the_wrote_lines(out: Path, at_80: tuple[str, str]) -> None:
    stdout, stderr = _invoke(out, 80, "-q")
    assert stderr == ""
    assert stdout == at_80[0]


def test_the_notes_name_no_file_the_wheel_lacks(at_80: tuple[str, str]) -> None:
    """An installed copy has no docs/ or examples/ folder: the notes say what to run instead
    (issue 23, item 7)."""
    stdout, stderr = at_80
    assert not re.search(r"docs/|examples/|SPEC \d|module doc", stdout + stderr)
    assert "schedlab example platform-tdcs" in stdout
