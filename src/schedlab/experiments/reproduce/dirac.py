"""`schedlab reproduce dirac`: sections 7-8 of Caron et al. (LIP RR-2005-13), centralized
push against DIRAC pull.

The experiment (the paper's Table 2; SPEC 5): 3 sites x 20 nodes of mean power 96 NCU/s,
one FCFS queue per site with t_max 24000 s (the built-in platform ``builtin:dirac``, the
text of ``examples/platform-dirac.toml``), 500 meta-jobs, and two contexts: **dedicated**
(meta-jobs only) and **shared** (plus 500 local jobs per site). Each context runs with
several seeds (the seed draws the workload and seeds the meta-scheduler; 10, or 3 with
``--quick``), through the sweep layer, so an interrupted reproduction resumes where it
stopped and runs on local processes or on Dask.

* **Figure 9**: the four strategies: push with Δt = 0 (``push``), DIRAC with static agents
  (``static``), with pilots running one job (``pilot_simple``) or filling their time
  (``pilot_filling``), at their defaults (ε = 0.3, retry 60 s). Per strategy, means over
  the seeds of the meta-jobs' makespan, mean response, wait (global: submission to start),
  local wait and execution time, the local jobs' mean response, and the matcher requests
  and wasted pilots.
* **Figure 8**: push's mean global wait of the meta-jobs against the refresh period Δt, in
  steps of 5 s from 0 to 200 s, then past the plateau (Δt above the last arrival, about
  9500 s: every meta-job goes to the first site) up to 20000 s; ``--quick``: fewer points.
  DIRAC's line is the static agents' mean wait: section 7 says the strategy of "the DIRAC
  architecture" is the one of section 3 (an agent per queue submitting the jobs it pulls)
  and Figure 7(b)'s constant queued count is that agent's ε rule; the paper does not name
  the variant of Figure 8's line (``dirac_mean_wait_time``). ``crossover_refresh`` is the
  Δt where push's mean wait passes it (linear between the two points around it; None if
  it never does; 0 if push is worse from the start).
* **Sensitivity: push's tie rule** (``sensitivity.push_tie_free``): push at Δt = 0 with
  ties broken by the most free processors instead of the lowest site (SPEC 5's rule). At
  the dedicated context's load most depths are 0, so the tie rule decides where the jobs
  go; the paper's "push Δt = 0 has the best makespan" holds under this rule, not under
  SPEC 5's (``best_makespan_push_tie_free``; docs/reproductions.md).
* **Figure 7**: jobs queued, running and done over time for push Δt = 0 and DIRAC (static
  agents), dedicated context, the lowest seed.

The paper's figures have no tables: the numbers compared are those its text states
(`published.DIRAC_TEXT`): 872 and 699 matcher requests (static agents' requests; the
"dynamic" deployment's, compared with the pilot agents' probes, ``matcher_requests_agent``),
299 wasted pilots, the crossover at about 95 s (dedicated) and 60 s (shared), filling pilots
about 50 % better in mean response than push and reservation about 10 % better than static
agents, and the orderings of its section 8.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.experiments.analysis import over_seeds
from schedlab.experiments.reproduce.common import (
    Reproduction,
    RunOptions,
    execute,
    fmt,
    fmt_pct,
    sweep_of,
)
from schedlab.experiments.reproduce.published import DIRAC_ORDERS, DIRAC_TEXT
from schedlab.experiments.store import ResultStore

if TYPE_CHECKING:
    from typing_extensions import Unpack

PLATFORM = "builtin:dirac"

META_JOBS = 500
LOCAL_JOBS = 500  # per site, shared context
CONTEXTS: dict[str, dict[str, int]] = {
    "dedicated": {"meta_jobs": META_JOBS, "local_jobs": 0},
    "shared": {"meta_jobs": META_JOBS, "local_jobs": LOCAL_JOBS},
}
SEEDS = 10
QUICK_SEEDS = 3
FIRST_SEED = 1
# Figure 8: steps of 5 s to 200 s, then past the plateau (the last arrival is near 9500 s)
PLATEAU = (300.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0)
REFRESH = tuple(float(dt) for dt in range(0, 205, 5)) + PLATEAU
QUICK_REFRESH = (0.0, 25.0, 50.0, 75.0, 100.0, 150.0, 200.0, 1000.0, 20000.0)
STRATEGIES = ("push", "static", "pilot_simple", "pilot_filling")
SENSITIVITY = ("push_tie_free",)
DISPLAY = {
    "push": "push (Δt = 0)",
    "push_tie_free": "push (Δt = 0, ties: free processors)",
    "static": "DIRAC, static agents",
    "pilot_simple": "DIRAC, pilots (simple)",
    "pilot_filling": "DIRAC, pilots (filling)",
}
DIRAC_LINE = "static"  # the strategy of Figure 8's DIRAC line (module docstring)
# strategy metric -> summary key (meta-jobs unless said)
METRICS: dict[str, str] = {
    "mean_response_time": "global_mean_response_time",
    "mean_wait_time": "global_mean_wait_time",
    "makespan": "global_makespan",
    "matcher_requests": "matcher_requests",
    "wasted_pilots": "wasted_pilots",
    "pilots": "pilots",
    "matcher_requests_agent": "matcher_requests_agent",
    "matcher_requests_first_pull": "matcher_requests_first_pull",
    "matcher_requests_refill": "matcher_requests_refill",
    "mean_local_wait_time": "global_mean_local_wait_time",
    "mean_execution_time": "global_mean_execution_time",
    "local_mean_response_time": "local_mean_response_time",
    "local_mean_wait_time": "local_mean_wait_time",
    "local_mean_execution_time": "local_mean_execution_time",
    "all_mean_response_time": "mean_response_time",
    "all_makespan": "makespan",
    "utilization": "utilization",
}
INTERVALS = ("mean_response_time", "mean_wait_time", "makespan", "matcher_requests")


def refresh_values(quick: bool) -> tuple[float, ...]:
    return QUICK_REFRESH if quick else REFRESH


def seeds_of(quick: bool) -> list[int]:
    return list(range(FIRST_SEED, FIRST_SEED + (QUICK_SEEDS if quick else SEEDS)))


def build_sweep(quick: bool) -> Any:
    """Both contexts x (push at every Δt, static, pilot_simple, pilot_filling) x seeds."""
    data = {
        "workloads": [
            {"platform": PLATFORM, "generator": dict(settings), "label": name}
            for name, settings in CONTEXTS.items()
        ],
        "meta_schedulers": [
            {"name": "push", "refresh": list(refresh_values(quick))},
            {"name": "push", "refresh": 0.0, "tie": "free"},
            {"name": "static"},
            {"name": "pilot_simple"},
            {"name": "pilot_filling"},
        ],
        "grid": {"seed": seeds_of(quick)},
    }
    return sweep_of([data], Path("."), "schedlab reproduce dirac")


@dataclass
class _Runs:
    """Run ids by (context, strategy or Δt) in seed order."""

    strategies: dict[str, dict[str, list[str]]]
    refresh: dict[str, dict[float, list[str]]]


def _runs_of(sweep: Any) -> _Runs:
    strategies: dict[str, dict[str, list[str]]] = {c: {} for c in CONTEXTS}
    refresh: dict[str, dict[float, list[str]]] = {c: {} for c in CONTEXTS}
    for run in sorted(sweep.runs, key=lambda r: (r.label, r.policy, r.seed)):
        context = str(run.label)
        if run.policy == "push" and run.params.get("tie", "site") == "free":
            strategies[context].setdefault("push_tie_free", []).append(run.run_id)
        elif run.policy == "push":
            dt = float(run.params["refresh"])
            refresh[context].setdefault(dt, []).append(run.run_id)
            if dt == 0:
                strategies[context].setdefault("push", []).append(run.run_id)
        else:
            strategies[context].setdefault(run.policy, []).append(run.run_id)
    return _Runs(strategies, refresh)


def _mean(values: Sequence[float]) -> float:
    finite = [v for v in values if v is not None and not math.isnan(v)]
    return float(np.mean(finite)) if finite else math.nan


def crossover(curve: Sequence[tuple[float, float]], level: float) -> float | None:
    """The Δt where ``curve`` (sorted (Δt, wait) points) first exceeds ``level``: linear
    between the two points around it; 0 when the first point is above; None if never."""
    previous: tuple[float, float] | None = None
    for dt, wait in curve:
        if wait > level:
            if previous is None:
                return 0.0
            (x0, y0), (x1, y1) = previous, (dt, wait)
            return x0 + (level - y0) * (x1 - x0) / (y1 - y0) if y1 != y0 else x1
        previous = (dt, wait)
    return None


def gain(new: float, old: float) -> float:
    """How much lower ``new`` is than ``old``, in percent of ``old``."""
    if old == 0 or math.isnan(old) or math.isnan(new):
        return math.nan
    return (old - new) / old * 100.0


def context_data(store: ResultStore, runs: _Runs, context: str) -> dict[str, Any]:
    """One context of the JSON interface (module docstring)."""
    strategies = {name: _strategy_row(store, runs, context, name) for name in STRATEGIES}
    sensitivity = {name: _strategy_row(store, runs, context, name) for name in SENSITIVITY}
    with_tie_free = {**strategies, "push": sensitivity["push_tie_free"]}
    curve = []
    for dt in sorted(runs.refresh[context]):
        ids = runs.refresh[context][dt]
        curve.append([dt, _mean([store.summary(i)["global_mean_wait_time"] for i in ids])])
    dirac = strategies[DIRAC_LINE]["mean_wait_time"]
    push, static = strategies["push"], strategies["static"]
    filling, simple = strategies["pilot_filling"], strategies["pilot_simple"]
    return {
        "strategies": strategies,
        "push_wait_vs_refresh": curve,
        "dirac_mean_wait_time": dirac,
        "dirac_line": DIRAC_LINE,
        "crossover_refresh": crossover([(dt, w) for dt, w in curve], dirac),
        "crossover_refresh_by_strategy": {
            name: crossover([(dt, w) for dt, w in curve], strategies[name]["mean_wait_time"])
            for name in STRATEGIES[1:]
        },
        "response_gain_filling_vs_push": gain(
            filling["mean_response_time"], push["mean_response_time"]
        ),
        "response_gain_simple_vs_static": gain(
            simple["mean_response_time"], static["mean_response_time"]
        ),
        "response_gain_filling_vs_static": gain(
            filling["mean_response_time"], static["mean_response_time"]
        ),
        "best_makespan": min(STRATEGIES, key=lambda s: strategies[s]["makespan"]),
        "lowest_mean_response_time": min(
            STRATEGIES, key=lambda s: strategies[s]["mean_response_time"]
        ),
        "largest_mean_wait_time": max(STRATEGIES, key=lambda s: strategies[s]["mean_wait_time"]),
        "sensitivity": sensitivity,
        "best_makespan_push_tie_free": min(STRATEGIES, key=lambda s: with_tie_free[s]["makespan"]),
        "meta_jobs": CONTEXTS[context]["meta_jobs"],
        "local_jobs_per_site": CONTEXTS[context]["local_jobs"],
    }


def _strategy_row(store: ResultStore, runs: _Runs, context: str, name: str) -> dict[str, Any]:
    """Means over the seeds of one strategy's runs, with the half-widths of `INTERVALS`."""
    ids = runs.strategies[context].get(name, [])
    summaries = [store.summary(i) for i in ids]
    row: dict[str, Any] = {"seeds": len(ids)}
    for key, source in METRICS.items():
        row[key] = _mean([s.get(source, math.nan) for s in summaries])
    row["half_width"] = {
        key: over_seeds([s.get(METRICS[key], math.nan) for s in summaries]).half_width
        for key in INTERVALS
    }
    return row


