"""Unit tests of the Lublin-Feitelson 2003 model generator (SPEC section 2).

Expected values are derived here from the published parameters (restated below for a
128-processor machine, the machine they were published for) with a small numerical
quadrature, independently of the generator's code.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import ConfigError
from schedlab.workload.job import Workload
from schedlab.workload.models.lublin import (
    ALL,
    BATCH,
    INTERACTIVE,
    LublinParams,
    generate_lublin,
)

WORKLOADS = Path(__file__).resolve().parents[2].parent / "shared" / "workloads"
N = 20_000

# Published two-stage-uniform bounds (u_low, u_med, u_hi) for 128 processors.
PUBLISHED_128 = {"batch": (1.2, 5.0, 7.0), "interactive": (1.0, 3.0, 5.5), "all": (0.8, 4.5, 7.0)}


# -- helpers ---------------------------------------------------------------------------------
def gamma_moment_exp(shape: float, scale: float, cap: float, k: float) -> float:
    """E[exp(k G) | G <= cap] for G ~ Gamma(shape, scale), by trapezoidal quadrature."""
    x = np.linspace(1e-9, cap, 400_001)
    log_pdf = (shape - 1) * np.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale)
    pdf = np.exp(log_pdf)
    dx = x[1] - x[0]
    mass = float(np.sum((pdf[1:] + pdf[:-1]) / 2) * dx)
    f = np.exp(k * x) * pdf
    return float(np.sum((f[1:] + f[:-1]) / 2) * dx) / mass


def gamma_mean_capped(shape: float, scale: float, cap: float) -> float:
    """E[G | G <= cap] for G ~ Gamma(shape, scale), by quadrature."""
    x = np.linspace(1e-9, cap, 400_001)
    log_pdf = (shape - 1) * np.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale)
    pdf = np.exp(log_pdf)
    return float(np.sum(x * pdf) / np.sum(pdf))


def two_stage_cdf(x: float, low: float, med: float, hi: float, prob: float) -> float:
    """CDF of the two-stage uniform: U[low, med] with probability prob, else U[med, hi]."""

    def uni(a: float, b: float) -> float:
        return min(max((x - a) / (b - a), 0.0), 1.0)

    return prob * uni(low, med) + (1 - prob) * uni(med, hi)


def expected_pow2_fraction(params: LublinParams, kind: str) -> float:
    """Fraction of all jobs with a power-of-two size >= 2 on 128 processors.

    Forced powers of two (pow2_prob) plus the "other" parallel jobs whose round(2**u)
    happens to be a power of two: 2**k - 0.5 <= 2**u < 2**k + 0.5.
    """
    low, med, hi = PUBLISHED_128[kind]
    hit = sum(
        two_stage_cdf(math.log2(2**k + 0.5), low, med, hi, params.u_prob)
        - two_stage_cdf(math.log2(2**k - 0.5), low, med, hi, params.u_prob)
        for k in range(1, 8)
    )
    other = 1 - params.serial_prob - params.pow2_prob
    return params.pow2_prob + other * hit


def is_pow2(sizes: np.ndarray) -> np.ndarray:
    """Sizes >= 2 that are powers of two."""
    s = sizes.astype(np.int64)
    return (s > 1) & ((s & (s - 1)) == 0)


def read_trace(name: str) -> np.ndarray:
    """Job lines of a gzipped SWF file as an (n, 18) array (header lines skipped)."""
    with gzip.open(WORKLOADS / name, "rt") as fh:
        return np.loadtxt(fh, comments=";", ndmin=2)


def half_hour_shares(submit: np.ndarray, start: float = 0.0) -> np.ndarray:
    """Share of submissions in each half-hour bucket of the day (day starts at `start`)."""
    buckets = (((submit - start) % 86_400) // 1800).astype(np.int64)
    return np.bincount(buckets, minlength=48) / len(submit)


@pytest.fixture(scope="module")
def batch128() -> Workload:
    """20 000 batch jobs on 128 processors, seed 1 (shared by the statistical tests)."""
    return generate_lublin(N, 128, seed=1)


# -- determinism -----------------------------------------------------------------------------
def test_same_seed_gives_identical_workload() -> None:
    """The same int seed gives the same SWF fields and header, bit for bit."""
    a = generate_lublin(2000, 256, seed=42, kind="mixed")
    b = generate_lublin(2000, 256, seed=42, kind="mixed")
    assert np.array_equal(a.fields, b.fields)
    assert a.header == b.header


def test_different_seeds_differ() -> None:
    """Different seeds give different sizes, run times and submit times."""
    a = generate_lublin(2000, 256, seed=1)
    b = generate_lublin(2000, 256, seed=2)
    assert not np.array_equal(a.procs, b.procs)
    assert not np.array_equal(a.run_time, b.run_time)
    assert not np.array_equal(a.submit_time, b.submit_time)


def test_generator_seed_is_used_as_is() -> None:
    """A numpy Generator seeded with s gives the same workload as the int seed s."""
    a = generate_lublin(500, 64, seed=np.random.default_rng(9), kind="all")
    b = generate_lublin(500, 64, seed=9, kind="all")
    assert np.array_equal(a.fields, b.fields)


def test_global_random_state_untouched() -> None:
    """Generating never draws from or reseeds numpy's global random state."""
    before = np.random.get_state(legacy=False)
    generate_lublin(1000, 128, seed=3, kind="mixed", load=0.7)
    generate_lublin(10, 128, seed=None)
    after = np.random.get_state(legacy=False)
    assert np.array_equal(before["state"]["key"], after["state"]["key"])
    assert before["state"]["pos"] == after["state"]["pos"]
    assert (before["has_gauss"], before["gauss"]) == (after["has_gauss"], after["gauss"])


