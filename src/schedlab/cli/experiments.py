"""``schedlab sweep``, ``results``, ``report``, ``reproduce`` and ``validate``: many runs,
their results folder, and the checks against papers and queueing theory."""

from __future__ import annotations

import json
import sys
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
    file: Annotated[Path, typer.Argument(help="A sweep file (TOML), see examples/sweep.toml.")],
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Results folder (default: the file's `out`).")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="List the runs and exit.")] = False,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Run every configuration of a sweep file; finished runs are skipped on a re-run."""
    from schedlab.experiments.runner import run_sweep
    from schedlab.experiments.store import ResultStore
    from schedlab.experiments.sweep import load_sweep

    spec = load_sweep(file)
    if dry_run:
        rows = spec.describe()
        if as_json:
            print_json({"runs": rows})
            return
        table = Table(title=f"{len(rows)} runs in {file}")
        for col in ("run_id", "workload", "policy", "load_factor", "seed", "transforms"):
            table.add_column(col)
        for row in rows:
            table.add_row(
                *(
                    str(row[c]) if row[c] is not None else "-"
                    for c in ("run_id", "workload", "policy", "load_factor", "seed", "transforms")
                )
            )
        out.print(table)
        return
    target = out_dir if out_dir is not None else (Path(spec.out) if spec.out else None)
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
            help="Metric to compare (repeatable; default: mean wait, bounded slowdown, "
            "utilization).",
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
        raise ConfigError("DIR", str(directory), "a results folder written by `schedlab sweep`")
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
    for rich_table in table.rich_tables():
        shown.print(rich_table)
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
        float | None, typer.Option(help="Start of the Gantt window (s, trace time).")
    ] = None,
    gantt_end: Annotated[
        float | None, typer.Option(help="End of the Gantt window (s, trace time).")
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
        if gantt_start is None or gantt_end is None or gantt_end <= gantt_start:
            raise ConfigError(
                "--gantt-start/--gantt-end", (gantt_start, gantt_end), "both, with end > start"
            )
        window = (gantt_start, gantt_end)
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
    if not sys.stdout.isatty():  # plain Markdown for files and pipes: no truncated cells
        print(result.markdown(), end="")
        print(f"wrote {', '.join(str(p) for p in result.files)}")
        return
    for title, header, rows in result.tables:
        table = Table(title=title)
        for col in header:
            table.add_column(col)
        for row in rows:
            table.add_row(*row)
        out.print(table)
    for remark in result.notes:
        out.print(f"note: {remark}", highlight=False)
    out.print(f"wrote {', '.join(str(p) for p in result.files)}", highlight=False)


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
        str, typer.Option(help="Loads rho in (0, 1), comma-separated.")
    ] = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95",
    replications: Annotated[int, typer.Option(help="Independent replications per point.")] = 20,
    jobs: Annotated[
        int | None, typer.Option(help="Jobs per replication (default: by load, see docs).")
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
    from schedlab.experiments.validate import paper_protocol, validate_mmc

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
        table = Table(title=f"M/M/c through the general path (FCFS, {via} dispatch) vs Erlang C")
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
            title="the protocol of Caron et al. (LIP RR-2005-13): M/M/4, 16 runs x 1000 jobs "
            "from empty"
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
