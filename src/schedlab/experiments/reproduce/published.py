"""The published tables the reproductions are compared with, transcribed from the papers.

N'Takpé and Suter (ComPAS 2016), Tables 1 and 2: CBF absolute values (mean wait in
hours, mean slowdown) and DBF's relative change in % for deadline cases a and b, on priority
jobs (Table 1) and on all jobs (Table 2). The paper's comma decimals are written as points.

Zhang and Pan (PPS), Tables 1 and 2: EASY and PPS mean response time (s), mean bounded
slowdown, unfairness and utilization, per workload and load factor.
"""

from __future__ import annotations

# --- N'Takpé and Suter (ComPAS 2016) ----------------------------------------------------
# workload -> {"priority"|"all": {"wait_h"|"slowdown": (cbf, dbf_a_pct, dbf_b_pct)}}
DBF_TABLES: dict[str, dict[str, dict[str, tuple[float, float, float]]]] = {
    "SDSC-BLUE": {
        "priority": {"wait_h": (2.36, -21.61, -46.18), "slowdown": (32.13, -18.08, -45.56)},
        "all": {"wait_h": (2.35, -2.98, -12.77), "slowdown": (32.03, -3.09, -29.41)},
    },
    "SDSC-DS": {
        "priority": {"wait_h": (1.40, -32.86, -52.14), "slowdown": (18.05, -32.08, -42.55)},
        "all": {"wait_h": (1.40, -6.43, -16.43), "slowdown": (17.88, -19.72, -27.57)},
    },
    "HPC2N": {
        "priority": {"wait_h": (3.28, -20.73, -32.01), "slowdown": (127.65, -23.96, -30.98)},
        "all": {"wait_h": (3.28, -6.71, -9.76), "slowdown": (127.14, -17.06, -21.15)},
    },
}

# --- Zhang and Pan (PPS) ----------------------------------------------------------------
PPS_LOADS: tuple[float, ...] = (0.5, 0.75, 1.0, 1.25, 1.5)
# Tables 1 and 2 as printed, one line per workload and load factor (the eight values in the
# order of PPS_TABLES below)
_PPS_ROWS = """
CM5     0.5    3006   2353     8.0    3.4    6  1  0.239  0.239
CM5     0.75   5011   2689    24.0    8.1   12  2  0.358  0.358
CM5     1.0   14207   3631   117.8   19.7   29  3  0.472  0.477
CM5     1.25  36145   6105   379.1   50.8   60  5  0.572  0.594
CM5     1.5   92914  14968  1095.4  183.1  115  7  0.634  0.705
KTH     0.5    6543   6500     6.6    5.6    2  2  0.195  0.195
KTH     0.75   6883   6818    11.5    9.9    4  3  0.293  0.293
KTH     1.0    7456   7298    20.5   18.3    6  5  0.390  0.390
KTH     1.25   8411   8066    37.0   30.3    8  6  0.486  0.486
KTH     1.5    9722   9516    58.6   58.1   14  9  0.580  0.581
O2K     0.5    3217   3079     1.4    1.1    3  1  0.183  0.183
O2K     0.75   3333   3084     1.6    1.1    5  2  0.266  0.266
O2K     1.0    3485   3093     2.0    1.1    7  3  0.343  0.343
O2K     1.25   3976   3114     3.9    2.0   15  4  0.416  0.416
O2K     1.5    4589   3236    14.5    4.5   34  8  0.483  0.483
Lublin  0.5    4664   2978   123.3   53.1    3  2  0.197  0.197
Lublin  0.75   7457   4007   256.2   98.5    5  3  0.294  0.295
Lublin  1.0   11140   6056   423.7  198.7    7  4  0.386  0.390
Lublin  1.25  15440   9243   622.2  364.3    9  5  0.474  0.484
Lublin  1.5   21120  13833   872.5  608.6   11  6  0.550  0.574
"""


def _number(text: str) -> float:
    """A cell as the paper prints it: counts stay integers."""
    return float(text) if "." in text else int(text)


def _by_workload(text: str) -> dict[str, dict[float, tuple[float, ...]]]:
    """workload -> load -> the row's eight values, in the order of ``text``."""
    tables: dict[str, dict[float, tuple[float, ...]]] = {}
    for line in text.strip().splitlines():
        name, load, *cells = line.split()
        tables.setdefault(name, {})[float(load)] = tuple(_number(c) for c in cells)
    return tables


# workload -> load -> (easy_resp, pps_resp, easy_bsld, pps_bsld, easy_unf, pps_unf,
#                      easy_util, pps_util)
PPS_TABLES: dict[str, dict[float, tuple[float, ...]]] = _by_workload(_PPS_ROWS)
PPS_COLUMNS: tuple[str, ...] = (
    "easy_mean_response_time",
    "pps_mean_response_time",
    "easy_mean_bounded_slowdown",
    "pps_mean_bounded_slowdown",
    "easy_unfairness",
    "pps_unfairness",
    "easy_utilization",
    "pps_utilization",
)

# --- Caron et al. (LIP RR-2005-13) -------------------------------------------------------
# Sections 8 and 8.1. Its Figures 7-9 have no
# tables: these are the numbers and orderings its text states.
DIRAC_TEXT: dict[str, float] = {
    # "Le nombre total de demandes avec l'approche statique est de 872 et de 699 dans le cas
    # dynamique" (the pilots' mode is not said)
    "matcher_requests_static": 872,
    "matcher_requests_pilots": 699,
    # "déploiement inutile d'agents qui meurent tout de suite après la réponse négative du
    # service correspondance (299 dans notre cas)"
    "wasted_pilots": 299,
    # push's mean wait is better than DIRAC's "pour un Δt inférieur à 95 s ... dans un
    # contexte dédié et à peu près inférieur à 60 s dans un contexte partagé" (seconds)
    "crossover_refresh_dedicated": 95.0,
    "crossover_refresh_shared": 60.0,
    # "Le mode de réservation filling donne près de 50% de gain sur le temps de réponse
    # moyen obtenu par l'approche centralisée" (percent lower)
    "response_gain_filling_vs_push": 50.0,
    # "Le passage du déploiement statique à la réservation donne une amélioration de 10%
    # sur le temps de réponse moyen" (percent lower)
    "response_gain_reservation_vs_static": 10.0,
}
# orderings of Figure 9 stated in section 8: "Pour un Δt nul, le meilleur makespan est
# obtenu par l'approche centralisée. Par contre le temps de réponse le plus petit est issu
# de l'approche DIRAC avec la réservation en mode filling. ... Le temps d'attente global
# le plus important est celui lié à l'ordonnancement DIRAC statique."
DIRAC_ORDERS: dict[str, str] = {
    "best_makespan": "push",
    "lowest_mean_response_time": "pilot_filling",
    "largest_mean_wait_time": "static",
}