# -- structural guarantees -------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["batch", "interactive", "mixed", "all"])
@pytest.mark.parametrize("procs", [1, 2, 3, 100, 128, 1000])
def test_jobs_are_valid_swf_jobs(kind: str, procs: int) -> None:
    """Sizes lie in [1, procs]; run times and submit times are whole seconds; submits sorted."""
    w = generate_lublin(3000, procs, seed=5, kind=kind)
    assert len(w) == 3000 and w.total_skipped == 0
    assert w.max_procs == procs
    assert w.procs.min() >= 1 and w.procs.max() <= procs
    assert np.all(w.run_time >= 1) and np.all(w.run_time == np.round(w.run_time))
    assert np.all(w.run_time <= math.ceil(math.exp(12)))
    assert np.all(np.diff(w.submit_time) >= 0)
    assert np.all(w.submit_time == np.round(w.submit_time)) and w.submit_time[0] >= 0
    assert np.all(w.column("requested_time") == -1)  # readers fall back on the run time
    assert np.array_equal(w.requested_time, w.run_time)
    assert np.array_equal(w.job_id, np.arange(1, 3001))


def test_power_of_two_jobs_fit_a_machine_that_is_not_a_power_of_two() -> None:
    """On 100 processors the widest power-of-two job is 64, and some jobs use all 100."""
    w = generate_lublin(N, 100, seed=2, kind="all")
    assert w.procs.max() <= 100
    assert not np.any(w.procs == 128)
    assert np.any(w.procs > 64)


def test_start_time_offsets_every_submission() -> None:
    """start_time shifts every submit time by the same amount (it is the first midnight)."""
    a = generate_lublin(500, 128, seed=4)
    b = generate_lublin(500, 128, seed=4, start_time=1_000_000.0)
    assert np.array_equal(b.submit_time - a.submit_time, np.full(500, 1_000_000.0))
    assert np.array_equal(a.run_time, b.run_time)


