"""`schedlab reproduce pps`: Tables 1 and 2 of Zhang and Pan (PPS), PPS against EASY.

The experiment (the paper's section 5): each log is cleaned of failed and cancelled jobs
(SWF status 0 and 5), cut into consecutive batches of 5000 jobs (a trailing partial batch
is dropped), and every batch is replayed as a workload of its own ("batch means") at load
factors 0.5 to 1.5 (submit times x 1/f). A table cell is the mean over the batches; the JSON
rows also give the 95 % Student t half-width over batches. The paper's KTH gives 4 batches,
as ours does (20,535 jobs after cleaning).

Workloads: KTH (the complete 2006 conversion, cleaned) and a Lublin-model workload (100,000
jobs, seed 1, Tsafrir-model estimates) as in the paper: the main rows use the published
generator's default, batch and interactive jobs on 128 nodes (``kind=mixed``); the batch
parameter set on 256 processors (the first reproduction's setup) is the sensitivity variant
"lublin_batch_256". CM5 and O2K are not
available here: SDSC-BLUE (1152 processors; its first 100,000 jobs after cleaning, 20 batches
like the paper's CM5) stands in for the CM5 (1024 nodes), and LLNL-Thunder (4008 processors,
19 batches like the paper's O2K) for the O2K (2048 processors); Thunder, like the O2K log,
mostly lacks estimates, so the Tsafrir model adds them as the paper did for O2K.

EASY runs with kill_on_overrun (as in production); PPS uses no estimates and never kills a
job at its estimate (the paper: "PPS does not discard work"), so it runs without it.

EASY variants, on SDSC-BLUE only (each against the main PPS runs, which use no estimates):
no kill at the estimate, no extra-processor rule (`EasyParams.extra_procs`), useless
estimates (the ``useless_estimates`` transform: every requested time is the longest run
time), and all three together ("easy_near_fcfs").

Rows carry ``variant`` ("main" for the paper's setting) and ``comparable``: false when
EASY's mean wait is at most 1 % of its mean response, i.e. nothing queues. LLNL-Thunder's
log records start times rather than arrivals, so replayed below load 1.25 no job waits
(bounded slowdown exactly 1, unfairness 0): such rows cannot stand for the O2K's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.experiments.analysis import over_seeds
from schedlab.experiments.reproduce.common import (
    Reproduction,
    RunOptions,
    execute,
    fmt,
    fmt_change,
    sweep_of,
    trace_file,
)
from schedlab.experiments.reproduce.published import PPS_LOADS, PPS_TABLES
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import parse_sweep

if TYPE_CHECKING:
    from typing_extensions import Unpack

BATCH = 5000
PAPER = (
    "Zhang and Pan, Design and Analysis of Priority-based Preemptive Parallel Scheduling "
    "Algorithm (Nanjing University): PPS against EASY backfilling"
)
QUICK_JOBS = 20_000
QUICK_LOADS = (0.5, 1.0, 1.5)
# The published generator's default: batch and interactive jobs on 128 nodes.
LUBLIN = "lublin:jobs=100000,kind=mixed,procs=128,seed=1"
LUBLIN_QUICK = "lublin:jobs=20000,kind=mixed,procs=128,seed=1"
# The setup of the first reproduction (batch parameter set on 256 processors): a
# sensitivity row.
LUBLIN_BATCH = "lublin:jobs=100000,procs=256,seed=1"
LUBLIN_BATCH_QUICK = "lublin:jobs=20000,procs=256,seed=1"
METRICS = (
    "mean_response_time",
    "mean_bounded_slowdown",
    "unfairness",
    "utilization",
    "mean_wait_time",
)
CLEAN = [0, 5]
MAIN = "main"
# Rows whose EASY leaves this share of the mean response time or less to waiting are
# flagged ``comparable: false``: nothing queues, so there is nothing for PPS to reorder.
NO_QUEUE_SHARE = 0.01

# (our label, trace file or None for the model, paper's workload, extra keys, job limit)
WORKLOADS: tuple[tuple[str, str | None, str, dict[str, Any], int | None], ...] = (
    ("SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz", "CM5", {}, 100_000),
    ("KTH", "KTH-SP2-1996-2.swf.gz", "KTH", {}, None),
    ("LLNL-Thunder", "LLNL-Thunder-2007-1.1-cln.swf.gz", "O2K", {"estimates": {"seed": 1}}, None),
    ("Lublin", None, "Lublin", {"estimates": {"seed": 1}}, None),
)

# EASY variants (run on SDSC-BLUE only, against the same PPS runs as the main rows):
# variant -> (extra workload keys, EASY policy parameters, EASY kill_on_overrun)
EASY_VARIANTS: dict[str, tuple[dict[str, Any], dict[str, Any], bool]] = {
    "easy_no_kill": ({}, {}, False),
    "easy_no_extra": ({}, {"extra_procs": False}, True),
    "easy_useless_estimates": ({"useless_estimates": True}, {}, True),
    "easy_near_fcfs": ({"useless_estimates": True}, {"extra_procs": False}, False),
}
VARIANT_WORKLOAD = "SDSC-BLUE"
LUBLIN_VARIANT = "lublin_batch_256"
VARIANTS: tuple[str, ...] = (MAIN, LUBLIN_VARIANT, *EASY_VARIANTS)


def _cleaned_jobs(path: str) -> int:
    """Jobs left in a trace once statuses 0 and 5 are dropped (to count its batches)."""
    from schedlab.workload.swf import read_swf
    from schedlab.workload.transforms import clean_by_status

    return len(clean_by_status(read_swf(path), CLEAN))


def _batches(traces: Path, quick: bool) -> dict[str, list[dict[str, Any]]]:
    """Every workload's batches (sweep workload entries), by our label."""
    out: dict[str, list[dict[str, Any]]] = {}
    for label, file, _, extra, limit in WORKLOADS:
        entry: dict[str, Any] = dict(extra)
        if file is None:
            entry["model"] = LUBLIN_QUICK if quick else LUBLIN
            jobs = QUICK_JOBS if quick else 100_000
        else:
            entry["path"] = trace_file(traces, file)
            entry["drop_status"] = CLEAN
            jobs = _cleaned_jobs(entry["path"])
            if limit is not None:
                jobs = min(jobs, limit)
                entry["first"] = limit
            if quick:
                jobs = min(jobs, QUICK_JOBS)
                entry["first"] = QUICK_JOBS
        out[label] = [
            {**entry, "label": f"{label}#{k:02d}", "jobs": [k * BATCH, (k + 1) * BATCH]}
            for k in range(jobs // BATCH)
        ]
    return out


def _parts(traces: Path, quick: bool) -> list[tuple[str, str, dict[str, Any]]]:
    """(variant, policy, sweep dict) for every part of the experiment."""
    loads = list(QUICK_LOADS if quick else PPS_LOADS)
    batches = _batches(traces, quick)
    everything = [w for ws in batches.values() for w in ws]

    def part(workloads: list[dict[str, Any]], policy: dict[str, Any], kill: bool) -> Any:
        return {
            "workloads": workloads,
            "policies": [policy],
            "grid": {"load_factor": loads, "kill_on_overrun": kill},
        }

    parts = [
        (MAIN, "easy", part(everything, {"name": "easy"}, True)),
        (MAIN, "pps", part(everything, {"name": "pps"}, False)),
    ]
    lublin = [
        {**w, "model": LUBLIN_BATCH_QUICK if quick else LUBLIN_BATCH} for w in batches["Lublin"]
    ]
    parts.append((LUBLIN_VARIANT, "easy", part(lublin, {"name": "easy"}, True)))
    parts.append((LUBLIN_VARIANT, "pps", part(lublin, {"name": "pps"}, False)))
    for variant, (keys, params, kill) in EASY_VARIANTS.items():
        workloads = [{**w, **keys} for w in batches[VARIANT_WORKLOAD]]
        parts.append((variant, "easy", part(workloads, {"name": "easy", **params}, kill)))
    return parts


def build_sweep(traces: Path, quick: bool) -> tuple[Any, dict[str, list[tuple[str, str]]]]:
    """Every (workload, batch) x {easy, pps} x load factor, the Lublin sensitivity set and
    the EASY variants, as one sweep; and a run id's (variant, policy) pairs (a PPS run
    serves the main rows and the EASY variants')."""
    parts = _parts(traces, quick)
    sweep = sweep_of([p for _, _, p in parts], traces, "schedlab reproduce pps")
    variants: dict[str, list[tuple[str, str]]] = {}
    for variant, policy, data in parts:
        for run in parse_sweep(data, traces, "schedlab reproduce pps").runs:
            variants.setdefault(run.run_id, []).append((variant, policy))
    return sweep, variants


def rows_from(
    store: ResultStore, sweep: Any, variants: dict[str, list[tuple[str, str]]]
) -> list[dict[str, Any]]:
    """One row per (workload, variant, load factor): means over batches, with 95 %
    half-widths, and whether the row can be compared with the paper's."""
    values: dict[tuple[str, str, float, str], dict[str, list[float]]] = {}
    for run in sweep.runs:
        workload = run.label.split("#", 1)[0]
        summary = store.summary(run.run_id)
        for variant, policy in variants[run.run_id]:
            cell = values.setdefault(
                (workload, variant, run.load_factor, policy), {m: [] for m in METRICS}
            )
            for metric in METRICS:
                cell[metric].append(float(summary[metric]))
    rows = []
    for variant in VARIANTS:
        for label, _, paper_name, _, _ in WORKLOADS:
            loads = sorted({f for (w, v, f, _) in values if w == label and v == variant})
            for f in loads:
                row: dict[str, Any] = {
                    "workload": label,
                    "load_factor": f,
                    "published_as": paper_name,
                    "variant": variant,
                }
                for policy in ("easy", "pps"):
                    cell = (
                        values.get((label, variant, f, policy)) or values[(label, MAIN, f, policy)]
                    )
                    for metric in METRICS:
                        estimate = over_seeds(np.asarray(cell[metric]))
                        row[f"{policy}_{metric}"] = estimate.mean
                        row[f"{policy}_{metric}_ci95"] = estimate.half_width
                row["batches"] = len(values[(label, MAIN, f, "pps")][METRICS[0]])
                row["comparable"] = bool(
                    row["easy_mean_wait_time"] > NO_QUEUE_SHARE * row["easy_mean_response_time"]
                )
                rows.append(row)
    return rows


def tables_from(rows: list[dict[str, Any]]) -> list[tuple[str, list[str], list[list[str]]]]:
    """Tables 1 and 2 of Zhang and Pan (PPS): ours and the published values, with the
    differences."""
    t1_header = [
        "workload (paper's)",
        "variant",
        "load",
        "comparable",
        "resp EASY",
        "paper resp EASY",
        "resp PPS",
        "diff",
        "paper diff",
        "bsld EASY",
        "bsld PPS",
        "diff",
        "paper diff",
    ]
    t2_header = [
        "workload (paper's)",
        "variant",
        "load",
        "comparable",
        "unfair EASY",
        "unfair PPS",
        "paper EASY/PPS",
        "util EASY",
        "util PPS",
        "diff",
        "paper diff",
    ]
    t1, t2 = [], []
    for r in rows:
        name = f"{r['workload']} ({r['published_as']})"
        paper = PPS_TABLES[r["published_as"]].get(r["load_factor"])
        p = paper if paper is not None else (float("nan"),) * 8
        head = [name, r["variant"], f"{r['load_factor']:g}", "yes" if r["comparable"] else "no"]
        t1.append(
            [
                *head,
                fmt(r["easy_mean_response_time"]),
                fmt(p[0]),
                fmt(r["pps_mean_response_time"]),
                fmt_change(r["pps_mean_response_time"], r["easy_mean_response_time"]),
                fmt_change(p[1], p[0]),
                fmt(r["easy_mean_bounded_slowdown"]),
                fmt(r["pps_mean_bounded_slowdown"]),
                fmt_change(r["pps_mean_bounded_slowdown"], r["easy_mean_bounded_slowdown"]),
                fmt_change(p[3], p[2]),
            ]
        )
        t2.append(
            [
                *head,
                fmt(r["easy_unfairness"]),
                fmt(r["pps_unfairness"]),
                f"{fmt(p[4])}/{fmt(p[5])}",
                f"{r['easy_utilization']:.3f}",
                f"{r['pps_utilization']:.3f}",
                f"{r['pps_utilization'] - r['easy_utilization']:+.3f}",
                "-" if paper is None else f"{p[7] - p[6]:+.3f}",
            ]
        )
    return [
        ("Table 1: mean response time (s) and mean bounded slowdown", t1_header, t1),
        ("Table 2: unfairness and utilization", t2_header, t2),
    ]


def reproduce_pps(
    traces: Path, out: Path, *, quick: bool = False, **run: Unpack[RunOptions]
) -> Reproduction:
    """Run (or resume) the experiment into ``out``; its tables, and the main variant's rows
    for its figure (``figure_data["main_rows"]``)."""
    sweep, variants = build_sweep(traces, quick)
    store = execute(sweep, out, **run)
    rows = rows_from(store, sweep, variants)
    notes = [
        "CM5 and O2K are not available here: SDSC-BLUE (first 100,000 cleaned jobs) stands "
        "in for CM5 and LLNL-Thunder (Tsafrir-model estimates where missing) for O2K.",
        "Each cell is the mean over batches of 5000 jobs simulated separately (the "
        "paper's batch means); failed and cancelled jobs (status 0, 5) are dropped first.",
        "EASY kills a job at its estimate; PPS uses no estimates and never kills.",
        "Utilization is over each batch's own makespan (first submit to last end).",
        "Lublin (main): the published generator's default, batch and interactive jobs on "
        "128 nodes; lublin_batch_256: the batch parameter set on 256 processors.",
        "EASY variants (SDSC-BLUE only, same PPS runs as the main rows): easy_no_kill "
        "(no kill at the estimate), easy_no_extra (no extra-processor rule), "
        "easy_useless_estimates (every estimate = the longest run time), easy_near_fcfs "
        "(all three).",
        f"comparable = no: EASY's mean wait is at most {NO_QUEUE_SHARE:.0%} of its mean "
        "response (nothing queues, e.g. LLNL-Thunder's start times replayed as arrivals "
        "below load 1.25), so the row says nothing about the paper's.",
    ]
    if quick:
        notes.append(
            f"--quick: the first {QUICK_JOBS} jobs of each workload, load factors "
            f"{', '.join(f'{f:g}' for f in QUICK_LOADS)}."
        )
    main = [r for r in rows if r["variant"] == MAIN]
    result = Reproduction(PAPER, rows, tables_from(rows), notes, figure_data={"main_rows": main})
    result.write(out)
    return result
