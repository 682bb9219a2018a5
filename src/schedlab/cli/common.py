"""What the commands share: the consoles, common arguments, option parsing, the output check
every writing command makes first, and the summary tables of a run.

Kept in one place so that every command refuses the same bad output the same way, and a
metric reads the same (label, unit, ``2h 13m``) whichever command shows it.
"""

from __future__ import annotations

import json
import math
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
        "content, or named: slurm:PATH, pbs:PATH, csv:PATH?KEY=COLUMN) or a model spec "
        "such as lublin:jobs=10000,procs=256,seed=1 (also hlw:... and mmc:..., see "
        "`schedlab workload generate --help`)"
    ),
]
ColumnsOpt = Annotated[
    str | None,
    typer.Option(
        help="Columns of a CSV log: KEY=COLUMN,... with KEY submit, run, procs, "
        "requested_time, user, start, end, status, queue, partition, nodes, "
        "cores_per_node, gpus, mem, exclusive, ... (e.g. run=Elapsed or procs=NCPUS); "
        "columns named like a KEY need not be given."
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


def reflow_help(app: typer.Typer) -> None:
    """Let the paragraphs of every command's help wrap at the terminal's width.

    Typer keeps the line breaks of a docstring's later paragraphs, so at 80 columns a line
    written for 90 falls ragged (``per-job`` alone on a line). Lines of a paragraph are
    joined, except indented ones (a command to copy), which keep their line."""
    import inspect

    for info in app.registered_commands:
        text = info.help or (info.callback.__doc__ if info.callback else None)
        if not text:
            continue
        paragraphs = []
        for paragraph in inspect.cleandoc(text).split("\n\n"):
            lines: list[str] = []
            for line in paragraph.splitlines():
                if lines and not line[:1].isspace() and not lines[-1][:1].isspace():
                    lines[-1] += " " + line.strip()
                else:
                    lines.append(line)
            paragraphs.append("\n".join(lines))
        info.help = "\n\n".join(paragraphs)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            reflow_help(group.typer_instance)


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


def fmt(key: str, value: Any) -> str:
    """``value`` of summary ``key`` for a table, in its units (`schedlab.humanize`:
    durations as ``2h 13m``, counts with separators, shares as %); --json keeps raw
    numbers."""
    from schedlab.humanize import metric_text

    return metric_text(key, value)


@dataclass(frozen=True)
class SummaryStyle:
    """How one kind of run words its summary table. Every key reads as
    `schedlab.humanize.METRICS` says, whatever the command (its label and unit);
    ``labels`` overrides the label of a key for one kind of run."""

    labels: Mapping[str, str] = field(default_factory=dict)

    def label(self, key: str) -> str:
        from schedlab.humanize import metric_label

        return self.labels.get(key) or metric_label(key)

    def text(self, key: str, value: Any) -> str:
        return fmt(key, value)


CLUSTER = SummaryStyle()
GRID = SummaryStyle()
TDCS = SummaryStyle()


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

    ``after`` adds (label, text) rows after a key (the skipped jobs by reason). A path in
    ``title`` shows as its file name. Printed on stdout, or on stderr when one of
    ``outputs`` goes to standard output; returns that console, for the tables that follow.
    """
    from schedlab.humanize import Grid, fit, short_source

    console = results_console(*outputs)
    rows = list(keys) if keys is not None else list(next(iter(columns.values())))
    body = []
    for key in rows:
        body.append([style.label(key), *(style.text(key, s.get(key)) for s in columns.values())])
        body.extend([*row] for row in (after or {}).get(key, ()))
    grid = Grid(short_source(title), ["metric", *columns], body, show_header=header)
    for table in fit(grid, console.width):
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
# what ``--by KEY`` groups, in the plural, for "172 of 212 users left out"
_GROUPS = {"priority": "priority classes", "org": "organisations", "class": "classes"}


def print_frame(
    frame: Any,
    title: str,
    limit: int = 40,
    wanted: tuple[str, ...] = CLASS_COLUMNS,
    console: Console = out,
    sort: str = "jobs",
) -> None:
    """Per-class metrics (one row per user, site, ...) as tables that fit the terminal:
    the ``limit`` groups with the most ``sort`` (jobs) first, and how many were left out."""
    from schedlab.humanize import Grid, fit, metric_label

    key = frame.columns[0]
    columns = [c for c in wanted if c in frame.columns]
    if sort in frame.columns:
        frame = frame.sort_values(sort, ascending=False, kind="stable")
    left_out = max(0, len(frame) - limit)
    if left_out:
        title = f"{title}: the {limit} with the most {metric_label(sort)}"
    body = []
    for _, row in frame.head(limit).iterrows():
        value = row[key]
        label = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        body.append([label, *(fmt(c, row[c]) for c in columns)])
    headers = [str(key), *(metric_label(c) for c in columns)]
    for table in fit(Grid(title, headers, body), console.width):
        console.print(table)
    if left_out:
        groups = _GROUPS.get(str(key), f"{key}s")
        console.print(
            f"{left_out:,} of {len(frame):,} {groups} left out (those with the fewest "
            f"{metric_label(sort)}); --json lists them all",
            highlight=False,
        )


def first_sentence(text: str) -> str:
    """The first sentence of the first paragraph of ``text`` (a docstring, a comment block),
    on one line: a listing shows a whole sentence, never a line cut mid-sentence. A sentence
    ends at a period followed by a capital letter, or at the paragraph's end; ``code``
    markup of docstrings is shown as `code`."""
    import re

    paragraph = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0]
    joined = " ".join(paragraph.split()).replace("``", "`")
    match = re.search(r"[.!?](?=\s+[A-Z])", joined)
    return joined[: match.end()] if match else joined


def print_registered(title: str, names: Iterable[str], lookup: Callable[[str], Any]) -> None:
    """The classes of a registry (policies, meta-schedulers): name, parameters with their
    defaults, and the docstring's first sentence ("-" for a plug-in without one)."""
    import dataclasses

    table = Table(title=title)
    table.add_column("name")
    table.add_column("parameters (default)")
    table.add_column("description")
    for name in names:
        cls = lookup(name)
        fields = dataclasses.fields(cls.Params)
        params = ", ".join(f"{f.name}={f.default!r}" for f in fields) or "-"
        table.add_row(name, params, first_sentence(cls.__doc__ or "") or "-")
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
