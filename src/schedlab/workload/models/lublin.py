"""The Lublin-Feitelson workload model of rigid parallel jobs (SPEC section 2).

Model: U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
characteristics of rigid jobs", J. Parallel Distrib. Comput. 63(11):1105-1122, 2003. The
model was fitted to accounting logs of three sites (SDSC Paragon, KTH SP2, LANL CM-5) and
describes every job by three things, drawn independently per job except where noted:

* **Size** (processors). With probability `serial_prob` the job is serial (1 processor).
  Otherwise a value u is drawn from a *two-stage uniform* distribution on the log2 scale:
  with probability `u_prob` uniform on [u_low, u_med], else uniform on [u_med, u_hi]; the
  size is round(2**u). With probability `pow2_prob` (taken from the same uniform draw as the
  serial choice, so `serial_prob + pow2_prob <= 1` and both are fractions of *all* jobs) u is
  first rounded to an integer, which makes the size a power of two. u_hi is log2 of the
  machine size, and u_med sits a fixed distance below it, so sizes scale with log2(procs).
* **Run time**, correlated with the size. log(run time) (natural log, seconds) follows a
  *hyper-gamma* distribution: Gamma(a1, b1) with probability p, else Gamma(a2, b2) (shape a,
  scale b, mean a*b), where p = pa * size + pb, clipped to [0, 1]. pa < 0, so wider jobs more
  often come from the second, longer gamma. Values of log(run time) above 12 (exp(12) s, about
  45 h) are redrawn.
* **Arrivals**, with a daily cycle. The "rush-hour" inter-arrival time is exp(g) seconds with
  g ~ Gamma(a_arr * arar, b_arr) (redrawn above 13). The day has 48 half-hour buckets whose
  arrival intensities are proportional to the probability that a Gamma(a_num, b_num) variable,
  measured in half-hours, falls in the bucket; the day is folded so that the gamma's support
  starts at 05:00 (half-hour 10) and its mode falls in the early afternoon. Rush-hour time is
  spent at a rate equal to the bucket's normalised weight (mean 1 over the day), so busy
  buckets receive more arrivals and a whole day still lasts 86 400 s. The simulation starts at
  midnight (at `start_time`).

Parameter values: the fitted values as the authors publish them with the model on the
Parallel Workloads Archive (https://www.cs.huji.ac.il/labs/parallel/workload/models.html,
"Lublin99"), in the parameter section of their reference generator `m_lublin99.c`, which
restates the paper's fits: a batch set, an interactive set and a set fitted to all jobs
without the batch/interactive distinction (the one behind the archive's generated
`lublin_*.swf` traces). Only facts and formulas were taken; this module was written from the
model's description. Where the generator is more specific than the paper's prose it is
followed: p uses the size itself (not its log; the archive's `lublin_256` traces confirm it:
no job wider than 144 processors runs under 10 minutes), both probabilities of the size model
are fractions of all jobs, and log run times above 12 and log gaps above 13 are redrawn.

Scaling to other machines: u_hi = log2(procs) (the interactive set keeps its published
1.5 below it), u_med keeps its published distance below log2(procs) (batch 2, all 2.5,
interactive 4), u_low is kept; the run-time parameters are not scaled (pa multiplies the
processor count itself, as published).

Not reproduced on purpose: the reference generator truncates every inter-arrival time to
whole seconds, so its clock falls behind its own daily cycle by about 0.5 s per job (some
2.8 h after 20 000 jobs); the archive's `lublin_*` traces therefore show a cycle shifted and
blurred by one to three hours. Here submit times are truncated once, without drift.

Outputs follow the archive's generated traces: integral seconds (submit times are truncated,
run times rounded up, so each is at least 1 s), requested time unset (-1, so readers use the
run time; user estimates are a later model), status 1, queue 1 for batch and 0 for
interactive jobs (the SWF convention; -1 for kind "all", whose jobs are untyped).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from schedlab.errors import ConfigError
from schedlab.validators import check_int, check_number, check_seconds, check_seed, is_int
from schedlab.workload.job import MAX_TIME, Workload, check_max_procs

__all__ = [
    "ALL",
    "BATCH",
    "INTERACTIVE",
    "KINDS",
    "LOG_GAP_CAP",
    "LOG_RUN_TIME_CAP",
    "MAX_JOBS",
    "MAX_LOAD",
    "MAX_RUN_TIME",
    "MAX_START_TIME",
    "PARAMETER_SETS",
    "LublinParams",
    "check_lublin_params",
    "generate_lublin",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# -- time constants of the model -------------------------------------------------------------
BUCKETS = 48  # half-hour buckets of the daily cycle
BUCKET_TIME = 1800.0  # seconds in one bucket
DAY_TIME = BUCKETS * BUCKET_TIME  # 86 400 s
# The daily-cycle gamma is evaluated at half-hour positions CYCLE_FIRST .. CYCLE_FIRST + 47;
# position c is the bucket (c - 1) mod 48, i.e. the day is folded to start at 05:00.
CYCLE_FIRST = 11
LOG_RUN_TIME_CAP = 12.0  # log(run time / s) above this is redrawn (exp(12) s ~ 45 h)
LOG_GAP_CAP = 13.0  # log(rush-hour gap / s) above this is redrawn (exp(13) s ~ 5 days)
MAX_RUN_TIME = math.ceil(math.exp(LOG_RUN_TIME_CAP))  # 162 755 s, the SWF MaxRuntime

KINDS: tuple[str, ...] = ("batch", "interactive", "mixed", "all")

# -- ranges of the generator's arguments (checked before anything is drawn) ------------------
# 10 million jobs: 40 times the largest trace of the Parallel Workloads Archive, and about
# 1.5 GB of fields; a larger count is a typo that would exhaust memory before failing.
MAX_JOBS = 10_000_000
# Offered load at most 1000 (beyond, every job of a trace arrives in the same second). The
# lowest load is what keeps the last submit time within MAX_TIME (checked once the jobs
# are drawn: it depends on their work); at lower loads run times vanish in the rounding of
# huge submit times.
MAX_LOAD = 1000.0
# Midnight of the first simulated day: up to 1e12 s (about 31 700 years) after the origin.
MAX_START_TIME = 1e12

_QUEUE_BATCH = 1  # SWF queue numbers: 0 is interactive by convention
_QUEUE_INTERACTIVE = 0
_QUEUE_UNTYPED = -1


@dataclass(frozen=True)
class LublinParams:
    """One fitted parameter set of the model (see the module docstring for the formulas).

    Sizes: `serial_prob`, `pow2_prob` are fractions of all jobs; `u_low` is log2 of the
    smallest parallel size; u_hi = log2(procs) - `u_hi_below` and u_med = log2(procs) -
    `u_med_below`; `u_prob` is the weight of the lower uniform stage.
    Run time: log(run / s) ~ Gamma(`a1`, `b1`) w.p. p = `pa` * size + `pb`, else
    Gamma(`a2`, `b2`) (shape, scale).
    Arrivals: log(rush-hour gap / s) ~ Gamma(`a_arr` * `arar`, `b_arr`); the daily cycle's
    bucket weights come from Gamma(`a_num`, `b_num`) over half-hour positions.
    """

    name: str
    serial_prob: float
    pow2_prob: float
    u_low: float
    u_med_below: float
    u_hi_below: float
    u_prob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    a_arr: float
    b_arr: float
    arar: float
    a_num: float
    b_num: float
    queue: int

    def size_range(self, procs: int) -> tuple[float, float, float]:
        """(u_low, u_med, u_hi) on the log2 scale for a machine of `procs` processors.

        The published values are for a 128-node machine; the stage bounds keep their
        distance below log2(procs) and are clamped so that u_low <= u_med <= u_hi <=
        log2(procs) on small machines.
        """
        top = math.log2(procs)
        low = min(self.u_low, top)
        hi = max(top - self.u_hi_below, low)
        med = min(max(top - self.u_med_below, low), hi)
        return low, med, hi

    def daily_weights(self) -> FloatArray:
        """Relative arrival intensity of each half-hour bucket of the day (mean 1).

        Bucket b (from b/2 h to (b+1)/2 h after midnight) gets the probability that a
        Gamma(a_num, b_num) variable falls within half a unit of its position c, where
        c = b + 1 for b >= CYCLE_FIRST - 1 and c = b + 49 before (the day folded at 05:00).
        """
        return _daily_weights(self.a_num, self.b_num).copy()


# The published sets, one row per field: (batch, interactive, all). Batch jobs go to SWF
# queue 1, interactive ones to queue 0; "all" was fitted without the distinction (untyped).
# u_med_below: the published u_med is 5, 3 and 4.5 with u_hi 7, 5.5 and 7 (128 nodes, log2 7).
_PUBLISHED: dict[str, tuple[float, float, float]] = {
    "serial_prob": (0.2927, 0.1541, 0.244),
    "pow2_prob": (0.6686, 0.625, 0.576),
    "u_low": (1.2, 1.0, 0.8),
    "u_med_below": (2.0, 4.0, 2.5),
    "u_hi_below": (0.0, 1.5, 0.0),
    "u_prob": (0.875, 0.705, 0.86),
    "a1": (6.57, 3.8351, 4.2),
    "b1": (0.823, 0.6605, 0.94),
    "a2": (639.1, 7.073, 312.0),
    "b2": (0.0156, 0.6856, 0.03),
    "pa": (-0.003, -0.0118, -0.0054),
    "pb": (0.6986, 0.9156, 0.78),
    "a_arr": (6.0415, 6.5510, 10.2303),
    "b_arr": (0.8531, 0.6621, 0.4871),
    "arar": (1.0519, 0.9797, 1.0225),
    "a_num": (6.1271, 8.9186, 8.1737),
    "b_num": (5.2740, 3.6680, 3.9631),
}


def _published(name: str, queue: int, column: int) -> LublinParams:
    """The set in column ``column`` of `_PUBLISHED`."""
    return LublinParams(name=name, queue=queue, **{f: row[column] for f, row in _PUBLISHED.items()})


BATCH = _published("batch", _QUEUE_BATCH, 0)
INTERACTIVE = _published("interactive", _QUEUE_INTERACTIVE, 1)
ALL = _published("all", _QUEUE_UNTYPED, 2)

PARAMETER_SETS: dict[str, LublinParams] = {p.name: p for p in (BATCH, INTERACTIVE, ALL)}


# -- the generator ---------------------------------------------------------------------------
def generate_lublin(
    jobs: int,
    procs: int,
    seed: int | np.random.Generator | None = 0,
    *,
    load: float | None = None,
    kind: str = "batch",
    start_time: float = 0.0,
) -> Workload:
    """Draw `jobs` rigid jobs for a machine of `procs` processors from the Lublin model.

    `kind` picks the parameter set: "batch" (default), "interactive", "all" (fitted to all
    jobs, untyped) or "mixed" (independent batch and interactive arrival streams, merged in
    time, as the published generator does; the share of each follows from their rates,
    about 15 % batch).

    `load`: if given, the offered load sum(procs x run) / (procs x submit span) of the result
    equals it (up to the truncation of submit times to whole seconds, a relative error of
    about 1 s / span). Sizes and run times are unchanged; the rush-hour inter-arrival times
    of every stream are multiplied by one common factor (found by a secant search, which
    is what the model's authors suggest: change the rush-hour gaps), and then pass through
    the daily cycle, so the cycle keeps its 24 h period. A last uniform scaling of the
    submit times (the SPEC section 2 load scaling, by a factor within 1e-8 of 1 for long
    traces) makes the load exact. In "mixed" the set of jobs (how many from each stream)
    is fixed at the model's rate before the search. Without `load`, arrivals come at the
    model's own rate, and the load then depends on `procs` (the "all" set offers about 0.7
    on 128 processors, 0.85 on 256).

    `seed` is normalised with `numpy.random.default_rng`: the same int gives the same
    workload bit for bit; a Generator is used (and advanced) as is; None draws fresh
    entropy. `start_time` (s) is midnight of the first simulated day: every submit time is
    offset by it.

    Ranges (`check_lublin_params`; ConfigError naming the argument otherwise): `jobs` 1 to
    `MAX_JOBS`, `procs` 1 to `MAX_PROCS`, `load` in (0, `MAX_LOAD`] and high enough that the
    last submit time stays within `MAX_TIME` (1e15 s), `start_time` 0 to `MAX_START_TIME`.
    """
    check_lublin_params(jobs, procs, seed, load=load, kind=kind, start_time=start_time)
    jobs, procs = int(jobs), int(procs)
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise ConfigError("seed", seed, _SEED_ALLOWED) from exc

    if kind == "mixed":
        # Each stream alone may supply every job, so draw `jobs` candidates from each.
        streams = [_draw_stream(rng, p, jobs, procs) for p in (BATCH, INTERACTIVE)]
    else:
        streams = [_draw_stream(rng, PARAMETER_SETS[kind], jobs, procs)]

    if load is None:
        offsets, sizes, runs, queues, _ = _merge(streams, jobs, 1.0)
    else:
        offsets, sizes, runs, queues = _fit_load(
            streams, jobs, procs, float(load), float(start_time)
        )

    submit = np.floor(offsets) + float(start_time)
    if not (np.isfinite(submit).all() and float(submit.max()) <= MAX_TIME):  # (a safeguard)
        raise ConfigError(
            "load" if load is not None else "jobs",
            load if load is not None else jobs,
            f"values that keep the submit times within {MAX_TIME:g} s",
        )
    header = _header(jobs, procs, seed, kind, load)
    return Workload.from_columns(
        submit_time=submit,
        run_time=runs.astype(np.float64),
        procs=sizes,
        queue_id=None if kind == "all" else queues,
        max_procs=procs,
        header=header,
        source=_source(jobs, procs, seed, kind, load),
    )


# -- one stream of jobs ----------------------------------------------------------------------
@dataclass(frozen=True)
class _Stream:
    """Jobs of one parameter set in arrival order, before placement on the clock.

    `rush` is the cumulated rush-hour time (s) at each arrival; `weights` the daily-cycle
    bucket weights that turn it into wall-clock time.
    """

    rush: FloatArray
    weights: FloatArray
    sizes: IntArray
    runs: IntArray
    queue: int


def _draw_stream(rng: np.random.Generator, params: LublinParams, n: int, procs: int) -> _Stream:
    """Draw n jobs of one parameter set (the order of draws is fixed: gaps, sizes, runs)."""
    log_gaps = _capped_gamma(rng, params.a_arr * params.arar, params.b_arr, LOG_GAP_CAP, n)
    rush = np.cumsum(np.exp(log_gaps))
    sizes = _draw_sizes(rng, params, n, procs)
    log_runs = _draw_log_runs(rng, params, sizes)
    runs = np.maximum(np.ceil(np.exp(log_runs)), 1.0).astype(np.int64)
    return _Stream(
        rush=rush,
        weights=_daily_weights(params.a_num, params.b_num),
        sizes=sizes,
        runs=runs,
        queue=params.queue,
    )


def _capped_gamma(
    rng: np.random.Generator, shape: float, scale: float, cap: float, n: int
) -> FloatArray:
    """n draws of Gamma(shape, scale) conditioned on being <= cap (redrawn above it)."""
    out = rng.gamma(shape, scale, n)
    bad = np.flatnonzero(out > cap)
    while bad.size:
        redo = rng.gamma(shape, scale, bad.size)
        out[bad] = redo
        bad = bad[redo > cap]
    return out


def _draw_sizes(rng: np.random.Generator, params: LublinParams, n: int, procs: int) -> IntArray:
    """Job sizes in 1..procs: serial, power of two, or round(2**u) of a two-stage uniform u."""
    low, med, hi = params.size_range(procs)
    kind_u = rng.random(n)  # one uniform picks serial / power of two / other, as published
    stage_u = rng.random(n)
    pos_u = rng.random(n)
    lower = stage_u <= params.u_prob
    u = np.where(lower, low + pos_u * (med - low), med + pos_u * (hi - med))
    serial = kind_u <= params.serial_prob
    pow2 = ~serial & (kind_u <= params.serial_prob + params.pow2_prob)
    # A power-of-two job rounds u first; on a machine that is not a power of two the rounded
    # exponent may overshoot, so it is capped at the widest power of two that fits.
    exponent = np.minimum(np.floor(u + 0.5), math.floor(math.log2(procs)))
    u = np.where(pow2, exponent, u)
    sizes = np.floor(np.exp2(u) + 0.5)
    sizes[serial] = 1.0
    return np.clip(sizes, 1, procs).astype(np.int64)


def _draw_log_runs(rng: np.random.Generator, params: LublinParams, sizes: IntArray) -> FloatArray:
    """log(run time / s) of each job from the hyper-gamma whose p depends on its size."""
    p = np.clip(params.pa * sizes + params.pb, 0.0, 1.0)
    out = np.empty(len(sizes))
    todo = np.arange(len(sizes))
    while todo.size:  # a rejected draw picks its gamma again, as in the published model
        first = rng.random(todo.size) <= p[todo]
        shape = np.where(first, params.a1, params.a2)
        scale = np.where(first, params.b1, params.b2)
        draw = rng.gamma(shape, scale)
        ok = draw <= LOG_RUN_TIME_CAP
        out[todo[ok]] = draw[ok]
        todo = todo[~ok]
    return out


# -- the daily cycle -------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _daily_weights(shape: float, scale: float) -> FloatArray:
    """Bucket weights (mean 1) from Gamma(shape, scale) over half-hour positions.

    Each bucket's probability is integrated with Simpson's rule on 64 panels, which is
    exact to about 1e-12 for these smooth densities (no special functions needed).
    """
    panels = 64
    positions = np.arange(CYCLE_FIRST, CYCLE_FIRST + BUCKETS, dtype=np.float64)
    offsets = np.linspace(-0.5, 0.5, panels + 1)
    x = positions[:, None] + offsets[None, :]
    log_pdf = (shape - 1.0) * np.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale)
    simpson = np.ones(panels + 1)
    simpson[1:-1:2] = 4.0
    simpson[2:-1:2] = 2.0
    mass = (np.exp(log_pdf) * simpson).sum(axis=1) / (3.0 * panels)
    buckets = (positions.astype(np.int64) - 1) % BUCKETS
    weights = np.empty(BUCKETS)
    weights[buckets] = mass
    weights /= weights.mean()
    weights.flags.writeable = False
    return weights


def _wall_clock(rush: FloatArray, weights: FloatArray) -> FloatArray:
    """Seconds after the first midnight at which the cumulated rush-hour time reaches `rush`.

    Rush-hour time passes at rate weights[b] during bucket b, so it is a piecewise-linear,
    increasing function of wall-clock time that gains exactly one day per day; this inverts it.
    """
    cum = np.concatenate(([0.0], np.cumsum(weights) * BUCKET_TIME))
    days = np.floor(rush / DAY_TIME)
    rest = rush - days * DAY_TIME
    bucket = np.clip(np.searchsorted(cum, rest, side="right") - 1, 0, BUCKETS - 1)
    wall = days * DAY_TIME + bucket * BUCKET_TIME + (rest - cum[bucket]) / weights[bucket]
    return np.maximum.accumulate(wall)  # guard against rounding at bucket edges


# -- placement on the clock and load fitting -------------------------------------------------
def _merge(
    streams: list[_Stream],
    jobs: int,
    rush_scale: float,
    counts: tuple[int, ...] | None = None,
) -> tuple[FloatArray, IntArray, IntArray, IntArray, tuple[int, ...]]:
    """Submit offsets (s, float), sizes, run times and queues of the first `jobs` arrivals.

    Rush-hour time is multiplied by `rush_scale` before the daily cycle is applied. If
    `counts` is given, stream i supplies exactly its first counts[i] jobs (used while fitting
    a load, so that the set of jobs, hence the work, stays fixed); the counts used are
    returned last. Arrivals at the same instant keep stream order (batch first).
    """
    times = [_wall_clock(s.rush * rush_scale, s.weights) for s in streams]
    if len(streams) == 1:
        s = streams[0]
        return times[0], s.sizes, s.runs, np.full(jobs, s.queue, dtype=np.int64), (jobs,)
    if counts is None:
        which = np.concatenate([np.full(len(t), i) for i, t in enumerate(times)])
        first = np.argsort(np.concatenate(times), kind="stable")[:jobs]
        counts = tuple(int(c) for c in np.bincount(which[first], minlength=len(streams)))
    all_times = np.concatenate([t[:c] for t, c in zip(times, counts, strict=True)])
    order = np.argsort(all_times, kind="stable")
    sizes = np.concatenate([s.sizes[:c] for s, c in zip(streams, counts, strict=True)])[order]
    runs = np.concatenate([s.runs[:c] for s, c in zip(streams, counts, strict=True)])[order]
    queues = np.concatenate(
        [np.full(c, s.queue, dtype=np.int64) for s, c in zip(streams, counts, strict=True)]
    )[order]
    return all_times[order], sizes, runs, queues, counts


def _offered_load(offsets: FloatArray, sizes: IntArray, runs: IntArray, procs: int) -> float:
    """sum(size x run) / (procs x submit span), as `Workload.offered_load` defines it."""
    span = float(offsets[-1] - offsets[0])
    work = float(np.dot(sizes.astype(np.float64), runs.astype(np.float64)))
    return work / (procs * span) if span > 0 else math.inf


def _fit_load(
    streams: list[_Stream], jobs: int, procs: int, load: float, start_time: float = 0.0
) -> tuple[FloatArray, IntArray, IntArray, IntArray]:
    """Place the jobs so that their offered load is `load` (see `generate_lublin`).

    The offered load is nearly proportional to 1 / rush_scale, so a secant search on
    log(rush_scale) for log(load) converges in a few steps. The set of jobs is fixed after
    the first step (which stream supplies how many), so the work is fixed and the search
    sees a continuous function. A final uniform scaling of the offsets makes the load exact;
    it is ~1 after the search, so it leaves the daily cycle in phase.
    """
    target = math.log(load)
    x0 = 0.0
    offsets, sizes, runs, queues, counts = _merge(streams, jobs, 1.0)
    natural = _offered_load(offsets, sizes, runs, procs)
    last = float(offsets[-1])
    if math.isfinite(natural) and last > 0:
        # Arrival offsets are inversely proportional to the load (the work is fixed): the
        # last one at `load` is last * natural / load, and must stay within MAX_TIME.
        lowest = last * natural / (MAX_TIME - start_time)
        if load < lowest:
            raise ConfigError(
                "load",
                load,
                f"a number from {lowest * 1.01:.3g} to {MAX_LOAD:g} for {jobs} jobs on "
                f"{procs} processors (a lower load spreads their submissions beyond "
                f"{MAX_TIME:g} s, where run times are lost to rounding)",
            )
    f0 = math.log(natural) - target
    x1 = x0 + f0  # load ~ 1 / scale: the first step is exact for long traces
    for _ in range(40):
        if abs(f0) < 1e-12:
            break
        offsets, sizes, runs, queues, counts = _merge(streams, jobs, math.exp(x1), counts)
        current = _offered_load(offsets, sizes, runs, procs)
        if not (math.isfinite(current) and current > 0):
            break
        f1 = math.log(current) - target
        if f1 == f0:
            break
        x0, x1, f0 = x1, x1 - f1 * (x1 - x0) / (f1 - f0), f1
        if not math.isfinite(x1):
            break
    current = _offered_load(offsets, sizes, runs, procs)
    if math.isfinite(current) and current > 0:
        offsets = offsets * (current / load)  # exact final correction
    return offsets, sizes, runs, queues


# -- validation and description --------------------------------------------------------------
_SEED_ALLOWED = "an integer seed >= 0"


def check_lublin_params(
    jobs: object,
    procs: object,
    seed: object = 0,
    *,
    load: object = None,
    kind: object = "batch",
    start_time: object = 0.0,
) -> None:
    """Raise ConfigError naming the first argument of `generate_lublin` out of its range.

    Nothing is drawn: this is what a model spec is checked with when it is read. The
    lowest allowed `load` depends on the jobs drawn, so `generate_lublin` checks it again.
    """
    n = check_int(
        "jobs",
        jobs,
        low=1,
        high=MAX_JOBS,
        allowed=f"an integer from 1 to {MAX_JOBS} (jobs to generate)",
    )
    check_max_procs(procs, "procs")
    if not isinstance(kind, str) or kind not in KINDS:
        raise ConfigError("kind", kind, KINDS)
    if load is not None:
        check_number(
            "load",
            load,
            low=0,
            open_low=True,
            high=MAX_LOAD,
            allowed=f"an offered load in (0, {MAX_LOAD:g}] (leave it out for the model's own "
            "arrival rate)",
        )
        if n < 2:
            raise ConfigError(
                "load", load, "left out when jobs < 2 (one job has no submit span to fit)"
            )
    check_seconds(
        "start_time",
        start_time,
        high=MAX_START_TIME,
        allowed=f"a number of seconds from 0 to {MAX_START_TIME:g}",
    )
    if is_int(seed):
        check_seed("seed", seed)
    elif seed is not None and not isinstance(  # (bools are refused here too)
        seed, np.random.Generator | np.random.BitGenerator | np.random.SeedSequence
    ):
        raise ConfigError("seed", seed, _SEED_ALLOWED)


def _seed_text(seed: int | np.random.Generator | None) -> str:
    if seed is None:
        return "None (fresh entropy, not reproducible)"
    if isinstance(seed, (int, np.integer)):
        return str(int(seed))
    return f"a caller's {type(seed).__name__} (reproducible only from its state)"


def _header(
    jobs: int, procs: int, seed: int | np.random.Generator | None, kind: str, load: float | None
) -> list[str]:
    """SWF header lines (without ';') in the style of the archive's generated traces."""
    rate = (
        "the model's arrival rate" if load is None else f"arrivals fitted to offered load {load:g}"
    )
    lines = [
        "Version: 2.2",
        "Computer: Lublin-Feitelson 2003 model (schedlab)",
        "Information: U. Lublin, D. G. Feitelson, J. Parallel Distrib. Comput. 63(11), 2003",
        f"MaxJobs: {jobs}",
        f"MaxRecords: {jobs}",
        f"MaxProcs: {procs}",
        f"MaxNodes: {procs}",
        f"MaxRuntime: {MAX_RUN_TIME}",
    ]
    if kind != "all":
        lines.append("Queues: 0 interactive, 1 batch")
    lines.append(f"Note: generated with seed {_seed_text(seed)}, kind {kind}, {rate}")
    return lines


def _source(
    jobs: int, procs: int, seed: int | np.random.Generator | None, kind: str, load: float | None
) -> str:
    """A model spec naming this workload, e.g. `lublin:jobs=100,procs=128,seed=1`."""
    parts = [f"jobs={jobs}", f"procs={procs}"]
    if seed is None or isinstance(seed, (int, np.integer)):
        parts.append(f"seed={seed}")
    if kind != "batch":
        parts.append(f"kind={kind}")
    if load is not None:
        parts.append(f"load={load:g}")
    return "lublin:" + ",".join(parts)
