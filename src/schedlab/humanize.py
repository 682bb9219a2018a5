"""What a person reads: every terminal table and HTML table words its numbers here.

Durations as ``2h 13m``, sizes as ``1.5 GiB``, dates as dates, counts with separators,
shares as percentages, and each metric under a readable label (``mean wait``, not
``mean_wait_time``). One module, so a metric reads the same whichever command or page shows
it; ``--json`` and every file (CSV, Parquet, Markdown, LaTeX) keep raw numbers, so nothing
is lost.

It also lays tables out for a terminal of a given width (`Grid`, `fit`): a table never drops
a column that tells its rows apart; it wraps headers at spaces, splits into several tables
that repeat the identifying columns, and abbreviates long labels with a legend underneath
(`Legend`) only when nothing else fits. Imports no schedlab module; rich only lazily.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

__all__ = [
    "METRICS",
    "Grid",
    "Legend",
    "Metric",
    "comparison_grids",
    "estimate_text",
    "fit",
    "human_count",
    "human_date",
    "human_duration",
    "human_number",
    "human_share",
    "human_size",
    "human_value",
    "metric_label",
    "metric_text",
    "render",
    "short_source",
]

MISSING = "-"  # a value that is not there (NaN, None) in a terminal table

_UNITS = (("d", 86400.0), ("h", 3600.0), ("m", 60.0), ("s", 1.0))


def _missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(math.isnan(value))
    except (TypeError, ValueError):
        return False


# -- values --------------------------------------------------------------------------------


def human_duration(seconds: float | None) -> str:
    """``8000`` -> ``"2h 13m"``, ``9.5`` -> ``"9.5s"``, ``90061`` -> ``"1d 1h"``.

    Two units at most, the smaller one rounded down, so a column of waits compares at a
    glance; under 10 s decimals are kept when the value is not whole (a mean wait of 0.4 s
    is not 0; 0.004 s shows as ``<0.01s``). NaN and None show as ``-``.
    """
    if _missing(seconds):
        return MISSING
    assert seconds is not None
    if not math.isfinite(seconds):
        return str(seconds)
    sign = "-" if seconds < 0 else ""
    value = abs(float(seconds))
    if value < 60.0:
        if value.is_integer() or value >= 10:
            return f"{sign}{int(value)}s"
        if value < 0.005:
            return f"{sign}<0.01s"
        text = f"{value:.1f}" if value >= 1 else f"{value:.2f}".rstrip("0")
        return f"{sign}{text}s"
    whole = int(value)
    for i, (name, size) in enumerate(_UNITS[:-1]):
        if whole >= size:
            big, rest = divmod(whole, int(size))
            small_name, small_size = _UNITS[i + 1]
            small = rest // int(small_size)
            return f"{sign}{big}{name} {small}{small_name}" if small else f"{sign}{big}{name}"
    raise AssertionError("unreachable: value >= 60 s has a unit")  # pragma: no cover


def human_count(value: Any) -> str:
    """``27992`` -> ``"27,992"``; a count averaged over runs keeps one decimal."""
    if _missing(value):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return f"{int(number):,}"
    return f"{number:,.1f}"


def human_number(value: Any, decimals: int = 2) -> str:
    """A dimensionless number (a slowdown): ``1924.9`` -> ``"1,924.90"``."""
    if _missing(value):
        return MISSING
    return f"{float(value):,.{decimals}f}"


def human_share(value: Any) -> str:
    """A fraction as a percentage, one decimal: ``0.6931`` -> ``"69.3%"``; a share too
    small to show is ``"<0.1%"``, not 0."""
    if _missing(value):
        return MISSING
    percent = float(value) * 100.0
    if 0 < abs(percent) < 0.05:  # not 0.0%: something is there
        return "<0.1%" if percent > 0 else ">-0.1%"
    return f"{percent:.1f}%"


_SIZE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def human_size(n_bytes: Any) -> str:
    """Bytes in binary units, three significant digits: ``1536`` -> ``"1.5 KiB"``,
    ``2**30`` -> ``"1 GiB"``, ``512`` -> ``"512 B"``."""
    if _missing(n_bytes):
        return MISSING
    value = float(n_bytes)
    sign = "-" if value < 0 else ""
    value = abs(value)
    unit = 0
    while value >= 999.5 and unit < len(_SIZE_UNITS) - 1:  # 1000 MiB reads as 0.98 GiB
        value /= 1024
        unit += 1
    if unit == 0:
        return f"{sign}{value:.0f} B"
    text = f"{value:.3g}" if value < 999.5 else f"{value:,.0f}"  # (beyond the last unit)
    return f"{sign}{text} {_SIZE_UNITS[unit]}"


def human_date(epoch: Any, zone: str | None = None) -> str:
    """Seconds since 1970 (UTC) as ``"1996-09-23 14:00 CEST"``: in the IANA time zone
    ``zone`` (an SWF header's TimeZoneString) when known here, else in UTC. A value no
    calendar holds stays a number."""
    if _missing(epoch) or epoch == "":
        return MISSING
    from datetime import datetime, timezone

    tz: Any = timezone.utc
    if zone:
        try:
            from zoneinfo import ZoneInfo

            tz = ZoneInfo(str(zone))
        except Exception:  # unknown name, or no time zone data on this machine
            tz = timezone.utc
    try:
        moment = datetime.fromtimestamp(float(epoch), tz)
    except (OverflowError, OSError, ValueError):
        return str(epoch)
    return f"{moment:%Y-%m-%d %H:%M} {moment.tzname() or 'UTC'}"


def human_value(value: Any, missing: str = MISSING) -> str:
    """Any value of a table without a known kind: yes/no, thousands separated, precision by
    size (3 significant digits under 1, 2 decimals under 100, whole above); NaN or None:
    ``missing``."""
    if _missing(value):
        return missing
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Number) or hasattr(value, "dtype"):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return str(value)
        if not math.isfinite(number):
            return str(number)
        if number == int(number) and abs(number) < 1e15:
            return f"{int(number):,}"
        if abs(number) >= 100:
            return f"{number:,.0f}"
        if abs(number) >= 1:
            return f"{number:.2f}"
        return f"{number:.3f}"
    return str(value)


def short_source(text: str) -> str:
    """Paths in a title as their file names (``easy on /data/logs/KTH.swf.gz`` -> ``easy on
    KTH.swf.gz``); a ``slurm:`` or ``pbs:`` prefix stays. A title is read, not copied."""

    def shorten(token: str) -> str:
        if "/" not in token and "\\" not in token or "://" in token:
            return token
        prefix = ""
        match = re.match(r"^([A-Za-z]\w+:)", token)  # slurm:, not a drive letter C:
        if match:
            prefix, token = match.group(1), token[match.end() :]
        name = re.split(r"[\\/]", token.rstrip("/\\"))[-1]
        return prefix + (name or token)

    return " ".join(shorten(t) for t in text.split(" "))


# -- metrics -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """How a metric reads: its label, and its kind, which decides the unit: ``duration``
    (seconds -> ``2h 13m``), ``count``, ``share`` (0..1 -> %), ``number`` (dimensionless,
    ``decimals``), ``rate`` (jobs per hour), ``work`` (processor-seconds -> processor-hours),
    ``seconds`` (a computer's time, kept in seconds), ``mib`` (a memory size in MiB -> ``64 GiB``)
    or ``text``."""

    label: str
    kind: str
    decimals: int = 2


def _stream_metrics(prefix: str, who: str) -> dict[str, Metric]:
    return {
        f"{prefix}_jobs": Metric(who, "count"),
        f"{prefix}_makespan": Metric(f"{who}: makespan", "duration"),
        f"{prefix}_mean_wait_time": Metric(
            f"{who}: mean {'global ' if prefix == 'global' else ''}wait", "duration"
        ),
        f"{prefix}_mean_local_wait_time": Metric(f"{who}: mean local wait", "duration"),
        f"{prefix}_mean_execution_time": Metric(f"{who}: mean execution", "duration"),
        f"{prefix}_mean_response_time": Metric(f"{who}: mean response", "duration"),
    }


METRICS: dict[str, Metric] = {
    "jobs": Metric("jobs", "count"),
    "skipped": Metric("skipped", "count"),
    "procs": Metric("processors", "count"),
    "makespan": Metric("makespan", "duration"),
    "utilization": Metric("utilization", "share"),
    # runs on node types: per-resource use (same span as utilization), GPU-hours, fragmentation
    "core_utilization": Metric("cores in use", "share"),
    "memory_utilization": Metric("memory in use", "share"),
    "gpu_utilization": Metric("GPUs in use", "share"),
    "gpu_hours_used": Metric("GPU-hours used", "number", 1),
    "gpu_hours_idle": Metric("GPU-hours idle", "number", 1),
    "fragmentation": Metric("fragmentation (free cores the next job can't use)", "share"),
    "fragmented_core_hours": Metric("fragmented core-hours", "number", 1),
    "mean_wait_time": Metric("mean wait", "duration"),
    "max_wait_time": Metric("max wait", "duration"),
    "mean_response_time": Metric("mean response", "duration"),
    "mean_local_wait_time": Metric("mean local wait", "duration"),
    "mean_execution_time": Metric("mean execution", "duration"),
    "mean_slowdown": Metric("mean slowdown", "number"),
    "mean_bounded_slowdown": Metric("mean bounded slowdown", "number"),
    "median_wait_time": Metric("median wait", "duration"),
    "p90_wait_time": Metric("p90 wait", "duration"),
    "p99_wait_time": Metric("p99 wait", "duration"),
    "median_bounded_slowdown": Metric("median bounded slowdown", "number"),
    "p90_bounded_slowdown": Metric("p90 bounded slowdown", "number"),
    "p99_bounded_slowdown": Metric("p99 bounded slowdown", "number"),
    "unfairness": Metric("unfairness", "number", 1),
    "killed": Metric("killed", "count"),
    "wall_time": Metric("simulation wall time", "seconds"),
    "non_priority_jobs": Metric("non-priority jobs (with a deadline)", "count"),
    "promoted": Metric("promoted to priority at submission", "count"),
    "missed_deadlines": Metric("accepted, ended after the deadline", "count"),
    "late_jobs": Metric("non-priority, ended after the deadline", "count"),
    "normalized_cmax": Metric("normalized Cmax", "number", 3),
    "filling": Metric("filling", "share"),
    **_stream_metrics("global", "meta-jobs"),
    **_stream_metrics("local", "local jobs"),
    "matcher_requests": Metric("matcher requests", "count"),
    "matcher_requests_agent": Metric("  agents' requests or probes", "count"),
    "matcher_requests_first_pull": Metric("  pilots' first pulls", "count"),
    "matcher_requests_refill": Metric("  pilots' refills", "count"),
    "pilots": Metric("pilots", "count"),
    "wasted_pilots": Metric("wasted pilots", "count"),
    "configuration": Metric("configuration", "text"),
    "preemption": Metric("preemption", "text"),
    "high_priority_mean_processing_time": Metric("high priority: mean processing time", "duration"),
    "global_queue_time": Metric("  in the dispatchers' queue", "duration"),
    "transfer_time": Metric("  in transfer", "duration"),
    "local_queue_time": Metric("  in a cluster's queue", "duration"),
    "run_time": Metric("  running", "duration"),
    "global_high_priority_mean_processing_time": Metric(
        "high priority, global stream: mean processing time", "duration"
    ),
    "low_priority_throughput": Metric("low priority: throughput", "rate"),
    "low_priority_mean_wait_time": Metric("low priority: mean wait", "duration"),
    "background_throughput": Metric("background: throughput", "rate"),
    "background_mean_wait_time": Metric("background: mean wait", "duration"),
    "lost_work": Metric("lost work", "work"),
    "preemptions": Metric("preemptions", "count"),
    "evictions": Metric("evictions", "count"),
    "preemptions_per_job": Metric("preemptions per job", "number"),
    "global_preemptions_per_job": Metric("preemptions per global job", "number"),
    "repeatedly_preempted_jobs": Metric("jobs preempted twice or more", "count"),
    "global_repeatedly_preempted_jobs": Metric("global jobs preempted twice or more", "count"),
    "max_preemptions_of_a_job": Metric("most preemptions of one job", "count"),
    "overhead_time": Metric("restart overhead (all jobs)", "duration"),
    "early_end_share": Metric("early end share", "share"),
    # `schedlab workload info`
    "reordered_submits": Metric("submissions out of order (sorted)", "count"),
    "users": Metric("users", "count"),
    "mean_procs": Metric("mean job size (processors)", "number", 1),
    "max_procs_of_a_job": Metric("largest job (processors)", "count"),
    "serial_fraction": Metric("serial jobs", "share"),
    "jobs_giving_nodes": Metric("jobs giving a node count", "count"),
    "largest_node_request": Metric("largest job (nodes)", "count"),
    "jobs_asking_gpus": Metric("jobs asking for GPUs", "count"),
    "largest_gpu_request": Metric("largest job (GPUs)", "count"),
    "jobs_giving_memory": Metric("jobs giving a memory request", "count"),
    "largest_memory_per_node_mib": Metric("largest memory request per node", "mib"),
    "exclusive_jobs": Metric("jobs asking for whole nodes", "count"),
    "mean_run_time": Metric("mean run time", "duration"),
    "median_run_time": Metric("median run time", "duration"),
    "has_estimates": Metric("user estimates", "text"),
    "offered_load": Metric("offered load", "number", 3),
    "computer": Metric("computer", "text"),
}
# the TDCS components read as parts of the high-priority processing time in a summary; a
# table of their own names them in full
_FULL_LABELS = {
    "global_queue_time": "high priority: time in the dispatchers' queue",
    "transfer_time": "high priority: time in transfer",
    "local_queue_time": "high priority: time in a cluster's queue",
    "run_time": "high priority: run time",
    "matcher_requests_agent": "matcher requests: agents' requests or probes",
    "matcher_requests_first_pull": "matcher requests: pilots' first pulls",
    "matcher_requests_refill": "matcher requests: pilots' refills",
}


def metric_label(key: str, *, full: bool = False) -> str:
    """The label of ``key`` (its words, ``lost_work`` -> ``lost work``, when unknown).
    ``full``: for a title of its own (a summary's indented sub-rows named in full)."""
    if full and key in _FULL_LABELS:
        return _FULL_LABELS[key]
    metric = METRICS.get(key)
    return metric.label if metric else key.replace("_", " ")


def metric_text(key: str, value: Any, missing: str = MISSING) -> str:
    """``value`` of metric ``key`` as a table shows it (`Metric` for the units); an
    unknown key, or a value of another type (a label), as `human_value` words it; NaN or
    None: ``missing``."""
    metric = METRICS.get(key)
    if metric is None or isinstance(value, str):
        return value if isinstance(value, str) else human_value(value, missing)
    if _missing(value):
        return missing
    try:
        float(value)
    except (TypeError, ValueError):
        return str(value)
    kind = metric.kind
    if kind == "duration":
        return human_duration(float(value))
    if kind == "count":
        return human_count(value)
    if kind == "share":
        return human_share(value)
    if kind == "rate":
        return f"{float(value):,.1f} jobs/h"
    if kind == "work":
        return f"{float(value) / 3600.0:,.1f} proc-h"
    if kind == "seconds":  # a computer's time, kept in seconds
        return "<0.01 s" if 0 < float(value) < 0.005 else f"{float(value):.2f} s"
    if kind == "number":
        return human_number(value, metric.decimals)
    if kind == "mib":  # a memory size kept in MiB (the unit of every memory in a run)
        return human_size(float(value) * 1024**2)
    return human_value(value)


def _significant(mean: float, half_width: float, digits: int = 4) -> int:
    ref = abs(mean) if math.isfinite(mean) and mean != 0 else abs(half_width)
    if not math.isfinite(ref) or ref == 0:
        return 0
    return max(0, min(6, digits - 1 - math.floor(math.log10(ref))))


def estimate_text(key: str, mean: float, half_width: float, n: int | None = None) -> str:
    """A mean and the half-width of its interval in the units of metric ``key``:
    ``"8m 41s ± 1m 2s"``, ``"40.3% ± 1.2%"``, ``"1,441 ± 72"``; the mean alone without an
    interval, ``n/a`` for NaN; `` (n=N)`` follows when ``n`` is given."""
    if _missing(mean) or not math.isfinite(mean):
        return "n/a"
    has_interval = not _missing(half_width) and math.isfinite(half_width)
    kind = METRICS[key].kind if key in METRICS else "number"
    suffix = ""
    if kind == "duration":
        text = human_duration(mean)
        spread = human_duration(half_width) if has_interval else ""
    elif kind == "share":
        text, spread = human_share(mean), human_share(half_width) if has_interval else ""
    else:
        scale, suffix = {"rate": (1.0, " jobs/h"), "work": (3600.0, " proc-h")}.get(kind, (1, ""))
        m, h = mean / scale, half_width / scale
        d = _significant(m, h)
        text = f"{m:,.{d}f}"
        spread = f"{h:,.{d}f}" if has_interval else ""
    if spread:
        text += f" ± {spread}"
    text += suffix
    if n is not None:
        text += f" (n={n})"
    return text


# -- tables that fit a terminal ------------------------------------------------------------


def _width(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(line) for line in text.split("\n")), default=0)


def _word_width(text: str) -> int:
    return max((_width(word) for word in re.split(r"[ \n]", text)), default=0)


@dataclass
class Legend:
    """Abbreviations shared by the tables of one output: ``W1`` for a long workload label,
    ``P2`` for a long policy header; printed once under them (`render`)."""

    codes: dict[str, dict[str, str]] = field(default_factory=dict)

    def code(self, letter: str, full: str) -> str:
        names = self.codes.setdefault(letter, {})
        if full not in names:
            names[full] = f"{letter}{len(names) + 1}"
        return names[full]

    def lines(self) -> list[str]:
        return [
            f"{code} = {full.replace(chr(10), ', ')}"
            for names in self.codes.values()
            for full, code in names.items()
        ]


@dataclass
class Grid:
    """A table as text before layout: ``keys`` leading columns tell the rows apart (each
    part of a split table repeats them); ``right``: columns aligned right (default: the
    value columns); ``letters``: the letter of each key column's abbreviations, and of the
    value headers' (the last), e.g. ``("W", "", "P")``; empty: never abbreviated."""

    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    keys: int = 1
    right: Sequence[bool] | None = None
    caption: str | None = None
    letters: Sequence[str] = ()
    show_header: bool = True

    def letter(self, column: int) -> str:
        """The abbreviation letter of key ``column`` (of the value headers: ``keys``)."""
        index = min(column, self.keys)
        return self.letters[index] if 0 <= index < len(self.letters) else ""


@dataclass
class _Part:
    columns: list[int]
    widths: list[int]
    headers: list[str]
    rows: list[list[str]]


def _overhead(columns: int) -> int:
    return 3 * columns + 1  # rich's box: a rule and a space either side of every cell


def _layout(grid: Grid, width: int | None, legend: Legend) -> list[_Part]:
    """Abbreviate, split and size the columns of ``grid`` for ``width`` columns."""
    count = len(grid.headers)
    headers = list(grid.headers)
    rows = [list(r) for r in grid.rows]
    values = list(range(grid.keys, count))

    def need(i: int) -> int:
        return max([_word_width(headers[i]), *(_width(r[i]) for r in rows)])

    def want(i: int) -> int:
        return max([_width(headers[i]), *(_width(r[i]) for r in rows)])

    def total(columns: list[int]) -> int:
        return sum(need(i) for i in columns) + _overhead(len(columns))

    keys = list(range(grid.keys))
    if width is not None and values:
        abbreviated: set[int] = set()
        while total(keys + [max(values, key=need)]) > width:
            widest = max(values, key=need)
            if (
                -1 not in abbreviated
                and grid.letter(grid.keys)
                and _word_width(headers[widest]) > 3
            ):
                abbreviated.add(-1)
                letter = grid.letter(grid.keys)
                headers[grid.keys :] = [
                    legend.code(letter, h) if _word_width(h) > 4 else h
                    for h in headers[grid.keys :]
                ]
                continue
            candidates = [k for k in keys if k not in abbreviated and grid.letter(k)]
            candidates = [k for k in candidates if need(k) > 4]
            if not candidates:
                break
            column = max(candidates, key=need)
            abbreviated.add(column)
            for row in rows:  # (a code already is short)
                if _width(row[column]) > 4:
                    row[column] = legend.code(grid.letter(column), row[column])
    groups: list[list[int]] = [[]]
    for i in values:
        if width is not None and groups[-1] and total(keys + groups[-1] + [i]) > width:
            groups.append([])
        groups[-1].append(i)
    if len(groups) > 1:  # as many tables, their columns shared out evenly when that fits
        size, rest = divmod(len(values), len(groups))
        even, start = [], 0
        for g in range(len(groups)):
            stop = start + size + (g < rest)
            even.append(values[start:stop])
            start = stop
        if all(total(keys + group) <= (width or 0) for group in even):
            groups = even
    parts = []
    for group in groups:
        columns = keys + group
        widths = [need(i) for i in columns]
        if width is None:
            widths = [want(i) for i in columns]
        else:
            spare = width - total(columns)
            # unwrap headers while there is room, those that need the least first
            for j in sorted(range(len(columns)), key=lambda j: want(columns[j]) - widths[j]):
                extra = min(spare, want(columns[j]) - widths[j])
                if extra > 0:
                    widths[j] += extra
                    spare -= extra
        parts.append(
            _Part(
                columns,
                widths,
                [headers[i] for i in columns],
                [[r[i] for i in columns] for r in rows],
            )
        )
    return parts


def fit(grid: Grid, width: int | None, legend: Legend | None = None) -> list[Table]:
    """``grid`` as rich tables no wider than ``width`` (None: one table, as wide as it
    needs): every part keeps the key columns; a split table's titles say ``(1/2)``.
    Long labels become codes of ``legend`` only when one value column would not fit."""
    from rich.table import Table

    parts = _layout(grid, width, legend if legend is not None else Legend())
    tables = []
    for number, part in enumerate(parts, 1):
        title = grid.title + (f" ({number}/{len(parts)})" if len(parts) > 1 else "")
        table = Table(
            title=title,
            caption=grid.caption if number == len(parts) else None,
            show_header=grid.show_header,
        )
        for column, header, w in zip(part.columns, part.headers, part.widths):
            right = grid.right[column] if grid.right is not None else column >= grid.keys
            # fold, never "…": a text wider than the terminal itself still reads whole
            table.add_column(header, justify="right" if right else "left", width=w, overflow="fold")
        for row in part.rows:
            table.add_row(*row)
        tables.append(table)
    return tables


def parts_needed(grid: Grid, width: int | None) -> int:
    """How many tables `fit` makes of ``grid`` at ``width`` (to choose an orientation)."""
    return len(_layout(grid, width, Legend()))


def render(
    grids: Sequence[Grid],
    width: int | None,
    *,
    note: str | None = None,
    legend: Legend | None = None,
) -> list[RenderableType]:
    """The tables of ``grids`` fitted to ``width``, then ``note`` (said once for them all)
    and the legend of any abbreviation (``legend``: codes the grids already hold), as
    things to print in order."""
    from rich.text import Text

    legend = legend if legend is not None else Legend()
    out: list[RenderableType] = []
    for grid in grids:
        out.extend(fit(grid, width, legend))
    if note:
        out.append(Text(note))
    if legend.codes:
        out.append(Text("\n".join(legend.lines())))
    return out


LONG_LABEL = 12  # a workload or policy label longer than this may be abbreviated


def comparison_grids(
    titles: Sequence[str],
    row_keys: Sequence[tuple[str, str]],
    columns: Sequence[str],
    cells: Sequence[Sequence[Sequence[str]]],
    width: int | None,
    *,
    captions: Sequence[str | None] | None = None,
    names: tuple[str, str, str] = ("workload", "load factor", "policy"),
    legend: Legend | None = None,
) -> list[Grid]:
    """One grid per title comparing ``columns`` (policies) over ``row_keys`` (workload,
    load factor); ``cells[t][r][c]`` is the text of title t, row r, column c.

    At ``width``, the layout that makes the fewest tables wins: rows x columns as given, or
    pivoted (a row per policy, a column per workload and load), with or without long
    workload or policy labels abbreviated (codes in ``legend``); on a tie, fewer
    abbreviations, then the given orientation. The same layout for every title."""
    captions = captions or [None] * len(titles)
    w, lf, p = names
    letters = (w[:1].upper(), p[:1].upper())

    def grids(workloads: list[str], policies: list[str], pivot: bool) -> list[Grid]:
        out = []
        for t, title in enumerate(titles):
            if pivot:
                heads = [f"{a}\n{lf.split()[0]} {b}" for a, (_, b) in zip(workloads, row_keys)]
                body = [
                    [c, *(cells[t][r][j] for r in range(len(row_keys)))]
                    for j, c in enumerate(policies)
                ]
                out.append(Grid(title, [p, *heads], body, 1, None, captions[t], letters[::-1]))
            else:
                body = [
                    [a, b, *cells[t][r]] for r, (a, (_, b)) in enumerate(zip(workloads, row_keys))
                ]
                right = [False, True, *([True] * len(policies))]
                out.append(
                    Grid(
                        title,
                        [w, lf, *policies],
                        body,
                        2,
                        right,
                        captions[t],
                        (letters[0], "", letters[1]),
                    )
                )
        return out

    best: tuple[tuple[int, int, int], list[Grid], Legend] | None = None
    for short_w in (False, True):
        for short_p in (False, True):
            if (short_w or short_p) and width is None:
                continue
            trial = Legend()
            workloads = [
                trial.code(letters[0], a) if short_w and _width(a) > LONG_LABEL else a
                for a, _ in row_keys
            ]
            policies = [
                trial.code(letters[1], c) if short_p and _width(c) > LONG_LABEL else c
                for c in columns
            ]
            if (short_w and letters[0] not in trial.codes) or (
                short_p and letters[1] not in trial.codes
            ):
                continue  # nothing long enough to abbreviate
            for pivot in (False, True):
                if pivot and width is None:
                    continue
                candidate = grids(workloads, policies, pivot)
                parts = sum(parts_needed(g, width) for g in candidate)
                score = (parts, short_w + short_p, int(pivot))
                if best is None or score < best[0]:
                    best = (score, candidate, trial)
    assert best is not None
    if legend is not None:
        for letter, known in best[2].codes.items():
            for full in known:
                legend.code(letter, full)
    return best[1]
