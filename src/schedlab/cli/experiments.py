"""``schedlab sweep``, ``results``, ``report``, ``reproduce`` and ``validate``: many runs,
their results folder, and the checks against papers and queueing theory."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from schedlab.cli.common import (
    DaskOpt,
    WorkersOpt,
    check_outputs,
    err,
    out,
    print_json,
    progress_callback,
    results_console,
    wrote,
)
from schedlab.errors import ConfigError, OutputError
from schedlab.notes import note
from schedlab.outputs import write_atomic

commands = typer.Typer()


class _RunsBar:
    """A progress bar of sweep runs on stderr (or nothing when disabled)."""

    def __init__(self, enabled: bool) -> None:
        from schedlab.notes import is_quiet

        self.enabled = enabled and not is_quiet()
        self._bar: Any = None
        self._task: Any = None

    def show(self, progress: Any) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("runs"),
                BarColumn(),
                TextColumn("{task.fields[state]}"),
                TimeRemainingColumn(),
                console=err,
            )
            self._task = self._bar.add_task("runs", total=progress.total, state="")
        if not self._bar.live.is_started and (progress.done or progress.failed):
            self._bar.start()  # only now: the worker processes are forked before any thread
        self._bar.update(
            self._task,
            completed=progress.skipped + progress.done + progress.failed,
            state=f"{progress.done} done, {progress.failed} failed, "
            f"{progress.remaining} to go ({progress.skipped} already there)",
        )

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()


@commands.command()
def sweep(
    file: Annotated[
        Path,
        typer.Argument(help="A sweep file (TOML); `schedlab example` lists ready-made ones."),
    ],
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Results folder (default: the file's `out`, relative to the file's folder).",
        ),
    ] = None,
    traces: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the traces the file names by relative path, looked in before the "
            "file's own folder (default: $SCHEDLAB_TRACES).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option(help="List the runs and where they would go, and exit.")
    ] = False,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Run every configuration of a sweep file; finished runs are skipped on a re-run."""
    from schedlab.experiments.runner import run_sweep
    from schedlab.experiments.store import ResultStore
    from schedlab.experiments.sweep import load_sweep, trace_folder

    spec = load_sweep(file, traces=trace_folder(traces))
    target = out_dir if out_dir is not None else (Path(spec.out) if spec.out else None)
    if dry_run:
        rows = spec.describe()
        if as_json:
            print_json({"runs": rows, "out": None if target is None else str(target)})
            return
        table, under = _dry_run_table(rows, f"{len(rows)} runs in {file.name}")
        out.print(table)
        if under:
            out.print(under, highlight=False)
        out.print(_results_line(target, out_dir is not None), highlight=False)
        return
    if target is None:
        raise ConfigError("--out", None, "a results folder (or `out = ...` in the sweep file)")
    store = ResultStore(target)
    bar = _RunsBar(enabled=not as_json and sys.stderr.isatty())
    interrupted: KeyboardInterrupt | None = None
    with store:
        if store.takeover_note:
            note(store.takeover_note)
        if store.repaired_runs:
            note(
                f"{len(store.repaired_runs)} damaged run(s) in {target} will run again: "
                f"{', '.join(store.repaired_runs)}"
            )
        try:
            result = run_sweep(
                spec.runs,
                store,
                base_dir=str(spec.base_dir),
                policy_labels=spec.policy_labels,
                executor="dask" if dask else "local",
                workers=workers,
                dask_address=dask,
                on_change=bar.show,
            )
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (runner.SweepInterrupted)
            interrupted = exc
        finally:
            bar.stop()
    if interrupted is not None:
        import signal

        signum = getattr(interrupted, "signum", signal.SIGINT)
        sys.stderr.write(
            f"schedlab: interrupted ({signal.Signals(signum).name}); finished runs are kept "
            f"in {target}: run the same command again to resume\n"
        )
        raise typer.Exit(128 + signum)  # 130 for SIGINT, 143 for SIGTERM
    failures = [{"run_id": f.run_id, "error": f.error} for f in result.failures]
    if as_json:
        print_json(
            {
                "out": str(target),
                "total": result.total,
                "skipped": result.skipped,
                "done": result.done,
                "failed": result.failed,
                "failures": failures,
            }
        )
    else:
        out.print(
            f"{result.total} runs: {result.done} done now, {result.skipped} already in "
            f"{target}, {result.failed} failed. Catalog: {target / 'catalog.parquet'}",
            highlight=False,
        )
        for failure in failures:
            out.print(f"  failed {failure['run_id']}: {failure['error']}", highlight=False)
    if result.failed:
        raise typer.Exit(1)


