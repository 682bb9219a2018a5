"""Figures of the paper reproductions: ours next to the published values.

A reproduction (`schedlab.experiments.reproduce`) only computes; `draw_figures` draws its
figures from the data it carries (``Reproduction.figure_data``). Built like every figure
(`report.style`: a Figure made directly, saved with `style.save`, so the same rows give the
same bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.experiments.reproduce import dirac, hlw
from schedlab.experiments.reproduce.common import Reproduction, change
from schedlab.experiments.reproduce.published import DBF_TABLES, PPS_TABLES
from schedlab.report.style import legend_below, legend_beside, log_axis, new_figure, save


def draw_figures(paper: str, reproduction: Reproduction, out: Path) -> list[Path]:
    """Draw reproduction ``paper``'s figures into ``out`` from its ``figure_data``, append
    their paths to ``reproduction.files`` (after its tables) and return them."""
    draw = _DRAWERS.get(paper)
    if draw is None:
        raise ConfigError("paper", paper, sorted(_DRAWERS))
    paths = draw(reproduction.figure_data, out)
    reproduction.files.extend(paths)
    return paths


def dbf_figure(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Change of the priority jobs' mean wait, DBF vs CBF, per workload and case: ours and
    Table 1 of N'Takpé and Suter (ComPAS 2016), as grouped bars."""
    fig, ax = new_figure(7.0, 3.8)
    labels, ours, paper = [], [], []
    for row in rows:
        labels.append(f"{row['workload']}\n({row['case']})")
        ours.append(change(row["dbf_priority_mean_wait_time"], row["cbf_priority_mean_wait_time"]))
        published = DBF_TABLES[row["published_as"]]["priority"]["wait_h"]
        paper.append(published[1] if row["case"] == "a" else published[2])
    x = np.arange(len(labels))
    ax.bar(x - 0.2, ours, 0.4, label="schedlab", color="#1f77b4")
    ax.bar(x + 0.2, paper, 0.4, label="N'Takpé and Suter (ComPAS 2016), Table 1", color="#bbbbbb")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("priority jobs' mean wait,\nDBF vs CBF (%)")
    legend_below(fig, ncols=2)  # under the bars, never over them
    return save(fig, path)


