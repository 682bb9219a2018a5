"""One-command reproductions of the source papers' published tables (`schedlab reproduce`).

Each reproduction builds its runs as a sweep, runs them into a results folder (resumable),
and compares its tables with the published ones (`published.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

REPRODUCTIONS: dict[str, str] = {
    "dbf": "N'Takpé and Suter (ComPAS 2016): DBF vs conservative backfilling (Tables 1-2)",
    "pps": "Zhang and Pan (PPS): PPS vs EASY backfilling (Tables 1-2)",
    "hlw": "Lanore and Klein (ComPAS 2013): the FS family vs its references on HLW (Figure 1)",
    "dirac": "Caron et al. (LIP RR-2005-13): centralized push vs DIRAC pull and pilots "
    "(Figures 7-9)",
    "tdcs": "Baranov and Tikhomirov (Computational Technologies 2017): absolute priorities "
    "across clusters (pre-registered scenario)",
}
# reproductions that replay real traces (the others generate their workloads)
NEEDS_TRACES = frozenset({"dbf", "pps"})


def reproduction(name: str) -> Callable[..., Any]:
    """The function running reproduction ``name`` (ConfigError listing the names)."""
    from schedlab.errors import ConfigError

    if name == "dbf":
        from schedlab.experiments.reproduce.dbf import reproduce_dbf

        return reproduce_dbf
    if name == "pps":
        from schedlab.experiments.reproduce.pps import reproduce_pps

        return reproduce_pps
    if name == "hlw":
        from schedlab.experiments.reproduce.hlw import reproduce_hlw

        return reproduce_hlw
    if name == "dirac":
        from schedlab.experiments.reproduce.dirac import reproduce_dirac

        return reproduce_dirac
    if name == "tdcs":
        from schedlab.experiments.reproduce.tdcs import reproduce_tdcs

        return reproduce_tdcs
    raise ConfigError("paper", name, sorted(REPRODUCTIONS))
