"""What the commands share: the consoles, common arguments, option parsing, the output check
every writing command makes first, and the summary tables of a run.

Kept in one place so that every command refuses the same bad output the same way, and a
metric reads the same (label, unit, ``2h 13m``) whichever command shows it.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from schedlab.errors import ConfigError, SchedlabError
from schedlab.notes import is_quiet
from schedlab.outputs import check_output, is_stdout

out = Console()
err = Console(stderr=True)

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

WorkersOpt = Annotated[
    int | None, typer.Option(help="Local worker processes (default: all cores).")
]
DaskOpt = Annotated[
    str | None,
    typer.Option(help="Run on Dask: 'local' (a LocalCluster) or a scheduler tcp://HOST:PORT."),
]
JobsOutOpt = Annotated[
    Path | None, typer.Option(help="Write the per-job table (.csv or .parquet).")
]


def columns_option(text: str | None) -> dict[str, str] | None:
    """The ``--columns`` mapping, None when not given."""
    if text is None:
        return None
    from schedlab.workload.importers import parse_columns

    return parse_columns(text)


def parse_params(items: list[str]) -> dict[str, Any]:
    """Repeated ``--param KEY=VALUE`` as a mapping (values parsed as in model specs)."""
    from schedlab.workload.load import parse_scalar

    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError("--param", item, "KEY=VALUE")
        if key in params:
            raise ConfigError("--param", item, f"each key once ({key} is given twice)")
        params[key] = parse_scalar(value)
    return params


def parse_items(option: str, text: str) -> dict[str, Any]:
    """``"every=3,deadline=a"`` -> ``{"every": 3, "deadline": "a"}`` (for ``option``)."""
    from schedlab.workload.load import parse_scalar

    items: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(option, item, "KEY=VALUE[,KEY=VALUE...]")
        if key.strip() in items:
            raise ConfigError(option, text, f"each key once ({key.strip()} is given twice)")
        items[key.strip()] = parse_scalar(value.strip())
    return items


def json_text(document: Mapping[str, Any]) -> str:
    """``document`` as strict JSON (RFC 8259 has no NaN or Infinity): a non-finite number
    becomes null, and an ``undefined`` entry says which values are null and why."""
    undefined: dict[str, str] = {}

    def clean(value: Any, key: str) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            undefined[key] = (
                "undefined: no job it applies to"
                if value != value
                else "infinite: a division by zero"
            )
            return None
        if isinstance(value, Mapping):
            return {k: clean(v, f"{key}.{k}" if key else str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [clean(v, f"{key}[{i}]") for i, v in enumerate(value)]
        return value

    cleaned = clean(document, "")
    if undefined:
        cleaned["undefined"] = undefined
    return json.dumps(cleaned, allow_nan=False)


def print_json(document: Mapping[str, Any]) -> None:
    """Print ``document`` as strict JSON (see `json_text`)."""
    print(json_text(document))


def wrote(what: str | Path) -> None:
    """Say on stderr what was written (unless --quiet)."""
    if not is_quiet():
        target = "standard output" if is_stdout(what) else str(what)
        err.print(f"wrote {target}", highlight=False)


def input_path(workload: str | os.PathLike[str] | None) -> str | None:
    """The file a WORKLOAD names (``slurm:PATH`` -> PATH), for the never-onto-an-input check."""
    if not isinstance(workload, str):
        return None
    from schedlab.workload.importers import parse_source

    try:
        return parse_source(workload).path
    except SchedlabError:
        return None


def job_attributes(
    wl: Any, estimates: str | None, non_priority: str | None, deadlines: Path | None
) -> Any:
    """Apply --estimates, --non-priority and --deadlines, in that order."""
    if estimates is not None:
        from schedlab.workload.models.tsafrir import add_estimates

        params = parse_items("--estimates", estimates)
        try:
            wl = add_estimates(wl, **{"seed": 0, **params})
        except TypeError as exc:
            raise ConfigError("--estimates", estimates, f"the model's parameters ({exc})") from None
    if non_priority is not None:
        from schedlab.workload.deadlines import mark_non_priority

        params = parse_items("--non-priority", non_priority)
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


# -- outputs ------------------------------------------------------------------------------


def check_outputs(
    outputs: Mapping[str, Path | None],
    *,
    force: bool,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
    tables: bool = True,
) -> list[str]:
    """Refuse, before any reading or simulating, an output that could not be written.

    ``outputs`` maps each option to its path (None: not given). A table (``tables``) needs
    a .csv/.parquet name in an existing folder; no output may be one of ``inputs`` (files,
    or WORKLOAD arguments: ``slurm:PATH`` is PATH) even with ``--force``, nor an existing
    file without it. Returns the options whose output is ``-`` (standard output), whose
    results then go to stderr.
    """
    from schedlab.outputs import check_table_path

    given = list(inputs)
    sources = [*given, *(input_path(i) for i in given)]
    for option, path in outputs.items():
        if path is not None:
            if tables:
                check_table_path(path, option=option)
            check_output(path, option=option, force=force, inputs=sources)
    return [option for option, path in outputs.items() if is_stdout(path)]


def results_console(*outputs: Path | None) -> Console:
    """Where results are shown: stderr when an output goes to standard output (it then
    carries that output alone), else stdout."""
    return err if any(is_stdout(p) for p in outputs) else out


# -- summaries ----------------------------------------------------------------------------

SUMMARY_LABELS = {
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


def fmt(key: str, value: Any) -> str:
    """``value`` of summary ``key`` for a table: durations as ``2h 13m`` (--json keeps
    seconds), counts with thousands separators."""
    form = SUMMARY_LABELS.get(key, (key, "{}"))[1]
    if form == "duration":
        from schedlab.humanize import human_duration

        try:
            return human_duration(float(value))
        except (TypeError, ValueError):
            return str(value)
    if form == "{:,}" and isinstance(value, float) and value.is_integer():
        value = int(value)  # (pandas rows turn counts into floats)
    try:
        return form.format(value)
    except (ValueError, TypeError):
        return str(value)


@dataclass(frozen=True)
class SummaryStyle:
    """How one kind of run words its summary table; the common keys read alike everywhere
    (`SUMMARY_LABELS`), what differs is said here.

    ``labels``: its own keys' labels, before the common ones. ``spaced``: a key with no
    label shows with spaces (``lost_work`` -> ``lost work``). ``plain``: common keys shown
    as plain numbers all the same (a grid's makespan in seconds). ``decimals``: the values
    of keys without a format show floats to one decimal (else as they are); ``grouped``
    adds thousands separators to their integers.
    """

    labels: Mapping[str, str] = field(default_factory=dict)
    spaced: bool = False
    plain: frozenset[str] = frozenset()
    decimals: bool = False
    grouped: bool = False

    def label(self, key: str) -> str:
        if key in self.labels:
            return self.labels[key]
        if key in SUMMARY_LABELS:
            return SUMMARY_LABELS[key][0]
        return key.replace("_", " ") if self.spaced else key

    def text(self, key: str, value: Any) -> str:
        if (key in SUMMARY_LABELS and key not in self.plain) or not self.decimals:
            return fmt(key, value)
        if isinstance(value, float):
            return f"{value:,.1f}"
        if self.grouped and isinstance(value, numbers.Integral):
            return f"{value:,}"
        return str(value)


CLUSTER = SummaryStyle()

GRID = SummaryStyle(
    labels={
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
    },
    plain=frozenset({"makespan"}),
    decimals=True,
    grouped=True,
)

TDCS = SummaryStyle(spaced=True, decimals=True)


def print_summary(
    title: str,
    columns: Mapping[str, Mapping[str, Any]],
    *,
    style: SummaryStyle = CLUSTER,
    keys: Iterable[str] | None = None,
    header: bool = False,
    after: Mapping[str, Iterable[tuple[str, str]]] | None = None,
    outputs: Iterable[Path | None] = (),
) -> Console:
    """A run's metrics as a table: one row a key (``keys``, default: the first column's),
    one value column per summary in ``columns`` (named by its key, shown with ``header``).

    ``after`` adds (label, text) rows after a key (the skipped jobs by reason). Printed on
    stdout, or on stderr when one of ``outputs`` goes to standard output; returns that
    console, for the tables that follow.
    """
    console = results_console(*outputs)
    rows = list(keys) if keys is not None else list(next(iter(columns.values())))
    table = Table(title=title, show_header=header)
    table.add_column("metric")
    for name in columns:
        table.add_column(name, justify="right")
    for key in rows:
        table.add_row(style.label(key), *(style.text(key, s[key]) for s in columns.values()))
        for row in (after or {}).get(key, ()):
            table.add_row(*row)
    console.print(table)
    return console


CLASS_COLUMNS = (
    "jobs",
    "utilization",
    "mean_wait_time",
    "max_wait_time",
    "mean_bounded_slowdown",
    "killed",
)


def print_frame(
    frame: Any,
    title: str,
    limit: int = 40,
    wanted: tuple[str, ...] = CLASS_COLUMNS,
    console: Console = out,
) -> None:
    """Per-class metrics as a table of the columns that fit a terminal."""
    key = frame.columns[0]
    columns = [c for c in wanted if c in frame.columns]
    table = Table(title=title)
    table.add_column(str(key))
    for col in columns:
        table.add_column(SUMMARY_LABELS.get(col, (col,))[0], justify="right")
    for _, row in frame.head(limit).iterrows():
        value = row[key]
        label = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        table.add_row(label, *(fmt(c, row[c]) for c in columns))
    console.print(table)
    if len(frame) > limit:
        console.print(f"... {len(frame) - limit} more rows (all of them with --json)")


def print_registered(title: str, names: Iterable[str], lookup: Callable[[str], Any]) -> None:
    """The classes of a registry (policies, meta-schedulers): name, parameters with their
    defaults, and the first line of the docstring ("-" for a plug-in without one)."""
    import dataclasses

    table = Table(title=title)
    table.add_column("name")
    table.add_column("parameters (default)")
    table.add_column("description")
    for name in names:
        cls = lookup(name)
        fields = dataclasses.fields(cls.Params)
        params = ", ".join(f"{f.name}={f.default!r}" for f in fields) or "-"
        lines = (cls.__doc__ or "").strip().splitlines()
        table.add_row(name, params, lines[0] if lines else "-")
    out.print(table)


def progress_callback(enabled: bool, total: int) -> Any:
    """A rich progress bar on stderr for long runs, only on a terminal (not with --quiet)."""
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
