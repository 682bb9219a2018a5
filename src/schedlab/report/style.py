"""The look and the output of every figure: names, colours and labels, styled axes on a
Figure made directly, and reproducible files.

A Figure is built directly (never through pyplot): no global figure registry, no GUI
backend, nothing to close, and figures can be made from several threads. ``save`` writes
PNG, SVG or PDF, chosen by the extension, with no date in the metadata and a fixed SVG hash
salt, so the same figure gives the same bytes; ``to_svg`` gives the same drawing inline for
a page. Colours follow the policy (``policy_colors``), so one policy keeps one colour
across the figures of a document. Shared by the figures of a results folder
(``figures``), of one run (``single``) and of the reproductions (``reproduce``).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib.figure import Figure

from schedlab.errors import ConfigError
from schedlab.outputs import atomic_output

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "METRIC_LABELS",
    "blank",
    "legend_beside",
    "legend_below",
    "log_axis",
    "new_figure",
    "policy_colors",
    "policy_names",
    "save",
    "style_axes",
    "to_svg",
]

SVG_HASH_SALT = "schedlab"  # fixed salt: clip-path ids (and so SVG bytes) are reproducible
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}

METRIC_LABELS: dict[str, str] = {
    "mean_wait_time": "mean wait time (s)",
    "max_wait_time": "max wait time (s)",
    "mean_response_time": "mean response time (s)",
    "mean_slowdown": "mean slowdown",
    "mean_bounded_slowdown": "mean bounded slowdown (τ = 10 s)",
    "utilization": "utilization",
    "unfairness": "unfairness",
    "makespan": "makespan (s)",
    "killed": "killed jobs",
    "jobs": "jobs",
    "wait_time": "wait time (s)",
    "bounded_slowdown": "bounded slowdown (τ = 10 s)",
    "response_time": "response time (s)",
    "run_time": "run time (s)",
    "queued": "queued jobs",
    "running": "running jobs",
    "busy_procs": "busy processors",
    "normalized_cmax": "normalized Cmax (Cmax / lower bound)",
    "filling": "filling (allocated area / Cmax x N)",
    # grid runs: each names the jobs it covers (meta-jobs, local jobs)
    "global_mean_wait_time": "meta-jobs: mean global wait (s)",
    "global_mean_local_wait_time": "meta-jobs: mean local wait (s)",
    "global_mean_execution_time": "meta-jobs: mean execution (s)",
    "global_mean_response_time": "meta-jobs: mean response (s)",
    "global_makespan": "meta-jobs: makespan (s)",
    "local_mean_wait_time": "local jobs: mean wait (s)",
    "local_mean_response_time": "local jobs: mean response (s)",
    "local_makespan": "local jobs: makespan (s)",
    "matcher_requests": "matcher requests",
}


# -- naming and colours ------------------------------------------------------------------


def policy_names(frame: pd.DataFrame) -> pd.Series:
    """The name of each row's policy variant: ``policy_label`` when the catalog has one,
    else the policy, followed by its parameters when it has any."""
    import pandas as pd

    if "policy_label" in frame.columns:
        labels = frame["policy_label"]
        fallback = frame["policy"].astype(str)
        return labels.where(labels.notna() & (labels.astype(str) != ""), fallback).astype(str)
    params = (
        frame["params"].fillna("{}").astype(str)
        if "params" in frame.columns
        else pd.Series("{}", index=frame.index)
    )
    policy = frame["policy"].astype(str)
    return policy.where(params == "{}", policy + " " + params)


def policy_colors(policies: Iterable[str]) -> dict[str, str]:
    """A colour per policy name (tab10, in sorted order): pass the same mapping to every
    figure of a document so that a policy keeps its colour."""
    cmap = matplotlib.colormaps["tab10"]
    names = sorted(set(policies))
    return {name: matplotlib.colors.to_hex(cmap(i % 10)) for i, name in enumerate(names)}


# -- axes ------------------------------------------------------------------------------


def _compact(value: float, _pos: Any = None) -> str:
    """Tick label for logarithmic axes: 0, 1, 10, 100, 1k, 10k, 1M (plain text, no
    mathtext: readable, and several times faster to draw than 10^k)."""
    if value == 0:
        return "0"
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def log_axis(
    ax: Axes, which: str, scale: str, *, steps: tuple[float, ...] = (), **kwargs: Any
) -> None:
    """Set a log or symlog scale with compact plain-text labels at the decades, and at
    ``steps`` within each decade when given (``(1, 2, 5)``: 1, 2, 5, 10, 20, ...), for
    an axis spanning about one decade. Minor ticks stay unlabelled: labelling them piles
    the labels up where the decade narrows."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if which == "x":
        ax.set_xscale(scale, **kwargs)
        axis: Any = ax.xaxis
    else:
        ax.set_yscale(scale, **kwargs)
        axis = ax.yaxis
    if steps:
        axis.set_major_locator(LogLocator(base=10.0, subs=steps))
    axis.set_major_formatter(FuncFormatter(_compact))
    axis.set_minor_formatter(NullFormatter())


