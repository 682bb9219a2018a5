"""`schedlab reproduce tdcs`: the dispatcher of Baranov and Tikhomirov (Computational
Technologies 2017) against baselines (SPEC 6).

The paper publishes no numbers; the scenario, hypotheses and protocol are pre-registered in
docs/reproductions.md ("Absolute priorities across clusters"): the platform ``builtin:tdcs``
(the text of ``examples/platform-tdcs.toml``), its own stream (`workload.models.tdcs`,
`generate_tdcs`) at load 0.85 over ``HOURS`` of arrivals, every cluster under
pps(priority="attribute", checkpoint, 60 s overhead). Configurations: ``tdcs``,
``tdcs_no_preemption`` (the same dispatcher over non-preemptive priority managers),
``round_robin``, ``least_loaded``, ``random``; and
``tdcs`` at the horizons ``HORIZONS`` (None: unlimited). Seeds 1..10 (``--quick``: 1..3
over 48 h).

Post-hoc (issue 25, after the pre-registered evaluation; labelled so in every table): the
ablations ``ABLATIONS`` (`grid.tdcs`) over the same managers and seeds, which say which of
the dispatcher's ingredients gives its gain, and the horizon runs read for what the paper
wants the horizon for: repeated preemption of jobs already dispatched
(`metrics.tdcs.repeated_preemptions`). Every claim, pre-registered or post-hoc, is a
`Claim` in the JSON's ``claims``.

The runs are a sweep (TDCS dispatchers, horizons and local managers are sweep keys:
`experiments.sweep_params`) run by the sweep layer into ``OUT`` like the other
reproductions: a rerun, or an interrupted one, computes only what is missing, and ``--dask``
spreads them over a Dask cluster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.experiments.analysis import over_seeds
from schedlab.experiments.config import RunConfig
from schedlab.experiments.reproduce.common import (
    Claim,
    Reproduction,
    RunOptions,
    claims_table,
    execute,
    fmt,
    sweep_of,
)
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import Sweep
from schedlab.metrics.tdcs import REPEATED_PREEMPTION_KEYS, repeated_preemptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

PLATFORM = "builtin:tdcs"

CONFIGURATIONS = ("tdcs", "tdcs_no_preemption", "round_robin", "least_loaded", "random")
BASELINES = ("round_robin", "least_loaded", "random")
# post-hoc ablations (issue 25), from the least to the most of the dispatcher's ingredients
ABLATIONS = ("least_loaded_speed", "tdcs_step6_literal", "tdcs_speed_blind",
             "tdcs_no_candidate_rule")  # fmt: skip
ALL_CONFIGURATIONS = CONFIGURATIONS + ABLATIONS
# the ladder of the ablation table: configuration -> what of the dispatcher it uses
LADDER = {
    "least_loaded": "none (priority- and speed-blind load)",
    "least_loaded_speed": "speeds only (load / capacity)",
    "tdcs_step6_literal": "candidate rule + least data transfer, ties to the faster",
    "tdcs_speed_blind": "candidate rule + estimate without speeds",
    "tdcs_no_candidate_rule": "estimate with speeds, no candidate rule",
    "tdcs": "candidate rule + estimate with speeds",
}
HORIZONS: tuple[int | None, ...] = (1, 2, 4, 8, 16, None)
HOURS, QUICK_HOURS = 120.0, 48.0
SEEDS, QUICK_SEEDS = 10, 3
LOAD = 0.85
CHECKPOINT_OVERHEAD = 60.0
ROW_KEYS = (
    "high_priority_mean_processing_time",
    "global_queue_time",
    "transfer_time",
    "local_queue_time",
    "run_time",
    "low_priority_throughput",
    "lost_work",
)
EXTRA_KEYS = (
    "global_high_priority_mean_processing_time",
    "low_priority_mean_wait_time",
    "background_throughput",
    "background_mean_wait_time",
    "preemptions",
    "evictions",
    "early_end_share",
    "jobs",
    "wall_time",
)


def build_sweep(quick: bool) -> Sweep:
    """The runs, as a sweep (every configuration at the unlimited horizon, then tdcs at each
    finite horizon), on ``builtin:tdcs`` under pps(priority=attribute, checkpoint, 60 s)."""
    hours = QUICK_HOURS if quick else HOURS
    seeds = list(range(1, (QUICK_SEEDS if quick else SEEDS) + 1))
    managers = {"preemption": "checkpoint", "checkpoint_overhead": CHECKPOINT_OVERHEAD}
    metas: list[dict[str, Any]] = [
        {"name": c, **({} if c == "tdcs_no_preemption" else managers)} for c in ALL_CONFIGURATIONS
    ]
    metas.append({"name": "tdcs", "horizon": [h for h in HORIZONS if h is not None], **managers})
    parts = [
        {
            "workloads": [{"platform": PLATFORM, "generator": {"hours": hours, "load": LOAD}}],
            "meta_schedulers": [meta],
            "grid": {"seed": seeds},
        }
        for meta in metas
    ]
    return sweep_of(parts, Path("."), "reproduce tdcs")


def key_of(run: RunConfig) -> tuple[str, int | None, int]:
    """(configuration, horizon, seed) of one of the reproduction's runs."""
    preemption = dict(run.queue_policy[1]).get("preemption") if run.queue_policy else None
    configuration = "tdcs_no_preemption" if preemption == "none" else run.policy
    return configuration, run.params.get("horizon"), int(run.seed or 0)


