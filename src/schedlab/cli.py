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

from schedlab.errors import ConfigError, SchedlabError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Replay job traces and workload models through batch scheduling policies.",
    pretty_exceptions_enable=False,
)
workload_app = typer.Typer(no_args_is_help=True, help="Inspect, generate and convert workloads.")
app.add_typer(workload_app, name="workload")

out = Console()
err = Console(stderr=True)

WorkloadArg = Annotated[
    str,
    typer.Argument(
        help="An .swf/.swf.gz path or a model spec such as lublin:jobs=10000,procs=256,seed=1"
    ),
]

BY_COLUMNS = ("user", "group", "queue", "priority")

_SUMMARY_LABELS = {
    "jobs": ("jobs", "{:,}"),
    "skipped": ("skipped", "{:,}"),
    "procs": ("processors", "{:,}"),
    "makespan": ("makespan (s)", "{:,.0f}"),
    "utilization": ("utilization", "{:.3f}"),
    "mean_wait_time": ("mean wait (s)", "{:,.1f}"),
    "max_wait_time": ("max wait (s)", "{:,.0f}"),
    "mean_response_time": ("mean response (s)", "{:,.1f}"),
    "mean_slowdown": ("mean slowdown", "{:,.2f}"),
    "mean_bounded_slowdown": ("mean bounded slowdown", "{:,.2f}"),
    "unfairness": ("unfairness", "{:,.1f}"),
    "killed": ("killed", "{:,}"),
    "wall_time": ("simulation wall time (s)", "{:.2f}"),
}


def _fmt(key: str, value: Any) -> str:
    fmt = _SUMMARY_LABELS.get(key, (key, "{}"))[1]
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


def _progress_callback(enabled: bool, total: int) -> Any:
    """A rich progress bar on stderr for long runs, only on a terminal."""
    if not enabled or not sys.stderr.isatty():
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
) -> None:
    """Replay WORKLOAD through one policy and report the metrics."""
    import time

    from schedlab.schedulers.registry import make_policy
    from schedlab.simulation import check_table_path, simulate, write_table
    from schedlab.workload.load import load_workload

    clock = time.perf_counter()
    params = _parse_params(param)
    # fail fast, before a long read and simulation, on anything we can check now
    make_policy(policy, **params)
    if jobs_out is not None:
        check_table_path(jobs_out, option="--jobs-out")
    if timeseries_out is not None:
        check_table_path(timeseries_out, option="--timeseries-out")
    if by is not None and by not in BY_COLUMNS:
        raise ConfigError("--by", by, BY_COLUMNS)
    wl = load_workload(workload, max_procs=procs)
    wl = _job_attributes(wl, estimates, non_priority, deadlines)
    if by == "priority" and "deadline_time" not in wl.attributes:
        raise ConfigError("--by", by, "priority only with --non-priority or --deadlines")
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
            timeseries=timeseries_out is not None,
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
    summary = result.summary()
    if as_json:
        if by is not None:
            summary[f"by_{by}"] = result.by(by).to_dict(orient="records")
        summary["total_wall_time"] = time.perf_counter() - clock
        print(json.dumps(summary))
        return
    table = Table(title=f"{policy} on {wl.source}", show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in summary.items():
        table.add_row(_SUMMARY_LABELS.get(key, (key,))[0], _fmt(key, value))
    out.print(table)
    if by is not None:
        _print_frame(result.by(by), title=f"per {by}")
    if jobs_out is not None:
        out.print(f"per-job table written to {jobs_out}")


_CLASS_COLUMNS = (
    "jobs",
    "utilization",
    "mean_wait_time",
    "max_wait_time",
    "mean_bounded_slowdown",
    "killed",
)


def _print_frame(frame: Any, title: str, limit: int = 40) -> None:
    """Per-class metrics as a table of the columns that fit a terminal."""
    key = frame.columns[0]
    columns = [c for c in _CLASS_COLUMNS if c in frame.columns]
    table = Table(title=title)
    table.add_column(str(key))
    for col in columns:
        table.add_column(_SUMMARY_LABELS.get(col, (col,))[0], justify="right")
    for _, row in frame.head(limit).iterrows():
        value = row[key]
        label = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        table.add_row(label, *(_fmt(c, row[c]) for c in columns))
    out.print(table)
    if len(frame) > limit:
        out.print(f"... {len(frame) - limit} more rows (all of them with --json)")


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
        self.enabled = enabled
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
    with store:
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
        finally:
            bar.stop()
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
) -> None:
    """Compare policies across the runs of a results folder (tables with intervals)."""
    from schedlab.experiments.analysis import DEFAULT_METRICS, comparison_table, runs_json
    from schedlab.experiments.store import ResultStore

    if not (directory / "runs").is_dir():
        raise ConfigError("DIR", str(directory), "a results folder written by `schedlab sweep`")
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
    for rich_table in table.rich_tables():
        out.print(rich_table)
    failed = len(store.failed_ids() - store.done_ids())
    if failed:
        out.print(f"{failed} failed run(s): see `schedlab results {directory} --json`")
    for path, text in ((markdown, table.to_markdown), (latex, table.to_latex)):
        if path is not None:
            path.write_text(text())
            err.print(f"wrote {path}")
    if csv is not None:
        table.to_csv(csv)
        err.print(f"wrote {csv}")


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
) -> None:
    """Write one self-contained HTML page: tables, charts and every run's configuration."""
    from schedlab.report.html import write_report

    window = None
    if gantt_start is not None or gantt_end is not None:
        if gantt_start is None or gantt_end is None or gantt_end <= gantt_start:
            raise ConfigError(
                "--gantt-start/--gantt-end", (gantt_start, gantt_end), "both, with end > start"
            )
        window = (gantt_start, gantt_end)
    path = write_report(directory, output, gantt_run=gantt_run, gantt_window=window)
    err.print(f"wrote {path}")