def legend_beside(ax: Axes, **kwargs: Any) -> Any:
    """The legend of ``ax`` to the right of its drawing, never over a bar or a line (a
    figure laid out by matplotlib, as every figure here is, makes room for it)."""
    options: dict[str, Any] = {"fontsize": 8, "title_fontsize": 8, "frameon": False}
    options.update(kwargs)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.3, **options)


def legend_below(fig: Figure, *args: Any, **kwargs: Any) -> Any:
    """One legend for the whole figure, under its drawings (for panels that share their
    entries, or axes with no room beside them)."""
    options: dict[str, Any] = {"fontsize": 8, "frameon": False}
    options.update(kwargs)
    return fig.legend(*args, loc="outside lower center", **options)


def style_axes(ax: Axes) -> Axes:
    """The look of every drawing: light grid behind the marks, no top or right spine."""
    ax.grid(True, color="0.88", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def new_figure(width: float = 6.4, height: float = 4.0) -> tuple[Figure, Axes]:
    """A Figure (made directly, laid out by matplotlib) with one styled Axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, style_axes(fig.add_subplot())


def blank(ax: Axes, message: str) -> None:
    """Say ``message`` in place of a drawing that has nothing to show (no ticks)."""
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


# -- output ------------------------------------------------------------------------------


def _metadata(fmt: str) -> dict[str, Any]:
    if fmt == "svg":
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None, "ModDate": None}
    return {}


def save(fig: Figure, path: str | Path, *, dpi: float = 150) -> Path:
    """Write ``fig`` as PNG, SVG or PDF, chosen by the extension; returns the path.

    Reproducible: no date in the metadata, a fixed SVG hash salt. PNG at ``dpi``.
    """
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ConfigError("figure path", str(path), sorted(FORMATS))
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASH_SALT}), atomic_output(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi, metadata=_metadata(fmt))
    return path


_XML_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)


def to_svg(fig: Figure, *, id_prefix: str = "", text_as_paths: bool = False) -> str:
    """The figure as an ``<svg>`` element to place inside an HTML page.

    No XML prologue or doctype; text as ``<text>`` (small, selectable) unless
    ``text_as_paths``; every id (and every reference to one) gets ``id_prefix``, so that
    several figures in one page never share an id.
    """
    buffer = io.StringIO()
    rc: Any = {
        "svg.hashsalt": SVG_HASH_SALT,
        "svg.fonttype": "path" if text_as_paths else "none",
    }
    with matplotlib.rc_context(rc):
        fig.savefig(buffer, format="svg", metadata=_metadata("svg"))
    text = _XML_PROLOGUE.sub("", buffer.getvalue(), count=1)
    if id_prefix:
        text = re.sub(r'\bid="', f'id="{id_prefix}', text)
        text = text.replace("url(#", f"url(#{id_prefix}")
        text = re.sub(r'href="#', f'href="#{id_prefix}', text)
    return text.strip()
