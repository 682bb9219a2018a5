"""Grid workloads (paper 001, SPEC 5): the GridWorkload table, paper 001's generator and
LCG-2005 replay with a derived platform.

Reference values come from the laws themselves (scipy's Weibull and exponential
distributions, numerical integration) or from a plain event sweep written here, never from
the code under test. Statistical checks use fixed seeds and wide margins (KS p-values above
0.01, means within five standard errors).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import integrate, stats

from schedlab.errors import ConfigError, WorkloadError
from schedlab.grid.context import GridContext
from schedlab.grid.platforms import load_platform
from schedlab.platform.description import Platform, Queue, Site
from schedlab.scenario import platform_jobs
from schedlab.workload.grid import GridWorkload, derive_platform
from schedlab.workload.job import F, Workload
from schedlab.workload.models.grid import (
    DEFAULT_SIZE_SCALE,
    generate_grid,
    offered_load,
    truncated_weibull,
    truncated_weibull_mean,
)
from schedlab.workload.swf import read_swf
from schedlab.workload.transforms import first_jobs
from workloads import trace_path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHAPE, LOW, HIGH = 0.45, 37300.0, 242800.0


@pytest.fixture(scope="module")
def dirac() -> Platform:
    return load_platform(EXAMPLES / "platform-dirac.toml")


@pytest.fixture(scope="module")
def heterogeneous() -> Platform:
    return load_platform(EXAMPLES / "platform-heterogeneous.toml")


def small(**changes: object) -> GridWorkload:
    columns: dict[str, object] = {
        "submit_at": [5.0, 1.0, 3.0, 3.0],
        "work": [10.0, 20.0, 30.0, 40.0],
        "procs": [1, 2, 1, 1],
        "org": [0, 1, 1, 0],
        "stream": [-1, 2, -1, 0],
        "job_id": [1, 2, 3, 4],
        "organisations": ("meta", "local"),
    }
    columns.update(changes)
    return GridWorkload(**columns)  # type: ignore[arg-type]


def table(*columns: list[float] | list[int], source: str, orgs: tuple[str, ...]) -> GridWorkload:
    """A GridWorkload from plain lists, in column order."""
    submit, work, procs, org, stream, ids = (np.asarray(c) for c in columns)
    return GridWorkload(submit, work, procs, org, stream, ids, source, orgs)


# -- the table ---------------------------------------------------------------------------------
def test_rows_are_sorted_by_submit_time_stably() -> None:
    """The constructor sorts by submit time; equal times keep the given order."""
    w = small()
    assert w.submit_at.tolist() == [1.0, 3.0, 3.0, 5.0]
    assert w.job_id.tolist() == [2, 3, 4, 1]
    assert w.work.tolist() == [20.0, 30.0, 40.0, 10.0]
    assert len(w) == 4


def test_job_specs_send_meta_jobs_to_actor_0_and_local_jobs_to_their_pool() -> None:
    """Global stream -> target_actor 0 (no pool); local -> target_pool p (no actor);
    requested work = work; the organisation in attributes["org"] and as the user."""
    w = small()
    js = platform_jobs(w)

    def listed(values: Any) -> list[Any]:  # the columns are numpy arrays (read as bytes)
        return np.asarray(values).tolist()

    assert listed(js.release_at) == [1.0, 3.0, 3.0, 5.0]
    assert listed(js.target_actor) == [-1, 0, -1, 0]
    assert listed(js.target_pool) == [2, -1, 0, -1]
    assert listed(js.work) == [20.0, 30.0, 40.0, 10.0]
    assert listed(js.requested_work) == listed(js.work)
    assert listed(js.procs) == [2, 1, 1, 1]
    assert {k: listed(v) for k, v in js.attributes.items()} == {"org": [1.0, 1.0, 0.0, 0.0]}
    assert listed(js.user) == [1, 1, 0, 0]
    assert listed(js.parent) == [-1] * 4
    assert len(js) == 4
    assert listed(platform_jobs(w, actor=3).target_actor) == [-1, 3, -1, 3]


@pytest.mark.parametrize(
    ("changes", "option"),
    [
        ({"work": [10.0, 0.0, 1.0, 1.0]}, "work"),
        ({"procs": [1, 0, 1, 1]}, "procs"),
        ({"org": [0, 2, 0, 0]}, "org"),
        ({"stream": [-2, 0, 0, 0]}, "stream"),
        ({"job_id": [1, 2, 3]}, "job_id"),
        ({"submit_at": [1.0, math.nan, 1.0, 1.0]}, "submit_at"),
    ],
)
def test_bad_columns_are_refused(changes: dict[str, object], option: str) -> None:
    """Each column is checked; the error names it."""
    with pytest.raises(ConfigError) as info:
        small(**changes)
    assert option in info.value.option


def test_merge_matches_organisations_by_name_and_renumbers_colliding_ids() -> None:
    """Merged rows are sorted by time (ties: argument order); organisations are the union
    by name; colliding job ids are renumbered 1..n, distinct ones are kept."""
    a = table([1.0, 4.0], [1.0, 2.0], [1, 1], [0, 0], [-1, -1], [1, 2], source="a", orgs=("meta",))
    b = table(
        [2.0, 4.0], [3.0, 4.0], [1, 1], [0, 1], [0, 1], [1, 2], source="b", orgs=("x", "meta")
    )
    m = GridWorkload.merge(a, b)
    assert m.submit_at.tolist() == [1.0, 2.0, 4.0, 4.0]
    assert m.work.tolist() == [1.0, 3.0, 2.0, 4.0]
    assert m.organisations == ("meta", "x")
    assert [m.organisations[o] for o in m.org] == ["meta", "x", "meta", "meta"]
    assert m.stream.tolist() == [-1, 0, -1, 1]
    assert m.job_id.tolist() == [1, 2, 3, 4]
    assert m.source == "a + b"
    c = table([0.5], [1.0], [1], [0], [-1], [7], source="c", orgs=("meta",))
    assert GridWorkload.merge(a, c).job_id.tolist() == [7, 1, 2]


def test_check_platform_refuses_missing_pools_and_too_wide_jobs(dirac: Platform) -> None:
    """A local job must target an existing pool that has enough nodes."""
    small(stream=[-1, 2, -1, 0]).check_platform(dirac)
    with pytest.raises(ConfigError, match="pool index"):
        small(stream=[-1, 3, -1, 0]).check_platform(dirac)
    with pytest.raises(ConfigError, match="at most the 20 nodes"):
        small(procs=[1, 21, 1, 1]).check_platform(dirac)


# -- truncated Weibull sizes --------------------------------------------------------------------
def truncated_cdf(x: np.ndarray, scale: float) -> np.ndarray:
    """The Weibull CDF cut to [LOW, HIGH], from scipy's survival function (stable in the
    far tail)."""
    law = stats.weibull_min(SHAPE, scale=scale)
    return (law.sf(LOW) - law.sf(x)) / (law.sf(LOW) - law.sf(HIGH))


@pytest.mark.parametrize("scale", [DEFAULT_SIZE_SCALE, 142.2])
def test_truncated_weibull_follows_the_truncated_law(scale: float) -> None:
    """Every size is in [min, max] and the sample's CDF is the truncated CDF (KS test),
    also under the literal reading, where the cut keeps 5e-6 of the mass."""
    sizes = truncated_weibull(np.random.default_rng(2024), 20_000, SHAPE, scale, LOW, HIGH)
    assert sizes.min() >= LOW
    assert sizes.max() <= HIGH
    result = stats.kstest(sizes, lambda x: truncated_cdf(np.asarray(x), scale))
    assert result.pvalue > 0.01


def test_truncated_weibull_mean_matches_integration_and_samples() -> None:
    """The closed-form mean equals the integral of x f(x) over the cut (scipy quad), and
    the sample mean is within five standard errors of it."""
    law = stats.weibull_min(SHAPE, scale=DEFAULT_SIZE_SCALE)
    mass = law.sf(LOW) - law.sf(HIGH)
    numeric = integrate.quad(lambda x: x * law.pdf(x), LOW, HIGH, limit=200)[0] / mass
    closed = truncated_weibull_mean(SHAPE, DEFAULT_SIZE_SCALE, LOW, HIGH)
    assert closed == pytest.approx(numeric, rel=1e-8)
    assert closed == pytest.approx(91431.1, abs=0.1)
    sizes = truncated_weibull(
        np.random.default_rng(5), 50_000, SHAPE, DEFAULT_SIZE_SCALE, LOW, HIGH
    )
    assert abs(sizes.mean() - closed) < 5 * sizes.std() / math.sqrt(len(sizes))


def test_offered_loads_of_the_paper_reading(dirac: Platform) -> None:
    """alpha = 142.2 s at 96 NCU/s: dedicated load 0.835 (SPEC 5: about 0.83); the shared
    context adds 3 sites x 1/87 jobs/s: 1.383 while every stream runs."""
    assert math.isclose(DEFAULT_SIZE_SCALE, 142.2 * 96)
    mean = truncated_weibull_mean(SHAPE, DEFAULT_SIZE_SCALE, LOW, HIGH)
    assert offered_load(dirac, local_streams=0) == pytest.approx(mean / 19 / 5760)
    assert offered_load(dirac, local_streams=0) == pytest.approx(0.835, abs=0.001)
    assert offered_load(dirac) == pytest.approx(mean * (1 / 19 + 3 / 87) / 5760)
    assert offered_load(dirac) == pytest.approx(1.383, abs=0.001)


# -- the generator -------------------------------------------------------------------------------
def test_generator_streams_match_table_2(dirac: Platform) -> None:
    """500 meta-jobs to actor 0 plus 500 local jobs per site to its first queue, all
    sequential, sizes in the cut, organisations meta and local."""
    w = generate_grid(dirac, seed=1)
    assert len(w) == 2000
    assert Counter(w.stream.tolist()) == {-1: 500, 0: 500, 1: 500, 2: 500}
    assert np.all(w.procs == 1)
    assert w.organisations == ("meta", "local")
    assert np.all((w.org == 0) == (w.stream == -1))
    assert w.work.min() >= LOW and w.work.max() <= HIGH
    assert np.all(np.diff(w.submit_at) >= 0)
    assert w.job_id.tolist() == list(range(1, 2001))
    w.check_platform(dirac)


def test_generator_is_deterministic_and_shares_meta_jobs_across_contexts(
    dirac: Platform,
) -> None:
    """Same seed, same jobs; the dedicated context (no local jobs) has exactly the shared
    context's meta-jobs; another seed gives other jobs."""
    a = generate_grid(dirac, seed=11)
    b = generate_grid(dirac, seed=11)
    for name in ("submit_at", "work", "stream", "org"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    dedicated = generate_grid(dirac, seed=11, local_jobs=0)
    meta = a.stream == -1
    assert np.array_equal(dedicated.submit_at, a.submit_at[meta])
    assert np.array_equal(dedicated.work, a.work[meta])
    assert not np.array_equal(generate_grid(dirac, seed=12).work, a.work)


def test_poisson_arrivals_have_the_stated_means(dirac: Platform) -> None:
    """Inter-arrivals are exponential of mean 19 s (meta) and 87 s (each local stream):
    means within five standard errors, KS against the exponential law."""
    w = generate_grid(dirac, meta_jobs=20_000, local_jobs=5_000, seed=3)
    for stream, mean in ((-1, 19.0), (0, 87.0), (1, 87.0), (2, 87.0)):
        times = w.submit_at[w.stream == stream]
        gaps = np.diff(np.concatenate([[0.0], times]))
        assert abs(gaps.mean() - mean) < 5 * mean / math.sqrt(len(gaps))
        assert stats.kstest(gaps, stats.expon(scale=mean).cdf).pvalue > 0.01


def test_local_streams_go_to_each_sites_first_queue_per_organisation(
    heterogeneous: Platform,
) -> None:
    """Each further organisation submits one local stream per site, to its first queue."""
    w = generate_grid(
        heterogeneous, meta_jobs=10, local_jobs=7, organisations=("vo", "a", "b"), seed=2
    )
    assert heterogeneous.first_pools() == [0, 2, 4, 6]
    pairs = Counter(zip(w.stream.tolist(), (w.organisations[o] for o in w.org)))
    expected = {(-1, "vo"): 10}
    expected.update({(p, o): 7 for p in (0, 2, 4, 6) for o in ("a", "b")})
    assert pairs == expected


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("meta_jobs", -1),
        ("meta_interarrival", 0),
        ("size_shape", 0.0),
        ("size_max", 100.0),
        ("seed", -3),
        ("organisations", ()),
        ("organisations", ("a", "a")),
    ],
)
def test_generator_parameters_are_checked(dirac: Platform, key: str, value: object) -> None:
    """A bad parameter is a ConfigError naming it."""
    with pytest.raises(ConfigError) as info:
        generate_grid(dirac, **{key: value})  # type: ignore[arg-type]
    assert key in info.value.option