@app.command()
def reproduce(
    paper: Annotated[str, typer.Argument(help="Which paper: dbf (paper 000) or pps (paper 002).")],
    quick: Annotated[
        bool, typer.Option(help="A reduced version (first 20k jobs, fewer loads): minutes.")
    ] = False,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Results folder (default: reproduce-PAPER[-quick])."),
    ] = None,
    traces: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the PWA traces (default: $SCHEDLAB_TRACES, ../shared/workloads)."
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Local worker processes (default: all cores).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
) -> None:
    """Run a paper's experiments and print its tables next to the published ones."""
    from schedlab.experiments.reproduce import REPRODUCTIONS, reproduction
    from schedlab.experiments.reproduce.common import find_traces

    if paper not in REPRODUCTIONS:
        raise ConfigError("paper", paper, sorted(REPRODUCTIONS))
    folder = find_traces(traces)
    target = out_dir or Path(f"reproduce-{paper}{'-quick' if quick else ''}")
    bar = _RunsBar(enabled=not as_json and sys.stderr.isatty())
    try:
        result = reproduction(paper)(
            folder, target, quick=quick, workers=workers, on_change=bar.show
        )
    finally:
        bar.stop()
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


@workload_app.command("info")
def workload_info(
    workload: WorkloadArg,
    procs: Annotated[int | None, typer.Option(help="Machine size override.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Size, span, load and skipped jobs of a workload."""
    from schedlab.workload.info import describe
    from schedlab.workload.load import load_workload

    info = describe(load_workload(workload, max_procs=procs))
    if as_json:
        print(json.dumps(info))
        return
    table = Table(title=str(info["source"]), show_header=False)
    table.add_column("key")
    table.add_column("value", justify="right")
    for key, value in info.items():
        if key in ("source", "skipped_by_reason", "header"):
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        table.add_row(
            key,
            f"{value:,.3f}"
            if isinstance(value, float)
            else f"{value:,}"
            if isinstance(value, int)
            else str(value),
        )
    for reason, count in info["skipped_by_reason"].items():
        table.add_row(f"skipped: {reason}", f"{count:,}")
    out.print(table)


@workload_app.command("generate")
def workload_generate(
    spec: Annotated[
        str, typer.Argument(help="Model spec, e.g. lublin:jobs=10000,procs=256,seed=1")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Output .swf or .swf.gz")],
) -> None:
    """Generate a workload from a model and write it as SWF."""
    from schedlab.workload.load import is_model_spec, load_workload
    from schedlab.workload.swf import write_swf

    if not is_model_spec(spec):
        from schedlab.workload.load import MODELS

        raise ConfigError("model spec", spec, [f"{m}:key=value,..." for m in MODELS])
    wl = load_workload(spec)
    write_swf(wl, output)
    err.print(f"wrote {len(wl):,} jobs to {output}")


@workload_app.command("convert")
def workload_convert(
    source: WorkloadArg,
    output: Annotated[Path, typer.Argument(help="Output .swf or .swf.gz")],
    procs: Annotated[int | None, typer.Option(help="Machine size override.")] = None,
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
) -> None:
    """Transform a workload (clean, cut, rescale, add estimates) and write it as SWF."""
    from schedlab.workload import transforms
    from schedlab.workload.load import load_workload
    from schedlab.workload.swf import write_swf

    wl = load_workload(source, max_procs=procs)
    if drop_status:
        try:
            statuses = tuple(int(s) for s in drop_status.split(","))
        except ValueError:
            raise ConfigError("--drop-status", drop_status, "comma-separated integers") from None
        wl = transforms.clean_by_status(wl, drop=statuses)
    if start is not None or end is not None:
        wl = transforms.time_window(
            wl, float("-inf") if start is None else start, float("inf") if end is None else end
        )
    if first is not None:
        wl = transforms.first_jobs(wl, first)
    if load_factor != 1.0:
        wl = transforms.scale_load(wl, load_factor)
    wl = _job_attributes(wl, estimates, None, None)
    write_swf(wl, output)
    err.print(f"wrote {len(wl):,} jobs to {output}")


def main() -> None:
    """Console-script entry point: library errors become one line and exit code 2.

    Usage errors (unknown option, bad value) are click's own: a usage line, exit code 2.
    """
    try:
        app()
    except SchedlabError as exc:
        err.print(f"schedlab: error: {exc}", highlight=False, markup=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("schedlab: interrupted", highlight=False)
        sys.exit(130)
