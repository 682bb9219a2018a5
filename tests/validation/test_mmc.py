"""The engine against queueing theory: M/M/c through the general path vs Erlang C (SPEC 5).

A small version of `schedlab validate mmc` (which runs c = 1, 4, 16 at loads 0.1 to 0.95 and
is recorded in docs/validation.md): enough replications for a 99 % interval that must hold
Erlang C's mean response time, run through the kernel with a dispatching actor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.experiments.validate import jobs_per_replication, replicate, validate_mmc
from schedlab.metrics.queueing import erlang_c, mmc_mean_response_time, mmc_mean_wait_time
from schedlab.workload.models.mmc import generate_mmc


def test_erlang_c_against_values_by_hand() -> None:
    """M/M/1: P(wait) = rho, W = 1 / (mu - lambda); M/M/2 at a = 1: C = 1/3."""
    for rho in (0.1, 0.5, 0.9):
        assert erlang_c(1, rho) == pytest.approx(rho, rel=1e-12)
        assert mmc_mean_response_time(1, rho) == pytest.approx(1 / (1 - rho), rel=1e-12)
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3, rel=1e-12)
    # c = 2, a = 1: Wq = C / (c mu - lambda) = (1/3) / 1
    assert mmc_mean_wait_time(2, 0.5) == pytest.approx(1 / 3, rel=1e-12)
    # many servers: no overflow, and almost nobody waits at rho = 0.5
    assert 0 <= erlang_c(10_000, 5_000.0) < 1e-100
    assert math.isfinite(mmc_mean_response_time(2000, 0.99))


def test_the_mmc_model_has_the_rates_it_says() -> None:
    wl = generate_mmc(servers=4, load=0.75, jobs=200_000, seed=3, service=2.0)
    gaps = np.diff(wl.submit_time)
    assert gaps.mean() == pytest.approx(2.0 / (0.75 * 4), rel=0.01)
    assert wl.run_time.mean() == pytest.approx(2.0, rel=0.01)
    assert (wl.procs == 1).all() and wl.max_procs == 4
    assert wl.offered_load() == pytest.approx(0.75, rel=0.02)
    again = generate_mmc(servers=4, load=0.75, jobs=200_000, seed=3, service=2.0)
    np.testing.assert_array_equal(again.fields, wl.fields)  # same seed, same bits


@pytest.mark.parametrize(("servers", "load"), [(4, 0.5), (1, 0.7), (16, 0.8)])
def test_erlang_c_lies_in_the_99_percent_interval(servers: int, load: float) -> None:
    (row,) = validate_mmc([servers], [load], replications=10, jobs=20_000, workers=1, seed=7)
    assert row.inside, row
    assert row.ci_low < row.erlang_c_mean_response_time < row.ci_high
    assert abs(row.relative_error) < 0.05


def test_a_replication_is_deterministic_and_deletes_the_warm_up() -> None:
    a = replicate(2, 0.6, 5000, seed=11)
    assert a == replicate(2, 0.6, 5000, seed=11)
    assert a != replicate(2, 0.6, 5000, seed=11, warmup=0.0)


def test_run_length_grows_near_saturation() -> None:
    lengths = [jobs_per_replication(x) for x in (0.1, 0.5, 0.8, 0.9, 0.95, 0.99)]
    assert lengths == sorted(lengths)
    assert lengths[0] == 10_000 and lengths[3] == 200_000 and lengths[-1] == 400_000


def test_through_the_push_meta_scheduler_erlang_c_holds_and_nothing_changes() -> None:
    """SPEC 5's validation path: push with an exact information system on a one-pool grid
    sends every job at once to the only pool, so the replications are the direct ones, bit
    for bit, and Erlang C lies in the interval."""
    (push,) = validate_mmc([4], [0.6], replications=5, jobs=8_000, workers=1, seed=3, via="push")
    (direct,) = validate_mmc([4], [0.6], replications=5, jobs=8_000, workers=1, seed=3)
    assert push == direct and push.inside