def test_header_and_source() -> None:
    """The header has the lines of the archive's generated traces and names the seed."""
    w = generate_lublin(300, 256, seed=11, kind="mixed", load=0.8)
    h = w.header_values
    assert h["Version"] == "2.2"
    assert h["Computer"] == "Lublin-Feitelson 2003 model (schedlab)"
    assert h["MaxProcs"] == h["MaxNodes"] == "256"
    assert h["MaxJobs"] == h["MaxRecords"] == "300"
    assert h["Note"].startswith("generated with seed 11")
    assert "kind mixed" in h["Note"] and "0.8" in h["Note"]
    assert w.source == "lublin:jobs=300,procs=256,seed=11,kind=mixed,load=0.8"


def test_queues_mark_batch_and_interactive_jobs() -> None:
    """Batch jobs are in SWF queue 1, interactive in queue 0, untyped ("all") jobs in -1."""
    assert set(generate_lublin(200, 64, kind="batch").queue_id) == {1}
    assert set(generate_lublin(200, 64, kind="interactive").queue_id) == {0}
    assert set(generate_lublin(200, 64, kind="all").queue_id) == {-1}
    assert set(generate_lublin(2000, 64, kind="mixed").queue_id) == {0, 1}


# -- the model's distributions ---------------------------------------------------------------
@pytest.mark.parametrize("params", [BATCH, INTERACTIVE, ALL], ids=lambda p: p.name)
def test_serial_fraction_matches_model(params: LublinParams) -> None:
    """The share of serial jobs is serial_prob (0.2927 batch, 0.1541 interactive, 0.244 all)."""
    w = generate_lublin(N, 128, seed=6, kind=params.name)
    frac = float(np.mean(w.procs == 1))
    sd = math.sqrt(params.serial_prob * (1 - params.serial_prob) / N)
    assert abs(frac - params.serial_prob) < 4 * sd


@pytest.mark.parametrize("params", [BATCH, INTERACTIVE, ALL], ids=lambda p: p.name)
def test_power_of_two_fraction_matches_model(params: LublinParams) -> None:
    """Power-of-two sizes: pow2_prob plus the other parallel jobs that round onto 2**k.

    Expected on 128 processors: batch 0.672, interactive 0.689, all 0.621.
    """
    expected = expected_pow2_fraction(params, params.name)
    w = generate_lublin(N, 128, seed=7, kind=params.name)
    frac = float(np.mean(is_pow2(w.procs)))
    sd = math.sqrt(expected * (1 - expected) / N)
    assert abs(frac - expected) < 4 * sd


def test_mean_log_run_time_of_serial_batch_jobs(batch128: Workload) -> None:
    """log(run) of serial batch jobs has the hyper-gamma mean with p = pa + pb = 0.6956.

    Expected 0.6956 x E[G1 | G1 <= 12] + 0.3044 x E[G2 | G2 <= 12] = 6.76 (G1 ~ Gamma(6.57,
    0.823), G2 ~ Gamma(639.1, 0.0156); 6.80 without the cap at 12); rounding run times up
    adds about 0.01.
    """
    p = BATCH.pa * 1 + BATCH.pb
    expected = p * gamma_mean_capped(BATCH.a1, BATCH.b1, 12) + (1 - p) * gamma_mean_capped(
        BATCH.a2, BATCH.b2, 12
    )
    assert expected == pytest.approx(6.76, abs=0.01)
    w = batch128
    serial = w.procs == 1
    got = float(np.mean(np.log(w.run_time[serial])))
    assert got == pytest.approx(expected, abs=0.15)


def test_mean_run_time_of_serial_batch_jobs(batch128: Workload) -> None:
    """Mean run time of serial batch jobs is about 8 660 s.

    0.6956 x E[exp(G1) | G1 <= 12] (2 327 s) + 0.3044 x E[exp(G2) | G2 <= 12] (23 122 s).
    """
    p = BATCH.pa * 1 + BATCH.pb
    e1 = gamma_moment_exp(BATCH.a1, BATCH.b1, 12, 1)
    e2 = gamma_moment_exp(BATCH.a2, BATCH.b2, 12, 1)
    expected = p * e1 + (1 - p) * e2
    assert expected == pytest.approx(8_657, rel=0.01)
    w = batch128
    got = float(np.mean(w.run_time[w.procs == 1]))
    assert got == pytest.approx(expected, rel=0.15)


