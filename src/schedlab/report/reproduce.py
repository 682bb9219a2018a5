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