# -- trace replay --------------------------------------------------------------------------------
def peaks_by_sweep(workload: Workload) -> dict[int, int]:
    """Peak processors in use per partition, by walking start and end events in time order
    (ends first at equal times); start = submit (+ wait when known)."""
    events: dict[int, list[tuple[float, int, int]]] = {}
    fields = workload.fields
    for row in range(len(workload)):
        part = int(fields[row, F["partition_id"]])
        wait = fields[row, F["wait_time"]]
        start = fields[row, F["submit_time"]] + (wait if wait >= 0 else 0.0)
        end = start + fields[row, F["run_time"]]
        procs = int(workload.procs[row])
        events.setdefault(part, []).extend([(start, 1, procs), (end, 0, -procs)])
    peaks = {}
    for part, evs in events.items():
        level = peak = 0
        for _, _, delta in sorted(evs):
            level += delta
            peak = max(peak, level)
        peaks[part] = peak
    return peaks


@pytest.fixture(scope="module")
def lcg_cut() -> Workload:
    return first_jobs(read_swf(trace_path("LCG-2005-1.swf.gz")), 5000)


@pytest.mark.trace
def test_derive_platform_capacities_are_peak_concurrency(lcg_cut: Workload) -> None:
    """One site per partition present (ids in increasing order, named from the header),
    one FCFS queue of power-1 nodes sized to the observed peak concurrency, no network."""
    p = derive_platform(lcg_cut)
    peaks = peaks_by_sweep(lcg_cut)
    ids = sorted(peaks)
    assert len(p.sites) == len(ids)
    assert [s.nodes for s in p.sites] == [peaks[i] for i in ids]
    assert all(q.groups == ((1.0, q.nodes),) and q.policy == "fcfs" for q in p.queues())
    assert all(q.t_max == math.inf for q in p.queues())
    assert GridContext.of(p).message_time == (0.0,) * len(ids)
    header = {
        int(line.split()[1]): line.split()[2]
        for line in lcg_cut.header
        if line.startswith("Partition:")
    }
    assert [s.name for s in p.sites] == [header[i] for i in ids]