def test_wider_jobs_run_longer(batch128: Workload) -> None:
    """pa < 0 correlates size and run time: jobs of >= 64 processors run longer than serial."""
    w = batch128
    log_run = np.log(w.run_time)
    wide = w.procs >= 64
    assert wide.sum() > 100
    assert log_run[wide].mean() > log_run[w.procs == 1].mean() + 1.0


def test_mean_interarrival_time_of_batch_jobs(batch128: Workload) -> None:
    """Mean gap of batch arrivals is E[exp(g) | g <= 13] = 3 517 s, g ~ Gamma(6.355, 0.8531).

    The daily cycle only redistributes arrivals within each day, so it keeps the mean; the
    gap is heavy-tailed (CV about 5.8, so the standard error on 20 000 jobs is about 4 %).
    """
    expected = gamma_moment_exp(BATCH.a_arr * BATCH.arar, BATCH.b_arr, 13, 1)
    assert expected == pytest.approx(3_517, rel=0.01)
    got = float(np.mean(np.diff(batch128.submit_time)))
    assert got == pytest.approx(expected, rel=0.2)


def test_mixed_stream_share_follows_arrival_rates() -> None:
    """In "mixed", batch jobs are about 15 % of arrivals: rate 1/3 517 s vs 1/619 s."""
    rate_b = 1 / gamma_moment_exp(BATCH.a_arr * BATCH.arar, BATCH.b_arr, 13, 1)
    rate_i = 1 / gamma_moment_exp(INTERACTIVE.a_arr * INTERACTIVE.arar, INTERACTIVE.b_arr, 13, 1)
    expected = rate_b / (rate_b + rate_i)
    w = generate_lublin(N, 128, seed=8, kind="mixed")
    share = float(np.mean(w.queue_id == 1))
    assert share == pytest.approx(expected, abs=0.04)


@pytest.mark.parametrize("params", [BATCH, ALL], ids=lambda p: p.name)
def test_arrivals_follow_the_daily_cycle(params: LublinParams) -> None:
    """The share of arrivals in each half hour follows the model's daily weights."""
    weights = params.daily_weights()
    assert weights.mean() == pytest.approx(1.0)
    assert 24 <= int(np.argmax(weights)) <= 32  # the peak is in the early afternoon
    w = generate_lublin(N, 128, seed=9, kind=params.name, start_time=7 * 86_400.0)
    shares = half_hour_shares(w.submit_time, start=7 * 86_400.0)
    assert np.abs(shares - weights / 48).sum() < 0.12


def test_daily_weights_are_gamma_bucket_probabilities() -> None:
    """Bucket b has the Gamma(a_num, b_num) mass of [c - 0.5, c + 0.5], c = b+1 (or b+49)."""
    stats = pytest.importorskip("scipy.stats")
    for params in (BATCH, INTERACTIVE, ALL):
        c = np.array([b + 1 if b + 1 >= 11 else b + 49 for b in range(48)], dtype=float)
        dist = stats.gamma(params.a_num, scale=params.b_num)
        mass = dist.cdf(c + 0.5) - dist.cdf(c - 0.5)
        np.testing.assert_allclose(params.daily_weights(), mass / mass.mean(), rtol=1e-9)


# -- load ------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["batch", "mixed", "all"])
@pytest.mark.parametrize("load", [0.5, 0.9, 1.3])
def test_load_is_hit(kind: str, load: float) -> None:
    """With load=L the offered load sum(procs x run) / (P x submit span) is L within 1 %."""
    w = generate_lublin(N, 256, seed=10, kind=kind, load=load)
    assert w.offered_load() == pytest.approx(load, rel=0.01)


