"""Comparing finished runs: confidence intervals over seeds or by batch means, and tables.

This module reads a results folder (`ResultStore`) and never runs a simulation. It gives

* `runs_json`: one flat record per run, the shape of ``schedlab results DIR --json``;
* `over_seeds` and `batch_means`: a Student t confidence interval over replications, or over
  the means of consecutive batches of jobs (SPEC section 2, PPS paper);
* `comparison_table`: rows (workload, load factor) x columns (policy), one table per metric,
  each cell a mean and the half-width of its confidence interval, exportable as CSV
  (long form, numeric), Markdown, LaTeX (booktabs) and rich tables.

Decisions a user can rely on:

* **Interval.** ``mean ± t_{(1+c)/2, n-1} · s / sqrt(n)``, with ``s`` the sample standard
  deviation (ddof = 1) of the n values (one per seed, or one per batch) and c the confidence
  level. With fewer than 3 values (`MIN_INTERVAL_N`) there is no interval: the half-width is
  NaN. Two values give one degree of freedom, whose 95 % t quantile is 12.7: the "interval"
  would mostly say that two numbers differ, and it reads as a result (``0.40 ± 2.06`` for a
  utilization). Every displayed cell shows its n beside it.
* **Batch means.** A run's per-job table (submit order, so a batch is B consecutive
  submissions, SPEC section 2) is cut into batches of B jobs (default 5000); a trailing
  partial batch is dropped, so the batch-means point estimate (the mean over batches) can
  differ slightly from the whole-run value. A metric's value for one batch is the metric of
  SPEC section 3 computed on that batch's jobs alone (`batch_summaries`): the mean of the
  per-job wait, response, slowdown or bounded slowdown (bsld_i = max(response_i /
  max(run_i, 10 s), 1)); utilization = Σ procs_i × run_i over the batch's jobs / (P × (last
  end − first submit among the batch's jobs)); unfairness = the standard deviation of
  |submit rank − start rank| with both ranks taken within the batch. Batches overlap in
  time, so batch utilizations do not average exactly to the whole-run utilization. Only
  the metrics in `BATCH_METRICS` have batch means (a maximum, a makespan or a count of a
  batch is not an estimate of the whole run's). When a cell holds several runs and batch
  means are asked for, the batches of all its runs are pooled (a batch never spans two
  runs).
* **Method per cell** (``method="auto"``): over seeds when the cell (workload, load factor,
  policy) holds 2 or more runs, else batch means over its single run. ``"seeds"`` and
  ``"batch"`` force one method. When no interval can be had, the cell gives the whole-run
  value (the mean over the cell's runs) with a NaN half-width and method ``"single"``: a
  lone run with a metric outside `BATCH_METRICS` or shorter than one batch, a lone run
  under ``"seeds"``, or under ``"batch"`` runs all shorter than one batch.
* **Labels.** Rows use the workload's label (as in the catalog); a label that is just a
  model spec (no label chosen) loses its ``seed=`` item, so the seeds of one model become
  replications of one row; when runs of one label differ in machine size, `` (procs=N)`` is
  appended. Columns use the policy name followed by its parameters that differ from the
  policy's defaults, and ``kill_on_overrun=False`` when it is off, e.g.
  ``easy(backfill_order=sjf)``: a function of the run's configuration, so the same
  configuration gets the same column whatever sweep file produced it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.metrics.summary import SUMMARY_KEYS, all_summary_keys, summarize
from schedlab.outputs import write_atomic
from schedlab.validators import check_int

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import RenderableType

    from schedlab.experiments.store import ResultStore

__all__ = [
    "BATCH_METRICS",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_METRICS",
    "GRID_DEFAULT_METRICS",
    "TDCS_DEFAULT_METRICS",
    "LONG_COLUMNS",
    "METHODS",
    "RUN_KEYS",
    "ComparisonTable",
    "Estimate",
    "batch_means",
    "batch_summaries",
    "comparison_table",
    "format_estimate",
    "over_seeds",
    "policy_label",
    "runs_json",
]

DEFAULT_METRICS: tuple[str, ...] = ("mean_wait_time", "mean_bounded_slowdown", "utilization")
# the defaults for grid runs (Caron et al.): the meta-jobs' metrics and the matcher's load
GRID_DEFAULT_METRICS: tuple[str, ...] = (
    "global_mean_wait_time",
    "global_mean_response_time",
    "global_makespan",
    "matcher_requests",
)
# the defaults for runs with absolute priorities (Baranov and Tikhomirov): what the
# dispatcher is for, and what it costs the other classes
TDCS_DEFAULT_METRICS: tuple[str, ...] = (
    "high_priority_mean_processing_time",
    "low_priority_mean_wait_time",
    "background_mean_wait_time",
    "lost_work",
)
DEFAULT_BATCH_SIZE = 5000  # jobs per batch (PPS paper, SPEC section 2)
MIN_INTERVAL_N = 3  # fewer values than this: no interval (module docstring)
METHODS = ("auto", "seeds", "batch")
# Metrics whose per-batch values estimate the whole run's (means and rates).
BATCH_METRICS: tuple[str, ...] = (
    "utilization",
    "mean_wait_time",
    "mean_response_time",
    "mean_slowdown",
    "mean_bounded_slowdown",
    "unfairness",
)
RUN_KEYS = ("run_id", "status", "workload", "policy", "load_factor", "seed")
LONG_COLUMNS = (
    "workload",
    "load_factor",
    "policy",
    "metric",
    "mean",
    "half_width",
    "n",
    "method",
    "confidence",
)
_JOB_COLUMNS = ("submitted_at", "finished_at", "run_time", "wait_time", "procs", "killed")
_NOT_PER_BATCH = ("skipped", "procs", "wall_time")


# --- estimates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean and the half-width of its confidence interval over ``n`` values.

    ``half_width`` is NaN when ``n < MIN_INTERVAL_N``; ``mean`` is NaN when ``n == 0``.
    """

    mean: float
    half_width: float
    n: int
    confidence: float = 0.95

    @property
    def n_batches(self) -> int:
        """``n``, under the name batch means use."""
        return self.n

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