def _dry_run_table(rows: list[dict[str, Any]], title: str) -> tuple[Table, str | None]:
    """The runs of a dry run, and a line for under it. The columns that tell runs apart are
    wrapped, never cut; seeds show when a run has one, and transforms shared by every run
    are said once under the table instead of in a column."""
    columns = [("run_id", "run_id"), ("workload", "workload"), ("policy", "policy")]
    columns.append(("load_factor", "load factor"))
    if any(row["seed"] is not None for row in rows):
        columns.append(("seed", "seed"))
    transforms = {row["transforms"] for row in rows}
    shared = next(iter(transforms)) if len(transforms) == 1 else None
    if shared is None:
        columns.append(("transforms", "transforms"))
    table = Table(title=title)
    for key, header in columns:
        short = key in ("run_id", "seed")
        table.add_column(header, no_wrap=short, overflow="ellipsis" if short else "fold")
    for row in rows:
        table.add_row(*("-" if row[key] is None else str(row[key]) for key, _ in columns))
    return table, f"transforms of every run: {shared}" if shared else None


def _results_line(target: Path | None, given: bool) -> str:
    """Where a dry run's results would go: the folder relative to the current one when it
    is inside it (the flow `schedlab example NAME > NAME.toml` suggests), else absolute."""
    if target is None:
        return "results: no folder set: pass --out DIR (or write `out = ...` in the file)"
    import os

    shown = Path(os.path.abspath(Path(target).expanduser()))
    here = Path.cwd()
    if shown.is_relative_to(here):
        shown = shown.relative_to(here)
    source = "--out" if given else "the file's `out`"
    return f"results would go to {shown.as_posix() if shown.parts else '.'} ({source})"


@commands.command()
def results(
    directory: Annotated[
        Path, typer.Argument(help="A results folder written by `schedlab sweep`.")
    ],
    metric: Annotated[
        list[str],
        typer.Option(
            "--metric",
            "-m",
            help="Metric to compare, by its key in --json, e.g. p90_wait_time (repeatable; "
            "default: mean wait, bounded slowdown, utilization; grid and TDCS runs: theirs).",
        ),
    ] = [],  # noqa: B006
    method: Annotated[
        str, typer.Option(help="Confidence intervals: auto, seeds or batch (batch means).")
    ] = "auto",
    batch_size: Annotated[int, typer.Option(help="Jobs per batch for batch means.")] = 5000,
    confidence: Annotated[float, typer.Option(help="Confidence level of the intervals.")] = 0.95,
    csv: Annotated[Path | None, typer.Option(help="Also write the tables as CSV.")] = None,
    markdown: Annotated[Path | None, typer.Option(help="Also write them as Markdown.")] = None,
    latex: Annotated[Path | None, typer.Option(help="Also write them as LaTeX.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every run as JSON.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace existing --csv/--markdown/--latex files.")
    ] = False,
) -> None:
    """Compare policies across the runs of a results folder (tables with intervals)."""
    from schedlab.experiments.analysis import DEFAULT_METRICS, comparison_table, runs_json
    from schedlab.experiments.store import ResultStore

    if not (directory / "runs").is_dir():
        why = (
            "no such folder"
            if not directory.exists()
            else "a file, not a folder"
            if not directory.is_dir()
            else "this folder has no runs/ in it"
        )
        raise ConfigError(
            "DIR", str(directory), f"a results folder written by `schedlab sweep` ({why})"
        )
    exports = {"--csv": csv, "--markdown": markdown, "--latex": latex}
    check_outputs(exports, force=force, tables=False)
    given = [path for path in exports.values() if path is not None]
    if len({str(p.expanduser().resolve()) for p in given}) < len(given):
        raise ConfigError("--csv/--markdown/--latex", [str(p) for p in given], "distinct files")
    store = ResultStore(directory)
    if as_json:
        print_json(runs_json(store))
        return
    table = comparison_table(
        store,
        metrics=tuple(metric) or DEFAULT_METRICS,
        method=method,
        batch_size=batch_size,
        confidence=confidence,
    )
    shown = results_console(*given)  # stdout carries the export
    for renderable in table.rich_tables(width=shown.width):
        shown.print(renderable)
    failed = len(store.failed_ids() - store.done_ids())
    if failed:
        shown.print(f"{failed} failed run(s): see `schedlab results {directory} --json`")
    for path, text in ((markdown, table.to_markdown), (latex, table.to_latex)):
        if path is not None:
            write_atomic(path, text().encode())
            wrote(path)
    if csv is not None:
        table.to_csv(csv)
        wrote(csv)


