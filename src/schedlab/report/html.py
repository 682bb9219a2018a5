"""One self-contained HTML page from a results folder.

The page has inline CSS and inline SVG figures, no script and no external reference (no
CDN, no font, no image file): it opens offline, from a mail attachment or a CI artifact.
It is reproducible: the same results folder gives the same bytes (no date, fixed SVG ids).

Sections: summary, comparison table, bar charts of the main metrics, CDFs of wait time and
bounded slowdown, queue length and utilization over time, a Gantt chart of one run, and
the configuration of every run (failed runs with their error). Each figure is a
``<figure class="chart" data-chart="NAME">`` with a ``<figcaption>``; ``<body
data-figures="N">`` states how many there are, which the browser test checks.

The comparison table here is a plain per-policy mean over seeds; richer tables with
confidence intervals belong to ``schedlab.experiments.analysis``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import schedlab.report.drawing as drawing
import schedlab.report.figures as figures
import schedlab.report.style as style
from schedlab.errors import ConfigError
from schedlab.humanize import human_value, metric_label, metric_text
from schedlab.metrics.keys import HEADLINE_KEYS
from schedlab.outputs import write_atomic

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from schedlab.experiments.store import ResultStore

__all__ = ["FIGURE_METRICS", "TABLE_METRICS", "comparison_table", "render_report", "write_report"]

# metrics a run does not have (normalized_cmax: only moldable runs) are left out of its report
FIGURE_METRICS: tuple[str, ...] = (
    "mean_wait_time",
    "mean_bounded_slowdown",
    "utilization",
    "normalized_cmax",
)
TABLE_METRICS: tuple[str, ...] = (
    *HEADLINE_KEYS,
    "makespan",
    "killed",
    "normalized_cmax",
    "filling",
)
HIGHER_IS_BETTER = frozenset({"utilization", "filling"})
GANTT_MAX_JOBS = 400  # jobs drawn at most in the Gantt chart (its window is cut before)
GROUP_COLUMNS = ("workload", "load_factor")
CONFIG_COLUMNS = (
    "run_id",
    "status",
    "workload",
    "workload_source",
    "policy",
    "policy_label",
    "params",
    "load_factor",
    "seed",
    "procs_override",
    "kill_on_overrun",
    "transforms",
)

CSS = """
:root { color-scheme: light; --line: #d0d4da; --muted: #5b6270; --accent: #1f5fa8; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans",
  sans-serif; color: #1d2128; background: #f6f7f9; }
header { background: #1d2b3a; color: #fff; padding: 18px 32px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: #c8d1dc; font-size: 13px; }
nav { margin-top: 10px; font-size: 13px; }
nav a { color: #fff; margin-right: 14px; text-decoration: none; border-bottom: 1px dotted; }
main { max-width: 1280px; margin: 0 auto; padding: 8px 32px 48px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px;
  padding: 6px 20px 16px; margin: 18px 0; }
h2 { font-size: 18px; margin: 12px 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; color: var(--muted); }
p.note { color: var(--muted); font-size: 13px; margin: 4px 0 10px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
table.configs { font-size: 12px; }
table.configs th, table.configs td { padding: 3px 6px; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e6e8ec; text-align: left;
  vertical-align: top; white-space: nowrap; }
th { background: #eef1f5; font-weight: 600; border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody + tbody { border-top: 2px solid var(--line); }
td.best { font-weight: 700; }
tr.failed td { background: #fdf0ef; }
td.error { white-space: normal; color: #8a1c12; }
tr.error-row td { border-top: 0; }
table.comparison th.num { white-space: normal; min-width: 6em; max-width: 10em;
  overflow-wrap: anywhere; }
table.configs td.wrap { white-space: normal; }
td code, td.mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
details pre { white-space: pre-wrap; font-size: 11px; color: #333; max-height: 280px;
  overflow: auto; background: #f6f7f9; padding: 6px; }
dl.counts { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; margin: 6px 0; }
dl.counts dt { color: var(--muted); }
dl.counts dd { margin: 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr));
  gap: 14px; }
figure.chart { margin: 0; padding: 6px; border: 1px solid #e6e8ec; border-radius: 4px;
  background: #fff; }
figure.chart svg { display: block; width: 100%; height: auto; }
figure.chart.wide { grid-column: 1 / -1; }
figcaption { font-size: 12px; color: var(--muted); padding: 4px 4px 0; }
"""


# -- tables ------------------------------------------------------------------------------


def comparison_table(catalog: pd.DataFrame, metrics: Sequence[str] = TABLE_METRICS) -> Any:
    """Mean of each metric over the finished runs (seeds) of every workload x load factor x
    policy, with the number of runs as ``seeds`` (a DataFrame, sorted)."""
    done = catalog[catalog["status"] == "done"].copy()
    present = [m for m in metrics if m in done.columns]
    done["policy_name"] = style.policy_names(done)
    keys = [*GROUP_COLUMNS, "policy_name"]
    grouped = done.groupby(keys, sort=True)
    table = grouped[present].mean()
    table.insert(0, "seeds", grouped.size())
    return table.reset_index()


def _fmt(value: Any) -> str:
    """Numbers to text for tables (`schedlab.humanize.human_value`: thousands separated,
    precision by size); missing: —."""
    return "—" if str(value) == "" else human_value(value, missing="—")


def _metric(metric: str, value: Any) -> str:
    """A metric's value in its units (`schedlab.humanize`: durations as 2h 13m)."""
    return metric_text(metric, value, missing="—")


def _is_missing(value: Any) -> bool:
    try:
        return value is None or (isinstance(value, float) and math.isnan(value))
    except TypeError:
        return False


def _comparison_html(catalog: pd.DataFrame, metrics: Sequence[str]) -> str:
    table = comparison_table(catalog, metrics)
    present = [m for m in metrics if m in table.columns]
    if table.empty:
        return '<p class="note">No finished runs.</p>'
    grid = _is_grid(catalog)
    head = "".join(f'<th class="num">{_breakable(_table_label(m, grid))}</th>' for m in present)
    out = [
        '<div class="scroll"><table class="comparison">',
        "<thead><tr><th>workload</th><th>load factor</th><th>policy</th>"
        f'<th class="num">seeds</th>{head}</tr></thead>',
    ]
    for _, rows in table.groupby(list(GROUP_COLUMNS), sort=True):
        best = {}
        for m in present:
            column = rows[m].dropna()
            if len(rows) > 1 and len(column) and column.nunique() > 1:
                best[m] = column.max() if m in HIGHER_IS_BETTER else column.min()
        out.append("<tbody>")
        for _, row in rows.iterrows():
            cells = [
                f"<td>{escape(str(row['workload']))}</td>",
                f'<td class="num">{escape(_fmt(row["load_factor"]))}</td>',
                f"<td>{escape(str(row['policy_name']))}</td>",
                f'<td class="num">{escape(_fmt(row["seeds"]))}</td>',
            ]
            for m in present:
                cls = "num best" if m in best and row[m] == best[m] else "num"
                cells.append(f'<td class="{cls}">{escape(_metric(m, row[m]))}</td>')
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody>")
    out.append("</table></div>")
    out.append(
        '<p class="note">Means over the finished runs of each workload, load factor and '
        "policy; <b>bold</b>: the best value of a group (highest utilization, lowest "
        "otherwise). Durations as 2h 13m; the results folder and <code>schedlab results "
        "--json</code> keep seconds.</p>"
    )
    return "\n".join(out)


# per-job metrics of a grid run's catalog that cover every job, meta-jobs and local jobs
# alike (the global_* and local_* columns cover one population each)
ALL_JOBS_METRICS = frozenset(
    {"mean_wait_time", "max_wait_time", "mean_response_time", "mean_slowdown",
     "mean_bounded_slowdown", "makespan", "killed", "jobs"}
)  # fmt: skip


def _is_grid(catalog: pd.DataFrame) -> bool:
    """True when the catalog holds grid runs (meta-jobs, maybe local jobs too)."""
    return "global_jobs" in catalog.columns and bool(catalog["global_jobs"].notna().any())


def _table_label(metric: str, grid: bool) -> str:
    """A column's heading; on grid runs it names the jobs it covers (all of them, where
    the tables of `schedlab results` cover the meta-jobs only)."""
    label = metric_label(metric, full=True).strip()
    return f"all jobs: {label}" if grid and metric in ALL_JOBS_METRICS else label


def _breakable(text: str) -> str:
    """``text`` escaped, with line-break opportunities after ``(``, ``,``, ``=`` and ``/``,
    so a long policy name such as ``push(refresh=120.0)`` wraps in a narrow heading instead
    of running into the next one, and parameters or a path wrap in a table cell."""
    return re.sub(r"([(,=/])", r"\1<wbr>", escape(text))


def _intervals_html(store: ResultStore) -> str:
    """The tables of `schedlab results`: mean ± confidence half-width per policy."""
    from schedlab.experiments.analysis import comparison_table as interval_table

    table = interval_table(store)
    if table.data.empty:
        return ""
    out = []
    for metric in table.metrics:
        frame = table.to_frame(metric, human=True)
        out.append(f"<h3>{escape(metric_label(metric, full=True).strip())}</h3>")
        out.append('<div class="scroll"><table class="comparison intervals">')
        out += _policy_rows(frame) if _policies_as_rows(frame) else _policy_columns(frame)
        out.append("</tbody></table></div>")
        out.append(f'<p class="note">{escape(table.note(metric))}</p>')
    return "\n".join(out)


def _policies_as_rows(frame: pd.DataFrame) -> bool:
    """Many policies and fewer workload x load groups (a grid or TDCS sweep): one row per
    policy, so that the table grows down, not past the page."""
    return len(frame.columns) > max(5, len(frame.index))


def _policy_columns(frame: pd.DataFrame) -> list[str]:
    """A row per workload x load factor, a column per policy (`schedlab results`)."""
    head = "".join(f'<th class="num">{_breakable(str(p))}</th>' for p in frame.columns)
    out = [f"<thead><tr><th>workload</th><th>load factor</th>{head}</tr></thead><tbody>"]
    for key, row in frame.iterrows():
        workload, load = cast(tuple[Any, Any], key)
        cells = "".join(f'<td class="num">{escape(str(v))}</td>' for v in row)
        out.append(
            f"<tr><td>{escape(str(workload))}</td>"
            f'<td class="num">{escape(_fmt(load))}</td>{cells}</tr>'
        )
    return out


def _policy_rows(frame: pd.DataFrame) -> list[str]:
    """A row per policy, a column per workload x load factor."""
    groups = [cast(tuple[Any, Any], key) for key in frame.index]
    head = "".join(
        f'<th class="num">{_breakable(f"{workload},")} load&nbsp;{escape(_fmt(load))}</th>'
        for workload, load in groups
    )
    out = [f"<thead><tr><th>policy</th>{head}</tr></thead><tbody>"]
    for policy in frame.columns:
        cells = "".join(f'<td class="num">{escape(str(v))}</td>' for v in frame[policy])
        out.append(f"<tr><td>{escape(str(policy))}</td>{cells}</tr>")
    return out


# long cells of the configuration table, wrapped so that it fits a 1280 px page
WRAPPED_CONFIG_COLUMNS = ("workload", "workload_source", "params", "transforms")
# columns left out of the configuration table when no run sets them
UNSET_CONFIG_COLUMNS = ("procs_override", "transforms")
CONFIG_HEADINGS = {
    "run_id": "run id",
    "workload_source": "workload source",
    "policy_label": "policy label",
    "load_factor": "load",
    "procs_override": "procs",
    "kill_on_overrun": "kill on overrun",
}


def _skipped_by_reason(store: ResultStore, catalog: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Run id -> records its workload skipped, by reason (from meta.json; runs from before
    it was recorded have none); empty when no run skipped anything."""
    out: dict[str, dict[str, int]] = {}
    for run_id in catalog.loc[catalog["status"] == "done", "run_id"]:
        counts = store.meta(str(run_id)).get("skipped_by_reason") or {}
        if counts:
            out[str(run_id)] = {str(k): int(v) for k, v in counts.items()}
    return out


def _is_unset(value: Any) -> bool:
    """A configuration value that sets nothing: missing, or an empty list or mapping."""
    return _is_missing(value) or str(value).strip() in ("", "[]", "{}", "()")


def _config_html(store: ResultStore, catalog: pd.DataFrame) -> str:
    """Every run's configuration and status; a failed run gets a second row with its
    error (and the traceback, folded). ``policy label`` is shown only where it differs
    from the policy somewhere."""
    if catalog.empty:
        return '<p class="note">No runs.</p>'
    columns = [c for c in CONFIG_COLUMNS if c in catalog.columns]
    if (
        "policy_label" in columns
        and (catalog["policy_label"].isna() | (catalog["policy_label"] == catalog["policy"])).all()
    ):
        columns.remove("policy_label")
    for c in UNSET_CONFIG_COLUMNS:
        if c in columns and all(_is_unset(v) for v in catalog[c]):
            columns.remove(c)
    skipped = _skipped_by_reason(store, catalog)
    head = "".join(f"<th>{escape(CONFIG_HEADINGS.get(c, c))}</th>" for c in columns)
    if skipped:
        head += "<th>records skipped, by reason</th>"
    out = ['<div class="scroll"><table class="configs">', f"<thead><tr>{head}</tr></thead>"]
    out.append("<tbody>")
    ordered = catalog.sort_values(["status", "run_id"], kind="stable")
    for _, row in ordered.iterrows():
        failed = row.get("status") == "failed"
        cells = []
        for c in columns:
            value = row[c]
            text = "—" if _is_missing(value) else _fmt(value)
            cls = ' class="mono"' if c == "run_id" else ""
            if c in WRAPPED_CONFIG_COLUMNS:
                cls = ' class="mono wrap"' if c in ("params", "transforms") else ' class="wrap"'
            if c in ("load_factor", "seed", "procs_override") and not _is_missing(value):
                cls = ' class="num"'
            shown = _breakable(text) if c in WRAPPED_CONFIG_COLUMNS else escape(text)
            cells.append(f"<td{cls}>{shown}</td>")
        if skipped:
            counts = skipped.get(str(row["run_id"]), {})
            text = ", ".join(f"{reason} {n:,}" for reason, n in counts.items()) or "—"
            cells.append(f"<td>{escape(text)}</td>")
        cls = ' class="failed"' if failed else ""
        out.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
        if failed:
            record = store.failure(str(row["run_id"]))
            trace = record.get("traceback") or ""
            out.append(
                '<tr class="failed error-row"><td></td>'
                f'<td class="error" colspan="{len(columns) - 1 + bool(skipped)}">'
                f"{escape(str(row.get('error')))}"
                f"<details><summary>traceback</summary><pre>{escape(trace)}</pre></details>"
                "</td></tr>"
            )
    out.append("</tbody></table></div>")
    return "\n".join(out)


# -- figures -----------------------------------------------------------------------------


class _Figures:
    """Numbers the figures of a page and turns them into inline SVG."""

    def __init__(self) -> None:
        self.count = 0

    def html(self, name: str, fig: Figure, caption: str, *, wide: bool = False) -> str:
        svg = style.to_svg(fig, id_prefix=f"f{self.count}-")
        self.count += 1
        cls = "chart wide" if wide else "chart"
        return (
            f'<figure class="{cls}" data-chart="{escape(name)}">{svg}'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )


def _slug(*parts: Any) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", str(p)).strip("_") for p in parts)


def _selection(catalog: pd.DataFrame, max_groups: int) -> tuple[list[tuple[Any, ...]], int]:
    """Per workload x load factor: the run of each policy with the lowest seed.

    Returns [(workload, load_factor, [(policy, run_id, seed), ...]), ...] (sorted) and the
    number of groups left out beyond ``max_groups``.
    """
    done = catalog[catalog["status"] == "done"].copy()
    if done.empty:
        return [], 0
    done["policy_name"] = style.policy_names(done)
    done["_seed"] = done["seed"].astype(float).fillna(-math.inf)
    done = done.sort_values([*GROUP_COLUMNS, "policy_name", "_seed", "run_id"])
    groups = []
    for (workload, load), rows in done.groupby(list(GROUP_COLUMNS), sort=True):
        firsts = rows.drop_duplicates("policy_name", keep="first")
        runs = [
            (str(r.policy_name), str(r.run_id), None if _is_missing(r.seed) else r.seed)
            for r in firsts.itertuples()
        ]
        groups.append((workload, load, runs))
    return groups[:max_groups], max(0, len(groups) - max_groups)


def _seed_text(runs: Sequence[tuple[str, str, Any]]) -> str:
    seeds = sorted({_fmt(seed) for _, _, seed in runs if seed is not None})
    if not seeds:
        return ""
    return (
        f"; seed {seeds[0]}" if len(seeds) == 1 else f"; lowest seed of each ({', '.join(seeds)})"
    )


def _utilization_window(store: ResultStore, run_id: str) -> float:
    """Smoothing window for the utilization plots: 1/40 of the run, whole hours, >= 1 h."""
    series = store.timeseries(run_id)
    if len(series) < 2:
        return 3600.0
    return drawing.utilization_window(float(series["time"].iloc[-1] - series["time"].iloc[0]))


# -- the page ----------------------------------------------------------------------------


def render_report(
    store: ResultStore,
    *,
    gantt_run: str | None = None,
    gantt_window: tuple[float, float] | None = None,
    metrics: Sequence[str] = FIGURE_METRICS,
    table_metrics: Sequence[str] = TABLE_METRICS,
    max_groups: int = 12,
    title: str | None = None,
) -> str:
    """The report page of ``store`` as text (see ``write_report``)."""
    catalog = store.catalog()
    done = catalog[catalog["status"] == "done"] if not catalog.empty else catalog
    failed = catalog[catalog["status"] == "failed"] if not catalog.empty else catalog
    policies = sorted(set(style.policy_names(done))) if not done.empty else []
    colors = style.policy_colors(policies)
    page = _Figures()
    sections: list[tuple[str, str, str]] = []

    # comparison table
    sections.append(
        (
            "tables",
            "Comparison table",
            _comparison_html(catalog, table_metrics) + "\n" + _intervals_html(store),
        )
    )

    # bar charts
    bars = []
    for metric in metrics:
        if done.empty or metric not in done.columns:
            continue
        label = style.METRIC_LABELS.get(metric, metric)
        if _is_grid(catalog) and metric in ALL_JOBS_METRICS:
            label = f"all jobs (meta-jobs and local jobs): {label}"
        fig = figures.metric_bars(catalog, metric, GROUP_COLUMNS, colors=colors, title=label)
        bars.append(
            page.html(
                f"bars-{metric}",
                fig,
                f"{label} by policy: mean over seeds; whiskers span the lowest to the highest run.",
            )
        )
    sections.append(("bars", "Main metrics by policy", _charts(bars, "No finished runs.")))

    groups, left_out = _selection(catalog, max_groups)
    more = (
        f'<p class="note">{left_out} more workload × load groups are not drawn '
        f"(max_groups={max_groups}).</p>"
        if left_out
        else ""
    )

    # CDFs
    cdfs = []
    for workload, load, runs in groups:
        ids = [r[1] for r in runs]
        for column, name, axis in (
            ("wait_time", "wait time", "logarithmic axis, linear below 1 s so that 0 shows"),
            ("bounded_slowdown", "bounded slowdown", "logarithmic axis; τ = 10 s"),
        ):
            fig = figures.cdf(
                store,
                ids,
                column,
                colors=colors,
                title=f"CDF of {name}: {workload}, load {_fmt(load)}",
            )
            cdfs.append(
                page.html(
                    f"cdf-{column}-{_slug(workload, load)}",
                    fig,
                    f"{name.capitalize()} of every job, {workload} at load factor {_fmt(load)}"
                    f"{_seed_text(runs)}; {axis}.",
                )
            )
    sections.append(("cdf", "Distributions", more + _charts(cdfs, "No finished runs.")))

    # time series
    series = []
    for workload, load, runs in groups:
        ids = [r[1] for r in runs]
        fig = figures.timeseries(
            store, ids, "queued", colors=colors, title=f"Queued jobs: {workload}, load {_fmt(load)}"
        )
        series.append(
            page.html(
                f"queue-{_slug(workload, load)}",
                fig,
                f"Jobs waiting in the queue over time{_seed_text(runs)}; long runs are drawn "
                "as time-weighted means over 2000 bins.",
            )
        )
        window = _utilization_window(store, ids[0])
        fig = figures.timeseries(
            store,
            ids,
            "utilization",
            window=window,
            colors=colors,
            title=f"Utilization ({window / 3600:g} h moving mean): {workload}, load {_fmt(load)}",
        )
        series.append(
            page.html(
                f"utilization-{_slug(workload, load)}",
                fig,
                f"Busy processors / all processors, trailing time-weighted mean over "
                f"{window / 3600:g} h{_seed_text(runs)}.",
            )
        )
    sections.append(("timeseries", "Over time", more + _charts(series, "No finished runs.")))

    # Gantt
    gantt_html = '<p class="note">No finished runs.</p>'
    if gantt_run is not None and not store.is_done(gantt_run):
        raise ConfigError(
            "gantt_run", gantt_run, sorted(map(str, done["run_id"]))[:20] or "a finished run"
        )
    if gantt_run is None and groups:
        gantt_run = groups[0][2][0][1]
    if gantt_run is not None:
        start, end = gantt_window if gantt_window is not None else (None, None)
        fig, drawn = figures.gantt_drawn(store, gantt_run, start, end, GANTT_MAX_JOBS)
        window_text = drawing.gantt_window_text(drawn, gantt_window is None, GANTT_MAX_JOBS)
        gantt_html = _charts(
            [
                page.html(
                    f"gantt-{gantt_run}",
                    fig,
                    f"Jobs of run {gantt_run}: {window_text}. {drawing.GANTT_EXPLAINED}",
                    wide=True,
                )
            ],
            "",
        )
    sections.append(("gantt", "Gantt chart", gantt_html))

    sections.append(("configs", "Configuration of every run", _config_html(store, catalog)))

    # summary, now that the figures are counted
    summary = _summary_html(catalog, done, failed, policies, page.count)
    sections.insert(0, ("summary", "Summary", summary))

    heading = title or f"schedlab report: {store.root.name or store.root}"
    nav = "".join(f'<a href="#{sid}">{escape(name)}</a>' for sid, name, _ in sections)
    body = "\n".join(
        f'<section id="{sid}"><h2>{escape(name)}</h2>\n{content}\n</section>'
        for sid, name, content in sections
    )
    from schedlab.version import __version__

    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="schedlab {escape(__version__)}">\n'
        f"<title>{escape(heading)}</title>\n<style>{CSS}</style>\n</head>\n"
        f'<body data-figures="{page.count}">\n'
        f"<header><h1>{escape(heading)}</h1>"
        f"<p>results folder {escape(str(store.root))}</p><nav>{nav}</nav></header>\n"
        f"<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def _charts(items: Sequence[str], empty: str) -> str:
    if not items:
        return f'<p class="note">{escape(empty)}</p>' if empty else ""
    return '<div class="charts">\n' + "\n".join(items) + "\n</div>"


def _summary_html(
    catalog: pd.DataFrame,
    done: pd.DataFrame,
    failed: pd.DataFrame,
    policies: Sequence[str],
    n_figures: int,
) -> str:
    def values(column: str) -> str:
        if catalog.empty or column not in done.columns or done.empty:
            return "—"
        items = sorted({_fmt(v) for v in done[column] if not _is_missing(v)})
        return ", ".join(items) or "—"

    rows = [
        ("runs", _fmt(len(catalog))),
        ("done", _fmt(len(done))),
        ("failed", _fmt(len(failed))),
        ("workloads", values("workload")),
        ("policies", ", ".join(policies) or "—"),
        ("load factors", values("load_factor")),
        ("seeds", values("seed")),
        ("figures", _fmt(n_figures)),
    ]
    out = ['<dl class="counts">']
    out += [f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows]
    out.append("</dl>")
    if len(failed):
        out.append(
            f'<p class="note">{len(failed)} run(s) failed: their errors are in '
            '<a href="#configs">the configuration table</a>.</p>'
        )
    return "\n".join(out)


def write_report(
    store_dir: str | Path,
    out_path: str | Path,
    *,
    gantt_run: str | None = None,
    gantt_window: tuple[float, float] | None = None,
    metrics: Sequence[str] = FIGURE_METRICS,
    table_metrics: Sequence[str] = TABLE_METRICS,
    max_groups: int = 12,
    title: str | None = None,
) -> Path:
    """Write the report of the results folder ``store_dir`` to ``out_path``; returns it.

    ``gantt_run``: the run drawn as a Gantt chart (default: the first finished run in table
    order); ``gantt_window``: (start, end) in seconds from the trace origin (default: its
    busiest 2 days, as ``schedlab run --plot``; cut to 400 jobs). ``metrics``: the catalog columns
    drawn as bar charts; ``table_metrics``: those in the comparison table. CDFs and time
    series are drawn for the first ``max_groups`` workload x load factor groups, one line per
    policy (its lowest seed).
    """
    from schedlab.experiments.store import ResultStore

    root = Path(store_dir)
    if not (root / "runs").is_dir() and not (root / "failed").is_dir():
        raise ConfigError("results folder", str(root), "a folder written by schedlab sweep")
    if max_groups < 1:
        raise ConfigError("max_groups", max_groups, "an integer >= 1")
    store = ResultStore(root)
    text = render_report(
        store,
        gantt_run=gantt_run,
        gantt_window=gantt_window,
        metrics=metrics,
        table_metrics=table_metrics,
        max_groups=max_groups,
        title=title,
    )
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, text.encode("utf-8"))
    return out