def _s(value: Any) -> str:
    return "-" if value is None else fmt(value)


def tables_from(data: dict[str, dict[str, Any]]) -> list[tuple[str, list[str], list[list[str]]]]:
    """Figure 9 per context, the text's numbers beside ours, and Figure 8's points."""
    tables = []
    header = [
        "strategy",
        "makespan (s)",
        "global response (s)",
        "local response (s)",
        "execution (s)",
        "global wait (s)",
        "local wait (s)",
        "matcher requests",
        "pilots",
        "wasted pilots",
    ]
    for context, c in data.items():
        rows = []
        for name in (*STRATEGIES, *SENSITIVITY):
            s = c["strategies"][name] if name in STRATEGIES else c["sensitivity"][name]
            hw = s["half_width"]
            rows.append(
                [
                    DISPLAY[name],
                    f"{fmt(s['makespan'])} ± {fmt(hw['makespan'])}",
                    f"{fmt(s['mean_response_time'])} ± {fmt(hw['mean_response_time'])}",
                    fmt(s["local_mean_response_time"]),
                    fmt(s["mean_execution_time"]),
                    f"{fmt(s['mean_wait_time'])} ± {fmt(hw['mean_wait_time'])}",
                    fmt(s["mean_local_wait_time"]),
                    fmt(s["matcher_requests"]),
                    fmt(s["pilots"]),
                    fmt(s["wasted_pilots"]),
                ]
            )
        seeds = c["strategies"]["push"]["seeds"]
        tables.append(
            (
                f"Figure 9, {context} context: means over {seeds} seeds (± 95 % half-width); "
                "meta-jobs unless 'local'",
                header,
                rows,
            )
        )
    d, s = data["dedicated"], data["shared"]

    def both(key: str, strategy: str) -> list[str]:
        return [
            fmt(d["strategies"][strategy][key]),
            fmt(s["strategies"][strategy][key]),
        ]

    text = [
        ["matcher requests, static agents", *both("matcher_requests", "static"),
         fmt(DIRAC_TEXT["matcher_requests_static"])],
        ["pilot agents' probes (simple)", *both("matcher_requests_agent", "pilot_simple"),
         fmt(DIRAC_TEXT["matcher_requests_pilots"])],
        ["pilot agents' probes (filling)", *both("matcher_requests_agent", "pilot_filling"),
         fmt(DIRAC_TEXT["matcher_requests_pilots"])],
        ["all matcher requests, pilots (simple)", *both("matcher_requests", "pilot_simple"),
         "-"],
        ["all matcher requests, pilots (filling)", *both("matcher_requests", "pilot_filling"),
         "-"],
        ["wasted pilots (simple)", *both("wasted_pilots", "pilot_simple"),
         fmt(DIRAC_TEXT["wasted_pilots"])],
        ["wasted pilots (filling)", *both("wasted_pilots", "pilot_filling"),
         fmt(DIRAC_TEXT["wasted_pilots"])],
        ["Δt where push's wait passes DIRAC's (s)", _s(d["crossover_refresh"]),
         _s(s["crossover_refresh"]),
         f"{fmt(DIRAC_TEXT['crossover_refresh_dedicated'])} / "
         f"{fmt(DIRAC_TEXT['crossover_refresh_shared'])}"],
        ["mean response, filling vs push", fmt_pct(d["response_gain_filling_vs_push"]),
         fmt_pct(s["response_gain_filling_vs_push"]),
         f"about {fmt_pct(DIRAC_TEXT['response_gain_filling_vs_push'])}"],
        ["mean response, pilots (simple) vs static", fmt_pct(d["response_gain_simple_vs_static"]),
         fmt_pct(s["response_gain_simple_vs_static"]),
         fmt_pct(DIRAC_TEXT["response_gain_reservation_vs_static"])],
        ["mean response, pilots (filling) vs static",
         fmt_pct(d["response_gain_filling_vs_static"]),
         fmt_pct(s["response_gain_filling_vs_static"]),
         fmt_pct(DIRAC_TEXT["response_gain_reservation_vs_static"])],
        *(
            [what.replace("_", " "), d[what], s[what], expected]
            for what, expected in DIRAC_ORDERS.items()
        ),
        ["best makespan, push's ties by free processors",
         d["best_makespan_push_tie_free"], s["best_makespan_push_tie_free"],
         DIRAC_ORDERS["best_makespan"]],
    ]  # fmt: skip
    tables.append(
        (
            "The paper's stated numbers (gains: how much lower the mean response is)",
            ["quantity", "ours, dedicated", "ours, shared", "paper"],
            text,
        )
    )
    points = [
        [fmt(dt), fmt(wd), fmt(ws)]
        for (dt, wd), (_, ws) in zip(d["push_wait_vs_refresh"], s["push_wait_vs_refresh"])
    ]
    points.append(
        [f"DIRAC ({DIRAC_LINE})", fmt(d["dirac_mean_wait_time"]), fmt(s["dirac_mean_wait_time"])]
    )
    tables.append(
        (
            "Figure 8: push's mean global wait of the meta-jobs (s) against Δt (s)",
            ["Δt (s)", "dedicated", "shared"],
            points,
        )
    )
    return tables


