"""Figures of `schedlab reproduce hlw` (Lanore and Klein, ComPAS 2013), drawn from the
reproduction's ``figure_data`` (`report.reproduce.draw_figures`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.reproduce import hlw
from schedlab.report.style import legend_below, log_axis, save


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


_READINGS = (
    ("improvement_over_best_reference", "share_of = available (main)", "#1f77b4", "o"),
    ("improvement_share_of_present", "share_of = present", "#ff7f0e", "s"),
)
_MEDIANS = (
    ("FS0.5mPX", "#1f77b4", "o", "-"),
    ("FS0.5mPX, present", "#ff7f0e", "s", "-"),
    ("Ref4", "#2ca02c", "^", "--"),
)


def nodes_sweep_figure(sweep: list[dict[str, Any]], rows: list[dict[str, Any]], path: Path) -> Path:
    """Scenario d (n/N = 1/8, pi = 0.9) against the machine size the paper does not give:
    left, FS0.5mPX's median improvement over the best reference under both fair-share
    readings, with c and e at their two sizes and the paper's cells; right, the medians it
    is made of (FS0.5mPX holds steady, Ref4's fixed 4-way split widens its tasks with N)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11.0, 4.4), layout="constrained")
    left, right = fig.subplots(1, 2, squeeze=True)
    nodes = [r["nodes"] for r in sweep]
    for key, label, color, marker in _READINGS:
        left.plot(nodes, [r[key] for r in sweep], marker=marker, color=color, lw=1.4,
                  label=f"d, {label}")  # fmt: skip
    paper = hlw.BY_NAME[hlw.SWEEP_SCENARIO].paper_improvement
    left.axhline(paper, color="#1f77b4", ls=":", lw=1, label=f"d, paper ({paper:g} %)")
    left.axhline(0.0, color="0.4", lw=0.8)
    for row, marker in zip((r for r in rows if r["name"] in "ce"), ("v", "D")):
        cells = sorted(row["by_nodes"].values(), key=lambda c: c["nodes"])
        left.plot([c["nodes"] for c in cells],
                  [c["improvement_over_best_reference"] for c in cells], marker=marker,
                  color="0.45", ls="--", lw=0.9, ms=4,
                  label=f"{row['name']} (π = {row['pi']:g}), available; paper "
                        f"{row['paper_improvement']:g} %")  # fmt: skip
    left.set_xlabel("N (nodes), n = N / 8")
    left.set_ylabel("FS0.5mPX over the best reference (%)")
    left.set_title("Figure 1h cell against N", fontsize=9)
    for name, color, marker, style in _MEDIANS:
        right.plot(nodes, [r["median_normalized_cmax"].get(name, float("nan")) for r in sweep],
                   marker=marker, color=color, ls=style, lw=1.4, label=name)  # fmt: skip
    right.set_xlabel("N (nodes), n = N / 8")
    right.set_ylabel("median normalized Cmax")
    right.set_title("Scenario d (n/N = 1/8, π = 0.9): the medians", fontsize=9)
    for ax in (left, right):
        ax.set_xticks(nodes)
        ax.grid(True, color="0.88", linewidth=0.6)
    right.legend(fontsize=8, frameon=False)
    legend_below(fig, *left.get_legend_handles_labels(), ncols=3)
    return save(fig, path)


def hlw_figures(data: dict[str, Any], out: Path) -> list[Path]:
    figures = [hlw_figure(data["values"], out / "hlw_normalized_cmax.svg")]
    if data.get("nodes_sweep"):
        figures.append(
            nodes_sweep_figure(data["nodes_sweep"], data["rows"], out / "hlw_nodes_sweep.svg")
        )
    return figures
