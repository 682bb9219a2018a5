"""What `schedlab example`, `schedlab policies` and the help texts say (issue 23, items 3
and 7): whole sentences, never a description cut mid-sentence, and no pointer to something
an installed schedlab does not have (internal specs, module docstrings, docs/ or examples/
files of the repository)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import click
import pytest
import typer
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.cli.common import first_sentence
from schedlab.examples_files import example_header, example_names, example_text
from schedlab.grid.registry import available_meta_schedulers, meta_scheduler_class
from schedlab.schedulers.registry import available_policies, policy_class

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# what only the repository (or its authors) has
INTERNAL = re.compile(r"SPEC \d|module doc|docs/|examples/|README|src/schedlab")
SWEEPS = ("grid-sweep", "quick-sweep", "sweep", "tdcs-sweep")


def _cli(*args: str, columns: int = 80) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("One. Two.", "One."),
        (
            "A study (Caron et al. (LIP RR-2005-13)) over\n    two lines. Next.",
            "A study (Caron et al. (LIP RR-2005-13)) over two lines.",
        ),
        ("CPA: ``prepare`` plans.\n\nMore.", "CPA: `prepare` plans."),
        ("No period at the end", "No period at the end"),
        ("FS0.5: starts nothing within 0.5 s. Then", "FS0.5: starts nothing within 0.5 s."),
        ("", ""),
    ],
)
def test_first_sentence(text: str, sentence: str) -> None:
    assert first_sentence(text) == sentence


def _registered() -> Iterator[tuple[str, type]]:
    for name in available_policies():
        yield name, policy_class(name)
    for name in available_meta_schedulers():
        yield name, meta_scheduler_class(name)


@pytest.mark.parametrize(("name", "cls"), list(_registered()))
def test_registry_descriptions_are_whole_sentences(name: str, cls: type) -> None:
    """`schedlab policies` and `schedlab grid meta` show each class's first sentence."""
    shown = first_sentence(cls.__doc__ or "")
    assert shown.endswith("."), (name, shown)
    assert not INTERNAL.search(shown), (name, shown)


@pytest.mark.parametrize("columns", [80, 120])
def test_policies_and_meta_listings_cut_nothing(columns: int) -> None:
    for args in (["policies"], ["grid", "meta"]):
        text = _cli(*args, columns=columns)
        assert "…" not in text and not INTERNAL.search(text), text
        cells = " ".join(re.findall(r"│([^│\n]*)│\s*$", text, flags=re.M))
        flat = " ".join(cells.split())
        for _, cls in _registered():
            if args == ["policies"] and cls.__module__.startswith("schedlab.grid"):
                continue
            if args == ["grid", "meta"] and not cls.__module__.startswith("schedlab.grid"):
                continue
            assert first_sentence(cls.__doc__ or "") in flat


@pytest.mark.parametrize("name", example_names())
def test_example_files_point_at_nothing_an_install_lacks(name: str) -> None:
    """Every example opens with one whole sentence (the listing shows it), names no file of
    the repository, and a sweep writes under results/ beside itself (never ../)."""
    text = example_text(name)
    assert not INTERNAL.search(text), name
    assert "../" not in text, name
    sentence = first_sentence(example_header(name))
    assert sentence.endswith(".") and len(sentence) <= 100, sentence
    assert f"schedlab example {name} >" in text  # how to save it, as printed
    data = tomllib.loads(text)
    if name in SWEEPS:
        assert data["out"] == f"results/{name}"


def test_example_listing_shows_whole_sentences_at_80_columns() -> None:
    text = _cli("example")
    assert "…" not in text
    flat = " ".join(" ".join(re.findall(r"│([^│\n]*)│\s*$", text, flags=re.M)).split())
    for name in example_names():
        assert first_sentence(example_header(name)) in flat


def test_quick_sweep_has_seeds_enough_for_an_interval() -> None:
    """Three seeds: `schedlab results` needs three values for an interval."""
    from schedlab.experiments.analysis import MIN_INTERVAL_N

    seeds = tomllib.loads(example_text("quick-sweep"))["grid"]["seed"]
    assert len(seeds) >= MIN_INTERVAL_N


def test_grid_sweep_needs_no_platform_file() -> None:
    data = tomllib.loads(example_text("grid-sweep"))
    assert {w["platform"] for w in data["workloads"]} == {"builtin:dirac"}


def _commands() -> Iterator[tuple[str, click.Command]]:
    def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from walk(sub, f"{path} {name}".strip())

    yield from walk(typer.main.get_command(app), "")


def test_help_texts_point_at_nothing_an_install_lacks() -> None:
    """Every command's help and every option's help (what `--help` prints)."""
    found = []
    for path, command in _commands():
        texts = [command.help or "", command.short_help or ""]
        texts += [getattr(p, "help", None) or "" for p in command.params]
        found += [(path, t) for t in texts if INTERNAL.search(t)]
    assert not found


def test_example_help_shows_the_flow_and_the_traces_hint() -> None:
    text = _cli("example", "--help")
    assert "schedlab example quick-sweep > quick-sweep.toml" in text
    assert "--traces DIR" in text and "SCHEDLAB_TRACES" in text
    assert max(len(line) for line in text.splitlines()) <= 80