def test_load_keeps_the_jobs_and_the_daily_cycle() -> None:
    """load= only moves arrivals: same sizes and run times, and the 24 h cycle is kept."""
    plain = generate_lublin(N, 128, seed=12, kind="all")
    loaded = generate_lublin(N, 128, seed=12, kind="all", load=1.5)
    assert np.array_equal(plain.procs, loaded.procs)
    assert np.array_equal(plain.run_time, loaded.run_time)
    assert loaded.offered_load() == pytest.approx(1.5, rel=0.01)
    shares = half_hour_shares(loaded.submit_time)
    assert np.abs(shares - ALL.daily_weights() / 48).sum() < 0.12


def test_small_workload_load_is_hit() -> None:
    """Even 50 jobs (a span of hours) get the requested load within 1 %."""
    w = generate_lublin(50, 64, seed=13, load=0.6)
    assert w.offered_load() == pytest.approx(0.6, rel=0.01)


# -- validation ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"jobs": 0, "procs": 10}, "jobs"),
        ({"jobs": -5, "procs": 10}, "jobs"),
        ({"jobs": 2.5, "procs": 10}, "jobs"),
        ({"jobs": True, "procs": 10}, "jobs"),
        ({"jobs": 10, "procs": 0}, "procs"),
        ({"jobs": 10, "procs": "8"}, "procs"),
        ({"jobs": 10, "procs": 8, "load": 0.0}, "load"),
        ({"jobs": 10, "procs": 8, "load": -1.0}, "load"),
        ({"jobs": 10, "procs": 8, "load": float("nan")}, "load"),
        ({"jobs": 10, "procs": 8, "load": float("inf")}, "load"),
        ({"jobs": 1, "procs": 8, "load": 0.5}, "load"),
        ({"jobs": 10, "procs": 8, "kind": "weekend"}, "kind"),
        ({"jobs": 10, "procs": 8, "seed": -1}, "seed"),
        ({"jobs": 10, "procs": 8, "start_time": float("nan")}, "start_time"),
    ],
)
def test_bad_arguments_raise_config_error(kwargs: dict[str, object], option: str) -> None:
    """Out-of-range arguments raise ConfigError naming the option."""
    with pytest.raises(ConfigError) as info:
        generate_lublin(**kwargs)  # type: ignore[arg-type]
    assert info.value.option == option


# -- comparison with the archive's generated traces ------------------------------------------
@pytest.mark.trace
@pytest.mark.parametrize("name", ["lublin_256.swf.gz", "lublin_256_20k.swf.gz"])
def test_resembles_archive_lublin_traces(name: str) -> None:
    """kind="all" on 256 processors resembles the archive's Lublin traces (made by the
    authors' generator with the all-jobs parameters): serial share, power-of-two share,
    median size, mean log run time and mean gap, within broad tolerances.

    The traces' daily cycle is not compared: their generator truncates every gap to whole
    seconds, so their clock drifts about 0.5 s per job behind the model's cycle.
    """
    if not (WORKLOADS / name).exists():
        pytest.skip(f"{name} not found in {WORKLOADS} (the shared traces are absent)")
    trace = read_trace(name)
    t_procs, t_run, t_submit = trace[:, 4], trace[:, 3], trace[:, 1]
    w = generate_lublin(N, 256, seed=14, kind="all")
    assert float(np.mean(w.procs == 1)) == pytest.approx(float(np.mean(t_procs == 1)), abs=0.02)
    assert float(np.mean(is_pow2(w.procs))) == pytest.approx(
        float(np.mean(is_pow2(t_procs))), abs=0.03
    )
    assert 0.66 <= float(np.median(w.procs)) / float(np.median(t_procs)) <= 1.5
    assert float(np.mean(np.log(w.run_time))) == pytest.approx(
        float(np.mean(np.log(t_run))), abs=0.2
    )
    assert float(np.mean(np.diff(w.submit_time))) == pytest.approx(
        float(np.mean(np.diff(t_submit))), rel=0.3
    )
