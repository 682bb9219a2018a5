"""Figures of the paper reproductions: ours next to the published values.

Built like `report.figures` (a Figure made directly, saved with `figures.save`, so the same
rows give the same bytes).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.report.figures import _new_figure, save


def dbf_figure(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Change of the priority jobs' mean wait, DBF vs CBF, per workload and case: ours and
    paper 000's Table 1, as grouped bars."""
    from schedlab.experiments.reproduce.common import change
    from schedlab.experiments.reproduce.published import DBF_TABLES

    fig, ax = _new_figure(7.0, 3.8)
    labels, ours, paper = [], [], []
    for row in rows:
        labels.append(f"{row['workload']}\n({row['case']})")
        ours.append(change(row["dbf_priority_mean_wait_time"], row["cbf_priority_mean_wait_time"]))
        published = DBF_TABLES[row["published_as"]]["priority"]["wait_h"]
        paper.append(published[1] if row["case"] == "a" else published[2])
    x = np.arange(len(labels))
    ax.bar(x - 0.2, ours, 0.4, label="schedlab", color="#1f77b4")
    ax.bar(x + 0.2, paper, 0.4, label="paper 000, Table 1", color="#bbbbbb")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("priority jobs' mean wait,\nDBF vs CBF (%)")
    ax.legend(fontsize=8)
    return save(fig, path)


def pps_figure(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Mean response time against load, EASY and PPS, one panel per workload: ours (lines)
    and paper 002's Table 1 (the workload it stands for, dashed)."""
    from matplotlib.figure import Figure

    from schedlab.experiments.reproduce.published import PPS_TABLES

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
                label=f"{policy} ({paper_name}, paper)",
            )
        ax.set_title(f"{name} (for {paper_name})", fontsize=9)
        ax.set_xlabel("load factor")
        ax.set_yscale("log")
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    axes[0].set_ylabel("mean response time (s)")
    return save(fig, path)


def mmc_figure(
    rows: Sequence[dict[str, Any]],
    paper_rows: Sequence[dict[str, Any]],
    path: Path,
    *,
    expectation: Sequence[dict[str, Any]] = (),
) -> Path:
    """M/M/c validation: simulated mean response (99 % intervals) on Erlang C's curve, one
    panel per server count, and a last panel with paper 001's protocol (16 x 1000 jobs
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
        ax.set_title("paper 001's protocol, M/M/4", fontsize=9)
        ax.set_xlabel("load ρ")
        ax.legend(fontsize=7)
    return save(fig, path)


def hlw_figure(values: dict[str, dict[str, list[float]]], path: Path) -> Path:
    """Paper 004's Figure 1a-f: the distribution of normalized Cmax per algorithm, one box
    plot per scenario (the same instances for every algorithm of a scenario)."""
    from matplotlib.figure import Figure

    from schedlab.experiments.reproduce.hlw import DISPLAY, SCENARIOS

    fig = Figure(figsize=(12.0, 6.6), layout="constrained")
    axes = fig.subplots(2, 3, squeeze=False).ravel()
    for ax, scenario in zip(axes, SCENARIOS):
        cells = values.get(scenario.name, {})
        names = [p for p in DISPLAY if p in cells]
        data = [cells[p] for p in names]
        if data:
            ax.boxplot(data, showfliers=True, flierprops={"markersize": 2})
            low, high = min(min(d) for d in data), max(max(d) for d in data)
            if high > 4 * low:  # (RefN at n/N = 1/8) keep the others readable
                from matplotlib.ticker import FuncFormatter

                ax.set_yscale("log")
                plain = FuncFormatter(lambda v, _: f"{v:g}")
                ax.yaxis.set_major_formatter(plain)
                ax.yaxis.set_minor_formatter(plain)
            ax.set_xticks(range(1, len(names) + 1), [DISPLAY[p] for p in names], rotation=45,
                          fontsize=7)  # fmt: skip
        ax.set_title(
            f"({scenario.name}) n/N = {scenario.n_over_nodes:g}, π = {scenario.pi:g}, "
            f"N = {scenario.nodes}",
            fontsize=9,
        )
        ax.set_ylabel("normalized Cmax", fontsize=8)
        ax.grid(True, axis="y", color="0.88", linewidth=0.6)
    return save(fig, path)