def _check_confidence(confidence: float) -> float:
    try:
        value = float(confidence)
    except (TypeError, ValueError):
        value = math.nan
    if not 0.0 < value < 1.0:
        raise ConfigError("confidence", confidence, "a number strictly between 0 and 1")
    return value


def _check_batch_size(batch_size: int) -> int:
    return check_int("batch size", batch_size, low=1, allowed="an integer >= 1 (jobs per batch)")


def _t_interval(values: np.ndarray, confidence: float) -> Estimate:
    n = int(values.size)
    if n == 0:
        return Estimate(math.nan, math.nan, 0, confidence)
    mean = float(values.mean())
    if n < MIN_INTERVAL_N:
        return Estimate(mean, math.nan, n, confidence)
    try:
        from scipy.stats import t
    except ImportError:  # pragma: no cover - depends on the install
        raise ConfigError(
            "confidence intervals", "scipy", "an install with scipy: pip install scipy"
        ) from None
    quantile = float(t.ppf((1.0 + confidence) / 2.0, n - 1))
    half_width = quantile * float(values.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, half_width, n, confidence)


def over_seeds(values: Iterable[float] | np.ndarray, confidence: float = 0.95) -> Estimate:
    """Student t confidence interval of the mean of independent replications (one per seed).

    NaN values are kept (they make the result NaN): a failed metric should be seen.
    """
    confidence = _check_confidence(confidence)
    array = values if isinstance(values, np.ndarray) else np.fromiter(values, dtype=np.float64)
    return _t_interval(np.asarray(array, dtype=np.float64).ravel(), confidence)


def batch_means(
    values: np.ndarray | Sequence[float],
    batch_size: int = DEFAULT_BATCH_SIZE,
    confidence: float = 0.95,
) -> Estimate:
    """Batch-means estimate of the mean of a per-job series (SPEC section 2, PPS paper).

    ``values`` are per-job values in submit order; they are cut into consecutive batches of
    ``batch_size``; a trailing partial batch is dropped. The estimate is the mean of the
    batch means and a Student t interval over them (``n`` = number of full batches; fewer
    than `MIN_INTERVAL_N` batches: half-width NaN; none: mean NaN too).
    """
    batch_size = _check_batch_size(batch_size)
    confidence = _check_confidence(confidence)
    x = np.asarray(values, dtype=np.float64).ravel()
    k = x.size // batch_size
    means = x[: k * batch_size].reshape(k, batch_size).mean(axis=1)
    return _t_interval(means, confidence)


