"""Unit tests of the user run-time estimate model (Tsafrir-Etsion-Feitelson 2005).

The properties checked are the model's principles (module docstring of
schedlab.workload.models.tsafrir): estimates bound run times, are modal, round, led by the
maximal estimate Emax, and make the accuracy run / estimate widely spread.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from schedlab import read_swf
from schedlab.errors import ConfigError
from schedlab.workload.job import F, Workload
from schedlab.workload.models.lublin import generate_lublin
from schedlab.workload.models.tsafrir import (
    ROUND_VALUES,
    TsafrirParams,
    add_estimates,
    default_max_estimate,
    default_values,
    estimate_summary,
)

WORKLOADS = Path(__file__).resolve().parents[2].parent / "shared" / "workloads"
KTH = WORKLOADS / "KTH-SP2-1996-2.1-cln.swf.gz"
REQ = F["requested_time"]
HOUR = 3600.0


@pytest.fixture(scope="module")
def lublin() -> Workload:
    return generate_lublin(20000, 256, seed=1)


def synthetic(run: np.ndarray, requested: np.ndarray | None = None, **kw: object) -> Workload:
    n = len(run)
    return Workload.from_columns(
        submit_time=np.arange(n, dtype=np.float64),
        run_time=np.asarray(run, dtype=np.float64),
        procs=np.ones(n),
        requested_time=requested,
        **kw,  # type: ignore[arg-type]
    )


# -- reproducibility and purity -------------------------------------------------------------
def test_same_seed_same_bytes_and_different_seed_differs(lublin: Workload) -> None:
    a = add_estimates(lublin, seed=7)
    b = add_estimates(lublin, seed=7)
    c = add_estimates(lublin, seed=np.random.default_rng(7))
    d = add_estimates(lublin, seed=8)
    assert a.fields.tobytes() == b.fields.tobytes() == c.fields.tobytes()
    assert not np.array_equal(a.fields[:, REQ], d.fields[:, REQ])
    # Different seeds also differ in their choice of values, not only per job.
    values = {tuple(np.unique(add_estimates(lublin, seed=s).fields[:, REQ])) for s in range(5)}
    assert len(values) > 1


def test_generator_is_advanced_and_global_state_untouched(lublin: Workload) -> None:
    np.random.seed(123)
    before = np.random.get_state()[1].copy()  # type: ignore[index]
    rng = np.random.default_rng(3)
    first = add_estimates(lublin, seed=rng)
    second = add_estimates(lublin, seed=rng)
    assert not np.array_equal(first.fields[:, REQ], second.fields[:, REQ])
    assert np.array_equal(np.random.get_state()[1], before)  # type: ignore[index]


def test_returns_new_workload_and_leaves_input_untouched(lublin: Workload) -> None:
    original = lublin.fields.copy()
    out = add_estimates(lublin, seed=1)
    assert out is not lublin
    assert np.array_equal(lublin.fields, original)
    assert not np.shares_memory(out.fields, lublin.fields)
    assert (lublin.fields[:, REQ] == -1).all()
    # Only field 9 changes; machine, header and source are kept.
    others = [i for i in range(original.shape[1]) if i != REQ]
    assert np.array_equal(out.fields[:, others], original[:, others])
    assert out.max_procs == lublin.max_procs
    assert out.header == lublin.header
    assert out.source == lublin.source


# -- the model's principles -----------------------------------------------------------------
def test_every_estimate_bounds_its_run_time(lublin: Workload) -> None:
    for seed in range(5):
        out = add_estimates(lublin, seed=seed)
        req = out.fields[:, REQ]
        assert (req > 0).all()
        assert (req >= out.run_time).all()
        assert np.array_equal(out.requested_time, req)


def test_estimates_are_modal(lublin: Workload) -> None:
    n_values = default_values(len(lublin))
    assert n_values == 17
    for seed in range(5):
        s = estimate_summary(add_estimates(lublin, seed=seed))
        req = add_estimates(lublin, seed=seed).fields[:, REQ]
        _, counts = np.unique(req, return_counts=True)
        top = np.sort(counts)[::-1][:n_values].sum() / len(req)
        assert top >= 0.9
        assert s["distinct"] <= n_values  # no Lublin job is longer than Emax (48 h)
        assert s["top20_share"] >= 0.9


def test_number_of_values_follows_the_workload_size() -> None:
    assert default_values(100_000) == 20
    assert default_values(1000) == 12
    assert default_values(100) == 8
    assert default_values(1) == 1
    assert default_values(0) == 1
    sizes = [default_values(n) for n in (10, 100, 1000, 10_000, 100_000, 1_000_000)]
    assert sizes == sorted(sizes)


def test_values_option_sets_the_number_of_distinct_estimates(lublin: Workload) -> None:
    for n_values in (1, 5, 12):
        out = add_estimates(lublin, seed=2, values=n_values)
        assert len(np.unique(out.fields[:, REQ])) == n_values
    only_max = add_estimates(lublin, seed=2, values=1)
    assert (only_max.fields[:, REQ] == 48 * HOUR).all()
    # More values than round values below Emax: capped at all of them plus Emax.
    many = add_estimates(lublin, seed=2, values=500)
    below = [v for v in ROUND_VALUES if v < 48 * HOUR]
    assert set(np.unique(many.fields[:, REQ])) <= {*below, 48 * HOUR}


def test_emax_is_the_most_popular_value_near_max_fraction(lublin: Workload) -> None:
    for seed in range(10):
        s = estimate_summary(add_estimates(lublin, seed=seed))
        assert s["max_estimate"] == 48 * HOUR
        assert s["most_popular"] == 48 * HOUR
        assert s["max_rank"] == 1
        assert s["max_share"] >= 0.15 - 0.015
        assert s["max_share"] <= 0.15 + 0.05
    s = estimate_summary(add_estimates(lublin, seed=3, max_fraction=0.25))
    assert s["max_rank"] == 1
    assert s["max_share"] == pytest.approx(0.25, abs=0.04)


def test_emax_stays_the_mode_even_when_the_popularity_law_would_beat_it() -> None:
    # Every job fits every value: rank 2 alone would get 0.9 * 0.5 / H of the jobs, far
    # more than the 0.1 that ask for Emax directly; the jobs moved make Emax the mode.
    rng = np.random.default_rng(0)
    w = synthetic(rng.uniform(1, 50, 20_000))
    out = add_estimates(w, seed=1, max_estimate=24 * HOUR, values=4, max_fraction=0.1)
    s = estimate_summary(out)
    vals, counts = np.unique(out.fields[:, REQ], return_counts=True)
    assert s["max_rank"] == 1
    assert counts[vals == 24 * HOUR][0] > np.sort(counts)[-2]
    assert (out.fields[:, REQ] >= out.run_time).all()


def test_popularity_follows_the_zipf_law_by_increasing_value() -> None:
    # All run times are below every round value, so every value is eligible for every job:
    # the shares of the values are (1 - f) r^-s / sum, by increasing value (rank 2 first).
    rng = np.random.default_rng(5)
    w = synthetic(rng.uniform(1, 50, 60_000))
    f, s, n_values = 0.5, 1.3, 6
    out = add_estimates(
        w, seed=4, max_estimate=48 * HOUR, values=n_values, max_fraction=f, zipf_exponent=s
    )
    req = out.fields[:, REQ]
    vals, counts = np.unique(req, return_counts=True)
    assert len(vals) == n_values and vals[-1] == 48 * HOUR
    weights = np.arange(2, n_values + 1, dtype=float) ** -s
    expected = (1 - f) * weights / weights.sum()
    np.testing.assert_allclose(counts[:-1] / len(req), expected, atol=0.01)
    assert counts[-1] / len(req) == pytest.approx(f, abs=0.01)


def test_large_zipf_exponent_picks_the_shortest_fitting_value(lublin: Workload) -> None:
    # Weights r^-60 span far more than float precision: the draw must still be exact.
    out = add_estimates(lublin, seed=6, zipf_exponent=60.0, max_fraction=0.3)
    req = out.fields[:, REQ]
    values = np.unique(req)
    chosen = values[values < 48 * HOUR]
    assert len(chosen) == default_values(len(lublin)) - 1
    run = lublin.run_time
    idx = np.searchsorted(chosen, run, side="left")
    shortest = np.where(idx < len(chosen), chosen[np.minimum(idx, len(chosen) - 1)], 48 * HOUR)
    modal = req != 48 * HOUR
    # Ranks 2-4 (the three shortest values): the next value is (r / (r + 1))^60 <= 2e-6
    # times as likely, so every job they fit takes the shortest (higher ranks are closer).
    first = modal & (idx < 3)
    assert first.sum() > 3000
    np.testing.assert_array_equal(req[first], shortest[first])
    assert (req[modal] == shortest[modal]).mean() > 0.99
    assert (~modal).mean() == pytest.approx(0.3, abs=0.03)


def test_short_values_are_more_likely_chosen(lublin: Workload) -> None:
    minutes = hours = 0
    for seed in range(20):
        values = np.unique(add_estimates(lublin, seed=seed).fields[:, REQ])
        minutes += int((values < HOUR).sum())
        hours += int(((values >= HOUR) & (values < 48 * HOUR)).sum())
    # 10 minute values and 18 hour values below 48 h are candidates.
    assert minutes / (20 * 10) > hours / (20 * 18) + 0.2
    # With no bias, the inclusion rates are equal up to noise.
    minutes = hours = 0
    for seed in range(20):
        values = np.unique(add_estimates(lublin, seed=seed, short_bias=0.0).fields[:, REQ])
        minutes += int((values < HOUR).sum())
        hours += int(((values >= HOUR) & (values < 48 * HOUR)).sum())
    assert abs(minutes / (20 * 10) - hours / (20 * 18)) < 0.15


def test_estimates_are_round_values(lublin: Workload) -> None:
    out = add_estimates(lublin, seed=9)
    req = out.fields[:, REQ]
    assert (req % 60 == 0).all()
    assert set(np.unique(req)) <= set(ROUND_VALUES)


def test_accuracy_is_widely_spread(lublin: Workload) -> None:
    out = add_estimates(lublin, seed=1)
    accuracy = out.run_time / out.fields[:, REQ]
    s = estimate_summary(out)
    assert s["median_accuracy"] == pytest.approx(float(np.median(accuracy)))
    assert s["median_accuracy"] < 0.5
    assert (accuracy < 0.1).mean() > 0.2  # many badly over-estimated jobs
    assert (accuracy > 0.5).mean() > 0.1  # and some good estimates
    assert s["over_run"] == 0.0


# -- only_missing and the maximal estimate --------------------------------------------------
def test_only_missing_keeps_existing_estimates() -> None:
    rng = np.random.default_rng(2)
    run = np.ceil(rng.lognormal(6, 2, 5000)).clip(1, 40 * HOUR)
    requested = np.where(np.arange(5000) % 2 == 0, run * 2 + 7, -1.0)
    w = synthetic(run, requested)
    out = add_estimates(w, seed=3)
    had = w.fields[:, REQ] > 0
    assert np.array_equal(out.fields[had, REQ], w.fields[had, REQ])
    assert (out.fields[~had, REQ] >= out.run_time[~had]).all()
    assert (out.fields[~had, REQ] % 60 == 0).all()
    replaced = add_estimates(w, seed=3, only_missing=False)
    assert (replaced.fields[:, REQ] % 60 == 0).all()  # the "+ 7" estimates are gone
    assert (replaced.fields[:, REQ] >= replaced.run_time).all()


def test_nothing_missing_gives_an_equal_copy() -> None:
    w = synthetic(np.array([10.0, 20.0]), np.array([60.0, 600.0]))
    out = add_estimates(w, seed=1)
    assert out is not w and np.array_equal(out.fields, w.fields)
    empty = synthetic(np.zeros(0))
    assert len(add_estimates(empty, seed=1)) == 0
    assert estimate_summary(empty)["jobs"] == 0


def test_default_max_estimate() -> None:
    w = synthetic(np.array([10.0, 7000.0]))
    assert default_max_estimate(w) == 2 * HOUR  # smallest round value >= 7000 s
    w = synthetic(np.array([10.0, 7200.0]))
    assert default_max_estimate(w) == 2 * HOUR
    w = synthetic(np.array([10.0, 40 * 24 * HOUR + 1]))
    assert default_max_estimate(w) == 40 * 24 * HOUR + HOUR  # beyond the list: next hour
    # The header's MaxRuntime wins over the run times.
    w = synthetic(np.array([10.0, 100.0]), header=["MaxRuntime: 162755"])
    assert default_max_estimate(w) == 48 * HOUR
    w = synthetic(np.array([10.0, 100.0]), header=["MaxRuntime: unknown"])
    assert default_max_estimate(w) == 2 * 60  # unparsable: ignored
    out = add_estimates(synthetic(np.array([10.0, 100.0]), header=["MaxRuntime: 5000"]), seed=1)
    assert out.fields[:, REQ].max() <= 2 * HOUR


def test_jobs_longer_than_emax_get_their_run_time_rounded_up(lublin: Workload) -> None:
    out = add_estimates(lublin, seed=4, max_estimate=HOUR)
    req, run = out.fields[:, REQ], lublin.run_time
    long = run > HOUR
    assert long.any()
    np.testing.assert_array_equal(req[long], np.ceil(run[long] / 60) * 60)
    assert (req[~long] <= HOUR).all()
    assert (req >= run).all()
    s = estimate_summary(out, max_estimate=HOUR)
    assert s["max_rank"] == 1


# -- parameters -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("max_estimate", 0),
        ("max_estimate", -60.0),
        ("max_estimate", math.inf),
        ("max_estimate", "48h"),
        ("values", 0),
        ("values", 2.5),
        ("values", True),
        ("max_fraction", 1.5),
        ("max_fraction", -0.1),
        ("max_fraction", math.nan),
        ("zipf_exponent", -1.0),
        ("zipf_exponent", "1"),
        ("short_bias", math.inf),
        ("short_bias", -0.5),
        ("round_values", ()),
        ("round_values", (60.0, -1.0)),
        ("round_values", "60"),
        ("round_values", 60),
        ("bogus_option", 1),
    ],
)
def test_parameter_errors_name_the_option(option: str, value: object) -> None:
    w = synthetic(np.array([10.0, 20.0]))
    with pytest.raises(ConfigError) as info:
        add_estimates(w, seed=1, **{option: value})
    assert info.value.option == option
    assert option in str(info.value)


@pytest.mark.parametrize(("option", "kwargs"), [("seed", {"seed": "x"}), ("seed", {"seed": True})])
def test_bad_seed_is_a_config_error(option: str, kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as info:
        add_estimates(synthetic(np.array([10.0])), **kwargs)  # type: ignore[arg-type]
    assert info.value.option == option


def test_bad_only_missing_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        add_estimates(synthetic(np.array([10.0])), seed=1, only_missing="yes")  # type: ignore[arg-type]
    assert info.value.option == "only_missing"


def test_params_dataclass_normalises_round_values() -> None:
    p = TsafrirParams(round_values=(600, 60, 600))
    assert p.round_values == (60.0, 600.0)
    assert TsafrirParams().round_values == ROUND_VALUES
    w = synthetic(np.array([10.0, 500.0]))
    out = add_estimates(w, seed=1, round_values=(60, 300, 600), max_estimate=600)
    assert set(out.fields[:, REQ]) <= {60.0, 300.0, 600.0}


# -- scale (its speed: benchmarks/bench_estimates.py, never a timed test) ------------------
def test_250k_jobs_all_get_an_estimate_at_least_their_run_time() -> None:
    rng = np.random.default_rng(0)
    w = synthetic(np.ceil(rng.lognormal(6, 2.5, 250_000)).clip(1, 60 * HOUR))
    out = add_estimates(w, seed=0)
    assert (out.fields[:, REQ] >= out.run_time).all()


# -- a real trace ---------------------------------------------------------------------------
@pytest.mark.trace
def test_kth_trace_estimates_regenerated() -> None:
    if not KTH.exists():
        pytest.skip(f"{KTH.name} not found in {WORKLOADS} (the shared traces are absent)")
    trace = read_swf(str(KTH))
    real = estimate_summary(trace)
    # The log's own estimates: many distinct values, a tail outside the top 20, limit 60 h.
    assert real["jobs"] == len(trace)
    assert real["max_estimate"] == 60 * HOUR
    assert real["distinct"] > 100
    assert real["top20_share"] < 0.9
    # Nothing is missing in the log, so the default keeps every estimate.
    kept = add_estimates(trace, seed=1)
    assert np.array_equal(kept.fields, trace.fields)

    original = trace.fields.copy()
    out = add_estimates(trace, seed=1, only_missing=False)
    assert np.array_equal(trace.fields, original)
    model = estimate_summary(out)
    req = out.fields[:, REQ]
    assert (req >= out.run_time).all()
    assert (req % 60 == 0).all()
    assert model["max_estimate"] == 60 * HOUR  # longest run 60 h, no MaxRuntime header
    assert model["max_rank"] == 1
    assert model["max_share"] == pytest.approx(0.15, abs=0.04)
    assert model["distinct"] <= default_values(len(trace))
    assert model["top20_share"] >= 0.9
    assert model["median_accuracy"] < 0.5
    assert model["median_accuracy"] < real["median_accuracy"] + 0.1