@commands.command()
def report(
    directory: Annotated[
        Path, typer.Argument(help="A results folder written by `schedlab sweep`.")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")] = Path(
        "report.html"
    ),
    gantt_run: Annotated[
        str | None, typer.Option(help="Run id drawn as a Gantt chart (default: the first).")
    ] = None,
    gantt_start: Annotated[
        str | None,
        typer.Option(
            help="Start of the Gantt window from the trace origin, in s or with a unit "
            "(e.g. 2d, 36h, 90m); default: the busiest 2 days."
        ),
    ] = None,
    gantt_end: Annotated[
        str | None,
        typer.Option(help="End of the Gantt window (as --gantt-start, e.g. 3d)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing output file.")
    ] = False,
) -> None:
    """Write one self-contained HTML page: tables, charts and every run's configuration."""
    from schedlab.report.html import write_report

    if directory.is_dir() and output.expanduser().resolve().is_relative_to(directory.resolve()):
        inside = output.expanduser().resolve().relative_to(directory.resolve()).parts
        if inside and inside[0] in ("runs", "failed", "tmp", "catalog.parquet", ".lock"):
            raise OutputError("--output", str(output), "is part of the results folder it reads")
    check_outputs({"--output": output}, force=force, tables=False)

    window = None
    if gantt_start is not None or gantt_end is not None:
        from schedlab.report.drawing import parse_time  # the parser of --plot-window too

        start = None if gantt_start is None else parse_time(gantt_start, "--gantt-start")
        end = None if gantt_end is None else parse_time(gantt_end, "--gantt-end")
        if start is None or end is None or end <= start:
            raise ConfigError(
                "--gantt-start/--gantt-end", (gantt_start, gantt_end), "both, with end > start"
            )
        window = (start, end)
    path = write_report(directory, output, gantt_run=gantt_run, gantt_window=window)
    wrote(path)


@commands.command()
def reproduce(
    paper: Annotated[
        str,
        typer.Argument(
            help="Which paper: dbf (N'Takpé and Suter, ComPAS 2016), pps (Zhang and Pan, "
            "PPS), hlw (Lanore and Klein, ComPAS 2013), dirac (Caron et al., LIP "
            "RR-2005-13) or tdcs (Baranov and Tikhomirov, Computational Technologies 2017)."
        ),
    ],
    quick: Annotated[
        bool,
        typer.Option(
            help="A reduced version (dbf/pps: first 20k jobs, fewer loads; hlw: 10 instances "
            "per scenario; dirac: 3 seeds, fewer refresh periods): minutes."
        ),
    ] = False,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Results folder (default: reproduce-PAPER[-quick])."),
    ] = None,
    traces: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the traces downloaded from the Parallel Workloads Archive "
            "(default: $SCHEDLAB_TRACES, else workloads/ in the parent's shared/, in shared/ "
            "or here)."
        ),
    ] = None,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
) -> None:
    """Run a paper's experiments and print its tables next to the published ones."""
    from schedlab.experiments.reproduce import NEEDS_TRACES, REPRODUCTIONS, reproduction
    from schedlab.experiments.reproduce.common import find_traces

    if paper not in REPRODUCTIONS:
        raise ConfigError("paper", paper, sorted(REPRODUCTIONS))
    folder = find_traces(traces) if paper in NEEDS_TRACES else None
    target = out_dir or Path(f"reproduce-{paper}{'-quick' if quick else ''}")
    bar = _RunsBar(enabled=not as_json and sys.stderr.isatty())
    try:
        result = reproduction(paper)(
            folder, target, quick=quick, workers=workers, on_change=bar.show, dask=dask
        )
    finally:
        bar.stop()
    from schedlab.report.reproduce import draw_figures

    draw_figures(paper, result, target)
    if as_json:
        print_json({**result.to_json(), "out": str(target)})
        return
    # tables sized to the terminal (the Markdown, uncut, is in tables.md); files on stderr
    out.print(result.paper, style="bold", highlight=False)
    for title, header, rows in result.tables:
        tables = _fitting_tables(header, rows, out.width)
        if not tables:  # a cell longer than the terminal (a claim's sentence): records
            out.print(f"\n{title}", style="bold", highlight=False)
            for line in _records(header, rows, out.width):
                out.print(line, markup=False, highlight=False, soft_wrap=True)
            continue
        for k, table in enumerate(tables, 1):
            part = f" ({k} of {len(tables)})" if len(tables) > 1 else ""
            out.print(f"\n{title}{part}", style="bold", highlight=False)
            out.print(table)
    if result.notes:
        out.print("\nNotes:", style="bold")
        for remark in result.notes:
            out.print(f"- {remark}", highlight=False)
    names = [
        str(p.relative_to(target)) if p.is_relative_to(target) else str(p) for p in result.files
    ]
    wrote(f"{target}: {', '.join(names)}")


