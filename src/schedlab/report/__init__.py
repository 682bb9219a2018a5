"""Figures and the HTML report of a results folder (the only package that plots).

``figures``: matplotlib figures for papers (``metric_bars``, ``cdf``, ``timeseries``,
``gantt``) and ``save`` to PNG/SVG/PDF. ``html``: ``write_report`` writes one self-contained
page. ``single``: the figures of one run. Beneath them, ``drawing`` draws the CDF, time
series and Gantt chart on one Axes and ``style`` gives every figure its look and its files.
Importing this package does not import matplotlib; its submodules do.
"""

from __future__ import annotations

__all__ = ["write_report"]


def write_report(*args: object, **kwargs: object) -> object:
    """See ``schedlab.report.html.write_report`` (imported lazily: matplotlib is heavy)."""
    from schedlab.report.html import write_report as _write_report

    return _write_report(*args, **kwargs)  # type: ignore[arg-type]