def results_of(
    quick: bool, out: Path, **options: Unpack[RunOptions]
) -> tuple[dict[tuple[str, int | None, int], dict[str, Any]], list[int], float]:
    """Run (or resume) every run into ``out``: each one's summary by (configuration,
    horizon, seed), the seeds, and the hours of arrivals."""
    sweep = build_sweep(quick)
    store = execute(sweep, out, **options)
    results = {key_of(run): _summary(store, run.run_id) for run in sweep.runs}
    seeds = sorted({seed for _, _, seed in results})
    return results, seeds, QUICK_HOURS if quick else HOURS


def _summary(store: ResultStore, run_id: str) -> dict[str, Any]:
    """A run's summary; a run stored before the counts of repeated preemption existed gets
    them from its per-job table (the same numbers)."""
    summary = store.summary(run_id)
    if all(k in summary for k in REPEATED_PREEMPTION_KEYS):
        return summary
    jobs = store.jobs(run_id)
    counts = repeated_preemptions(
        jobs["preemptions"].to_numpy(), (jobs["stream"] == "global").to_numpy()
    )
    return {**summary, **counts}


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# one configuration at one horizon: its summaries over the seeds
By = dict[tuple[str, int | None], list[dict[str, Any]]]
HIGH = "high_priority_mean_processing_time"
# the horizon study of issue 25 (JSON "repeated_preemption", the post-hoc horizon table)
REPEATED_COLUMNS = (
    *REPEATED_PREEMPTION_KEYS,
    "lost_work",
    HIGH,
    "low_priority_mean_wait_time",
    "background_mean_wait_time",
)