def batch_summaries(jobs: Any, *, procs: int, batch_size: int = DEFAULT_BATCH_SIZE) -> pd.DataFrame:
    """One row per full batch of consecutive jobs: the SPEC section 3 metrics of its jobs.

    ``jobs``: a per-job table (DataFrame or mapping of columns) in submit order. Columns:
    ``batch`` (0-based), ``first_job`` (row of its first job), and the aggregates of
    `schedlab.metrics.summarize` computed on the batch alone with ``procs`` processors
    (``jobs``, ``makespan``, ``utilization``, ``mean_wait_time``, ...). A trailing partial
    batch is dropped. See the module docstring for how each metric reads on a batch.
    """
    import pandas as pd

    batch_size = _check_batch_size(batch_size)
    columns = {name: np.asarray(jobs[name]) for name in _JOB_COLUMNS}
    n = len(columns["submitted_at"])
    if n > 1 and np.any(np.diff(columns["submitted_at"]) < 0):
        order = np.argsort(columns["submitted_at"], kind="stable")
        columns = {name: col[order] for name, col in columns.items()}
    keys = [k for k in SUMMARY_KEYS if k not in _NOT_PER_BATCH]
    rows = []
    for b in range(n // batch_size):
        lo, hi = b * batch_size, (b + 1) * batch_size
        agg = summarize({name: col[lo:hi] for name, col in columns.items()}, procs=procs)
        rows.append({"batch": b, "first_job": lo, **{k: agg[k] for k in keys}})
    return pd.DataFrame(rows, columns=["batch", "first_job", *keys])


# --- labels --------------------------------------------------------------------------------


def _format_value(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _policy_defaults(policy: str, grid: bool = False) -> dict[str, Any] | None:
    from schedlab.grid.registry import meta_scheduler_class
    from schedlab.schedulers.registry import policy_class

    try:
        params_cls = (meta_scheduler_class if grid else policy_class)(policy).Params
        fields = dataclasses.fields(params_cls)
    except Exception:  # unknown policy, or a third-party class without dataclass Params
        return None
    defaults: dict[str, Any] = {}
    for f in fields:
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            defaults[f.name] = f.default_factory()
    return defaults


def policy_label(
    policy: str,
    params: dict[str, Any] | None = None,
    *,
    kill_on_overrun: bool = True,
    grid: bool = False,
    queue_policy: Sequence[Any] | None = None,
) -> str:
    """``name(key=value,...)`` with the parameters that differ from the policy's defaults.

    Every parameter is shown when the policy is not registered; ``kill_on_overrun=False``
    is added when kill-on-overrun is off. ``easy`` with default parameters is ``easy``.
    ``grid``: ``policy`` is a meta-scheduler (a grid run), e.g. ``push(refresh=5.0)``.
    ``queue_policy`` (a platform run whose queues were all put under one policy: the TDCS
    local managers) adds that policy's ``preemption`` mode, or its name.
    """
    params = params or {}
    defaults = _policy_defaults(policy, grid)
    shown = {
        k: v
        for k, v in sorted(params.items())
        if defaults is None or k not in defaults or defaults[k] != v
    }
    if not kill_on_overrun:
        shown["kill_on_overrun"] = False
    if queue_policy:
        name, queue_params = queue_policy
        shown["preemption"] = dict(queue_params).get("preemption", name)
    suffix = ",".join(f"{k}={_format_value(v)}" for k, v in shown.items())
    return f"{policy}({suffix})" if suffix else policy


def _strip_seed(spec: str) -> str:
    name, _, rest = spec.partition(":")
    items = [s for s in (i.strip() for i in rest.split(",")) if s and not s.startswith("seed=")]
    return f"{name}:{','.join(items)}"


def _workload_label(config: dict[str, Any]) -> str | None:
    """The catalog's workload label; a bare model spec loses its seed (module docstring)."""
    workload = config.get("workload")
    label = config.get("label")
    if not label:
        if not isinstance(workload, str):
            return None
        from schedlab.experiments.config import RunConfig

        label = RunConfig(workload=workload, policy="").workload_label
    label = str(label)
    if label == workload:
        from schedlab.workload.load import is_model_spec

        if is_model_spec(label):
            return _strip_seed(label)
    return label


def _float_or_none(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _config_keys(config: dict[str, Any]) -> dict[str, Any]:
    return {
        "workload": _workload_label(config),
        "policy": config.get("policy"),
        "load_factor": _float_or_none(config.get("load_factor", 1.0)),
        "seed": config.get("seed"),
    }


def _plain(value: Any) -> Any:
    """JSON-safe: numpy scalars to Python, NaN and infinities to None, recursively."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --- runs as JSON --------------------------------------------------------------------------


def runs_json(store: ResultStore) -> dict[str, Any]:
    """``{"runs": [...]}`` for ``schedlab results DIR --json``; valid JSON (NaN -> null).

    Finished runs first, then failures, each sorted by run id. A finished run has
    ``run_id, status ("done"), workload, policy, load_factor, seed`` and the summary keys of
    DESIGN.md section 4 (``wall_time`` from the run's meta.json; a missing key is null). A
    failed run has ``run_id, status ("failed"), workload, policy, load_factor, seed`` and
    ``error``. ``workload`` is the row label of the comparison tables, ``policy`` the
    registered name.
    """
    runs: list[dict[str, Any]] = []
    done = store.done_ids()
    for run_id in sorted(done):
        config = store.config(run_id)
        summary = store.summary(run_id) or {}
        try:
            meta = store.meta(run_id) or {}
        except (FileNotFoundError, ValueError):
            meta = {}
        record: dict[str, Any] = {"run_id": run_id, "status": "done", **_config_keys(config)}
        for key in SUMMARY_KEYS:
            record[key] = meta.get(key) if key == "wall_time" else summary.get(key)
        for key in all_summary_keys()[len(SUMMARY_KEYS) :]:
            if key in summary:  # deadline counts, moldable metrics: only where they exist
                record[key] = summary[key]
        if meta.get("skipped_by_reason"):
            record["skipped_by_reason"] = meta["skipped_by_reason"]
        runs.append(record)
    for run_id in sorted(store.failed_ids() - done):
        failure = store.failure(run_id)
        config = failure.get("config") or {}
        record = {"run_id": run_id, "status": "failed", **_config_keys(config)}
        record["error"] = failure.get("error")
        runs.append(record)
    return {"runs": [_plain(r) for r in runs]}


# --- formatting ----------------------------------------------------------------------------

MISSING_CELL = "–"  # no run for this (workload, load factor, policy)


def _decimals(mean: float, half_width: float, significant: int) -> int:
    ref = abs(mean) if math.isfinite(mean) and mean != 0 else abs(half_width)
    if not math.isfinite(ref) or ref == 0:
        return 0
    return max(0, min(6, significant - 1 - math.floor(math.log10(ref))))


def format_estimate(
    mean: float, half_width: float, significant: int = 4, n: int | None = None
) -> str:
    """``"12.35 ± 0.41"``: the mean to ``significant`` digits (at most 6 decimals), the
    half-width with as many decimals; ``"12.35"`` without an interval; ``"n/a"`` for NaN.
    With ``n`` >= 2, `` (n=N)`` follows: how many seeds or batches the cell stands on."""
    if mean is None or not math.isfinite(mean):
        return "n/a"
    d = _decimals(mean, half_width, significant)
    text = f"{mean:.{d}f}"
    if half_width is not None and math.isfinite(half_width):
        text += f" ± {half_width:.{d}f}"
    if n is not None and n >= 2:
        text += f" (n={n})"
    return text


def _format_load(load_factor: float) -> str:
    return f"{load_factor:g}"


def _latex_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append(r"\textbackslash{}")
        elif ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append(r"\textasciitilde{}")
        elif ch == "^":
            out.append(r"\textasciicircum{}")
        else:
            out.append(ch)
    return "".join(out)


def _markdown_escape(text: str) -> str:
    return text.replace("|", "\\|")


# --- comparison tables ---------------------------------------------------------------------

_CELL_COLUMNS = ("workload", "load_factor", "policy", "mean", "half_width", "n")


@dataclass(frozen=True)
class ComparisonTable:
    """Estimates of chosen metrics for every (workload, load factor) x policy.

    ``data``: the long form, one row per (workload, load_factor, policy, metric), columns
    `LONG_COLUMNS` (``n`` = seeds or batches behind the estimate; ``method`` = "seeds",
    "batch" or "single"). ``rows`` and ``policies`` fix the display order.
    """

    data: pd.DataFrame
    metrics: tuple[str, ...]
    rows: tuple[tuple[str, float], ...]
    policies: tuple[str, ...]
    method: str = "auto"
    batch_size: int = DEFAULT_BATCH_SIZE
    confidence: float = 0.95

    # -- pandas ---------------------------------------------------------------------------
    def _cells(self, metric: str, human: bool = False) -> dict[tuple[str, float, str], str]:
        """``human``: in the metric's units (`schedlab.humanize`), with ``(n=N)`` only where
        the cells' n differ (the note gives it otherwise); else raw numbers, as files keep."""
        from schedlab.humanize import estimate_text

        sub = self.data[self.data["metric"] == metric]
        same_n = sub["n"].nunique() <= 1
        return {
            (w, float(lf), p): (
                estimate_text(metric, float(m), float(h), None if same_n else int(n))
                if human
                else format_estimate(float(m), float(h), n=int(n))
            )
            for w, lf, p, m, h, n in zip(*(sub[c] for c in _CELL_COLUMNS))
        }

    def _grid(self, metric: str, human: bool = False) -> list[list[str]]:
        cells = self._cells(metric, human)
        return [[cells.get((w, lf, p), MISSING_CELL) for p in self.policies] for w, lf in self.rows]

    def to_frame(self, metric: str | None = None, *, human: bool = False) -> pd.DataFrame:
        """Wide table of formatted cells ``"mean ± hw"``: index (workload, load_factor),
        columns the policies; with several metrics and no ``metric``, columns are
        (metric, policy). ``human``: cells in the metric's units, for a person (HTML)."""
        import pandas as pd

        if metric is not None and metric not in self.metrics:
            raise ConfigError("metric", metric, self.metrics)
        metrics = [metric] if metric is not None else list(self.metrics)
        index = pd.MultiIndex.from_tuples(list(self.rows), names=["workload", "load_factor"])
        frames = {
            m: pd.DataFrame(
                self._grid(m, human), index=index, columns=pd.Index(self.policies, name="policy")
            )
            for m in metrics
        }
        if len(frames) == 1:
            return next(iter(frames.values()))
        return pd.concat(frames, axis=1, names=["metric", "policy"])

    def to_csv(self, path: str | Path | None = None) -> str | None:
        """The long form (numeric, full precision) as CSV; the text when ``path`` is None."""
        text: str = self.data.to_csv(index=False)
        if path is None:
            return text
        write_atomic(path, text.encode())
        return None

    # -- text -----------------------------------------------------------------------------
    def note(self, metric: str) -> str:
        """One sentence saying what the cells of ``metric`` are."""
        sub = self.data[self.data["metric"] == metric]
        pct = f"{self.confidence * 100:g}%"
        parts = []
        for method in ("seeds", "batch", "single"):
            ns = sub.loc[sub["method"] == method, "n"]
            if ns.empty:
                continue
            lo, hi = int(ns.min()), int(ns.max())
            count = f"{lo}" if lo == hi else f"{lo}-{hi}"
            if method == "seeds":
                parts.append(f"over seeds (n = {count} runs)")
            elif method == "batch":
                parts.append(
                    f"by batch means (batches of {self.batch_size} jobs, n = {count} batches)"
                )
            else:
                parts.append(
                    "whole-run value, no interval (a single run, or runs shorter than a batch)"
                )
        how = "; ".join(parts) if parts else "no finished runs"
        text = f"mean ± half-width of the {pct} Student t confidence interval: {how}."
        few = sub[(sub["method"] != "single") & (sub["n"] < MIN_INTERVAL_N)]
        if not few.empty:
            text += (
                f" Cells with n < {MIN_INTERVAL_N} show the mean alone: with so few values the "
                "interval would be wider than anything it could tell (run more seeds, or use "
                "smaller batches)."
            )
        return text

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown: per metric, a ``###`` heading, a note, and a table
        with one row per (workload, load factor) and one column per policy."""
        out: list[str] = []
        for metric in self.metrics:
            header = ["workload", "load factor", *self.policies]
            align = ["---", "---:", *(["---:"] * len(self.policies))]
            out += [f"### {metric}", "", self.note(metric), ""]
            out.append("| " + " | ".join(_markdown_escape(h) for h in header) + " |")
            out.append("| " + " | ".join(align) + " |")
            for (w, lf), cells in zip(self.rows, self._grid(metric)):
                row = [_markdown_escape(w), _format_load(lf), *cells]
                out.append("| " + " | ".join(row) + " |")
            out.append("")
        return "\n".join(out)

    def to_latex(self) -> str:
        """One booktabs ``tabular`` per metric (needs ``\\usepackage{booktabs}``), text
        escaped for LaTeX, cells as ``$m \\pm h$``."""
        k = len(self.policies)
        out = ["% schedlab comparison tables; needs \\usepackage{booktabs}"]
        for metric in self.metrics:
            out.append(f"% {metric}: {self.note(metric)}")
            out.append("\\begin{tabular}{ll" + "r" * k + "}")
            out.append("\\toprule")
            if k:
                out.append(f" & & \\multicolumn{{{k}}}{{c}}{{{_latex_escape(metric)}}} \\\\")
                out.append(f"\\cmidrule(lr){{3-{k + 2}}}")
            header = ["workload", "load factor", *(_latex_escape(p) for p in self.policies)]
            out.append(" & ".join(header) + " \\\\")
            out.append("\\midrule")
            for (w, lf), cells in zip(self.rows, self._grid(metric)):
                row = [_latex_escape(w), _format_load(lf), *(_latex_cell(c) for c in cells)]
                out.append(" & ".join(row) + " \\\\")
            out.append("\\bottomrule")
            out.append("\\end{tabular}")
            out.append("")
        return "\n".join(out)

    def rich_tables(self, width: int | None = None) -> list[RenderableType]:
        """For the terminal: per metric a table under its label, cells in its units, no
        wider than ``width`` (`schedlab.humanize.comparison_grids`: pivoted or split when
        too wide, never an identifying column dropped); the note once when every metric
        has the same, and the legend of any abbreviation."""
        from schedlab.humanize import Legend, comparison_grids, metric_label, render

        notes = [self.note(m) for m in self.metrics]
        shared = len(set(notes)) == 1
        legend = Legend()
        grids = comparison_grids(
            [metric_label(m, full=True).strip() for m in self.metrics],
            [(w, _format_load(lf)) for w, lf in self.rows],
            self.policies,
            [self._grid(m, human=True) for m in self.metrics],
            width,
            captions=None if shared else notes,
            legend=legend,
        )
        return render(grids, width, note=notes[0] if shared and notes else None, legend=legend)


def _latex_cell(cell: str) -> str:
    if cell == MISSING_CELL:
        return "--"
    if cell == "n/a":
        return cell
    value, _, n = cell.partition(" (n=")
    math_text = "$" + value.replace(" ± ", " \\pm ") + "$"
    return f"{math_text} ($n={n[:-1]}$)" if n else math_text


@dataclass
class _Run:
    run_id: str
    workload: str
    load_factor: float
    policy: str
    seed: Any
    procs_override: int | None
    values: dict[str, Any]  # summary keys, wall_time from meta
    grid: bool = False  # a grid run (Caron et al.): a meta-scheduler on a platform


def _load_runs(store: ResultStore) -> list[_Run]:
    runs = []
    for run_id in sorted(store.done_ids()):
        config = store.config(run_id)
        summary = dict(store.summary(run_id) or {})
        try:
            summary["wall_time"] = (store.meta(run_id) or {}).get("wall_time")
        except (FileNotFoundError, ValueError):
            summary["wall_time"] = None
        runs.append(
            _Run(
                run_id=run_id,
                workload=_workload_label(config) or "?",
                load_factor=float(config.get("load_factor", 1.0)),
                policy=policy_label(
                    str(config.get("policy")),
                    config.get("params") or {},
                    kill_on_overrun=bool(config.get("kill_on_overrun", True)),
                    grid=config.get("platform") is not None,
                    queue_policy=config.get("queue_policy"),
                ),
                seed=config.get("seed"),
                grid=config.get("platform") is not None,
                procs_override=config.get("procs"),
                values=summary,
            )
        )
    # one label with several machine sizes: tell the rows apart
    sizes: dict[str, set[Any]] = {}
    for run in runs:
        sizes.setdefault(run.workload, set()).add(run.procs_override)
    for run in runs:
        if len(sizes[run.workload]) > 1 and run.procs_override is not None:
            run.workload = f"{run.workload} (procs={run.procs_override})"
    return runs


def _value(run: _Run, metric: str) -> float:
    value = run.values.get(metric)
    return math.nan if value is None else float(value)


def comparison_table(
    store: ResultStore,
    metrics: Sequence[str] = DEFAULT_METRICS,
    method: str = "auto",
    batch_size: int = DEFAULT_BATCH_SIZE,
    confidence: float = 0.95,
) -> ComparisonTable:
    """Estimates of ``metrics`` per (workload, load factor) x policy (module docstring).

    ``metrics``: summary keys of DESIGN.md section 4; ``method``: "auto" (over seeds when a
    cell has 2+ runs, else batch means), "seeds" or "batch" (then every metric must be in
    `BATCH_METRICS`); ``batch_size``: jobs per batch; ``confidence``: the interval's level.
    Only finished runs count; failed runs are listed by `runs_json`. Asked for
    `DEFAULT_METRICS` on a folder with grid runs (Caron et al.), the table has
    `GRID_DEFAULT_METRICS` instead (after the defaults when cluster runs are there too), and
    `TDCS_DEFAULT_METRICS` for runs with absolute priorities (Baranov and Tikhomirov).
    """
    import pandas as pd

    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = tuple(metrics)
    if not metrics:
        raise ConfigError("metrics", metrics, all_summary_keys())
    for metric in metrics:
        if metric not in all_summary_keys():
            raise ConfigError("metric", metric, all_summary_keys())
    if method not in METHODS:
        raise ConfigError("method", method, METHODS)
    if method == "batch":
        for metric in metrics:
            if metric not in BATCH_METRICS:
                raise ConfigError("metric (with batch means)", metric, BATCH_METRICS)
    batch_size = _check_batch_size(batch_size)
    confidence = _check_confidence(confidence)

    runs = _load_runs(store)
    if metrics == DEFAULT_METRICS and any(r.grid for r in runs):  # the default, on grid runs
        cluster = DEFAULT_METRICS if not all(r.grid for r in runs) else ()
        tdcs = any(TDCS_DEFAULT_METRICS[0] in r.values for r in runs)
        grid = any(r.grid and TDCS_DEFAULT_METRICS[0] not in r.values for r in runs)
        metrics = (
            cluster
            + (GRID_DEFAULT_METRICS if grid else ())
            + (TDCS_DEFAULT_METRICS if tdcs else ())
        )
    cells: dict[tuple[str, float, str], list[_Run]] = {}
    for run in runs:
        cells.setdefault((run.workload, run.load_factor, run.policy), []).append(run)

    batches: dict[str, pd.DataFrame] = {}

    def per_batch(run: _Run) -> pd.DataFrame:
        if run.run_id not in batches:
            procs = int(run.values.get("procs") or 0)
            batches[run.run_id] = batch_summaries(
                store.jobs(run.run_id), procs=procs, batch_size=batch_size
            )
        return batches[run.run_id]

    records = []
    for (workload, load_factor, policy), cell_runs in sorted(cells.items()):
        for metric in metrics:
            chosen = method
            if chosen == "auto":
                chosen = "seeds" if len(cell_runs) >= 2 else "batch"
            run_values = np.array([_value(r, metric) for r in cell_runs], dtype=np.float64)
            estimate = None
            if chosen == "batch" and metric in BATCH_METRICS:
                pooled = [per_batch(run)[metric].to_numpy(np.float64) for run in cell_runs]
                values = np.concatenate(pooled)
                if values.size:
                    estimate = _t_interval(values, confidence)
            elif chosen == "seeds" and len(cell_runs) >= 2:
                estimate = _t_interval(run_values, confidence)
            if estimate is None:  # no interval: the run's value (mean of the runs' values)
                chosen = "single"
                estimate = Estimate(float(run_values.mean()), math.nan, len(cell_runs), confidence)
            records.append(
                {
                    "workload": workload,
                    "load_factor": load_factor,
                    "policy": policy,
                    "metric": metric,
                    "mean": estimate.mean,
                    "half_width": estimate.half_width,
                    "n": estimate.n,
                    "method": chosen,
                    "confidence": confidence,
                }
            )
    data = pd.DataFrame(records, columns=list(LONG_COLUMNS))
    data["n"] = data["n"].astype("int64")
    rows = tuple(sorted({(r.workload, r.load_factor) for r in runs}))
    policies = tuple(sorted({r.policy for r in runs}))
    return ComparisonTable(
        data=data,
        metrics=metrics,
        rows=rows,
        policies=policies,
        method=method,
        batch_size=batch_size,
        confidence=confidence,
    )
