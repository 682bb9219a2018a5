"""`schedlab reproduce dbf`: Tables 1 and 2 of N'Takpé and Suter (ComPAS 2016), DBF against
CBF.

The experiment (the paper's section 4.1): one job in three is non-priority, with deadline
submit + max(24 h, 2 x run time) (case a) or max(72 h, 2 x run time) (case b); every trace is
replayed whole by conservative backfilling (CBF) and by DBF. Table 1 gives the mean wait
(hours) and mean slowdown of the priority jobs, Table 2 of all jobs: the CBF value and
DBF's relative change for each case.

Traces: SDSC-BLUE and HPC2N as in the paper. SDSC-DS is not available here; CEA-Curie
(295k runnable jobs on 93,312 processors, 2012) stands in for it: of the large traces we
have it is the one whose jobs wait long enough under CBF for deadlines to matter
(LLNL-Thunder's mean wait is 8 minutes, SDSC-DS's was 1.4 h). "Priority jobs" are the
jobs the workload did not mark non-priority (2 in 3), for CBF and DBF alike, so the two
columns compare the same jobs. ``missed_deadlines`` counts the non-priority jobs DBF
accepted (not promoted at submission) that ended after their deadline: it must be 0.

Two readings of the plans. The paper plans every job with "wl_i (walltime)", the execution
time it also uses for the deadline rule and the slowdown, and assumes the users' predictions
are fairly precise. The main reading (``"reading": "run_time_plans"``) therefore replays
each trace with requested time := run time (the sweep transform ``requested_from_run``),
nothing else changed, for CBF and DBF alike. The sensitivity reading
(``"requested_time_plans"``) plans with the trace's requested times, as the trace has them:
every early end then compresses the schedule, which re-places the waiting jobs in arrival
order and undoes most of DBF's delay of the non-priority jobs (docs/reproductions.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.experiments.reproduce.common import (
    Reproduction,
    RunOptions,
    execute,
    fmt,
    fmt_change,
    fmt_pct,
    sweep_of,
    trace_file,
)
from schedlab.experiments.reproduce.published import DBF_TABLES
from schedlab.experiments.store import ResultStore
from schedlab.metrics.summary import summarize

if TYPE_CHECKING:
    from typing_extensions import Unpack

PAPER = (
    "N'Takpé and Suter, Prise en compte de tâches non-prioritaires dans l'ordonnancement "
    "batch, ComPAS 2016: DBF against conservative backfilling"
)
QUICK_JOBS = 20_000
CASES = ("a", "b")
HOUR = 3600.0
# reading -> (label suffix, does the workload get requested time := run time)
READINGS: dict[str, tuple[str, bool]] = {
    "run_time_plans": ("", True),  # the main reading, the paper's
    "requested_time_plans": (", requested", False),  # sensitivity: the trace's estimates
}
MAIN_READING = "run_time_plans"

# (our label, trace file, the paper's workload it stands for, extra sweep keys)
WORKLOADS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz", "SDSC-BLUE", {}),
    ("HPC2N", "HPC2N-2002-2.1-cln.swf.gz", "HPC2N", {}),
    ("CEA-Curie", "CEA-Curie-2011-2.1-cln.swf.gz", "SDSC-DS", {}),
)


def _run_label(label: str, case: str, reading: str) -> str:
    return f"{label} ({case}{READINGS[reading][0]})"


def build_sweep(traces: Path, quick: bool) -> Any:
    """Every (reading, trace, case) x {conservative, dbf} run, as one sweep."""
    workloads = []
    for reading, (_, exact) in READINGS.items():
        for label, file, _, extra in WORKLOADS:
            path = trace_file(traces, file)
            for case in CASES:
                entry: dict[str, Any] = {
                    "path": path,
                    "label": _run_label(label, case, reading),
                    "non_priority": {"every": 3, "deadline": case},
                    **extra,
                }
                if exact:
                    entry["requested_from_run"] = True
                if quick:
                    entry["first"] = QUICK_JOBS
                workloads.append(entry)
    data = {"workloads": workloads, "policies": [{"name": "conservative"}, {"name": "dbf"}]}
    return sweep_of([data], traces, "schedlab reproduce dbf")


def _class_metrics(jobs: Any, procs: int) -> dict[str, float]:
    """Mean wait and slowdown of the priority jobs and of all jobs (the paper's two tables)."""
    columns = {name: np.asarray(jobs[name]) for name in jobs.columns}
    priority = np.asarray(jobs["priority"], dtype=bool)
    everyone = summarize(columns, procs=procs)
    mine = summarize({k: v[priority] for k, v in columns.items()}, procs=procs)
    return {
        "priority_mean_wait_time": mine["mean_wait_time"],
        "priority_mean_slowdown": mine["mean_slowdown"],
        "mean_wait_time": everyone["mean_wait_time"],
        "mean_slowdown": everyone["mean_slowdown"],
    }


def rows_from(store: ResultStore, sweep: Any) -> list[dict[str, Any]]:
    """One row per (reading, workload, case), the keys of the issue plus DBF's own counts;
    the main reading's rows first."""
    by_key: dict[tuple[str, str], str] = {}
    for run in sweep.runs:
        by_key[(run.label, run.policy)] = run.run_id
    rows = []
    for reading in READINGS:
        for label, _, paper_name, _ in WORKLOADS:
            for case in CASES:
                name = _run_label(label, case, reading)
                cbf_id, dbf_id = by_key[(name, "conservative")], by_key[(name, "dbf")]
                cbf_jobs, dbf_jobs = store.jobs(cbf_id), store.jobs(dbf_id)
                procs = int(store.summary(cbf_id)["procs"])
                cbf = _class_metrics(cbf_jobs, procs)
                dbf = _class_metrics(dbf_jobs, procs)
                marked = ~np.asarray(dbf_jobs["priority"], dtype=bool)
                late = np.asarray(dbf_jobs["finished_at"] > dbf_jobs["deadline"])
                classes = np.asarray(dbf_jobs["dbf_class"])
                accepted = np.isin(classes, ["non_priority", "migrated"])
                cbf_late = np.asarray(cbf_jobs["finished_at"] > cbf_jobs["deadline"])
                row: dict[str, Any] = {
                    "workload": label,
                    "case": case,
                    "published_as": paper_name,
                    "reading": reading,
                }
                for key in ("priority_mean_wait_time", "mean_wait_time", "priority_mean_slowdown"):
                    row[f"cbf_{key}"] = cbf[key]
                    row[f"dbf_{key}"] = dbf[key]
                row["cbf_mean_slowdown"] = cbf["mean_slowdown"]
                row["dbf_mean_slowdown"] = dbf["mean_slowdown"]
                row["missed_deadlines"] = int(np.count_nonzero(late & accepted))
                row["jobs"] = len(dbf_jobs)
                row["non_priority_jobs"] = int(np.count_nonzero(marked))
                row["promoted_at_submission"] = int(np.count_nonzero(classes == "promoted"))
                row["migrated"] = int(np.count_nonzero(classes == "migrated"))
                row["late_non_priority_promoted"] = int(np.count_nonzero(late & marked & ~accepted))
                row["cbf_late_non_priority"] = int(np.count_nonzero(cbf_late & marked))
                rows.append(row)
    return rows


def tables_from(rows: list[dict[str, Any]]) -> list[tuple[str, list[str], list[list[str]]]]:
    """Tables 1 and 2 of N'Takpé and Suter (ComPAS 2016): ours (main reading) next to the
    published values and to the sensitivity reading (plans from the trace's requested times)."""
    by = {(r["reading"], r["workload"], r["case"]): r for r in rows}
    header = [
        "workload (paper's)",
        "metric",
        "CBF ours",
        "CBF paper",
        "ours vs paper",
        "DBF(a) ours",
        "DBF(a) paper",
        "DBF(b) ours",
        "DBF(b) paper",
        "CBF req. plans",
        "DBF(a) req. plans",
        "DBF(b) req. plans",
    ]
    sensitivity = "requested_time_plans"
    tables = []
    for title, prefix, part in (
        ("Table 1: priority jobs", "priority_", "priority"),
        ("Table 2: all jobs", "", "all"),
    ):
        cells = []
        for label, _, paper_name, _ in WORKLOADS:
            if (MAIN_READING, label, "a") not in by:
                continue
            a, b = by[(MAIN_READING, label, "a")], by[(MAIN_READING, label, "b")]
            ra, rb = by.get((sensitivity, label, "a")), by.get((sensitivity, label, "b"))
            published = DBF_TABLES[paper_name][part]
            for metric, key, scale in (
                ("avg_wt (h)", "mean_wait_time", HOUR),
                ("avg_sd", "mean_slowdown", 1.0),
            ):
                cbf = a[f"cbf_{prefix}{key}"] / scale
                paper = published["wait_h" if scale == HOUR else "slowdown"]

                def gain(row: dict[str, Any] | None, k: str = f"{prefix}{key}") -> str:
                    if row is None:
                        return "-"
                    return fmt_change(row[f"dbf_{k}"], row[f"cbf_{k}"])

                cells.append(
                    [
                        f"{label} ({paper_name})",
                        metric,
                        fmt(cbf),
                        fmt(paper[0]),
                        fmt_change(cbf, paper[0]),
                        gain(a),
                        fmt_pct(paper[1]),
                        gain(b),
                        fmt_pct(paper[2]),
                        "-" if ra is None else fmt(ra[f"cbf_{prefix}{key}"] / scale),
                        gain(ra),
                        gain(rb),
                    ]
                )
        tables.append((title, header, cells))
    deadline_header = [
        "reading",
        "workload",
        "case",
        "jobs",
        "non-priority",
        "promoted at submission",
        "migrated (L_TMP)",
        "missed (accepted)",
        "late (promoted)",
        "late under CBF",
    ]
    deadline_rows = [
        [
            r["reading"],
            r["workload"],
            r["case"],
            str(r["jobs"]),
            str(r["non_priority_jobs"]),
            str(r["promoted_at_submission"]),
            str(r["migrated"]),
            str(r["missed_deadlines"]),
            str(r["late_non_priority_promoted"]),
            str(r["cbf_late_non_priority"]),
        ]
        for r in rows
    ]
    tables.append(("Deadlines of the non-priority jobs", deadline_header, deadline_rows))
    return tables


def reproduce_dbf(
    traces: Path, out: Path, *, quick: bool = False, **run: Unpack[RunOptions]
) -> Reproduction:
    """Run (or resume) the experiment into ``out``; its tables, and the main reading's rows
    for its figure (``figure_data["main_rows"]``)."""
    sweep = build_sweep(traces, quick)
    store = execute(sweep, out, **run)
    rows = rows_from(store, sweep)
    notes = [
        "SDSC-DS is not available here: CEA-Curie stands in for it (paper column SDSC-DS).",
        "Wait times in the tables are hours, as in the paper; the JSON rows give seconds.",
        "Deadline rule: submit + max(24 h | 72 h, 2 x actual run time); one job in three "
        "(the 3rd, 6th, ...) is non-priority.",
        "Main reading (ours): plans from the run times (requested time := run time for every "
        "job, as the paper plans with the execution time); 'req. plans': the sensitivity "
        'reading, plans from the trace\'s requested times (JSON: "reading").',
    ]
    if quick:
        notes.append(f"--quick: the first {QUICK_JOBS} jobs of each trace only.")
    main = [r for r in rows if r["reading"] == MAIN_READING]
    result = Reproduction(PAPER, rows, tables_from(rows), notes, figure_data={"main_rows": main})
    result.write(out)
    return result
