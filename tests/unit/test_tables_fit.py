"""Tables that fit 80 and 120 columns and speak in units (issue 23, items 1 and 2).

The commands run as a user runs them, in a child process with ``COLUMNS`` set (rich reads
it when the console is made): no line wider than the terminal, every row's workload, policy
and load factor shown (or its code, explained in the legend under the tables), no header
cut. Then `schedlab.humanize`, the one module that words every number a person reads, on
its own: durations, sizes, dates, shares, NaN.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.table import Table

from schedlab.examples_files import example_text
from schedlab.experiments.analysis import comparison_table
from schedlab.experiments.store import ResultStore
from schedlab.humanize import (
    Grid,
    Legend,
    comparison_grids,
    estimate_text,
    fit,
    human_count,
    human_date,
    human_duration,
    human_share,
    human_size,
    human_value,
    metric_label,
    metric_text,
    short_source,
)

WIDTHS = (80, 120)


def schedlab(*args: str, columns: int = 80, cwd: Path | None = None) -> str:
    """``python -m schedlab ARGS`` at a terminal ``columns`` wide; its stdout (must succeed)."""
    env = {**os.environ, "COLUMNS": str(columns)}
    env.pop("LINES", None)
    done = subprocess.run(
        [sys.executable, "-m", "schedlab", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def assert_fits(text: str, columns: int) -> None:
    """No line wider than the terminal, and no cell or header cut with an ellipsis."""
    widest = max((cell_len(line) for line in text.splitlines()), default=0)
    assert widest <= columns, f"a line of {widest} columns at COLUMNS={columns}:\n{text}"
    assert "…" not in text, f"something was cut at COLUMNS={columns}:\n{text}"


def legend_of(text: str) -> dict[str, str]:
    """The legend under the tables: code -> what it stands for."""
    return dict(re.findall(r"^([A-Z]\d+) = (.+)$", text, flags=re.MULTILINE))


def shown(label: str, text: str, legend: dict[str, str]) -> bool:
    """``label`` is in the tables, or a code of the legend stands for it."""
    return label in text or label in legend.values()


# -- results on the shipped sweeps ---------------------------------------------------------


def _sweep(folder: Path, name: str) -> Path:
    """Run the shipped example ``name`` as a user saves it, into ``folder``/results."""
    folder.mkdir()
    (folder / f"{name}.toml").write_text(example_text(name), encoding="utf-8")
    if name == "grid-sweep":  # (older examples named the platform file beside them)
        (folder / "platform-dirac.toml").write_text(example_text("platform-dirac"), "utf-8")
    schedlab("sweep", f"{name}.toml", "--out", "results", "-q", cwd=folder)
    return folder / "results"


@pytest.fixture(scope="module")
def grid_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _sweep(tmp_path_factory.mktemp("fit") / "grid", "grid-sweep")


@pytest.fixture(scope="module")
def quick_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _sweep(tmp_path_factory.mktemp("fit") / "quick", "quick-sweep")


WIDE_SWEEP = """
description = "long labels, two loads, six policy variants"
[[workloads]]
model = "lublin:jobs=120,procs=32"
[[workloads]]
model = "lublin:jobs=120,procs=64,kind=batch"
[[policies]]
name = "fcfs"
[[policies]]
name = "easy"
backfill_order = ["fcfs", "sjf"]
[[policies]]
name = "conservative"
compress = [true, false]
[[policies]]
name = "multifactor"
[grid]
load_factor = [0.8, 1.25]
seed = [1, 2, 3]
"""


@pytest.fixture(scope="module")
def wide_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fit") / "wide"
    folder.mkdir()
    (folder / "wide.toml").write_text(WIDE_SWEEP, encoding="utf-8")
    schedlab("sweep", "wide.toml", "--out", "results", "-q", cwd=folder)
    return folder / "results"


def _check_results(results: Path, columns: int) -> str:
    text = schedlab("results", str(results), columns=columns)
    assert_fits(text, columns)
    legend = legend_of(text)
    table = comparison_table(ResultStore(results))
    assert table.rows and table.policies
    for workload, load in table.rows:
        assert shown(workload, text, legend), (workload, text)
        assert f"{load:g}" in text
    for policy in table.policies:
        assert shown(policy, text, legend), (policy, text)
    for metric in table.metrics:  # a readable title, not the key
        assert metric_label(metric, full=True).strip() in text
        assert "_" not in metric or metric not in text
    return text


@pytest.mark.parametrize("columns", WIDTHS)
def test_results_of_the_grid_sweep_fit_and_show_every_row(grid_sweep: Path, columns: int) -> None:
    """Dedicated and shared, every meta-scheduler setting, in units (durations as 2h 13m)."""
    text = _check_results(grid_sweep, columns)
    assert "dedicated" in text and "shared" in text
    assert "push(refresh=120.0)" in text and "pilot_filling" in text
    assert re.search(r"\d+[hm] \d+[ms] ± ", text) or re.search(r"\d+s ± ", text)


@pytest.mark.parametrize("columns", WIDTHS)
def test_results_of_the_quick_sweep_fit_and_show_every_row(quick_sweep: Path, columns: int) -> None:
    """The quick sweep's tables: workloads, the load factor, every policy; shares as %."""
    text = _check_results(quick_sweep, columns)
    assert "lublin-64" in text and "lublin-128" in text and "%" in text