@dataclass
class DiracReproduction(Reproduction):
    """The DIRAC reproduction's JSON is per context (the interface of issue 11)."""

    contexts: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"paper", "dedicated", "shared", "notes"}``; NaN (a metric a context does not
        have, an interval of fewer than 3 seeds) becomes null."""
        return _plain({"paper": self.paper, **(self.contexts or {}), "notes": self.notes})


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def reproduce_dirac(
    traces: Path | None, out: Path, *, quick: bool = False, **run: Unpack[RunOptions]
) -> Reproduction:
    """Run (or resume) the experiment into ``out``; tables, JSON, and what Figures 7-9 are
    drawn from: ``figure_data["contexts"]`` (the JSON's contexts) and ``["series"]`` (the
    time series of each strategy's first run, dedicated context)."""
    sweep = build_sweep(quick)
    store = execute(sweep, out, **run)
    runs = _runs_of(sweep)
    data = {context: context_data(store, runs, context) for context in CONTEXTS}
    seeds = seeds_of(quick)
    notes = [
        f"{len(seeds)} seeds ({seeds[0]}..{seeds[-1]}) per point; the seed draws the workload "
        "and seeds the meta-scheduler; platform: the paper's Table 2 (builtin:dirac; "
        "`schedlab example platform-dirac` prints it).",
        "Figure 9's strategies at their defaults: push Δt = 0; DIRAC ε = 0.3, retry 60 s.",
        "Push breaks ties to the lowest site (schedlab's rule); the row 'ties: free processors' is "
        'push with tie = "free", a sensitivity run (not in Figure 8\'s curve).',
        "DIRAC's line in Figure 8 is the static agents' (the paper's 'DIRAC' strategy of "
        "section 3; it does not name the variant of that line).",
        "Matcher requests: the paper's 872 (static) are the static agents' requests, all "
        "the matcher receives; its 699 ('dynamic' deployment, mode not said) compare with the "
        "pilot agents' probes; the pilots' own pulls (first "
        "pulls, refills) come on top, in 'all matcher requests'.",
        "The paper's figures have no tables: its column is what its text states.",
    ]
    rows = [
        {"context": context, "strategy": name, **c["strategies"][name]}
        for context, c in data.items()
        for name in STRATEGIES
    ] + [
        {"context": context, "strategy": name, **c["sensitivity"][name]}
        for context, c in data.items()
        for name in SENSITIVITY
    ]
    first = {
        name: runs.strategies["dedicated"][name][0]
        for name in STRATEGIES
        if runs.strategies["dedicated"].get(name)
    }
    series = {name: store.timeseries(run_id) for name, run_id in first.items()}
    result = DiracReproduction(
        paper="Caron, Garonne and Tsaregorodtsev, A study of meta-scheduling architectures "
        "for high throughput computing, LIP RR-2005-13: centralized push against DIRAC pull",
        rows=rows,
        tables=tables_from(data),
        notes=notes,
        figure_data={"contexts": data, "series": series},
        contexts=data,
    )
    result.write(out)
    return result
