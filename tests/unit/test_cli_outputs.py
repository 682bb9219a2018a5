"""Every output option of the CLI: refuses its input, refuses an existing file without --force,
replaces it with --force; `workload convert` writes integer fields and an updated header."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from test_cli import assert_one_line_error, invoke, run_main, swf_line, write_swf_text

from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import run_sweep
from schedlab.experiments.store import ResultStore
from schedlab.workload.swf import read_swf

SPEC = "lublin:jobs=200,procs=32,seed=4"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    runs = [RunConfig(workload=SPEC, policy=p, seed=4) for p in ("fcfs", "easy")]
    with ResultStore(root) as store:
        run_sweep(runs, store, workers=1)
    return root


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "in.swf"
    invoke("workload", "generate", SPEC, "-o", str(path))
    return path


def outputs(trace: Path, results: Path, out: Path) -> dict[str, tuple[str, ...]]:
    """One command per output option, writing ``out`` (its extension fits the option)."""
    return {
        "generate -o": ("workload", "generate", SPEC, "-o", str(out.with_suffix(".swf"))),
        "convert": ("workload", "convert", str(trace), str(out.with_suffix(".swf"))),
        "--jobs-out": ("run", str(trace), "--jobs-out", str(out.with_suffix(".csv"))),
        "--timeseries-out": ("run", str(trace), "--timeseries-out", str(out.with_suffix(".csv"))),
        "report -o": ("report", str(results), "-o", str(out.with_suffix(".html"))),
        "results --csv": ("results", str(results), "--csv", str(out.with_suffix(".csv"))),
        "results --markdown": ("results", str(results), "--markdown", str(out.with_suffix(".md"))),
        "results --latex": ("results", str(results), "--latex", str(out.with_suffix(".tex"))),
    }


@pytest.mark.parametrize(
    "option",
    [
        "generate -o",
        "convert",
        "--jobs-out",
        "--timeseries-out",
        "report -o",
        "results --csv",
        "results --markdown",
        "results --latex",
    ],
)
def test_every_output_option_refuses_an_existing_file_without_force(
    option: str,
    trace: Path,
    results: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The file is left byte for byte; --force replaces it."""
    args = outputs(trace, results, tmp_path / "out")[option]
    target = Path(next(a for a in args if a.startswith(str(tmp_path / "out"))))
    target.write_text("the user's precious file\n")
    code, _, err = run_main(monkeypatch, capsys, *args)
    assert_one_line_error(code, None, err, str(target), "already exists", "--force")
    assert target.read_text() == "the user's precious file\n"
    code, _, err = run_main(monkeypatch, capsys, *args, "--force")
    assert code == 0, err
    assert target.read_text() != "the user's precious file\n"


def test_convert_onto_its_own_input_is_refused_even_with_force(
    trace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`workload convert X X` (also as ./X, with --force) exits 2, the input untouched."""
    before = digest(trace)
    spellings = [str(trace), str(trace.parent / "." / trace.name)]
    for spelling in spellings:
        for extra in ((), ("--force",), ("--first", "10", "--force")):
            code, out, err = run_main(
                monkeypatch, capsys, "workload", "convert", str(trace), spelling, *extra
            )
            assert_one_line_error(code, out, err, "is an input of this command")
    assert digest(trace) == before


def test_run_refuses_to_write_its_tables_onto_an_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--jobs-out onto the --deadlines table it reads is refused, even with --force."""
    trace = write_swf_text(tmp_path / "t.swf", [swf_line(1, 0, 10, 1, 20)])
    table = tmp_path / "deadlines.csv"
    table.write_text("job_id,deadline\n1,100\n")
    before = digest(table)
    code, out, err = run_main(
        monkeypatch, capsys, "run", str(trace), "--deadlines", str(table),
        "--jobs-out", str(table), "--force",
    )  # fmt: skip
    assert_one_line_error(code, out, err, "--jobs-out", "is an input")
    assert digest(table) == before
    code, out, err = run_main(
        monkeypatch, capsys, "run", str(trace), "--jobs-out", str(tmp_path / "a.csv"),
        "--timeseries-out", str(tmp_path / "a.csv"),
    )  # fmt: skip
    assert_one_line_error(code, out, err, "is also --jobs-out")


def test_report_refuses_to_write_inside_the_runs_it_reads(
    results: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = results / "catalog.parquet"
    before = digest(target)
    code, out, err = run_main(monkeypatch, capsys, "report", str(results), "-o", str(target))
    assert_one_line_error(code, out, err, "is part of the results folder")
    assert digest(target) == before


def test_convert_writes_integer_fields_updated_counts_and_what_was_applied(
    trace: Path, tmp_path: Path
) -> None:
    """Load scaling gives fractional submits: written rounded down (durations up, never 0);
    MaxJobs/MaxRecords count the jobs written; a `; schedlab:` line says what was done."""
    source = write_swf_text(
        tmp_path / "frac.swf",
        [swf_line(i + 1, 3 * i + 1, 5, 1, 20) for i in range(9)],
    )
    text = source.read_text().replace(
        "; MaxProcs: 4\n", "; MaxJobs: 9\n; MaxRecords: 9\n; MaxProcs: 4\n"
    )
    source.write_text(text)
    target = tmp_path / "out.swf"
    invoke("workload", "convert", str(source), str(target), "--first", "6", "--load-factor", "3")
    body = [line for line in target.read_text().splitlines() if not line.startswith(";")]
    assert all("." not in line for line in body), body
    out = read_swf(target)
    assert out.submit_time.tolist() == [np.floor((3 * i + 1) / 3) for i in range(6)]
    assert out.run_time.tolist() == [5.0] * 6
    header = out.header_values
    assert header["MaxJobs"] == "6" and header["MaxRecords"] == "6"
    note = header["schedlab"]
    assert "first 6 jobs" in note and "load factor 3" in note and "rounded" in note
    assert "frac.swf" in note


def test_convert_rounds_durations_up_so_no_job_is_lost(tmp_path: Path) -> None:
    """A run time of 0.4 s is written as 1 s (rounding to 0 would skip the job on reading)."""
    source = write_swf_text(tmp_path / "s.swf", [swf_line(1, 0.5, 0.4, 1, 0.7)])
    target = tmp_path / "o.swf"
    invoke("workload", "convert", str(source), str(target))
    out = read_swf(target)
    assert len(out) == 1 and out.run_time[0] == 1.0 and out.requested_time[0] == 1.0
    assert out.submit_time[0] == 0.0