@pytest.mark.parametrize("columns", WIDTHS)
def test_results_with_long_labels_abbreviate_or_split_never_drop(
    wide_sweep: Path, columns: int
) -> None:
    """Long model specs, two loads and six policy variants: pivoted, split or abbreviated
    with a legend, but every workload, load factor and policy can be read."""
    text = _check_results(wide_sweep, columns)
    assert "0.8" in text and "1.25" in text


def test_results_files_and_json_keep_raw_numbers(quick_sweep: Path, tmp_path: Path) -> None:
    """--json, CSV and Markdown keep seconds and metric keys: only the terminal changes."""
    runs = json.loads(schedlab("results", str(quick_sweep), "--json"))["runs"]
    assert all(isinstance(r["mean_wait_time"], float) for r in runs)
    md = tmp_path / "t.md"
    schedlab("results", str(quick_sweep), "--markdown", str(md), "--csv", str(tmp_path / "t.csv"))
    assert "### mean_wait_time" in md.read_text()
    assert "mean_wait_time" in (tmp_path / "t.csv").read_text()


def test_results_on_a_missing_folder_says_it_is_missing(tmp_path: Path) -> None:
    """A folder that is not there, a file, an empty folder: each says which."""
    from typer.testing import CliRunner

    from schedlab.cli import app

    runner = CliRunner()
    for target, why in (
        (tmp_path / "nope", "no such folder"),
        (tmp_path, "no runs/"),
    ):
        result = runner.invoke(app, ["results", str(target)])
        assert result.exit_code != 0 and why in str(result.exception), result.exception
    (tmp_path / "f.toml").write_text("")
    result = runner.invoke(app, ["results", str(tmp_path / "f.toml")])
    assert "a file, not a folder" in str(result.exception)


# -- the other commands' tables ------------------------------------------------------------


@pytest.mark.parametrize("columns", WIDTHS)
def test_grid_run_names_the_platform_file_and_speaks_in_units(tmp_path: Path, columns: int) -> None:
    """A platform deep in folders shows as its file name (the title was 9 lines); the
    metrics of meta-jobs and local jobs read as durations, not seconds with (s)."""
    deep = tmp_path / ("a-rather-long-folder-name" * 3) / "and-another-one"
    deep.mkdir(parents=True)
    platform = deep / "platform-dirac.toml"
    platform.write_text(example_text("platform-dirac"), encoding="utf-8")
    args = ("grid", "run", str(platform), "--generator", "meta_jobs=60,local_jobs=30")
    text = schedlab(*args, "--by", "site", columns=columns)
    assert_fits(text, columns)
    assert str(deep) not in text and "platform-dirac.toml" in text
    title = text[: text.index("┌")]
    assert len(title.strip().splitlines()) <= 2, title
    assert "(s)" not in text and not re.search(r"\d,\d{3}\.\d\b", text)  # no 46,855.0
    assert "meta-jobs: mean global wait" in text and "local jobs: makespan" in text
    data = json.loads(schedlab(*args, "--json"))
    assert isinstance(data["global_mean_wait_time"], float)  # --json keeps seconds
    assert human_duration(data["global_makespan"]) in text


@pytest.mark.parametrize("columns", WIDTHS)
def test_tdcs_run_prints_units(columns: int) -> None:
    """Durations, jobs per hour, processor-hours and shares: no bare numbers."""
    text = schedlab("tdcs", "run", "--hours", "4", columns=columns)
    assert_fits(text, columns)
    assert "jobs/h" in text and "proc-h" in text and "%" in text
    assert re.search(r"mean processing time\s+│\s+\d+[hms]", text), text