def _fitting_tables(header: list[str], rows: list[list[str]], width: int) -> list[Table]:
    """One rich table of a reproduction, or several when its columns need more than
    ``width`` characters: each repeats the first column (what a row is) with as many of
    the others as fit, so no cell is cut or squeezed into a column of one character. None
    when even the first column and one other do not fit (`_records` prints those)."""
    from rich.measure import Measurement

    def build(columns: list[int]) -> Table:
        table = Table()
        for i in columns:
            table.add_column(header[i], justify="left" if i == 0 else "right")
        for row in rows:
            table.add_row(*(row[i] for i in columns))
        return table

    def natural(table: Table) -> int:  # its width without wrapping a cell
        return Measurement.get(out, out.options.update_width(10**6), table).maximum

    everything = list(range(len(header)))
    if len(header) < 3 or natural(build(everything)) <= width:
        return [build(everything)]
    # each column adds its own width (cells, padding, a border) to the first column's
    base = natural(build([0]))
    extra = [natural(build([0, i])) - base for i in everything[1:]]
    if base + max(extra) > width:
        return []
    groups = min(_column_groups(extra, width - base), key=lambda g: max(map(sum, g)))
    columns = iter(everything[1:])
    return [build([0, *(next(columns) for _ in g)]) for g in groups]


def _records(header: list[str], rows: list[list[str]], width: int) -> list[str]:
    """A table whose cells are longer than the terminal, one record per row: the row's
    first cell, then each other cell after its column's name, wrapped at ``width`` (only
    between words, so every cell reads whole)."""
    import textwrap

    lines: list[str] = []
    for row in rows:
        lines.append("")
        lines += textwrap.wrap(row[0], width, break_on_hyphens=False) or [""]
        for name, cell in zip(header[1:], row[1:]):
            lead = f"  {name}: "
            lines += textwrap.wrap(
                cell or "-",
                width,
                initial_indent=lead,
                subsequent_indent=" " * min(len(lead), 8),
                break_on_hyphens=False,
            )
    return lines


def _column_groups(extra: list[int], room: int) -> Iterator[list[list[int]]]:
    """Every split of consecutive columns (their widths ``extra``) into the fewest groups
    that fit in ``room`` (a column wider than that alone makes a group of its own)."""
    from itertools import combinations

    n = len(extra)
    for k in range(1, n + 1):
        found = False
        for cuts in combinations(range(1, n), k - 1):
            bounds = (0, *cuts, n)
            groups = [extra[a:b] for a, b in zip(bounds, bounds[1:])]
            if all(len(g) == 1 or sum(g) <= room for g in groups):
                found = True
                yield groups
        if found:
            return


