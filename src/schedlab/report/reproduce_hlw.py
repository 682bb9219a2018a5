"""Figures of `schedlab reproduce hlw` (Lanore and Klein, ComPAS 2013), drawn from the
reproduction's ``figure_data`` (`report.reproduce.draw_figures`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.reproduce import hlw
from schedlab.report.style import log_axis, save


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


def hlw_figures(data: dict[str, Any], out: Path) -> list[Path]:
    return [hlw_figure(data["values"], out / "hlw_normalized_cmax.svg")]
