"""Figures of `schedlab reproduce dirac` (Caron et al., LIP RR-2005-13), drawn from the
reproduction's ``figure_data`` (`report.reproduce.draw_figures`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.reproduce import dirac
from schedlab.report.style import legend_below, save

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


FIGURE9_CONTEXTS = ("dedicated", "shared")  # the paper's two contexts
_CONTEXT_COLORS = {
    "dedicated": "#1f77b4",
    "shared": "#d62728",
    "shared_130s": "#ff7f0e",
    "shared_289s": "#2ca02c",
}


def dirac_figure8(contexts: dict[str, dict[str, Any]], path: Path) -> Path:
    """Figure 8 of Caron et al. (LIP RR-2005-13): push's mean global wait against the
    refresh period Δt, per context (the local load's sweep included), ties to the most free
    processors (the main reading; thin dotted: ties to the lowest site, where measured at
    more than one Δt), with DIRAC's mean wait (static agents) as a dashed flat line; left Δt
    up to 200 s (the paper's range), right the whole range to past the plateau."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 3.8), layout="constrained")
    near, far = fig.subplots(1, 2)
    for context, data in contexts.items():
        color = _CONTEXT_COLORS.get(context, "0.3")
        name = f"{context} (load {data['offered_load']:.2f})"
        curve = np.asarray(data["push_wait_vs_refresh"], dtype=np.float64)
        site = np.asarray(data.get("push_wait_vs_refresh_tie_site", []), dtype=np.float64)
        for ax, limit in ((near, 200.0), (far, np.inf)):
            keep = curve[:, 0] <= limit
            ax.plot(curve[keep, 0], curve[keep, 1], "o-", ms=2.5, lw=1, color=color,
                    label=f"push, {name}")  # fmt: skip
            if len(site) > 1:
                keep = site[:, 0] <= limit
                ax.plot(site[keep, 0], site[keep, 1], ":", lw=0.9, color=color,
                        label=f"push, ties to lowest site, {context}")  # fmt: skip
            ax.axhline(data["dirac_mean_wait_time"], color=color, ls="--", lw=1,
                       label=f"DIRAC static, {context}")  # fmt: skip
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


def dirac_crossover_vs_load(contexts: dict[str, dict[str, Any]], path: Path) -> Path:
    """Caron et al. (LIP RR-2005-13) against the local load (issue 25): (a) the Δt where
    push's mean wait passes DIRAC's (static agents), under both tie rules, with the paper's
    95 s (dedicated) and 60 s (shared, load not stated); (b) the mean-response gains the
    paper states (filling pilots vs push, about 50 %; reservation vs static agents, 10 %).
    x: the offered load while meta-jobs arrive (the dedicated context is the leftmost)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    order = sorted(contexts, key=lambda c: contexts[c]["offered_load"])
    loads = np.asarray([contexts[c]["offered_load"] for c in order], dtype=np.float64)

    def values(get: Any) -> np.ndarray:
        return np.asarray([np.nan if get(contexts[c]) is None else get(contexts[c])
                           for c in order], dtype=np.float64)  # fmt: skip

    main = values(lambda c: c["crossover_refresh"])
    site = values(lambda c: c["readings"]["tie_site"]["crossover_refresh"])
    left.plot(loads, main, "o-", color="#d62728", label="push ties to most free processors (main)")
    if np.isfinite(site).sum() > 1:
        left.plot(loads, site, "s:", color="0.4", label="push ties to the lowest site")
    left.plot([loads[0]], [95.0], "k*", ms=9, label="paper, dedicated (95 s)")
    left.axhline(60.0, color="k", ls="--", lw=0.8, label="paper, shared (60 s, load not stated)")
    for x, y, c in zip(loads, main, order):
        if np.isfinite(y):
            left.annotate(c, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    left.set_yscale("log")
    left.set_xlabel("offered load while meta-jobs arrive")
    left.set_ylabel("crossover Δt (s)")
    left.set_title("(a) where push's wait passes DIRAC's (static agents)", fontsize=9)
    left.legend(fontsize=7, frameon=False)
    for key, color, label in (
        ("response_gain_filling_vs_push", "#2ca02c", "filling pilots vs push"),
        ("response_gain_simple_vs_static", "#9467bd", "simple pilots vs static agents"),
        ("response_gain_filling_vs_static", "#1f77b4", "filling pilots vs static agents"),
    ):
        right.plot(loads, values(lambda c, k=key: c[k]), "o-", color=color, label=label)
    right.axhline(50.0, color="#2ca02c", ls="--", lw=0.8, label="paper: filling vs push, 50 %")
    right.axhline(
        10.0, color="#9467bd", ls="--", lw=0.8, label="paper: reservation vs static, 10 %"
    )
    right.axhline(0.0, color="0.6", lw=0.6)
    right.set_xlabel("offered load while meta-jobs arrive")
    right.set_ylabel("mean response lower by (%)")
    right.set_title("(b) the gains the paper states (main reading)", fontsize=9)
    right.legend(fontsize=7, frameon=False)
    return save(fig, path)


def dirac_figure9(contexts: dict[str, dict[str, Any]], series: dict[str, Any], path: Path) -> Path:
    """Figure 9 of Caron et al. (LIP RR-2005-13): (a) makespan, global and local mean
    response (section 4.4: the meta-jobs' own, from their admission at a site) and execution
    time of the four strategies under the main reading, one row per context of the paper
    (dedicated, and shared at Table 2's 87 s; the lighter local loads are in the tables and
    `dirac_crossover_vs_load`), means over seeds; (b) matcher requests over time for the
    DIRAC strategies (one seed, dedicated context)."""
    from matplotlib.figure import Figure

    metrics = (
        ("makespan", "makespan (s)"),
        ("mean_response_time", "global response (s)"),
        ("mean_local_response_time", "local response, meta-jobs (s)"),
        ("mean_execution_time", "execution time (s)"),
    )
    contexts = {c: contexts[c] for c in FIGURE9_CONTEXTS if c in contexts} or contexts
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
                ax.text(0.5, 0.5, "no data", ha="center", va="center",
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


def dirac_figures(data: dict[str, Any], out: Path) -> list[Path]:
    contexts, series = data["contexts"], data["series"]
    return [
        dirac_figure7(series, out / "dirac_figure7_states.svg"),
        dirac_figure8(contexts, out / "dirac_figure8_wait_vs_refresh.svg"),
        dirac_figure9(contexts, series, out / "dirac_figure9_strategies.svg"),
        dirac_crossover_vs_load(contexts, out / "dirac_crossover_vs_load.svg"),
    ]