def pps_figure(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Mean response time against load, EASY and PPS, one panel per workload: ours (lines)
    and Table 1 of Zhang and Pan (PPS) (the workload it stands for, dashed)."""
    from matplotlib.figure import Figure

    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    fig = Figure(figsize=(3.2 * max(len(workloads), 1), 3.2), layout="constrained")
    axes = fig.subplots(1, max(len(workloads), 1), squeeze=False)[0]
    for ax, name in zip(axes, workloads):
        mine = sorted((r for r in rows if r["workload"] == name), key=lambda r: r["load_factor"])
        loads = [r["load_factor"] for r in mine]
        paper_name = mine[0]["published_as"]
        published = PPS_TABLES[paper_name]
        paper_loads = sorted(published)
        for column, (policy, marker, color) in enumerate(
            (("EASY", "o", "#d62728"), ("PPS", "s", "#2ca02c"))
        ):
            key = f"{policy.lower()}_mean_response_time"
            ax.plot(loads, [r[key] for r in mine], f"{marker}-", color=color, label=policy)
            ax.plot(
                paper_loads,
                [published[f][column] for f in paper_loads],
                f"{marker}--",
                color=color,
                alpha=0.45,
                label=f"{policy}, published for the workload in the title",
            )
        ax.set_title(f"{name} (for {paper_name})", fontsize=9)
        ax.set_xlabel("load factor")
        log_axis(ax, "y", "log", steps=(1.0, 2.0, 5.0))
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("mean response time (s)")
    if workloads:  # one legend for the panels, which share their entries
        legend_below(fig, *axes[0].get_legend_handles_labels(), ncols=2)
    return save(fig, path)


def mmc_figure(
    rows: Sequence[dict[str, Any]],
    paper_rows: Sequence[dict[str, Any]],
    path: Path,
    *,
    expectation: Sequence[dict[str, Any]] = (),
) -> Path:
    """M/M/c validation: simulated mean response (99 % intervals) on Erlang C's curve, one
    panel per server count, and a last panel with the protocol of Caron et al. (16 x 1000 jobs
    from empty, c = 4, service 4 s), whose bias near saturation is visible."""
    from matplotlib.figure import Figure

    from schedlab.metrics.queueing import mmc_mean_response_time

    servers = sorted({int(r["servers"]) for r in rows})
    panels = len(servers) + (1 if paper_rows else 0)
    fig = Figure(figsize=(3.3 * max(panels, 1), 3.2), layout="constrained")
    axes = fig.subplots(1, max(panels, 1), squeeze=False)[0]
    grid = np.linspace(0.01, 0.97, 200)
    for ax, c in zip(axes, servers):
        mine = sorted((r for r in rows if r["servers"] == c), key=lambda r: r["load"])
        ax.plot(grid, [mmc_mean_response_time(c, x) for x in grid], color="0.3", lw=1)
        loads = np.array([r["load"] for r in mine])
        means = np.array([r["simulated_mean_response_time"] for r in mine])
        err = np.array([r["ci_high"] - r["simulated_mean_response_time"] for r in mine])
        ax.errorbar(loads, means, yerr=err, fmt="o", ms=3, color="#1f77b4", capsize=2)
        ax.set_title(f"M/M/{c}, service 1 s", fontsize=9)
        ax.set_xlabel("load ρ")
        ax.set_ylabel("mean response time (s)")
    if paper_rows:
        ax = axes[-1]
        ax.plot(grid, [mmc_mean_response_time(4, x, 4.0) for x in grid], color="0.3", lw=1,
                label="Erlang C")  # fmt: skip
        loads = np.array([r["load"] for r in paper_rows])
        means = np.array([r["simulated_mean_response_time"] for r in paper_rows])
        err = np.array([r["ci_high"] - r["simulated_mean_response_time"] for r in paper_rows])
        ax.errorbar(loads, means, yerr=err, fmt="s", ms=3, color="#d62728", capsize=2,
                    label="16 x 1000 jobs from empty")  # fmt: skip
        if expectation:
            ax.plot([r["load"] for r in expectation],
                    [r["simulated_mean_response_time"] for r in expectation], "--",
                    color="#d62728", lw=1, label="its expectation (400 runs)")  # fmt: skip
        ax.set_title("Caron et al. (LIP RR-2005-13): M/M/4 protocol", fontsize=9)
        ax.set_xlabel("load ρ")
        legend_below(fig, *ax.get_legend_handles_labels(), ncols=3)
    return save(fig, path)


def hlw_figure(values: dict[str, dict[str, list[float]]], path: Path) -> Path:
    """Figure 1a-f of Lanore and Klein (ComPAS 2013): the distribution of normalized Cmax
    per algorithm, one box plot per scenario (the same instances for every algorithm of a
    scenario)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12.0, 6.6), layout="constrained")
    axes = fig.subplots(2, 3, squeeze=False).ravel()
    for ax, scenario in zip(axes, hlw.SCENARIOS):
        cells = values.get(scenario.name, {})
        names = [p for p in hlw.DISPLAY if p in cells]
        data = [cells[p] for p in names]
        if data:
            ax.boxplot(data, showfliers=True, flierprops={"markersize": 2})
            low, high = min(min(d) for d in data), max(max(d) for d in data)
            if high > 4 * low:  # (RefN at n/N = 1/8) keep the others readable
                log_axis(ax, "y", "log", steps=(1.0, 2.0, 5.0))
            ax.set_xticks(range(1, len(names) + 1), [hlw.DISPLAY[p] for p in names], rotation=45,
                          fontsize=7)  # fmt: skip
        ax.set_title(
            f"({scenario.name}) n/N = {scenario.n_over_nodes:g}, π = {scenario.pi:g}, "
            f"N = {scenario.nodes}",
            fontsize=9,
        )
        ax.set_ylabel("normalized Cmax", fontsize=8)
        ax.grid(True, axis="y", color="0.88", linewidth=0.6)
    return save(fig, path)


_DIRAC_COLORS = {
    "push": "#d62728",
    "static": "#1f77b4",
    "pilot_simple": "#9467bd",
    "pilot_filling": "#2ca02c",
}