def _swf(path: Path, users: int = 0) -> Path:
    """A small SWF log with a start date; with ``users``, user u submits u jobs."""
    header = (
        "; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n; MaxProcs: 16\n"
        "; Computer: a test machine\n"
    )
    owners = [u for u in range(1, users + 1) for _ in range(u)] or [1] * 40
    lines = [
        f"{i + 1} {600 * i} -1 {300 + 7 * i} {1 + i % 4} -1 -1 {1 + i % 4} {900 + 7 * i} -1 1 "
        f"{owner} 1 -1 1 -1 -1 -1"
        for i, owner in enumerate(owners)
    ]
    path.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("columns", WIDTHS)
def test_workload_info_shows_dates_and_durations(tmp_path: Path, columns: int) -> None:
    """No 430,593.000 and no raw epoch: dates in the log's time zone, spans as durations."""
    log = _swf(tmp_path / "log.swf")
    text = schedlab("workload", "info", str(log), columns=columns)
    assert_fits(text, columns)
    assert "843480031" not in text
    assert not re.search(r"\d,\d{3}\.\d{3}", text)
    assert "1996-09-23 14:00 CEST" in text  # the log's start, in Europe/Stockholm
    assert "first submission" in text and "mean run time" in text and "serial jobs" in text
    info = json.loads(schedlab("workload", "info", str(log), "--json"))
    assert info["unix_start_time"] == "843480031" and isinstance(info["last_submit"], float)


@pytest.mark.parametrize("columns", WIDTHS)
def test_by_user_sorts_by_jobs_and_says_what_it_left_out(tmp_path: Path, columns: int) -> None:
    """--by user: the users with the most jobs first, and how many were left out."""
    log = _swf(tmp_path / "users.swf", users=45)  # user u submits u jobs
    text = schedlab("run", str(log), "--policy", "fcfs", "--by", "user", columns=columns)
    assert_fits(text, columns)
    rows = re.findall(r"^│ (\d+) +│ +([\d,]+) │", text, flags=re.MULTILINE)
    assert rows[0] == ("45", "45") and len(rows) == 40
    assert [int(jobs) for _, jobs in rows] == sorted((int(j) for _, j in rows), reverse=True)
    assert "5 of 45 users left out (those with the fewest jobs)" in text
    assert "the 40 with the most jobs" in text


@pytest.mark.parametrize("command", [["run"], ["results"], ["grid", "run"], ["validate"]])
def test_help_reads_at_80_columns(command: list[str]) -> None:
    """Help fits 80 columns, cuts nothing, and its paragraphs wrap as one text."""
    text = schedlab(*command, "--help", columns=80)
    assert_fits(text, 80)
    if command == ["run"]:
        assert "writes the\n" not in text and "per-job CSV" in " ".join(text.split())


# -- the formatting module -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (0.004, "<0.01s"),
        (0.04, "0.04s"),
        (0.4, "0.4s"),
        (9.5, "9.5s"),
        (59.9, "59s"),
        (60, "1m"),
        (7980, "2h 13m"),
        (9_179_393, "106d 5h"),
        (-90, "-1m 30s"),
        (float("nan"), "-"),
        (None, "-"),
        (float("inf"), "inf"),
    ],
)
def test_durations(seconds: float | None, text: str) -> None:
    assert human_duration(seconds) == text


@pytest.mark.parametrize(
    ("n_bytes", "text"),
    [
        (0, "0 B"),
        (512, "512 B"),
        (1536, "1.5 KiB"),
        (2**30, "1 GiB"),
        (5 * 2**40 + 2**39, "5.5 TiB"),
        (1023.9 * 2**20, "1 GiB"),
        (1000, "0.977 KiB"),
        (2**70, "1,024 EiB"),
        (float("nan"), "-"),
    ],
)
def test_sizes(n_bytes: float, text: str) -> None:
    assert human_size(n_bytes) == text


def test_dates() -> None:
    """Seconds since 1970 as a date: UTC unless a known time zone is named."""
    assert human_date(0) == "1970-01-01 00:00 UTC"
    assert human_date(843480031, "Europe/Stockholm") == "1996-09-23 14:00 CEST"
    assert human_date(843480031, "Not/AZone") == "1996-09-23 12:00 UTC"
    assert human_date(float("nan")) == "-" and human_date(None) == "-"
    assert human_date(1e30) == str(1e30)  # no calendar holds it: the number stays