def _numbers(option: str, text: str, kind: type) -> list[Any]:
    try:
        values = [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values:
        raise ConfigError(
            option, text, f"comma-separated {'integers' if kind is int else 'numbers'}"
        )
    return values


@commands.command()
def validate(
    model: Annotated[str, typer.Argument(help="What to validate: mmc (M/M/c vs Erlang C).")],
    servers: Annotated[str, typer.Option(help="Server counts c, comma-separated.")] = "1,4,16",
    loads: Annotated[
        str,
        typer.Option(
            help="Loads rho in (0, 1), comma-separated.",
            show_default="0.1,0.2,...,0.9,0.95",  # a line that fits 80 columns
        ),
    ] = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95",
    replications: Annotated[int, typer.Option(help="Independent replications per point.")] = 20,
    jobs: Annotated[
        int | None,
        typer.Option(
            help="Jobs per replication (default: 2000 / (1 - load)^2, within 10,000 and "
            "400,000: longer runs near saturation)."
        ),
    ] = None,
    warmup: Annotated[float, typer.Option(help="Fraction of jobs deleted as warm-up.")] = 0.1,
    seed: Annotated[int, typer.Option(help="Base seed of the replications.")] = 1,
    quick: Annotated[
        bool, typer.Option(help="c = 4 at loads 0.3, 0.6, 0.9, 10 replications: seconds.")
    ] = False,
    workers: WorkersOpt = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Also write rows.json and the figure (SVG) into this folder."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    via: Annotated[
        str,
        typer.Option(
            help="The actor jobs go through: direct (a trivial dispatcher) or push (the "
            "grid's centralized meta-scheduler, exact information)."
        ),
    ] = "direct",
) -> None:
    """Check the engine against queueing theory: M/M/c through the general path vs Erlang C.

    Exits 1 if a point at loads 0.3 to 0.9 misses Erlang C or is less precise than 5 %.
    """
    from schedlab.experiments.validate import (
        PAPER_JOBS,
        PAPER_RUNS,
        PAPER_SERVERS,
        PAPER_SERVICE,
        paper_protocol,
        validate_mmc,
    )

    if model != "mmc":
        raise ConfigError("MODEL", model, ["mmc"])
    if quick:
        server_list, load_list, replications = [4], [0.3, 0.6, 0.9], 10
    else:
        server_list = _numbers("--servers", servers, int)
        load_list = _numbers("--loads", loads, float)
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise OutputError("--out", str(out_dir), "is a file, not a folder")
    bar, update = progress_callback(not as_json, 1)
    if bar is not None:
        bar.start()
    try:
        rows = validate_mmc(
            server_list,
            load_list,
            replications=replications,
            jobs=jobs,
            warmup=warmup,
            seed=seed,
            workers=workers,
            on_done=update,
            via=via,
        )
        paper = paper_protocol(seed=seed, workers=workers)
        # the protocol's expectation (many runs): its bias, free of its own noise
        expectation = [] if quick else paper_protocol(runs=400, seed=seed + 1, workers=workers)
    finally:
        if bar is not None:
            bar.stop()
    data = [r.to_json() for r in rows]
    document = {"rows": data, "paper_protocol": paper, "paper_protocol_expectation": expectation}
    if out_dir is not None:
        from schedlab.report.reproduce import mmc_figure

        out_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(out_dir / "rows.json", json.dumps(document, indent=1).encode())
        mmc_figure(data, paper, out_dir / "mmc_validation.svg", expectation=expectation)
    failed = [r for r in rows if 0.3 <= r.load <= 0.9 and not r.passed]
    if as_json:
        print_json(document)
    else:
        table = Table(
            title=f"M/M/c through the general path (FCFS, {via} dispatch) vs Erlang C: mean "
            "response time in s, mean service time 1 s"
        )
        for col in ("c", "load", "jobs x reps", "simulated (99 % CI)", "Erlang C", "error",
                    "half-width", "pass"):  # fmt: skip
            table.add_column(col, justify="right")
        for r in rows:
            table.add_row(
                str(r.servers),
                f"{r.load:g}",
                f"{r.jobs:,} x {r.replications}",
                f"{r.simulated_mean_response_time:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]",
                f"{r.erlang_c_mean_response_time:.4f}",
                f"{r.relative_error:+.2%}",
                f"{r.half_width_pct:.2f} %",
                "yes" if r.passed else ("no" if 0.3 <= r.load <= 0.9 else "(info)"),
            )
        out.print(table)
        paper_table = Table(
            title=f"the protocol of Caron et al. (LIP RR-2005-13): M/M/{PAPER_SERVERS}, mean "
            f"service time {PAPER_SERVICE:g} s, {PAPER_RUNS} runs x {PAPER_JOBS} jobs from "
            "empty: mean response time in s"
        )
        for col in ("load", "simulated (95 % CI)", "Erlang C", "error"):
            paper_table.add_column(col, justify="right")
        if expectation:
            paper_table.add_column("protocol's bias (400 runs)", justify="right")
        for i, p in enumerate(paper):
            cells = [
                f"{p['load']:g}",
                f"{p['simulated_mean_response_time']:.2f} [{p['ci_low']:.2f}, {p['ci_high']:.2f}]",
                f"{p['erlang_c_mean_response_time']:.2f}",
                f"{p['relative_error']:+.1%}",
            ]
            if expectation:
                cells.append(f"{expectation[i]['relative_error']:+.1%}")
            paper_table.add_row(*cells)
        out.print(paper_table)
    if failed:
        raise typer.Exit(1)
