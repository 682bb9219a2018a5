"""User run-time estimates after the Tsafrir-Etsion-Feitelson 2005 model (SPEC section 2).

Model: D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling User Runtime Estimates", Job
Scheduling Strategies for Parallel Processing (JSSPP 2005), LNCS 3834, pp. 1-35. Workload
models (Lublin-Feitelson, ...) and some traces have no user estimates (SWF field 9 is -1),
so a simulator falls back to perfect estimates (the run time), which flatters backfilling.
The model adds realistic estimates to such a workload. This module was written here from
the model's published principles; the paper's fitted tables were not available when it was
written, so the procedure below is designed from those principles and every number in it
is a documented default of this module, not a value fitted by the authors.

Principles (what the model reproduces)
--------------------------------------
* Estimates are **modal**: a small number N of distinct values is used by the vast
  majority of jobs (about 20 values for a log of 100k jobs, fewer for smaller logs).
* The values are **round** human durations (1, 5, 10, 15, 30 minutes, 1, 2, 4, 12, 24,
  48 hours, ...), capped by the site's **maximal allowed estimate** Emax.
* **Emax is the single most popular value**: a sizeable fraction of the jobs (10-25 % in
  the logs) simply ask for the limit.
* The popularity of the other values decreases from value to value.
* Every estimate bounds the job's run time (batch systems kill a job at its estimate, so
  the jobs of a log all ran within it). Short jobs therefore often carry long estimates
  and the **accuracy** run / estimate is spread widely, with many short jobs badly
  over-estimated: the property that matters to backfilling schedulers.

Procedure (all times in seconds)
--------------------------------
1. **Emax**. `max_estimate` if given. Otherwise a bound B is taken from the workload:
   the header's `MaxRuntime` (the SWF "maximal run time allowed") when it parses as a
   number > 0 (and at most 1e15 s: larger is a corrupt header), else the longest run time
   of the workload (all its jobs, not only the ones that receive estimates). Emax is the
   smallest value of `round_values` that is >= B; when B is above the whole list, B
   rounded up to a whole hour. (The Lublin generator
   writes `MaxRuntime: 162755`, so Lublin workloads get Emax = 48 h; the KTH SP2 log,
   whose header has no MaxRuntime and whose longest job ran 60 h, gets Emax = 60 h, which
   is the limit its own estimates show.)
2. **N**, the number of modal values including Emax: `values` if given, else
   N = max(1, round(4 log10(n))) with n the number of jobs that receive an estimate. The
   rule gives 20 values at 100 000 jobs (the size of the logs the model was built on),
   17 at 20 000, 12 at 1 000 and 8 at 100: fewer values for small workloads, growing
   slowly with their size. N is capped at 1 + the number of `round_values` below Emax.
3. **Which values**. The N - 1 values besides Emax are drawn one after the other, without
   replacement, from the `round_values` below Emax; the i-th shortest of those candidates
   (i = 1, 2, ...) is drawn with weight i^(-`short_bias`), so short values are more likely
   to be included (all are equally likely with `short_bias` = 0). Implemented with one
   uniform u per candidate and the key log(u) / weight, the N - 1 largest keys winning
   (Efraimidis-Spirakis weighted sampling).
4. **Popularity**. Emax has rank 1; the other chosen values get ranks 2, 3, ... by
   increasing value and the weight r^(-`zipf_exponent`) (a Zipf law, exponent 1 by
   default): popularity decreases along the values. Ranks by increasing value rather than
   by a random order, because a value is only eligible for the jobs it bounds: a long
   value is eligible for almost every job, so with a high rank it collected 20-40 % of the
   jobs of a Lublin workload in trials, far more than Emax; ranked by value, the weight
   favours short values for short jobs, as in the logs (5, 10, 15, 20, 30 minutes are
   among their most popular values).
5. **Assignment**, independently per job with run time t:
   - t > Emax (possible when Emax comes from `max_estimate` or from the header): the
     estimate is t rounded up to a whole minute. Such a job overran the limit; no model
     value bounds it, so it keeps the smallest whole-minute estimate that does.
   - else, with probability `max_fraction` the estimate is Emax;
   - else it is drawn among the chosen values >= t (Emax excluded: it has its share
     already) with probabilities proportional to their popularity weights; when no chosen
     value is >= t, the estimate is Emax.
6. **Emax stays the mode**. The jobs whose run times fall between two consecutive chosen
   values can only use the upper one (or a longer one), so a value just above a dense
   range of run times can still end up with more jobs than Emax (Lublin run times cluster
   between 3 and 12 hours). Then the smallest number of jobs is moved from such values to
   Emax (a random choice among each value's jobs) that leaves Emax strictly the most
   popular: every other value is capped at the largest count L below Emax's new count.
   On a 20 000-job Lublin workload this moved jobs with 7 seeds out of 100, at most 1.6 %
   of the jobs.
   Emax's share of the jobs is thus `max_fraction`, plus the share of the other jobs
   longer than every other chosen value, plus what step 6 moves: 0.15-0.18 with the
   defaults on a 20 000-job Lublin workload (mean 0.154 over 50 seeds).

Defaults and why: `max_fraction` = 0.15, in the middle of the 10-25 % the model's authors
report for Emax's popularity; `zipf_exponent` = 1 (the classic Zipf law); `short_bias` =
1, which includes most of the minute values (8.4 of the 10 on average for 17 values on
a Lublin workload; they are the most popular in the logs) and 7.6 of the 18 hour values
below 48 h; with these, the median accuracy of a 20 000-job
Lublin workload is about 0.2 (see docs/estimates.md for figures); the round values below,
human durations that dominate the logs of the Parallel Workloads Archive. Every estimate
the defaults produce is a whole number of minutes.

What is not modelled: the logs also have a tail of rarely used, non-round estimates (the
KTH SP2 log uses 270 distinct values, its 20 most popular covering 75 % of its jobs); the
procedure above puts every job on one of the N modal values (or on its own run time
rounded up to a minute when it is longer than Emax). Estimates are independent of the
job's user and size, as the principles above say nothing about them.

Randomness: `seed` is normalised with `numpy.random.default_rng` and the draws are made
in a fixed order (one key per candidate value, then three uniforms per job: the Emax
choice, the value choice and the order of the moves of step 6), so the same seed gives
the same estimates bit for bit. numpy's global random state is never used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from schedlab.errors import ConfigError
from schedlab.validators import check_fraction, check_int, check_number, check_seconds, is_finite
from schedlab.workload.job import MAX_TIME, F, Workload

__all__ = [
    "MAX_ESTIMATE",
    "MAX_EXPONENT",
    "ROUND_VALUES",
    "TsafrirParams",
    "add_estimates",
    "default_max_estimate",
    "default_values",
    "estimate_summary",
]

FloatArray = npt.NDArray[np.float64]

_MIN = 60.0
_HOUR = 3600.0

# Canonical round durations: the human values estimates are made of.
_ROUND_MINUTES = (1, 2, 3, 5, 10, 15, 20, 30, 40, 45)
_ROUND_HOURS = (1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 18, 20, 24, 30, 36, 48, 60, 72)
_ROUND_DAYS = (4, 5, 6, 7, 10, 14, 30)
ROUND_VALUES: tuple[float, ...] = (
    tuple(m * _MIN for m in _ROUND_MINUTES)
    + tuple(h * _HOUR for h in _ROUND_HOURS)
    + tuple(d * 24 * _HOUR for d in _ROUND_DAYS)
)  # seconds, increasing


# Ranges of the parameters. Estimates are durations a batch system accepts: up to 1e9 s
# (about 31 years) keeps every end time exact to well below a second. Exponents up to 100
# keep every weight i**-s of the (at most a few dozen) values a normal float.
MAX_ESTIMATE = 1e9
MAX_EXPONENT = 100.0
_SEED_ALLOWED = "an integer seed >= 0"


@dataclass(frozen=True)
class TsafrirParams:
    """Parameters of the estimate model (module docstring: procedure and defaults).

    `max_estimate`: Emax in seconds, None to derive it from the workload (step 1).
    `values`: number N of modal values including Emax, None for max(1, round(4 log10 n)).
    `max_fraction`: probability that a job (not longer than Emax) asks for Emax directly.
    `zipf_exponent`: the value of popularity rank r (Emax is rank 1) has weight r**-s.
    `short_bias`: the i-th shortest candidate value is chosen with weight i**-b.
    `round_values`: the candidate round durations (s), any order.
    """

    max_estimate: float | None = None
    values: int | None = None
    max_fraction: float = 0.15
    zipf_exponent: float = 1.0
    short_bias: float = 1.0
    round_values: tuple[float, ...] = ROUND_VALUES

    def __post_init__(self) -> None:
        if self.max_estimate is not None:
            check_seconds(
                "max_estimate",
                self.max_estimate,
                positive=True,
                high=MAX_ESTIMATE,
                allowed=f"a number of seconds in (0, {MAX_ESTIMATE:g}] (leave it out to derive "
                "it from the workload)",
            )
        if self.values is not None:
            check_int(
                "values",
                self.values,
                low=1,
                allowed="an integer >= 1 (leave it out for max(1, round(4 log10 jobs)))",
            )
        check_fraction("max_fraction", self.max_fraction)
        exponent = f"a number from 0 to {MAX_EXPONENT:g}"
        check_number(
            "zipf_exponent", self.zipf_exponent, low=0, high=MAX_EXPONENT, allowed=exponent
        )
        check_number("short_bias", self.short_bias, low=0, high=MAX_EXPONENT, allowed=exponent)
        allowed = f"a non-empty collection of numbers of seconds in (0, {MAX_ESTIMATE:g}]"
        rv = self.round_values
        if isinstance(rv, str | bytes):
            raise ConfigError("round_values", rv, allowed)
        try:
            items = list(rv)
        except TypeError:
            raise ConfigError("round_values", rv, allowed) from None
        if not items or not all(is_finite(v) and 0 < v <= MAX_ESTIMATE for v in items):
            raise ConfigError("round_values", rv, allowed)
        object.__setattr__(self, "round_values", tuple(sorted({float(v) for v in items})))


def default_values(jobs: int) -> int:
    """N for a workload of `jobs` estimated jobs: max(1, round(4 log10(jobs)))."""
    if jobs < 1:
        return 1
    return max(1, round(4.0 * math.log10(jobs)))


def _header_max_runtime(workload: Workload) -> float | None:
    text = workload.header_values.get("MaxRuntime")
    if text is None:
        return None
    try:
        value = float(text.split()[0]) if text.split() else float("nan")
    except ValueError:
        return None
    # (a value beyond MAX_TIME, 1e15 s, is not a run-time limit but a corrupt header)
    return value if math.isfinite(value) and 0 < value <= MAX_TIME else None


def default_max_estimate(
    workload: Workload, round_values: tuple[float, ...] = ROUND_VALUES
) -> float:
    """Emax when `max_estimate` is None (module docstring, step 1)."""
    bound = _header_max_runtime(workload)
    if bound is None:
        run = workload.fields[:, F["run_time"]]
        run = run[np.isfinite(run)]
        bound = float(run.max()) if run.size else 0.0
    values = sorted(float(v) for v in round_values)
    for v in values:
        if v >= bound:
            return v
    return math.ceil(bound / _HOUR) * _HOUR


def _make_params(params: dict[str, Any]) -> TsafrirParams:
    names = [f.name for f in fields(TsafrirParams)]
    for key, value in params.items():
        if key not in names:
            raise ConfigError(key, value, f"an option of the estimate model: {', '.join(names)}")
    return TsafrirParams(**params)


def add_estimates(
    workload: Workload,
    *,
    seed: int | np.random.Generator | None,
    only_missing: bool = True,
    **params: Any,
) -> Workload:
    """A copy of `workload` with model user estimates in SWF field 9 (requested time).

    Jobs whose field 9 is <= 0 (unknown) get an estimate; with `only_missing=False` every
    job does (existing estimates are replaced). Other fields are unchanged and `workload`
    is left untouched. `params` are the fields of `TsafrirParams` (`max_estimate`,
    `values`, `max_fraction`, `zipf_exponent`, `short_bias`, `round_values`); an unknown
    name or a value out of range raises `ConfigError` naming it. `seed`: an int (the same
    int gives the same estimates bit for bit), a `numpy.random.Generator` (used and
    advanced as is) or None (fresh entropy).
    """
    p = _make_params(params)
    if not isinstance(only_missing, bool | np.bool_):
        raise ConfigError("only_missing", only_missing, "True or False")
    if isinstance(seed, bool | np.bool_ | float | str | bytes):
        raise ConfigError("seed", seed, _SEED_ALLOWED)
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise ConfigError("seed", seed, _SEED_ALLOWED) from exc

    out = workload.fields.copy()
    requested = out[:, F["requested_time"]]
    target = ~(requested > 0) if only_missing else np.ones(len(requested), dtype=bool)
    n = int(target.sum())
    if n == 0:
        return workload.with_fields(out)

    emax = (
        float(p.max_estimate)
        if p.max_estimate is not None
        else default_max_estimate(workload, p.round_values)
    )
    n_values = default_values(n) if p.values is None else int(p.values)

    # Step 3: the other modal values (weighted draws without replacement, by sorting one
    # key per candidate), then step 4: popularity weights by increasing value.
    candidates = np.array([v for v in p.round_values if v < emax], dtype=np.float64)
    n_other = min(n_values - 1, candidates.size)
    keys = np.log1p(-rng.random(candidates.size))  # log of uniforms in (0, 1]
    keys /= np.arange(1, candidates.size + 1, dtype=np.float64) ** -p.short_bias
    values = np.sort(candidates[np.argsort(-keys, kind="stable")[:n_other]])
    weight = np.arange(2, n_other + 2, dtype=np.float64) ** -p.zipf_exponent
    # tail[j] = sum of weight[j:], summed from the smallest weights up (tail[n_other] = 0):
    # exact enough for steep laws, where a running sum from the front would swamp them.
    tail = np.concatenate((np.cumsum(weight[::-1])[::-1], [0.0]))

    # Step 5: assignment; `slot` is the index of the job's value, n_other for Emax.
    run = out[target, F["run_time"]]
    pick_max = rng.random(n) < p.max_fraction
    u = rng.random(n)
    shuffle_keys = rng.random(n)
    first = np.searchsorted(values, run, side="left")  # first chosen value >= run
    slot = np.full(n, n_other, dtype=np.int64)
    if n_other:
        # Value k >= first with probability weight[k] / tail[first]: the smallest k with
        # tail[k + 1] < (1 - u) tail[first] (tail decreases, so search its negation).
        rest = (1.0 - u) * tail[first]
        drawn = np.searchsorted(-tail, -rest, side="right") - 1
        drawn = np.clip(np.maximum(drawn, first), 0, n_other - 1)
        use = ~pick_max & (first < n_other)
        slot[use] = drawn[use]
    over = run > emax
    slot[over] = -1
    _keep_max_on_top(slot, n_other, shuffle_keys)
    estimate = np.full(n, emax)
    modal = (slot >= 0) & (slot < n_other)
    estimate[modal] = values[slot[modal]]
    estimate[over] = np.ceil(run[over] / _MIN) * _MIN
    requested[target] = estimate
    return workload.with_fields(out)


def _keep_max_on_top(slot: npt.NDArray[np.int64], n_other: int, keys: FloatArray) -> None:
    """Step 6: move jobs from values more popular than Emax to Emax, in place.

    `slot` holds each job's value index (n_other = Emax, -1 = over Emax, untouched). The
    level L is the largest count such that capping every other value at L and moving the
    excess (the jobs with the smallest `keys`, a random choice) to Emax leaves Emax with
    more than L jobs.
    """
    if n_other == 0:
        return
    counts = np.bincount(slot[slot >= 0], minlength=n_other + 1)
    emax_count, others = int(counts[n_other]), counts[:n_other]
    if others.max(initial=0) < emax_count:
        return
    lo, hi = 0, int(others.max())  # g(L) = Emax count after capping - L, decreasing in L
    while lo < hi:
        level = (lo + hi + 1) // 2
        if emax_count + int(np.maximum(others - level, 0).sum()) > level:
            lo = level
        else:
            hi = level - 1
    for k in np.flatnonzero(others > lo):
        jobs = np.flatnonzero(slot == k)
        move = jobs[np.argsort(keys[jobs], kind="stable")[: int(others[k]) - lo]]
        slot[move] = n_other


def estimate_summary(workload: Workload, *, max_estimate: float | None = None) -> dict[str, Any]:
    """Figures of the estimates (field 9) of `workload`, over the jobs that have one (> 0).

    Keys: `jobs` (jobs with an estimate), `distinct` (distinct estimate values),
    `top20_share` (share of those jobs using the 20 most popular values), `max_estimate`
    (Emax: the argument, else the largest estimate), `max_share` (share of jobs whose
    estimate is Emax), `max_rank` (popularity rank of Emax, 1 = most popular),
    `most_popular` (the most used value), `median_accuracy` (median of run / estimate over
    the jobs with a run time > 0; NaN when there is none) and `over_run` (share of jobs
    whose run time exceeds their estimate).
    """
    req = workload.fields[:, F["requested_time"]]
    run = workload.fields[:, F["run_time"]]
    has = req > 0
    req = req[has]
    run = run[has]
    n = int(req.size)
    if n == 0:
        return {
            "jobs": 0,
            "distinct": 0,
            "top20_share": float("nan"),
            "max_estimate": float("nan"),
            "max_share": float("nan"),
            "max_rank": 0,
            "most_popular": float("nan"),
            "median_accuracy": float("nan"),
            "over_run": float("nan"),
        }
    vals, counts = np.unique(req, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    emax = float(vals[-1]) if max_estimate is None else float(max_estimate)
    emax_count = int(counts[vals == emax].sum())
    rank = 1 + int(np.count_nonzero(counts > emax_count)) if emax_count else 0
    ran = run > 0
    return {
        "jobs": n,
        "distinct": int(vals.size),
        "top20_share": float(counts[order[:20]].sum()) / n,
        "max_estimate": emax,
        "max_share": emax_count / n,
        "max_rank": rank,
        "most_popular": float(vals[order[0]]),
        "median_accuracy": float(np.median(run[ran] / req[ran])) if ran.any() else float("nan"),
        "over_run": float(np.count_nonzero(run > req)) / n,
    }