def test_counts_shares_values_and_nan() -> None:
    assert human_count(27992) == "27,992" and human_count(975.66) == "975.7"
    assert human_count(float("nan")) == "-" and human_count(True) == "yes"
    assert human_share(0.6931) == "69.3%" and human_share(0) == "0.0%"
    assert human_share(0.0001) == "<0.1%" and human_share(None) == "-"
    assert human_value(430593.0) == "430,593" and human_value(0.12345) == "0.123"
    assert human_value(float("nan"), missing="—") == "—"


def test_metrics_read_in_their_units() -> None:
    """One table of labels and kinds: every command and page words a metric alike."""
    assert metric_label("mean_wait_time") == "mean wait"
    assert metric_label("global_makespan") == "meta-jobs: makespan"
    assert metric_label("no_such_key") == "no such key"
    assert metric_text("makespan", 9_179_393) == "106d 5h"
    assert metric_text("utilization", 0.5) == "50.0%"
    assert metric_text("jobs", 1234.0) == "1,234"
    assert metric_text("lost_work", 7200) == "2.0 proc-h"
    assert metric_text("low_priority_throughput", 8.76) == "8.8 jobs/h"
    assert metric_text("wall_time", 0.256) == "0.26 s"
    assert metric_text("mean_wait_time", float("nan")) == "-"
    assert metric_text("configuration", "tdcs") == "tdcs"
    assert estimate_text("mean_wait_time", 521.0, 482.7) == "8m 41s ± 8m 2s"
    assert estimate_text("utilization", 0.403, 0.012, n=3) == "40.3% ± 1.2% (n=3)"
    assert estimate_text("matcher_requests", 1441.3, 72.1) == "1,441 ± 72"
    assert estimate_text("mean_wait_time", 30.0, math.nan) == "30s"
    assert estimate_text("mean_wait_time", math.nan, 1.0) == "n/a"


def test_paths_in_titles_show_file_names() -> None:
    assert short_source("easy on /data/pwa/KTH-SP2.swf.gz") == "easy on KTH-SP2.swf.gz"
    assert short_source("push on ../a/b/platform.toml: x") == "push on platform.toml: x"
    assert short_source("run slurm:/var/log/sacct.txt") == "run slurm:sacct.txt"
    assert short_source("lublin:jobs=10,procs=4") == "lublin:jobs=10,procs=4"
    assert short_source("see https://example.org/a/b") == "see https://example.org/a/b"


def _lines(tables: list[Table], width: int) -> list[str]:
    from rich.console import Console

    console = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    for table in tables:
        console.print(table)
    return console.export_text().splitlines()


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_fit_splits_and_abbreviates_but_keeps_the_key_columns(width: int) -> None:
    """A table too wide for the terminal: parts that repeat the key column, wrapped headers,
    codes for labels too long, all within ``width``; every row and value still there."""
    headers = ["workload", *(f"policy number {i} (with parameters)" for i in range(7))]
    rows = [
        [f"a-long-workload-label-{r}", *(f"{r}h {c}m ± {c}m" for c in range(7))] for r in range(3)
    ]
    legend = Legend()
    tables = fit(Grid("t", headers, rows, letters=("W", "P")), width, legend)
    lines = _lines(tables, width)
    assert max(cell_len(line) for line in lines) <= width
    text = "\n".join(lines)
    assert "…" not in text
    codes = {full: code for names in legend.codes.values() for full, code in names.items()}
    for row in rows:
        assert row[0] in text or codes.get(row[0], "?") in text
        for cell in row[1:]:
            assert cell in text
    assert all(t.columns[0].header == "workload" for t in tables)  # in every part


def test_comparison_pivots_when_policies_outnumber_rows() -> None:
    """Two rows and six policies: a row per policy reads better than a split table."""
    policies = [f"push(refresh={r}.0)" for r in range(6)]
    cells = [[[f"{c}m ± 1m" for c in range(6)] for _ in range(2)]]
    grids = comparison_grids(
        ["mean wait"], [("dedicated", "1"), ("shared", "1")], policies, cells, 80
    )
    assert grids[0].headers[0] == "policy" and len(grids[0].rows) == 6
    plain = comparison_grids(
        ["mean wait"], [("dedicated", "1"), ("shared", "1")], policies, cells, None
    )
    assert plain[0].headers[:2] == ["workload", "load factor"]