@pytest.mark.trace
def test_lcg_replay_modes(lcg_cut: Workload) -> None:
    """work = run time x power 1; org = the SWF group; local mode maps the i-th smallest
    partition id to the i-th site's first queue; global mode sends all to actor 0."""
    local = GridWorkload.from_swf(lcg_cut, mode="local")
    assert len(local) == len(lcg_cut)
    assert np.array_equal(local.work, lcg_cut.run_time)
    assert np.array_equal(local.job_id, lcg_cut.job_id)
    assert np.array_equal(local.procs, np.ones(len(lcg_cut), dtype=np.int64))
    names = [local.organisations[o] for o in local.org]
    assert names == [f"group {g}" for g in lcg_cut.group_id.tolist()]
    partition = lcg_cut.column("partition_id").astype(int)
    rank = {pid: i for i, pid in enumerate(sorted(set(partition.tolist())))}
    assert local.stream.tolist() == [rank[p] for p in partition.tolist()]
    glob = GridWorkload.from_swf(lcg_cut, mode="global")
    assert np.all(glob.stream == -1)
    assert set(platform_jobs(glob).target_actor) == {0}
    # a platform file's sites, in order: here a derived one with a queue added in front
    derived = derive_platform(lcg_cut)
    sites = tuple(
        Site(s.name, (Queue(s.name, "express", ((1.0, 1),)), *s.queues)) for s in derived.sites
    )
    two_queues = Platform(sites=sites)
    mapped = GridWorkload.from_swf(lcg_cut, two_queues, mode="local")
    assert mapped.stream.tolist() == [2 * rank[p] for p in partition.tolist()]


def test_replay_errors_name_the_field_and_the_mode() -> None:
    """Local mode needs partitions (field 16) and enough sites; modes are checked."""
    w = Workload.from_columns(
        submit_time=np.array([0.0, 1.0]), run_time=np.array([5.0, 5.0]), procs=np.ones(2)
    )
    with pytest.raises(WorkloadError, match="16"):
        GridWorkload.from_swf(w, mode="local")
    with pytest.raises(WorkloadError, match="16"):
        derive_platform(w)
    with pytest.raises(ConfigError, match="mode"):
        GridWorkload.from_swf(w, mode="both")
    fields = w.fields.copy()
    fields[:, F["partition_id"]] = [1, 2]
    parted = w.with_fields(fields)
    one_site = Platform(sites=(Site("a", (Queue("a", "q", ((1.0, 4),)),)),))
    with pytest.raises(ConfigError, match="at least 2"):
        GridWorkload.from_swf(parted, one_site, mode="local")
    g = GridWorkload.from_swf(parted)
    assert g.organisations == ("unknown",)
    assert derive_platform(parted).total_nodes == 2
