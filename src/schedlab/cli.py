"""The ``schedlab`` command: a thin shell over the library (DESIGN.md section 4).

Every user mistake ends as one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from schedlab.errors import ConfigError, OutputError, SchedlabError, printable
from schedlab.notes import note as _note
from schedlab.notes import one_line as _one_line
from schedlab.outputs import check_output, is_stdout, same_file, write_atomic

app = typer.Typer(
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, pwsh)
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    help="Replay job traces and workload models through batch scheduling policies.",
    pretty_exceptions_enable=False,
)
workload_app = typer.Typer(no_args_is_help=True, help="Inspect, generate and convert workloads.")
app.add_typer(workload_app, name="workload")
grid_app = typer.Typer(no_args_is_help=True, help="Grids: meta-schedulers over several clusters.")
app.add_typer(grid_app, name="grid")
tdcs_app = typer.Typer(
    no_args_is_help=True,
    help="Absolute priorities across clusters (dispatchers): Baranov and Tikhomirov "
    "(Computational Technologies 2017).",
)
app.add_typer(tdcs_app, name="tdcs")

out = Console()
err = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        from schedlab import __version__
        from schedlab.platform import profile_note
        from schedlab.workload.swf import parser_note

        print(f"schedlab {__version__}; {profile_note()}; {parser_note()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print the version and which availability profile and SWF parser run.",
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="No notes, progress bars or 'wrote FILE' lines on stderr; errors and results "
            "still show. May also be given after the command.",
        ),
    ] = False,
) -> None:
    """Replay job traces and workload models through batch scheduling policies."""
    from schedlab.notes import set_quiet

    set_quiet(quiet)


WorkloadArg = Annotated[
    str,
    typer.Argument(
        help="An .swf/.swf.gz path, a Slurm sacct / PBS accounting / CSV log (found by its "
        "content, or slurm:PATH, pbs:PATH, csv:PATH; see docs/importers.md) or a model spec "
        "such as lublin:jobs=10000,procs=256,seed=1 (also hlw:... and mmc:..., see "
        "`schedlab workload generate --help`)"
    ),
]
ColumnsOpt = Annotated[
    str | None,
    typer.Option(
        help="Columns of a CSV log: KEY=COLUMN,... with KEY submit, run, procs, "
        "requested_time, user, start, end, status, queue, partition, ... "
        "(docs/importers.md); columns named like a KEY need not be given."
    ),
]


def _columns(text: str | None) -> dict[str, str] | None:
    """The ``--columns`` mapping, None when not given."""
    if text is None:
        return None
    from schedlab.workload.importers import parse_columns

    return parse_columns(text)


BY_COLUMNS = ("user", "group", "queue", "priority")

_SUMMARY_LABELS = {
    "jobs": ("jobs", "{:,}"),
    "skipped": ("skipped", "{:,}"),
    "procs": ("processors", "{:,}"),
    "makespan": ("makespan", "duration"),
    "utilization": ("utilization", "{:.3f}"),
    "mean_wait_time": ("mean wait", "duration"),
    "max_wait_time": ("max wait", "duration"),
    "mean_response_time": ("mean response", "duration"),
    "mean_local_wait_time": ("mean local wait", "duration"),
    "mean_execution_time": ("mean execution", "duration"),
    "mean_slowdown": ("mean slowdown", "{:,.2f}"),
    "mean_bounded_slowdown": ("mean bounded slowdown", "{:,.2f}"),
    "median_wait_time": ("median wait", "duration"),
    "p90_wait_time": ("p90 wait", "duration"),
    "p99_wait_time": ("p99 wait", "duration"),
    "median_bounded_slowdown": ("median bounded slowdown", "{:,.2f}"),
    "p90_bounded_slowdown": ("p90 bounded slowdown", "{:,.2f}"),
    "p99_bounded_slowdown": ("p99 bounded slowdown", "{:,.2f}"),
    "unfairness": ("unfairness", "{:,.1f}"),
    "killed": ("killed", "{:,}"),
    "wall_time": ("simulation wall time (s)", "{:.2f}"),
    "non_priority_jobs": ("non-priority jobs (with a deadline)", "{:,}"),
    "promoted": ("promoted to priority at submission", "{:,}"),
    "missed_deadlines": ("accepted, ended after the deadline", "{:,}"),
    "late_jobs": ("non-priority, ended after the deadline", "{:,}"),
}


def _fmt(key: str, value: Any) -> str:
    """``value`` of summary ``key`` for a table: durations as ``2h 13m`` (--json keeps
    seconds), counts with thousands separators."""
    fmt = _SUMMARY_LABELS.get(key, (key, "{}"))[1]
    if fmt == "duration":
        from schedlab.humanize import human_duration

        try:
            return human_duration(float(value))
        except (TypeError, ValueError):
            return str(value)
    if fmt == "{:,}" and isinstance(value, float) and value.is_integer():
        value = int(value)  # (pandas rows turn counts into floats)
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def _parse_params(items: list[str]) -> dict[str, Any]:
    from schedlab.workload.load import parse_scalar

    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError("--param", item, "KEY=VALUE")
        params[key] = parse_scalar(value)
    return params


def _parse_items(option: str, text: str) -> dict[str, Any]:
    """``"every=3,deadline=a"`` -> ``{"every": 3, "deadline": "a"}`` (for ``option``)."""
    from schedlab.workload.load import parse_scalar

    items: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(option, item, "KEY=VALUE[,KEY=VALUE...]")
        items[key.strip()] = parse_scalar(value.strip())
    return items


def _has_deadlines(wl: Any) -> bool:
    """True when at least one job of ``wl`` is non-priority (carries a deadline)."""
    import numpy as np

    slack = wl.attributes.get("deadline_time")
    return slack is not None and bool(np.any(~np.isnan(slack)))


def _wrote(what: str | Path) -> None:
    """Say on stderr what was written (unless --quiet)."""
    from schedlab.notes import is_quiet

    if not is_quiet():
        target = "standard output" if is_stdout(what) else str(what)
        err.print(f"wrote {target}", highlight=False)


def _job_attributes(
    wl: Any, estimates: str | None, non_priority: str | None, deadlines: Path | None
) -> Any:
    """Apply --estimates, --non-priority and --deadlines, in that order."""
    if estimates is not None:
        from schedlab.workload.models.tsafrir import add_estimates

        params = _parse_items("--estimates", estimates)
        try:
            wl = add_estimates(wl, **{"seed": 0, **params})
        except TypeError as exc:
            raise ConfigError("--estimates", estimates, f"the model's parameters ({exc})") from None
    if non_priority is not None:
        from schedlab.workload.deadlines import mark_non_priority

        params = _parse_items("--non-priority", non_priority)
        try:
            wl = mark_non_priority(wl, **params)
        except TypeError as exc:
            raise ConfigError(
                "--non-priority",
                non_priority,
                "every=K or fraction=X,seed=S, and deadline=a|b|SECONDS",
            ) from exc
    if deadlines is not None:
        from schedlab.workload.deadlines import deadlines_from_table

        wl = deadlines_from_table(wl, deadlines)
    return wl


def _input_path(workload: str | None) -> str | None:
    """The file a WORKLOAD names (``slurm:PATH`` -> PATH), for the never-onto-an-input check."""
    if workload is None:
        return None
    from schedlab.workload.importers import parse_source

    try:
        return parse_source(workload).path
    except SchedlabError:
        return None


def _warmup_option(warmup: str | None, skip_first: int | None) -> str | None:
    """The warm-up cut of --warmup / --skip-first (one of them at most), checked."""
    from schedlab.metrics.summary import warmup_jobs

    if warmup is not None and skip_first is not None:
        raise ConfigError("--warmup/--skip-first", (warmup, skip_first), "one of them")
    cut = warmup if warmup is not None else None if skip_first is None else str(skip_first)
    if cut is not None:
        option = "--warmup" if warmup is not None else "--skip-first"
        try:
            warmup_jobs(cut, 0)  # syntax and range only: the job count is not known yet
        except ConfigError:
            raise ConfigError(option, cut, "N jobs (N >= 0) or X% (0 <= X < 100)") from None
    return cut


def _progress_callback(enabled: bool, total: int) -> Any:
    """A rich progress bar on stderr for long runs, only on a terminal (not with --quiet)."""
    from schedlab.notes import is_quiet

    if not enabled or is_quiet() or not sys.stderr.isatty():
        return None, None
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(
        TextColumn("simulating"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} jobs"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    task = progress.add_task("sim", total=total)

    def update(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    return progress, update


@app.command()
def run(
    workload: WorkloadArg,
    policy: Annotated[
        str, typer.Option("--policy", "-p", help="Policy name (see `schedlab policies`).")
    ] = "easy",
    procs: Annotated[
        int | None, typer.Option(help="Machine size; default: the trace's MaxProcs.")
    ] = None,
    columns: ColumnsOpt = None,
    load_factor: Annotated[float, typer.Option(help="Scale the load: submit times x 1/F.")] = 1.0,
    kill_on_overrun: Annotated[
        bool, typer.Option(help="Kill jobs at their requested time.")
    ] = True,
    param: Annotated[
        list[str], typer.Option("--param", help="Policy parameter KEY=VALUE (repeatable).")
    ] = [],  # noqa: B006
    jobs_out: Annotated[
        Path | None, typer.Option(help="Write the per-job table (.csv or .parquet).")
    ] = None,
    timeseries_out: Annotated[
        Path | None,
        typer.Option(help="Write queue length and busy processors over time (.csv or .parquet)."),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(help="Also show metrics per class: user, group, queue or priority."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON object.")
    ] = False,
    check: Annotated[bool, typer.Option(help="Check the invariants while simulating.")] = False,
    estimates: Annotated[
        str | None,
        typer.Option(help="Add Tsafrir-model estimates where missing: seed=S[,KEY=VALUE...]."),
    ] = None,
    non_priority: Annotated[
        str | None,
        typer.Option(
            help="Mark non-priority jobs with deadlines (for dbf): every=3,deadline=a "
            "or fraction=0.3,seed=1,deadline=b (a: max(24h, 2 x run), b: max(72h, 2 x run), "
            "or seconds)."
        ),
    ] = None,
    deadlines: Annotated[
        Path | None,
        typer.Option(help="Absolute deadlines by job id from a CSV/Parquet (job_id,deadline)."),
    ] = None,
    moldable: Annotated[
        str | None,
        typer.Option(
            help="Make jobs moldable (Amdahl): pi=0.9[,fraction=0.5,seed=1]; rigid policies "
            "still run them at their size."
        ),
    ] = None,
    warmup: Annotated[
        str | None,
        typer.Option(
            help="Leave the first jobs out of the metrics (still simulated): N jobs or X% of "
            "them, e.g. 10%."
        ),
    ] = None,
    skip_first: Annotated[
        int | None, typer.Option(help="Leave the first N jobs out of the metrics (= --warmup N).")
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="Draw the run: utilization, queue length, wait CDF and a Gantt chart "
            "(.html page, or one .png/.svg/.pdf image)."
        ),
    ] = None,
    plot_window: Annotated[
        str | None,
        typer.Option(
            help="Gantt window of --plot, START:END in s or with a unit (e.g. 2d:3d); "
            "default: the busiest 2 days."
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace existing --jobs-out/--timeseries-out/--plot files."),
    ] = False,
) -> None:
    """Replay WORKLOAD through one policy and report the metrics.

    Tables show durations as 2h 13m; --json gives seconds. --jobs-out - writes the per-job
    CSV to standard output (the summary table then goes to stderr).
    """
    import time

    from schedlab.outputs import check_table_path, write_table
    from schedlab.schedulers.registry import make_policy
    from schedlab.simulation import simulate
    from schedlab.workload.load import load_workload

    clock = time.perf_counter()
    params = _parse_params(param)
    # fail fast, before a long read and simulation, on anything we can check now
    make_policy(policy, **params)
    inputs = [workload, _input_path(workload), deadlines]
    for option, path in (("--jobs-out", jobs_out), ("--timeseries-out", timeseries_out)):
        if path is not None:
            check_table_path(path, option=option)
            check_output(path, option=option, force=force, inputs=inputs)
    if jobs_out is not None and timeseries_out is not None and same_file(jobs_out, timeseries_out):
        raise OutputError("--timeseries-out", str(timeseries_out), "is also --jobs-out")
    to_stdout = [
        o
        for o, p in (("--jobs-out", jobs_out), ("--timeseries-out", timeseries_out))
        if is_stdout(p)
    ]
    if to_stdout and as_json:
        raise OutputError(to_stdout[0], "-", "standard output already carries --json")
    plot_gantt = None
    if plot is not None:
        from schedlab.report.single import check_plot_path, parse_window

        check_plot_path(plot, option="--plot")
        check_output(plot, option="--plot", force=force, inputs=inputs)
        if plot_window is not None:
            plot_gantt = parse_window(plot_window, option="--plot-window")
    elif plot_window is not None:
        raise ConfigError("--plot-window", plot_window, "only with --plot FILE")
    if by is not None and by not in BY_COLUMNS:
        raise ConfigError("--by", by, BY_COLUMNS)
    cut = _warmup_option(warmup, skip_first)
    wl = load_workload(workload, max_procs=procs, columns=_columns(columns))
    wl = _job_attributes(wl, estimates, non_priority, deadlines)
    if moldable is not None:
        from schedlab.workload.transforms import make_moldable

        items = _parse_items("--moldable", moldable)
        try:
            wl = make_moldable(wl, **items)
        except TypeError:
            raise ConfigError("--moldable", moldable, "pi=X[,fraction=X][,seed=N]") from None
    if by == "priority" and "deadline_time" not in wl.attributes:
        raise ConfigError("--by", by, "priority only with --non-priority or --deadlines")
    if policy == "dbf" and not _has_deadlines(wl):
        _note(
            "dbf: no job has a deadline (give --non-priority or --deadlines), so every job is "
            "a priority job and DBF is exactly conservative backfilling here"
        )
    if cut is not None:
        from schedlab.metrics.summary import warmup_jobs

        warmup_jobs(cut, len(wl))  # a cut of every job fails now, not after simulating
    bar, update = _progress_callback(not as_json, len(wl))
    if bar is not None:
        bar.start()
    try:
        result = simulate(
            wl,
            policy,
            load_factor=load_factor,
            kill_on_overrun=kill_on_overrun,
            check=check,
            timeseries=timeseries_out is not None or plot is not None,
            progress=update,
            **params,
        )
    finally:
        if bar is not None:
            bar.stop()
    if jobs_out is not None:
        result.write_jobs(jobs_out)
    if timeseries_out is not None and result.timeseries is not None:
        write_table(result.timeseries, timeseries_out)
    if plot is not None:
        from schedlab.report.single import plot as plot_run

        plot_run(result, plot, window=plot_gantt)
    summary = result.summary(warmup=cut or 0)
    if cut:
        summary["warmup_jobs"] = len(wl) - summary["jobs"]
    skipped_by = {reason: n for reason, n in wl.skipped.items() if n}
    if as_json:
        summary["skipped_by_reason"] = skipped_by
        if by is not None:
            summary[f"by_{by}"] = result.by(by, warmup=cut or 0).to_dict(orient="records")
        summary["total_wall_time"] = time.perf_counter() - clock
        print(json.dumps(summary))
        return
    shown = err if to_stdout else out  # stdout carries the per-job table
    title = f"{policy} on {wl.source}"
    if cut:
        title += f" (first {summary['warmup_jobs']:,} jobs left out of the metrics)"
    table = Table(title=title, show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in summary.items():
        if key != "warmup_jobs":
            table.add_row(_SUMMARY_LABELS.get(key, (key,))[0], _fmt(key, value))
        if key == "skipped":
            for reason, count in skipped_by.items():
                table.add_row(f"  skipped: {reason}", f"{count:,}")
    shown.print(table)
    if by is not None:
        _print_frame(result.by(by, warmup=cut or 0), title=f"per {by}", console=shown)
    if jobs_out is not None and not is_stdout(jobs_out):
        _wrote(f"per-job table to {jobs_out}")
    if plot is not None:
        _wrote(f"plot to {plot}")


_CLASS_COLUMNS = (
    "jobs",
    "utilization",
    "mean_wait_time",
    "max_wait_time",
    "mean_bounded_slowdown",
    "killed",
)


_GRID_GROUP_COLUMNS = (
    "jobs",
    "makespan",
    "mean_wait_time",
    "mean_local_wait_time",
    "mean_execution_time",
    "mean_response_time",
    "killed",
)


def _print_frame(
    frame: Any,
    title: str,
    limit: int = 40,
    wanted: tuple[str, ...] = _CLASS_COLUMNS,
    console: Console = out,
) -> None:
    """Per-class metrics as a table of the columns that fit a terminal."""
    key = frame.columns[0]
    columns = [c for c in wanted if c in frame.columns]
    table = Table(title=title)
    table.add_column(str(key))
    for col in columns:
        table.add_column(_SUMMARY_LABELS.get(col, (col,))[0], justify="right")
    for _, row in frame.head(limit).iterrows():
        value = row[key]
        label = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        table.add_row(label, *(_fmt(c, row[c]) for c in columns))
    console.print(table)
    if len(frame) > limit:
        console.print(f"... {len(frame) - limit} more rows (all of them with --json)")


@app.command()
def policies() -> None:
    """List the registered policies and their parameters."""
    import dataclasses

    from schedlab.schedulers.registry import available_policies, policy_class

    table = Table(title="policies")
    table.add_column("name")
    table.add_column("parameters (default)")
    table.add_column("description")
    for name in available_policies():
        cls = policy_class(name)
        fields = dataclasses.fields(cls.Params)
        params = ", ".join(f"{f.name}={f.default!r}" for f in fields) or "-"
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        table.add_row(name, params, doc)
    out.print(table)


@app.command()
def example(
    name: Annotated[
        str | None,
        typer.Argument(help="The example to print (without a name: list them)."),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write it to a file (- = stdout).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing output file.")
    ] = False,
) -> None:
    """Print an example sweep or platform file shipped with schedlab.

    `schedlab example sweep > sweep.toml` then `schedlab sweep sweep.toml --dry-run`. Paths
    inside an example are relative to the file you save it as; `quick-sweep` needs none.
    """
    from schedlab.examples_files import example_names, example_text

    if name is None:
        table = Table(title="examples (schedlab example NAME > NAME.toml)")
        table.add_column("name")
        table.add_column("what it is")
        for item in example_names():
            first = example_text(item).splitlines()[0].lstrip("# ").strip()
            table.add_row(item, first)
        out.print(table)
        return
    text = example_text(name)
    if output is None:
        sys.stdout.write(text)
        return
    check_output(output, option="--output", force=force)
    write_atomic(output, text.encode("utf-8"))
    _wrote(output)


@app.command()
def demo(
    jobs: Annotated[int, typer.Option(help="Jobs to generate.")] = 5000,
    procs: Annotated[int, typer.Option(help="Processors of the simulated machine.")] = 128,
    seed: Annotated[int, typer.Option(help="Seed of the workload model.")] = 1,
    load: Annotated[float, typer.Option(help="Offered load of the generated workload.")] = 0.7,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare FCFS, EASY and conservative backfilling on a generated workload (no download)."""
    from schedlab.simulation import simulate
    from schedlab.workload.models.lublin import generate_lublin

    wl = generate_lublin(jobs=jobs, procs=procs, seed=seed, load=load, kind="all")
    rows = {}
    for name in ("fcfs", "easy", "conservative"):
        rows[name] = simulate(wl, name).summary()
    if as_json:
        print(json.dumps({"workload": wl.source, "policies": rows}))
        return
    keys = [
        "mean_wait_time",
        "max_wait_time",
        "mean_response_time",
        "mean_bounded_slowdown",
        "utilization",
        "unfairness",
        "killed",
        "wall_time",
    ]
    table = Table(
        title=f"{jobs:,} Lublin-Feitelson jobs on {procs} processors (load {load}, seed {seed})"
    )
    table.add_column("metric")
    for name in rows:
        table.add_column(name, justify="right")
    for key in keys:
        table.add_row(_SUMMARY_LABELS[key][0], *(_fmt(key, rows[n][key]) for n in rows))
    out.print(table)
    fcfs, easy, cbf = rows["fcfs"], rows["easy"], rows["conservative"]
    easy_gain = 1 - easy["mean_wait_time"] / max(fcfs["mean_wait_time"], 1e-9)
    out.print(
        "What it shows: the same jobs under three policies. With FCFS a wide job at the head "
        "of the queue holds everyone back while processors stand idle: the machine is busy "
        f"only {fcfs['utilization']:.0%} of the time although the jobs offer {load:.0%}, so "
        "the queue keeps growing and waits explode. EASY backfilling lets later jobs jump "
        "ahead when that does not delay the head: "
        f"{easy_gain:.0%} less mean wait than FCFS, utilization {easy['utilization']:.0%}. "
        "Conservative backfilling gives every job a reservation when it arrives, so no job is "
        "ever delayed by a later one; here its mean wait is "
        f"{cbf['mean_wait_time'] / max(easy['mean_wait_time'], 1e-9):.2f}x EASY's and its "
        f"bounded slowdown {cbf['mean_bounded_slowdown']:.0f} against EASY's "
        f"{easy['mean_bounded_slowdown']:.0f}. These jobs carry no user estimates (requested "
        "time = run time), the best case for backfilling. Next: `schedlab run` on a trace "
        "from the Parallel Workloads Archive (see the README and docs/tutorial.md).",
        highlight=False,
    )


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