def dirac_figure7(series: dict[str, Any], path: Path) -> Path:
    """Figure 7 of Caron et al. (LIP RR-2005-13): jobs queued, running and done over time,
    push with Δt = 0 and DIRAC (static agents), one seed of the dedicated context
    (``series``: strategy -> a run's time series with time, queued, running and done)."""
    from matplotlib.figure import Figure

    names = [n for n in ("push", "static") if n in series]
    fig = Figure(figsize=(5.2 * max(len(names), 1), 3.4), layout="constrained")
    axes = fig.subplots(1, max(len(names), 1), squeeze=False)[0]
    lines: list[Any] = []
    for ax, name in zip(axes, names):
        frame = series[name]
        hours = np.asarray(frame["time"], dtype=np.float64) / 3600.0
        lines = []
        for column, color in (("queued", "#ff7f0e"), ("running", "#1f77b4")):
            lines += ax.plot(hours, np.asarray(frame[column]), color=color, lw=1.2, label=column)
        ax.axhline(60, color="0.6", lw=0.8, ls=":")
        ax.set_ylim(bottom=0)
        done = ax.twinx()  # the cumulated count on its own scale, as in the paper
        lines += done.plot(hours, np.asarray(frame["done"]), color="0.4", lw=1.2, label="done")
        done.set_ylim(bottom=0)
        done.set_ylabel("jobs done", fontsize=8)
        ax.set_title(f"({'ab'[names.index(name)]}) {dirac.DISPLAY[name]}", fontsize=9)
        ax.set_xlabel("time (h)")
        ax.set_ylabel("jobs queued, running (dotted: the 60 nodes)", fontsize=8)
    if lines:  # one legend under both panels (they share it), never over the curves
        legend_below(fig, lines, [str(line.get_label()) for line in lines], ncols=len(lines))
    return save(fig, path)


def dirac_figure8(contexts: dict[str, dict[str, Any]], path: Path) -> Path:
    """Figure 8 of Caron et al. (LIP RR-2005-13): push's mean global wait against the
    refresh period Δt, per context, with DIRAC's mean wait (static agents; dotted: filling
    pilots) as flat lines; left Δt up to 200 s (the paper's range), right the whole range to
    past the plateau."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 3.6), layout="constrained")
    near, far = fig.subplots(1, 2)
    colors = {"dedicated": "#1f77b4", "shared": "#d62728"}
    for context, data in contexts.items():
        curve = np.asarray(data["push_wait_vs_refresh"], dtype=np.float64)
        color = colors.get(context, "0.3")
        for ax, keep in ((near, curve[:, 0] <= 200), (far, curve[:, 0] >= 0)):
            ax.plot(curve[keep, 0], curve[keep, 1], "o-", ms=2.5, lw=1, color=color,
                    label=f"push, {context}")  # fmt: skip
            ax.axhline(data["dirac_mean_wait_time"], color=color, ls="--", lw=1,
                       label=f"DIRAC static, {context}")  # fmt: skip
            filling = data["strategies"]["pilot_filling"]["mean_wait_time"]
            ax.axhline(filling, color=color, ls=":", lw=1, label=f"DIRAC filling, {context}")
    near.set_title("(a) Δt in steps of 5 s", fontsize=9)
    near.set_xlabel("refresh period Δt (s)")
    near.set_ylabel("meta-jobs' mean global wait (s)")
    near.set_yscale("log")
    far.set_title("(b) past the plateau (Δt above the last arrival)", fontsize=9)
    far.set_xscale("symlog", linthresh=10)
    far.set_xlim(left=0)
    far.set_yscale("log")
    far.set_xlabel("refresh period Δt (s)")
    legend_below(fig, *far.get_legend_handles_labels(), ncols=3)
    return save(fig, path)


def dirac_figure9(contexts: dict[str, dict[str, Any]], series: dict[str, Any], path: Path) -> Path:
    """Figure 9 of Caron et al. (LIP RR-2005-13): (a) makespan, global and local mean
    response and execution time of the four strategies, one row per context (means over
    seeds); (b) matcher requests over time for the DIRAC strategies (one seed, dedicated
    context)."""
    from matplotlib.figure import Figure

    metrics = (
        ("makespan", "makespan (s)"),
        ("mean_response_time", "global response (s)"),
        ("local_mean_response_time", "local response (s)"),
        ("mean_execution_time", "execution time (s)"),
    )
    rows = len(contexts) + 1
    fig = Figure(figsize=(12.0, 2.9 * rows), layout="constrained")
    axes = fig.subplots(rows, len(metrics), squeeze=False)
    x = np.arange(len(dirac.STRATEGIES))
    colors = [_DIRAC_COLORS[s] for s in dirac.STRATEGIES]
    short = ["push", "static", "simple", "filling"]
    for r, (context, data) in enumerate(contexts.items()):
        for ax, (key, label) in zip(axes[r], metrics):
            values = [data["strategies"][s][key] for s in dirac.STRATEGIES]
            if all(v is None or (isinstance(v, float) and np.isnan(v)) for v in values):
                ax.text(0.5, 0.5, "no local jobs", ha="center", va="center",
                        transform=ax.transAxes, fontsize=8, color="0.4")  # fmt: skip
                ax.set_xticks([])
                ax.set_yticks([])
            else:
                ax.bar(x, [np.nan if v is None else v for v in values], color=colors)
                ax.set_xticks(x, short, fontsize=7)
            ax.set_title(f"{context}: {label}", fontsize=8)
    bottom = axes[-1]
    for ax, name in zip(bottom, ("static", "pilot_simple", "pilot_filling")):
        frame = series.get(name)
        if frame is None or "matcher_requests" not in frame:
            ax.set_visible(False)
            continue
        times = np.asarray(frame["time"], dtype=np.float64)
        counts = np.asarray(frame["matcher_requests"], dtype=np.float64)
        ax.step(times / 3600.0, counts, where="post", color=_DIRAC_COLORS[name], lw=1)
        width = float(times[1] - times[0]) if len(times) > 1 else 0.0
        ax.set_title(f"(b) {dirac.DISPLAY[name]}: {int(counts.sum())} requests", fontsize=8)
        ax.set_xlabel("time (h), dedicated, one seed")
        ax.set_ylabel(f"requests per {width:.0f} s", fontsize=7)
    bottom[-1].set_visible(False)
    return save(fig, path)


_TDCS_COMPONENTS = (
    ("global_queue_time", "global queue", "#9467bd"),
    ("transfer_time", "transfer", "#ff7f0e"),
    ("local_queue_time", "local queue", "#d62728"),
    ("run_time", "run", "#1f77b4"),
)


def tdcs_components_figure(means: dict[str, dict[str, float]], path: Path) -> Path:
    """Baranov and Tikhomirov (Computational Technologies 2017): the high-priority jobs'
    mean processing time per configuration, as stacked components (global queue, transfer,
    local queue, run; means over the seeds)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 3.4), layout="constrained")
    ax = fig.subplots()
    names = list(means)
    x = np.arange(len(names))
    bottom = np.zeros(len(names))
    for key, label, color in _TDCS_COMPONENTS:
        values = np.array([means[n][key] for n in names], dtype=np.float64)
        ax.bar(x, values, bottom=bottom, color=color, label=label)
        bottom += values
    ax.set_xticks(x, [n.replace("_", " ") for n in names], fontsize=8)
    ax.set_ylabel("high-priority mean processing time (s)")
    legend_beside(ax)
    return save(fig, path)