@dataclass
class TdcsReproduction(Reproduction):
    """The JSON of issue 12, ``{"rows": [...], "horizon": [[H, high, low wait], ...]}``,
    with issue 25's ``"repeated_preemption"`` (per H, the means of ``REPEATED_COLUMNS``)
    and ``"claims"``."""

    horizon: list[list[Any]] | None = None
    repeated: list[dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        rows = [{k: _plain(v) for k, v in r.items()} for r in self.rows]
        curve = [[h, _plain(a), _plain(b)] for h, a, b in (self.horizon or [])]
        repeated = [{k: _plain(v) for k, v in r.items()} for r in (self.repeated or [])]
        return {
            "rows": rows,
            "horizon": curve,
            "repeated_preemption": repeated,
            **self.claims_json(),
        }


def _cell(values: list[float], digits: int = 3) -> str:
    est = over_seeds(values)
    if math.isnan(est.half_width):
        return fmt(est.mean, digits)
    return f"{fmt(est.mean, digits)} ± {fmt(est.half_width, 2)}"


def reproduce_tdcs(
    traces: Path | None, out: Path, *, quick: bool = False, **run: Unpack[RunOptions]
) -> Reproduction:
    """Run (or resume) the pre-registered evaluation and the post-hoc ablations into
    ``out``; tables, JSON, claims, and what the figures are drawn from:
    ``figure_data["means"]`` (configuration -> mean of each component over the seeds; the
    pre-registered configurations), ``["ablations"]`` (the same for ``LADDER``),
    ``["horizon"]`` (the JSON's horizon curve) and ``["repeated"]`` (its
    ``repeated_preemption``)."""
    results, seeds, hours = results_of(quick, out, **run)
    by: By = {}
    for configuration, horizon in [(c, None) for c in ALL_CONFIGURATIONS] + [
        ("tdcs", h) for h in HORIZONS if h is not None
    ]:
        by[(configuration, horizon)] = [results[(configuration, horizon, s)] for s in seeds]
    rows = [
        {"dispatcher": c, "seed": s, **{k: results[(c, None, s)][k] for k in ROW_KEYS}}
        for c in ALL_CONFIGURATIONS
        for s in seeds
    ]
    curve = []
    for h in HORIZONS:
        data = by[("tdcs", h)]
        curve.append(
            [
                h,
                float(np.mean([d[HIGH] for d in data])),
                float(np.mean([d["low_priority_mean_wait_time"] for d in data])),
            ]
        )
    repeated = [
        {"horizon": h, **{k: float(np.mean([d[k] for d in by[("tdcs", h)]])) for k in
                          REPEATED_COLUMNS}}
        for h in HORIZONS
    ]  # fmt: skip
    claims = tdcs_claims(by)
    tables = _tables(by) + _posthoc_tables(by) + [claims_table(claims)]
    notes = [
        f"{len(seeds)} seeds ({seeds[0]}..{seeds[-1]}), {hours:g} h of arrivals at load "
        f"{LOAD}; platform builtin:tdcs (`schedlab example platform-tdcs` prints it); every "
        "cluster under "
        f"pps(priority=attribute, checkpoint, {CHECKPOINT_OVERHEAD:g} s overhead).",
        "Cells: mean over the seeds ± the 95 % half-width; times in s, throughput in jobs/h, "
        "lost work in processor-seconds.",
        "Pre-registered before the first evaluation run: (1) tdcs gives high-priority jobs "
        "a lower mean processing time than round_robin, least_loaded and random; (2) through "
        "local queue and run time, transfers under 5 %; (3) tdcs_no_preemption is slower for "
        "them; (4) background jobs pay; (5) a longer horizon helps, flat by H = 8.",
        "Post-hoc (issue 25, after the pre-registered results): the ablations "
        f"{', '.join(ABLATIONS)} and the repeated-preemption counts against H.",
    ]
    means = {c: {k: float(np.mean([d[k] for d in by[(c, None)]])) for k in ROW_KEYS}
             for c in CONFIGURATIONS}  # fmt: skip
    ladder = {c: {k: float(np.mean([d[k] for d in by[(c, None)]])) for k in ROW_KEYS}
              for c in LADDER}  # fmt: skip
    result = TdcsReproduction(
        paper="Baranov and Tikhomirov, Scheduling of jobs in a territorially distributed "
        "computing system with absolute priorities, Computational Technologies 2017: the "
        "dispatcher against baselines",
        rows=rows,
        tables=tables,
        notes=notes,
        figure_data={"means": means, "ablations": ladder, "horizon": curve, "repeated": repeated},
        claims=claims,
        horizon=curve,
        repeated=repeated,
    )
    result.write(out)
    return result


def _col(by: By, c: str, k: str, h: int | None = None) -> np.ndarray:
    return np.asarray([float(d[k]) for d in by[(c, h)]], dtype=np.float64)


def _paired(
    by: By,
    other: str,
    base: str,
    key: str = HIGH,
    *,
    other_h: int | None = None,
    base_h: int | None = None,
) -> tuple[Any, Any]:
    """Per seed, ``other - base`` of ``key``: its estimate in s and in % of ``other``."""
    a, b = _col(by, other, key, other_h), _col(by, base, key, base_h)
    return over_seeds(a - b), over_seeds(100.0 * (a - b) / a)  # fmt: skip


def _share(part: float, whole: float) -> float:
    """``part`` as a % of ``whole`` (NaN when there is no whole to share)."""
    return 100.0 * part / whole if whole > 0 else math.nan


MAIN = 'pre-registered (main: candidate rule "queue", unlimited H, checkpoint managers)'


def tdcs_claims(by: By) -> list[Claim]:
    """The pre-registered hypotheses and the post-hoc claims of issue 25 (items 10-11), each
    with the paper's direction (it publishes no numbers), ours, and whether it holds."""
    mean = {c: float(np.mean(_col(by, c, HIGH))) for c in ALL_CONFIGURATIONS}
    gains = {b: _paired(by, b, "tdcs") for b in BASELINES}
    out = [
        Claim(
            "tdcs_lower_than_baselines",
            "tdcs gives high-priority jobs a lower mean processing time than round_robin, "
            "least_loaded and random (paired 95 % interval above 0); ours: % of each",
            "lower (the algorithm minimises processing time, eq. 2-3)",
            {b: round(pct.mean, 1) for b, (_, pct) in gains.items()},
            all(d.low > 0 for d, _ in gains.values()),
            MAIN,
        )
    ]
    order = sorted(BASELINES, key=lambda b: gains[b][1].mean)
    out.append(
        Claim(
            "gain_smallest_against_least_loaded",
            "the gain is smallest against least_loaded and largest against random; ours: "
            "baselines from the smallest gain to the largest",
            "not stated (pre-registered)",
            order,
            order[0] == "least_loaded" and order[-1] == "random",
            MAIN,
        )
    )
    transfer = max(
        float(np.mean(100.0 * _col(by, c, "transfer_time") / _col(by, c, HIGH)))
        for c in CONFIGURATIONS
    )
    queue = float(np.mean(100.0 * _col(by, "tdcs", "global_queue_time") / _col(by, "tdcs", HIGH)))
    out.append(
        Claim(
            "transfers_and_global_queue_small",
            "transfer time under 5 % of the high-priority processing time under every "
            "dispatcher, global queue time under 5 % under tdcs; ours: the largest transfer "
            "share and tdcs's global queue share (%)",
            "not stated (pre-registered; the paper warns transfers may exceed the run)",
            {"transfer": round(transfer, 2), "global_queue": round(queue, 2)},
            transfer < 5.0 and queue < 5.0,
            MAIN,
        )
    )
    d, pct = _paired(by, "tdcs_no_preemption", "tdcs")
    out.append(
        Claim(
            "no_preemption_slower",
            "without preemption (tdcs_no_preemption) high-priority jobs take longer; ours: "
            "% of tdcs_no_preemption's time tdcs saves",
            "longer (absolute priorities let a job displace lower ones, section 1)",
            round(pct.mean, 1),
            d.low > 0,
            MAIN,
        )
    )
    d, _ = _paired(by, "tdcs", "least_loaded", "background_mean_wait_time")
    out.append(
        Claim(
            "background_pays",
            "background jobs wait longer under tdcs than under least_loaded; ours: their "
            "mean wait (s) under each",
            "not stated (pre-registered)",
            {
                c: round(float(np.mean(_col(by, c, "background_mean_wait_time"))))
                for c in ("tdcs", "least_loaded")
            },
            d.low > 0,
            MAIN,
        )  # fmt: skip
    )
    curve = [float(np.mean(_col(by, "tdcs", HIGH, h))) for h in HORIZONS]
    out.append(
        Claim(
            "horizon_helps",
            "the high-priority processing time falls as the horizon H grows (1, 2, 4, 8, 16, "
            "unlimited); ours: its mean at each H (s)",
            "not stated (pre-registered)",
            [round(v) for v in curve],
            all(b <= a for a, b in zip(curve, curve[1:])),
            MAIN + "; tdcs at each H",
        )
    )
    d, pct = _paired(by, "tdcs", "tdcs", other_h=8)
    out.append(
        Claim(
            "horizon_flat_by_8",
            "it is flat by H = 8 (paired interval of H = 8 - unlimited reaches 0); ours: % "
            "of H = 8's time unlimited saves",
            "not stated (pre-registered)",
            round(pct.mean, 1),
            d.low <= 0,
            MAIN + "; tdcs at H = 8 and unlimited",
        )
    )
    return out + _ablation_claims(by, mean) + _horizon_claims(by)


def _ablation_claims(by: By, mean: dict[str, float]) -> list[Claim]:
    """Item 10: where tdcs's gain over least_loaded comes from (post-hoc)."""
    gain = mean["least_loaded"] - mean["tdcs"]
    lost = _share(mean["tdcs_speed_blind"] - mean["tdcs"], gain)
    kept = _share(mean["least_loaded"] - mean["least_loaded_speed"], gain)
    rule, rule_pct = _paired(by, "tdcs_no_candidate_rule", "tdcs")
    bg = {c: float(np.mean(_col(by, c, "background_mean_wait_time"))) for c in
          ("tdcs", "tdcs_no_candidate_rule", "least_loaded")}  # fmt: skip
    starved = _share(bg["tdcs"] - bg["tdcs_no_candidate_rule"], bg["tdcs"] - bg["least_loaded"])
    step6, step6_pct = _paired(by, "least_loaded", "tdcs_step6_literal")
    post = "post-hoc ablation (issue 25): "
    return [
        Claim(
            "gain_is_speed_awareness",
            "tdcs's gain over least_loaded comes mostly from speed-awareness (T_run = "
            "requested time / speed): without speeds (tdcs_speed_blind) more than half of "
            "it is lost; ours: % of the gain lost",
            "speeds only break ties between equal transfer times (section 1)",
            round(lost, 1),
            lost > 50.0,
            post + "tdcs_speed_blind against tdcs and least_loaded",
        ),
        Claim(
            "speed_aware_baseline_gains",
            "a speed-aware least-loaded baseline (least_loaded_speed) gets more than half of "
            "tdcs's gain over least_loaded; ours: % of the gain it gets",
            "not stated",
            round(kept, 1),
            kept > 50.0,
            post + "least_loaded_speed (load / capacity) against tdcs and least_loaded",
        ),
        Claim(
            "candidate_rule_adds_little",
            "the candidate rule adds little for high-priority jobs: tdcs saves under 5 % of "
            "tdcs_no_candidate_rule's processing time; ours: that % (mean over seeds)",
            "lower local queue time (step 6: 'minimises the time in the local queue')",
            round(rule_pct.mean, 1),
            rule_pct.mean < 5.0,
            post + "tdcs_no_candidate_rule against tdcs",
        ),
        Claim(
            "candidate_rule_starves_background",
            "the candidate rule causes most of the background starvation: more than half of "
            "the background jobs' extra wait under tdcs (over least_loaded) goes without it; "
            "ours: % that goes",
            "not stated",
            round(starved, 1),
            starved > 50.0,
            post + "tdcs_no_candidate_rule against tdcs and least_loaded",
        ),
        Claim(
            "step6_literal_no_gain",
            "the paper's step 6 read literally (least data transfer, ties to the faster "
            "cluster) gives no gain over least_loaded (paired interval reaches 0); ours: % "
            "of least_loaded's time it saves",
            "lower processing time (step 6 = eq. 3)",
            round(step6_pct.mean, 1),
            step6.low <= 0,
            post + "tdcs_step6_literal against least_loaded",
        ),
    ]


def _horizon_claims(by: By) -> list[Claim]:
    """Item 11: does a horizon stop dispatched jobs being preempted again and again, and do
    the jobs it protects get through sooner for it? (post-hoc)"""
    key = "global_repeatedly_preempted_jobs"
    counts = [float(np.mean(_col(by, "tdcs", key, h))) for h in HORIZONS]
    binding = [i for i, h in enumerate(HORIZONS) if h is not None and h <= 8]
    low = [float(np.mean(_col(by, "tdcs", "low_priority_mean_wait_time", h))) for h in HORIZONS]
    wait, _ = _paired(by, "tdcs", "tdcs", "low_priority_mean_wait_time", other_h=8)
    reading = "post-hoc (issue 25): tdcs at each H, per-job preemption counts"
    return [
        Claim(
            "horizon_stops_repeated_preemption",
            "a planning horizon keeps jobs already dispatched from being preempted again "
            "and again: the global jobs preempted twice or more never grow as H shrinks and "
            "are fewer than unlimited at every H <= 8; ours: their mean count at H = 1, 2, "
            "4, 8, 16, unlimited",
            "fewer repeated preemptions (section 2, approach 6)",
            [round(c, 1) for c in counts],
            all(b >= a for a, b in zip(counts, counts[1:]))
            and all(counts[i] < counts[-1] for i in binding),
            reading,
        ),
        Claim(
            "horizon_shortens_lower_waits",
            "the jobs it protects get through sooner: the low-priority mean wait is lower at "
            "H = 8 than unlimited (paired interval below 0); ours: the mean wait (s) at H = "
            "1, 2, 4, 8, 16, unlimited",
            "dispatched jobs manage to be processed (section 2, approach 6)",
            [round(v) for v in low],
            wait.high < 0,
            reading + "; low-priority waits",
        ),
    ]


def _posthoc_tables(by: By) -> list[Any]:
    """Issue 25: the ablation ladder and repeated preemption against H (post-hoc)."""
    ladder = []
    for c in LADDER:
        over_ll = (
            "-"
            if c == "least_loaded"
            else _cell(
                list(
                    100.0
                    * (_col(by, "least_loaded", HIGH) - _col(by, c, HIGH))
                    / _col(by, "least_loaded", HIGH)
                )
            )
        )
        over_tdcs = (
            "-"
            if c == "tdcs"
            else _cell(
                list(100.0 * (_col(by, c, HIGH) - _col(by, "tdcs", HIGH)) / _col(by, c, HIGH))
            )
        )
        ladder.append(
            [c, LADDER[c]]
            + [_cell(list(_col(by, c, k))) for k in (HIGH, "run_time", "local_queue_time",
                                                      "transfer_time")]
            + [over_ll, over_tdcs]
            + [_cell(list(_col(by, c, k))) for k in ("low_priority_mean_wait_time",
                                                      "background_mean_wait_time",
                                                      "preemptions")]
        )  # fmt: skip
    horizon = [
        ["unlimited" if h is None else str(h)]
        + [_cell(list(_col(by, "tdcs", k, h))) for k in REPEATED_COLUMNS]
        for h in HORIZONS
    ]
    return [
        (
            "Post-hoc (issue 25): which ingredient gives the gain (high-priority jobs; times in s)",
            ["configuration", "uses", "processing", "run", "local queue", "transfer",
             "less than least_loaded (%)", "tdcs less by (%)", "low wait",
             "background wait", "preemptions"],
            ladder,
        ),
        (
            "Post-hoc (issue 25): repeated preemption against the horizon H (tdcs)",
            ["H", "preemptions per job", "global: per job", "jobs preempted 2+",
             "global jobs preempted 2+", "most of one job", "lost work (proc-s)",
             "high processing (s)", "low wait (s)", "background wait (s)"],
            horizon,
        ),
    ]  # fmt: skip


def _tables(by: dict[tuple[str, int | None], list[dict[str, Any]]]) -> list[Any]:
    def col(c: str, k: str, h: int | None = None) -> list[float]:
        return [float(d[k]) for d in by[(c, h)]]

    main = []
    for c in CONFIGURATIONS:
        main.append(
            [c]
            + [_cell(col(c, k)) for k in ROW_KEYS[:5]]
            + [_cell(col(c, "global_high_priority_mean_processing_time"))]
        )
    others = []
    for c in CONFIGURATIONS:
        others.append(
            [c]
            + [
                _cell(col(c, k))
                for k in (
                    "low_priority_throughput",
                    "low_priority_mean_wait_time",
                    "background_throughput",
                    "background_mean_wait_time",
                    "lost_work",
                    "preemptions",
                    "evictions",
                )
            ]
        )
    paired = []
    base = np.asarray(col("tdcs", "high_priority_mean_processing_time"))
    for c in CONFIGURATIONS[1:]:
        other = np.asarray(col(c, "high_priority_mean_processing_time"))
        diff = other - base
        est = over_seeds(diff)
        paired.append(
            [
                c,
                _cell(list(diff)),
                _cell(list(100.0 * diff / other)),
                "yes" if est.low > 0 else ("no (worse)" if est.high < 0 else "not shown"),
            ]
        )
    horizon = []
    for h in HORIZONS:
        horizon.append(
            ["unlimited" if h is None else str(h)]
            + [
                _cell(col("tdcs", k, h))
                for k in (
                    "high_priority_mean_processing_time",
                    "global_queue_time",
                    "local_queue_time",
                    "low_priority_mean_wait_time",
                    "background_mean_wait_time",
                )
            ]
        )
    return [
        (
            "High-priority jobs: mean processing time and its components (s)",
            ["configuration", "processing", "global queue", "transfer", "local queue", "run",
             "processing, global high only"],
            main,
        ),
        (
            "Low-priority and background jobs, lost work, preemptions",
            ["configuration", "low throughput (jobs/h)", "low wait (s)",
             "background throughput (jobs/h)", "background wait (s)",
             "lost work (proc-s)", "preemptions", "evictions"],
            others,
        ),
        (
            "Paired per seed: other - tdcs, high-priority mean processing time",
            ["configuration", "difference (s)", "difference (% of other)", "tdcs lower"],
            paired,
        ),
        (
            "tdcs against the horizon H",
            ["H", "high processing (s)", "high global queue (s)", "high local queue (s)",
             "low wait (s)", "background wait (s)"],
            horizon,
        ),
    ]  # fmt: skip