@app.command()
def sweep(
    file: Annotated[Path, typer.Argument(help="A sweep file (TOML), see examples/sweep.toml.")],
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Results folder (default: the file's `out`).")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="List the runs and exit.")] = False,
    workers: Annotated[
        int | None, typer.Option(help="Local worker processes (default: all cores).")
    ] = None,
    dask: Annotated[
        str | None,
        typer.Option(help="Run on Dask: 'local' (a LocalCluster) or a scheduler tcp://HOST:PORT."),
    ] = None,
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
            print(json.dumps({"runs": rows}))
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
            _note(store.takeover_note)
        if store.repaired_runs:
            _note(
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
        print(
            json.dumps(
                {
                    "out": str(target),
                    "total": result.total,
                    "skipped": result.skipped,
                    "done": result.done,
                    "failed": result.failed,
                    "failures": failures,
                }
            )
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


@app.command()
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
    exports = (("--csv", csv), ("--markdown", markdown), ("--latex", latex))
    for option, path in exports:
        if path is not None:
            check_output(path, option=option, force=force)
    given = [path for _, path in exports if path is not None]
    if len({str(p.expanduser().resolve()) for p in given}) < len(given):
        raise ConfigError("--csv/--markdown/--latex", [str(p) for p in given], "distinct files")
    store = ResultStore(directory)
    if as_json:
        print(json.dumps(runs_json(store), allow_nan=False))
        return
    table = comparison_table(
        store,
        metrics=tuple(metric) or DEFAULT_METRICS,
        method=method,
        batch_size=batch_size,
        confidence=confidence,
    )
    shown = err if any(is_stdout(p) for p in given) else out  # stdout carries the export
    for rich_table in table.rich_tables():
        shown.print(rich_table)
    failed = len(store.failed_ids() - store.done_ids())
    if failed:
        shown.print(f"{failed} failed run(s): see `schedlab results {directory} --json`")
    for path, text in ((markdown, table.to_markdown), (latex, table.to_latex)):
        if path is not None:
            write_atomic(path, text().encode())
            _wrote(path)
    if csv is not None:
        table.to_csv(csv)
        _wrote(csv)


@app.command()
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
    check_output(output, option="--output", force=force)

    window = None
    if gantt_start is not None or gantt_end is not None:
        if gantt_start is None or gantt_end is None or gantt_end <= gantt_start:
            raise ConfigError(
                "--gantt-start/--gantt-end", (gantt_start, gantt_end), "both, with end > start"
            )
        window = (gantt_start, gantt_end)
    path = write_report(directory, output, gantt_run=gantt_run, gantt_window=window)
    _wrote(path)


@app.command()
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
    workers: Annotated[
        int | None, typer.Option(help="Local worker processes (default: all cores).")
    ] = None,
    dask: Annotated[
        str | None,
        typer.Option(help="Run on Dask: 'local' (a LocalCluster) or a scheduler tcp://HOST:PORT."),
    ] = None,
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
        print(json.dumps({**result.to_json(), "out": str(target)}))
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
    for note in result.notes:
        out.print(f"note: {note}", highlight=False)
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


@app.command()
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
    workers: Annotated[
        int | None, typer.Option(help="Local worker processes (default: all cores).")
    ] = None,
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
    bar, update = _progress_callback(not as_json, 1)
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
        print(json.dumps(document))
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


_GRID_LABELS = {
    "global_mean_wait_time": "meta-jobs: mean global wait (s)",
    "global_mean_local_wait_time": "meta-jobs: mean local wait (s)",
    "global_mean_execution_time": "meta-jobs: mean execution (s)",
    "global_mean_response_time": "meta-jobs: mean response (s)",
    "global_makespan": "meta-jobs: makespan (s)",
    "local_mean_response_time": "local jobs: mean response (s)",
    "local_mean_wait_time": "local jobs: mean wait (s)",
    "global_jobs": "meta-jobs",
    "local_jobs": "local jobs",
    "local_makespan": "local jobs: makespan (s)",
    "local_mean_local_wait_time": "local jobs: mean local wait (s)",
    "local_mean_execution_time": "local jobs: mean execution (s)",
    "matcher_requests": "matcher requests",
    "matcher_requests_agent": "  agents' requests or probes",
    "matcher_requests_first_pull": "  pilots' first pulls",
    "matcher_requests_refill": "  pilots' refills",
    "wasted_pilots": "wasted pilots",
}


def grid_workload(
    platform: Any,
    workload: str | None,
    mode: str,
    generator: dict[str, Any],
    seed: int,
) -> Any:
    """The stream of a platform run: the one the platform ships with (``workload`` None:
    its ``[stream]`` generator, by default that of Caron et al., LIP RR-2005-13), or an SWF
    trace replayed as a global or local stream."""
    if workload is None:
        from schedlab.workload.streams import platform_stream

        try:
            return platform_stream(platform, generator, seed)
        except ConfigError as exc:
            if exc.option.startswith("stream."):
                raise ConfigError("--generator", generator, exc.allowed) from None
            raise
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.importers import read_trace

    return GridWorkload.from_swf(read_trace(workload, on_note=_note), platform, mode)


@grid_app.command("run")
def grid_run(
    platform_file: Annotated[
        Path | None,
        typer.Argument(
            help="A platform (TOML, see examples/platform-dirac.toml); with --workload and "
            "no platform, one is derived from the trace (peak concurrency per partition)."
        ),
    ] = None,
    meta: Annotated[
        str,
        typer.Option(
            help="Meta-scheduler: push, push_random, push_round_robin, static, "
            "pilot_simple, pilot_filling (see `schedlab grid meta`)."
        ),  # fmt: skip
    ] = "push",
    refresh: Annotated[
        float | None, typer.Option(help="push: information refresh period Δt (s); 0: exact.")
    ] = None,
    param: Annotated[
        list[str], typer.Option("--param", help="Meta-scheduler parameter KEY=VALUE.")
    ] = [],  # noqa: B006
    workload: Annotated[
        str | None,
        typer.Option(
            help="An SWF grid trace (e.g. LCG-2005); default: the generator of Caron et al. "
            "(LIP RR-2005-13)."
        ),
    ] = None,
    mode: Annotated[
        str, typer.Option(help="A trace's jobs: global (to the meta-scheduler) or local.")
    ] = "global",
    generator: Annotated[
        str | None,
        typer.Option(help="Generator settings, e.g. meta_jobs=500,local_jobs=0 (dedicated)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generator and the meta-scheduler.")] = 1,
    check: Annotated[bool, typer.Option(help="Check the kernel's invariants.")] = False,
    jobs_out: Annotated[
        Path | None, typer.Option(help="Write the per-job table (.csv or .parquet).")
    ] = None,
    timeseries_out: Annotated[
        Path | None,
        typer.Option(
            help="Write jobs queued/running/done over time (200 points; per --by group if "
            "given, else with the matcher's requests per bin) (.csv or .parquet)."
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(help="Also show the metrics per site, org or stream."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing --jobs-out/--timeseries-out.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Simulate a grid: a meta-scheduler over the platform's clusters (Caron et al., LIP
    RR-2005-13)."""
    from schedlab.grid.registry import make_meta_scheduler
    from schedlab.metrics.grid import GROUP_KEYS, check_group_key
    from schedlab.outputs import check_table_path
    from schedlab.results import TDCS_GROUP_KEYS
    from schedlab.simulation import run_grid
    from schedlab.workload.models.tdcs import TdcsWorkload

    params = _parse_params(param)
    if refresh is not None:
        params["refresh"] = refresh
    instance = make_meta_scheduler(meta, **params)
    if by is not None and by not in TDCS_GROUP_KEYS:
        check_group_key(by)
    inputs = [workload, _input_path(workload), platform_file]
    for path, option in ((jobs_out, "--jobs-out"), (timeseries_out, "--timeseries-out")):
        if path is not None:
            check_table_path(path, option=option)
            check_output(path, option=option, force=force, inputs=inputs)
    if jobs_out is not None and jobs_out == timeseries_out:
        raise ConfigError("--timeseries-out", str(timeseries_out), "a file other than --jobs-out")
    if platform_file is not None:
        from schedlab.grid.platforms import load_platform_source

        platform = load_platform_source(str(platform_file))  # a file, or builtin:NAME
    elif workload is not None:
        from schedlab.workload.grid import derive_platform
        from schedlab.workload.importers import read_trace

        platform = derive_platform(read_trace(workload))
    else:
        raise ConfigError("PLATFORM", None, "a platform file, or --workload TRACE to derive one")
    wl = grid_workload(platform, workload, mode, _parse_items("--generator", generator or ""), seed)
    if by is not None:  # a TDCS stream is also split by priority, origin or cluster
        check_group_key(by, TDCS_GROUP_KEYS if isinstance(wl, TdcsWorkload) else GROUP_KEYS)
    result = run_grid(platform, wl, instance, seed=seed, check=check)
    if jobs_out is not None:
        result.write_jobs(jobs_out)
    if timeseries_out is not None:
        from schedlab.outputs import write_table

        write_table(result.series(by), timeseries_out)
    summary = result.summary()
    groups = result.by(by) if by is not None else None
    if as_json:
        extra = {} if groups is None else {f"by_{by}": groups.to_dict(orient="records")}
        print(json.dumps({"meta": meta, "params": result.meta_params, **summary, **extra}))
        return
    table = Table(title=f"{meta} on {platform.source}: {wl.source}", show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in summary.items():
        label = _GRID_LABELS.get(key, _SUMMARY_LABELS.get(key, (key,))[0])
        if key in _SUMMARY_LABELS and key != "makespan":
            text = _fmt(key, value)
        else:
            text = f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"
        table.add_row(label if isinstance(label, str) else key, text)
    shown = err if is_stdout(jobs_out) or is_stdout(timeseries_out) else out
    shown.print(table)
    if groups is not None:
        _print_frame(groups, f"per {by}", wanted=_GRID_GROUP_COLUMNS, console=shown)


@grid_app.command("meta")
def grid_meta() -> None:
    """List the registered meta-schedulers and their parameters."""
    import dataclasses

    from schedlab.grid.registry import available_meta_schedulers, meta_scheduler_class

    table = Table(title="meta-schedulers")
    table.add_column("name")
    table.add_column("parameters (default)")
    table.add_column("description")
    for name in available_meta_schedulers():
        cls = meta_scheduler_class(name)
        fields = dataclasses.fields(cls.Params)
        params = ", ".join(f"{f.name}={f.default!r}" for f in fields) or "-"
        table.add_row(name, params, (cls.__doc__ or "").strip().splitlines()[0])
    out.print(table)


@workload_app.command("info")
def workload_info(
    workload: WorkloadArg,
    procs: Annotated[int | None, typer.Option(help="Machine size override.")] = None,
    columns: ColumnsOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Size, span, load, partitions and skipped jobs of a workload.

    A trace of several partitions (SWF field 16) gets a table of them: jobs, share of the
    work, peak of processors in use and offered load on that peak; offered loads above 1
    are warned about.
    """
    from schedlab.workload.info import describe
    from schedlab.workload.load import load_workload

    wl = load_workload(workload, max_procs=procs, columns=_columns(columns), note_partitions=False)
    info = describe(wl)
    if as_json:
        print(json.dumps(info))
        return
    table = Table(title=str(info["source"]), show_header=False)
    table.add_column("key")
    table.add_column("value", justify="right")
    for key, value in info.items():
        if key in ("source", "skipped_by_reason", "header", "partitions", "warnings"):
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        table.add_row(
            key,
            f"{value:,.3f}"
            if isinstance(value, float)
            else f"{value:,}"
            if isinstance(value, int)
            else printable(str(value)),  # header text comes from the file
        )
    for reason, count in info["skipped_by_reason"].items():
        table.add_row(f"skipped: {reason}", f"{count:,}")
    out.print(table)
    _print_partitions(info["partitions"])
    for warning in info["warnings"]:
        out.print(f"warning: {printable(warning)}", highlight=False)


def _print_partitions(rows: list[dict[str, Any]], limit: int = 40) -> None:
    """The partitions table of `workload info` (the most jobs first), when there are any."""
    if not rows or (len(rows) == 1 and rows[0]["partition"] < 0):
        return
    shown = sorted(rows, key=lambda r: (-r["jobs"], r["partition"]))[:limit]
    table = Table(title=f"{len(rows)} partitions (SWF field 16)")
    for col in ("partition", "name", "jobs", "work share", "peak procs in use", "offered load"):
        table.add_column(col, justify="left" if col == "name" else "right")
    for r in shown:
        table.add_row(
            str(r["partition"]) if r["partition"] >= 0 else "-",
            printable(r["name"]),
            f"{r['jobs']:,}",
            f"{r['work_share']:.1%}",
            f"{r['peak_procs']:,}" + ("" if r["waits_known"] else "*"),
            f"{r['offered_load']:.3f}",
        )
    notes = []
    if not all(r["waits_known"] for r in shown):
        notes.append("* jobs without a wait time counted from their submit")
    if len(rows) > limit:
        notes.append(f"the {limit} with the most jobs; --json lists all {len(rows)}")
    table.caption = "; ".join(notes) or None
    out.print(table)


@workload_app.command("generate")
def workload_generate(
    spec: Annotated[
        str,
        typer.Argument(
            help="Model spec: lublin:jobs=10000,procs=256,seed=1, "
            "hlw:n=128,nodes=64,pi=0.99,seed=1 or mmc:servers=4,load=0.9,jobs=10000,seed=1"
        ),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Output .swf or .swf.gz")],
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing output file.")
    ] = False,
) -> None:
    """Generate a workload from a model and write it as SWF."""
    from schedlab.workload.load import is_model_spec, load_workload
    from schedlab.workload.swf import write_swf

    if not is_model_spec(spec):
        from schedlab.workload.load import MODELS

        raise ConfigError("model spec", spec, [f"{m}:key=value,..." for m in MODELS])
    check_output(output, option="--output", force=force)
    wl = load_workload(spec)
    write_swf(wl, output)
    _wrote(f"{len(wl):,} jobs to {'standard output' if is_stdout(output) else output}")


@workload_app.command("convert")
def workload_convert(
    source: WorkloadArg,
    output: Annotated[Path, typer.Argument(help="Output .swf or .swf.gz")],
    procs: Annotated[int | None, typer.Option(help="Machine size override.")] = None,
    columns: ColumnsOpt = None,
    load_factor: Annotated[float, typer.Option(help="Scale the load: submit times x 1/F.")] = 1.0,
    drop_status: Annotated[
        str | None, typer.Option(help="Drop jobs with these SWF statuses, e.g. 0,5.")
    ] = None,
    first: Annotated[int | None, typer.Option(help="Keep only the first N jobs.")] = None,
    start: Annotated[
        float | None, typer.Option(help="Keep jobs submitted at or after this time (s).")
    ] = None,
    end: Annotated[
        float | None, typer.Option(help="Keep jobs submitted before this time (s).")
    ] = None,
    estimates: Annotated[
        str | None,
        typer.Option(help="Add Tsafrir-model estimates (field 9) where missing: seed=S,..."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing OUTPUT.")] = False,
) -> None:
    """Transform a workload (clean, cut, rescale, add estimates) and write it as SWF.

    Also turns a Slurm, PBS or CSV log into SWF (docs/importers.md). The output's fields
    are integers (fractional values are rounded: submit times down, durations up), its
    MaxJobs/MaxRecords count the jobs written, and a `; schedlab:` header line records what
    was applied. OUTPUT is never the input; an existing OUTPUT needs --force.
    """
    from schedlab.scenario import require_jobs
    from schedlab.workload import transforms
    from schedlab.workload.export import for_swf
    from schedlab.workload.importers import parse_source
    from schedlab.workload.load import load_workload
    from schedlab.workload.swf import write_swf

    path = parse_source(source).path  # the file, without a slurm:/pbs:/csv: prefix
    check_output(output, option="OUTPUT", force=force, inputs=[path])
    wl = load_workload(source, max_procs=procs, columns=_columns(columns), note_partitions=False)
    applied: list[str] = []
    if procs is not None:
        applied.append(f"machine size set to {procs}")
    if drop_status:
        try:
            statuses = tuple(int(s) for s in drop_status.split(","))
        except ValueError:
            raise ConfigError("--drop-status", drop_status, "comma-separated integers") from None
        wl = transforms.clean_by_status(wl, drop=statuses)
        applied.append(f"jobs with status {drop_status} dropped")
    if start is not None or end is not None:
        wl = transforms.time_window(
            wl, float("-inf") if start is None else start, float("inf") if end is None else end
        )
        applied.append(f"submit times in [{start or '-inf'}, {end or 'inf'}) s kept")
    if first is not None:
        wl = transforms.first_jobs(wl, first)
        applied.append(f"first {first} jobs kept")
    if load_factor != 1.0:
        wl = transforms.scale_load(wl, load_factor)
        applied.append(f"load factor {load_factor:g} (submit times x 1/{load_factor:g})")
    wl = _job_attributes(wl, estimates, None, None)
    if estimates is not None:
        applied.append(f"Tsafrir estimates added where missing ({estimates})")
    require_jobs(wl)
    wl = for_swf(wl, source=Path(path).name, applied=applied)
    write_swf(wl, output)
    _wrote(f"{len(wl):,} jobs to {'standard output' if is_stdout(output) else output}")


@tdcs_app.command("run")
def tdcs_run(
    platform_file: Annotated[
        Path | None,
        typer.Argument(
            help="A platform (TOML); default: builtin:tdcs (examples/platform-tdcs.toml)."
        ),
    ] = None,
    dispatcher: Annotated[
        str,
        typer.Option(help="tdcs, tdcs_no_preemption, round_robin, least_loaded or random."),
    ] = "tdcs",
    preemption: Annotated[
        str, typer.Option(help="Local managers: checkpoint, suspend, requeue, cancel or none.")
    ] = "checkpoint",
    checkpoint_overhead: Annotated[
        float, typer.Option(help="Seconds a restart from a checkpoint costs.")
    ] = 60.0,
    horizon: Annotated[
        int | None, typer.Option(help="tdcs: global jobs a cluster may hold (0: unlimited).")
    ] = None,
    candidate_rule: Annotated[
        str | None,
        typer.Option(help="tdcs: queue, queue_and_running or fits_by_preemption."),
    ] = None,
    workload: Annotated[
        str | None, typer.Option(help="An SWF trace; default: the pre-registered generator.")
    ] = None,
    priority_from: Annotated[
        str,
        typer.Option(help="Trace priorities: queue (field 15), none, or a CSV job_id,priority."),
    ] = "queue",
    origin: Annotated[
        str, typer.Option(help="Trace origins: round_robin or partition (field 16).")
    ] = "round_robin",
    hours: Annotated[float, typer.Option(help="Generator: hours of arrivals.")] = 72.0,
    load: Annotated[float, typer.Option(help="Generator: offered load.")] = 0.85,
    seed: Annotated[int, typer.Option(help="Seed of the generator and of random.")] = 1,
    check: Annotated[bool, typer.Option(help="Check the kernel's invariants.")] = False,
    jobs_out: Annotated[
        Path | None, typer.Option(help="Write the per-job table (.csv or .parquet).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --jobs-out.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Simulate the system of Baranov and Tikhomirov (Computational Technologies 2017): a
    dispatcher over clusters with priority managers."""
    from schedlab.outputs import check_table_path
    from schedlab.simulation import run_tdcs
    from schedlab.workload.models.tdcs import TdcsWorkload, generate_tdcs

    if jobs_out is not None:
        check_table_path(jobs_out, option="--jobs-out")
        check_output(jobs_out, option="--jobs-out", force=force, inputs=[workload, platform_file])
    from schedlab.grid.platforms import load_platform_source

    # a file, or builtin:NAME
    platform = load_platform_source("builtin:tdcs" if platform_file is None else str(platform_file))
    if workload is None:
        wl = generate_tdcs(platform, hours=hours, load=load, seed=seed)
    else:
        from schedlab.workload.importers import read_trace

        wl = TdcsWorkload.from_swf(
            read_trace(workload, on_note=_note),
            platform,
            priority_from=priority_from,
            origin=origin,
        )
    params: dict[str, Any] = {}
    if horizon is not None:
        params["horizon"] = horizon
    if candidate_rule is not None:
        params["candidate_rule"] = candidate_rule
    result = run_tdcs(
        platform,
        wl,
        dispatcher,
        preemption=preemption,
        checkpoint_overhead=checkpoint_overhead,
        seed=seed,
        check=check,
        **params,
    )
    if jobs_out is not None:
        result.write_jobs(jobs_out)
    summary = result.summary()
    if as_json:
        clean = {k: (None if isinstance(v, float) and v != v else v) for k, v in summary.items()}
        print(json.dumps({"dispatcher": dispatcher, "params": params, **clean}))
        return
    table = Table(title=f"{dispatcher} on {platform.source}: {wl.source}", show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in summary.items():
        if key in _SUMMARY_LABELS:
            table.add_row(_SUMMARY_LABELS[key][0], _fmt(key, value))
        else:
            text = f"{value:,.1f}" if isinstance(value, float) else str(value)
            table.add_row(key.replace("_", " "), text)
    (err if is_stdout(jobs_out) else out).print(table)


def _quiet_first(args: list[str]) -> list[str]:
    """``--quiet``/``-q`` anywhere (before a ``--``) moved to the front, where the main
    callback reads it: ``schedlab run X --quiet`` works as ``schedlab --quiet run X``."""
    stop = args.index("--") if "--" in args else len(args)
    quiet = [a for a in args[:stop] if a in ("--quiet", "-q")]
    if not quiet:
        return args
    return ["--quiet", *(a for a in args[:stop] if a not in ("--quiet", "-q")), *args[stop:]]


def main() -> None:
    """Console-script entry point: library errors become one line and exit code 2.

    Usage errors (unknown option, bad value) are click's own: a usage line, exit code 2.
    """
    try:
        app(args=_quiet_first(sys.argv[1:]), prog_name="schedlab")
    except SchedlabError as exc:
        # plain text: rich would read `file.swf:100:` as an emoji shortcode
        sys.stderr.write(f"schedlab: error: {_one_line(str(exc))}\n")
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("schedlab: interrupted", highlight=False)
        sys.exit(130)