def tdcs_horizon_figure(curve: Sequence[Sequence[Any]], path: Path) -> Path:
    """Baranov and Tikhomirov (Computational Technologies 2017): tdcs against its horizon H
    (unlimited drawn at the right): the high-priority mean processing time and the
    low-priority mean wait (means over the seeds)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 3.2), layout="constrained")
    ax = fig.subplots()
    labels = ["unlimited" if h is None else str(h) for h, _, _ in curve]
    x = np.arange(len(curve))
    ax.plot(x, [c[1] for c in curve], "o-", color="#1f77b4", label="high: processing time")
    ax.plot(x, [c[2] for c in curve], "s--", color="#d62728", label="low: wait")
    ax.set_xticks(x, labels)
    ax.set_xlabel("horizon H (global jobs per cluster)")
    ax.set_ylabel("seconds")
    legend_beside(ax)
    return save(fig, path)


def _dirac_figures(data: dict[str, Any], out: Path) -> list[Path]:
    contexts, series = data["contexts"], data["series"]
    return [
        dirac_figure7(series, out / "dirac_figure7_states.svg"),
        dirac_figure8(contexts, out / "dirac_figure8_wait_vs_refresh.svg"),
        dirac_figure9(contexts, series, out / "dirac_figure9_strategies.svg"),
    ]


def _tdcs_figures(data: dict[str, Any], out: Path) -> list[Path]:
    return [
        tdcs_components_figure(data["means"], out / "tdcs_components.svg"),
        tdcs_horizon_figure(data["horizon"], out / "tdcs_horizon.svg"),
    ]


# paper -> (figure data, folder) -> the figures drawn, in the order they are listed
_DRAWERS: dict[str, Callable[[dict[str, Any], Path], list[Path]]] = {
    "dbf": lambda data, out: [dbf_figure(data["main_rows"], out / "dbf_priority_wait.svg")],
    "pps": lambda data, out: [pps_figure(data["main_rows"], out / "pps_response_time.svg")],
    "hlw": lambda data, out: [hlw_figure(data["values"], out / "hlw_normalized_cmax.svg")],
    "dirac": _dirac_figures,
    "tdcs": _tdcs_figures,
}
