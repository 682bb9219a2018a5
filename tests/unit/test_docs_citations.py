"""Papers are cited by authors and venue, never by an internal number, and the docs stand on
their own (issue 13, point 4): no file under docs/ and no ``--help`` text of any command says
"paper 001", "(004)", "SPEC 5" or "../shared", and every relative link of docs/*.md and
README.md points to a file of the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from schedlab.cli import app

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"

# The five papers were numbered 000-004 inside the project; a user never sees what the
# numbers mean. A number counts when it stands alone: "0.000", "10 000" or "1,001" do not.
PAPER_NUMBER = re.compile(
    r"(?i)\bpapers?\s+\d{3}\b"  # paper 001, papers 000, 002
    r"|(?<![\d.,])(?<!\d )\b00[0-4]\b(?![.,]?\d)"  # (004), 001's, seed 004
)
SPEC_REFERENCE = re.compile(r"\bSPEC\b")  # SPEC 5, SPEC section 4, SPEC.md, the SPEC's
OUTSIDE_REPO = re.compile(r"\.\./shared")
FORBIDDEN = {"paper number": PAPER_NUMBER, "SPEC": SPEC_REFERENCE, "../shared": OUTSIDE_REPO}

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def offences(text: str) -> list[str]:
    """Every forbidden match in ``text``, as "kind: matched text"."""
    return [f"{kind}: {m.group(0)!r}" for kind, rx in FORBIDDEN.items() for m in rx.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "dbf (paper 000), pps (paper 002)",
        "Paper 003: absolute priorities",
        "paper 001's protocol: 16 runs",
        "run the experiments of papers 000, 002, 004 and 001",
        "hlw (004), dirac (001)",
        "Caron et al. (seed 004 sections 3 and 5.1)",
        "the figure SPEC quotes",
        "(SPEC 5: a parameter)",
        "as SPEC section 4 states it",
        "see SPEC.md",
        "schedlab run ../shared/workloads/KTH.swf.gz",
    ],
)
def test_the_patterns_catch_every_form_met_in_the_repository(text: str) -> None:
    assert offences(text), text


@pytest.mark.parametrize(
    "text",
    [
        "| +0.000 | 0.001 | 0.004 |",
        "10 000 jobs, 100 000 jobs, 1,000 jobs",
        "latency_s = 0.001",
        "N'Takpé and Suter (ComPAS 2016), Caron et al. (LIP RR-2005-13)",
        "specification, a model spec such as lublin:jobs=1000",
    ],
)
def test_the_patterns_leave_numbers_and_citations_alone(text: str) -> None:
    assert offences(text) == [], text


def doc_files() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*") if p.is_file())


def test_docs_name_no_paper_number_spec_or_outside_folder() -> None:
    files = doc_files()
    assert any(p.name == "papers.md" for p in files)
    found = [
        f"{path.relative_to(REPO)}:{line}: {offence}"
        for path in files
        for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for offence in offences(text)
    ]
    assert found == [], "\n".join(found)


def command_paths() -> list[tuple[str, ...]]:
    """Every command and group of the CLI, as the argument path that reaches it."""
    paths: list[tuple[str, ...]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        paths.append(path)
        # typer's groups (its own copy of click's) have ``commands``, name -> command
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return paths


def test_every_command_is_walked() -> None:
    paths = command_paths()
    for expected in [(), ("reproduce",), ("grid", "run"), ("tdcs",), ("workload", "info")]:
        assert expected in paths


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "schedlab")
def test_help_names_no_paper_number_spec_or_outside_folder(path: tuple[str, ...]) -> None:
    # wide enough that rich does not wrap a phrase across its box borders
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    text = re.sub(r"[\s│╭╮╰╯─]+", " ", result.output)
    assert "Usage" in text
    assert offences(text) == [], text


def relative_links(markdown: Path) -> list[str]:
    """Targets of the Markdown links and images of a file, other than URLs and anchors."""
    text = markdown.read_text(encoding="utf-8")
    return [
        target
        for target in LINK.findall(text)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")
    ]


def test_relative_links_point_into_the_repository() -> None:
    pages = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
    checked, broken = 0, []
    for page in pages:
        for target in relative_links(page):
            resolved = (page.parent / target.split("#", 1)[0]).resolve()
            checked += 1
            if not resolved.is_relative_to(REPO.resolve()) or not resolved.exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert checked > 5  # the README's documentation list alone has more
    assert broken == [], "\n".join(broken)


def test_a_broken_link_is_seen(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](https://example.org) [anchor](#top) [doc](other.md#part) ![fig](figures/a.svg)"
    )
    assert relative_links(page) == ["other.md#part", "figures/a.svg"]
