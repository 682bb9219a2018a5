"""Platform files (paper 001, SPEC 5): TOML schema, node sampling, links and pools.

Expected values are computed by hand from the files and the paper, never by the code under
test: 1 Mbit/s = 125 000 bytes/s, a 30 kB control message crosses 1000 Mbit/s in 0.24 ms and
100 Mbit/s in 2.4 ms; the default reference pool's weights are node counts out of 60.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from schedlab.errors import ConfigError
from schedlab.grid.context import GridContext
from schedlab.grid.platforms import load_platform
from schedlab.platform.description import (
    NO_NETWORK,
    Link,
    Platform,
    Queue,
    Site,
)
from schedlab.platform.nodes import DEFAULT_REFERENCE_POOL, ReferencePool
from schedlab.platform.pool import PoolSpec
from schedlab.platform.service import Constant, Empirical, Exponential, Uniform
from schedlab.schedulers.registry import make_policy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIRAC = EXAMPLES / "platform-dirac.toml"
HETEROGENEOUS = EXAMPLES / "platform-heterogeneous.toml"


def node_powers(platform: Platform) -> Counter[float]:
    """Nodes per power over the whole platform."""
    out: Counter[float] = Counter()
    for queue in platform.queues():
        for power, count in queue.groups:
            out[power] += count
    return out


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "platform.toml"
    path.write_text(text, encoding="utf-8")
    return path


ONE_SITE = """
[[sites]]
name = "a"
groups = [[10.0, 4]]
[[sites.queues]]
name = "q"
"""


# -- the examples ----------------------------------------------------------------------------
def test_dirac_example_is_table_2() -> None:
    """3 sites x 20 nodes, one FCFS queue each, t_max 24000 s, LAN 1000 / WAN 100 Mbit/s,
    latency 0, 30 kB messages, mu_rec 3.75 s and mu_env 2 s, powers sampled, mean 96."""
    p = load_platform(DIRAC)
    assert [s.name for s in p.sites] == ["site1", "site2", "site3"]
    assert [s.nodes for s in p.sites] == [20, 20, 20]
    assert p.total_nodes == 60
    assert p.wan == Link(100 * 125_000.0, 0.0)
    assert p.control_message == 30_000.0
    assert p.reference_nodes == DEFAULT_REFERENCE_POOL
    for site in p.sites:
        assert site.lan == Link(1000 * 125_000.0, 0.0)
        (queue,) = site.queues
        assert queue.t_max == 24000.0
        assert queue.policy == "fcfs"
        assert queue.params == {}
        assert queue.mu_rec == Constant(3.75)
        assert queue.mu_env == Constant(2.0)
        assert queue.placement == "fastest"
    # 60 nodes = the default pool's 60 weight units: the platform is exactly that multiset
    assert node_powers(p) == Counter({pw: int(w) for pw, w in DEFAULT_REFERENCE_POOL.types})
    assert p.mean_power == pytest.approx(96.0, rel=1e-12)
    assert p.capacity == pytest.approx(5760.0, rel=1e-12)


def test_heterogeneous_example_splits_sites_as_documented() -> None:
    """Site groups are dealt fastest first to the queues in file order; a site without
    groups lets each queue list its own; sampled nodes follow the pool's 1:2:1 weights."""
    p = load_platform(HETEROGENEOUS)
    q = {queue.pool_name: queue for queue in p.queues()}
    assert list(q) == [
        "lyon/short",
        "lyon/long",
        "cern/grid",
        "cern/express",
        "ral/prod",
        "ral/test",
        "cnaf/default",
    ]
    assert q["lyon/short"].groups == ((150.0, 16),)
    assert q["lyon/long"].groups == ((80.0, 32), (52.12, 16))
    assert q["cern/grid"].groups == ((120.0, 40), (96.0, 24))
    assert q["cern/express"].groups == ((120.0, 8),)
    assert [q[n].nodes for n in ("ral/prod", "ral/test", "cnaf/default")] == [16, 8, 16]
    # ral is dealt fastest first: prod's slowest node is at least test's fastest
    assert min(pw for pw, _ in q["ral/prod"].groups) >= max(pw for pw, _ in q["ral/test"].groups)
    sampled = node_powers(p)
    sampled.subtract({150.0: 16, 80.0: 32, 52.12: 16, 120.0: 48, 96.0: 24})
    assert +sampled == Counter({32.12: 10, 100.0: 20, 200.0: 10})  # 40 nodes, 1:2:1
    assert q["lyon/short"].policy == "easy"
    assert q["lyon/short"].params == {"backfill_order": "sjf"}
    assert q["lyon/long"].policy == "conservative"
    assert q["ral/prod"].policy == "pps"
    assert q["lyon/short"].mu_rec == Uniform(1.0, 6.5)
    assert q["lyon/long"].mu_rec == Exponential(3.75)
    assert q["lyon/long"].mu_env == Empirical((1.0, 2.0, 2.0, 3.5))
    assert q["cnaf/default"].mu_env == Uniform(0.0, 4.0)
    assert q["lyon/long"].placement == "slowest"
    assert q["cern/express"].placement == "random"
    assert q["lyon/short"].t_max == 3600.0
    assert q["ral/test"].mu_rec == Constant(0.0)  # defaults
    assert q["ral/test"].policy == "fcfs"
    assert p.total_nodes == 64 + 72 + 24 + 16


# -- sampling without replacement --------------------------------------------------------------
@pytest.mark.parametrize("multiple", [1, 2, 5])
def test_counts_are_exact_for_a_multiple_of_the_pool_size(multiple: int) -> None:
    """N = k x 60 nodes from the default pool: k x weight nodes of each type, exactly."""
    counts = DEFAULT_REFERENCE_POOL.counts(60 * multiple)
    assert counts.tolist() == [int(w) * multiple for _, w in DEFAULT_REFERENCE_POOL.types]


def test_counts_add_up_and_stay_within_one_of_the_quota() -> None:
    """Largest remainders: any N gives N nodes, each type within 1 of weight x N / W."""
    pool = ReferencePool(((1.0, 1), (2.0, 2), (3.0, 4)))
    for nodes in range(1, 40):
        counts = pool.counts(nodes)
        assert counts.sum() == nodes
        for c, (_, w) in zip(counts.tolist(), pool.types):
            assert abs(c - w * nodes / 7) < 1


def sampled_file(seed: int, sizes: list[int]) -> str:
    lines = [f"seed = {seed}"]
    lines.append(
        "[reference_nodes]\ntypes = [{power = 1.5, weight = 1}, {power = 2.5, weight = 3},"
    )
    lines.append("{power = 4.0, weight = 2}]")
    for i, n in enumerate(sizes):
        lines.append(f'[[sites]]\nname = "s{i}"\nnodes = {n}\nsample = true')
        lines.append('[[sites.queues]]\nname = "q"')
    return "\n".join(lines) + "\n"


def test_sampling_draws_without_replacement_in_the_pool_proportions(tmp_path: Path) -> None:
    """A multiple of the pool size (6) is split exactly 1:3:2 over the platform, whatever
    the seed; the sites' shares vary with the seed and are fixed by it."""
    groups_by_seed = []
    for seed in (1, 2, 3):
        p = load_platform(write(tmp_path, sampled_file(seed, [7, 11, 12, 6])))
        assert node_powers(p) == Counter({1.5: 6, 2.5: 18, 4.0: 12})
        groups_by_seed.append([s.groups for s in p.sites])
        again = load_platform(write(tmp_path, sampled_file(seed, [7, 11, 12, 6])))
        assert [s.groups for s in again.sites] == groups_by_seed[-1]
    assert len({repr(g) for g in groups_by_seed}) > 1


def test_sampling_is_seeded_per_platform_seed_only(tmp_path: Path) -> None:
    """Two files with the same seed and sites give the same nodes (no global state)."""
    import numpy as np

    np.random.seed(12345)  # the global generator must not matter
    a = load_platform(write(tmp_path, sampled_file(9, [5, 5, 8])))
    np.random.seed(54321)
    b = load_platform(write(tmp_path, sampled_file(9, [5, 5, 8])))
    assert [s.groups for s in a.sites] == [s.groups for s in b.sites]


def test_default_pool_has_mean_96_and_the_measured_types() -> None:
    """About twenty types (paper: "une vingtaine"), 32.12, 52.12 and 100 among them, and a
    weighted mean of exactly 96 NCU/s (checked in integer hundredths)."""
    types = DEFAULT_REFERENCE_POOL.types
    assert len(types) == 20
    powers = [p for p, _ in types]
    assert {32.12, 52.12, 100.0} <= set(powers)
    cents = sum(round(p * 100) * int(w) for p, w in types)
    assert cents == 9600 * sum(int(w) for _, w in types)
    assert all(w == int(w) for _, w in types)
    assert DEFAULT_REFERENCE_POOL.mean == pytest.approx(96.0, rel=1e-15)


# -- links, context, pools ----------------------------------------------------------------------
def test_link_transfer_time() -> None:
    """latency + bytes / bandwidth; infinite bandwidth costs the latency only."""
    assert Link.mbit(100).transfer_time(30_000) == pytest.approx(0.0024)
    assert Link(1e6, 0.5).transfer_time(2e6) == pytest.approx(2.5)
    assert Link(math.inf, 0.25).transfer_time(1e12) == 0.25
    assert NO_NETWORK.transfer_time(1e9) == 0.0
    with pytest.raises(ConfigError, match="link bandwidth"):
        Link(0.0)
    with pytest.raises(ConfigError, match="link latency"):
        Link(1.0, -1.0)


def test_context_message_times() -> None:
    """One control message crosses the site's LAN and the WAN (latencies + size/bandwidth)."""
    dirac = GridContext.of(load_platform(DIRAC), seed=4)
    assert dirac.pool_names == ("site1/default", "site2/default", "site3/default")
    assert dirac.pool_sites == (0, 1, 2)
    assert dirac.seed == 4
    assert dirac.message_time == pytest.approx((0.00264,) * 3)
    het = GridContext.of(load_platform(HETEROGENEOUS))
    wan = 0.05 + 30e3 / (1000 * 125e3)
    lan = {
        "lyon": 0.0001 + 30e3 / (10000 * 125e3),
        "cern": 0.0005 + 30e3 / (1000 * 125e3),
        "ral": 30e3 / (1000 * 125e3),
        "cnaf": 0.001 + 30e3 / (100 * 125e3),
    }
    assert het.site_names == ("lyon", "cern", "ral", "cnaf")
    assert het.pool_sites == (0, 0, 1, 1, 2, 2, 3)
    expected = [wan + lan[het.site_names[s]] for s in het.pool_sites]
    assert het.message_time == pytest.approx(tuple(expected), rel=1e-12)


def test_pool_specs_are_valid_and_seeded() -> None:
    """One PoolSpec per queue, in pool order, named site/queue, with the queue's settings,
    policies the registry can build, and distinct seeds fixed by the platform seed."""
    p = load_platform(HETEROGENEOUS)
    specs = p.pool_specs()
    assert all(isinstance(s, PoolSpec) for s in specs)
    assert [s.name for s in specs] == [q.pool_name for q in p.queues()]
    for spec, queue in zip(specs, p.queues()):
        assert spec.groups == queue.groups
        assert spec.total == queue.nodes
        assert (spec.policy, dict(spec.params), spec.t_max) == (
            queue.policy,
            dict(queue.params),
            queue.t_max,
        )
        assert (spec.mu_rec, spec.mu_env, spec.placement) == (
            queue.mu_rec,
            queue.mu_env,
            queue.placement,
        )
        make_policy(spec.policy, **spec.params)
    seeds = [s.seed for s in specs]
    assert len(set(seeds)) == len(seeds)
    assert seeds == [s.seed for s in load_platform(HETEROGENEOUS).pool_specs()]


def test_programmatic_platform_merges_groups_and_checks_names() -> None:
    """Equal powers merge into one group (fastest first); names are unique and plain."""
    q = Queue(site="a", name="q", groups=((1.0, 2), (3.0, 1), (1.0, 5)))
    assert q.groups == ((3.0, 1), (1.0, 7))
    site = Site(name="a", queues=(q,))
    p = Platform(sites=(site,))
    assert p.total_nodes == 8
    assert p.mean_power == pytest.approx(10 / 8)
    assert GridContext.of(p).message_time == (0.0,)
    with pytest.raises(ConfigError, match="unique site names"):
        Platform(sites=(site, site))
    with pytest.raises(ConfigError, match="without"):
        Site(name="a/b", queues=(Queue(site="a/b", name="q", groups=((1.0, 1),)),))
    with pytest.raises(ConfigError, match="mu_env"):
        Queue(site="a", name="q", groups=((1.0, 1),), mu_env=Exponential(2.0))


# -- errors name the key path -------------------------------------------------------------------
BAD_FILES = [
    ("colour = 1\n" + ONE_SITE, "colour", "one of the keys"),
    ("", "sites", "at least one [[sites]]"),
    ("seed = -1\n" + ONE_SITE, "seed", "an integer"),
    ("[wan]\nbandwidth_mbit = 0\n" + ONE_SITE, "wan.bandwidth_mbit", "> 0"),
    ("[wan]\nlatency = 1\n" + ONE_SITE, "wan.latency", "one of the keys"),
    (
        "[reference_nodes]\ntypes = [{power = 1.0, weight = 1}, {power = 2.0, weight = 0}]\n"
        + ONE_SITE,
        "reference_nodes.types[1].weight",
        "> 0",
    ),
    (ONE_SITE + "t_max = -5\n", "sites[0].queues[0].t_max", "> 0"),
    (ONE_SITE + "tmax = 5\n", "sites[0].queues[0].tmax", "one of the keys"),
    (ONE_SITE + 'policy = "lifo"\n', "sites[0].queues[0].policy", "fcfs"),
    (
        ONE_SITE + 'policy = "easy"\nparams = {backfill = "sjf"}\n',
        "sites[0].queues[0].params.backfill",
        "backfill_order",
    ),
    (
        ONE_SITE + 'policy = "easy"\nparams = {backfill_order = "lifo"}\n',
        "sites[0].queues[0].params.backfill_order",
        "sjf",
    ),
    (
        ONE_SITE + 'mu_env = {dist = "exponential", mean = 2}\n',
        "sites[0].queues[0].mu_env.dist",
        "bounded",
    ),
    (
        ONE_SITE + 'mu_rec = {dist = "uniform", low = 3, high = 1}\n',
        "sites[0].queues[0].mu_rec.high",
        "low",
    ),
    (ONE_SITE + 'mu_rec = {dist = "normal"}\n', "sites[0].queues[0].mu_rec.dist", "uniform"),
    (
        ONE_SITE + 'mu_rec = {dist = "empirical", values = [1], file = "x"}\n',
        "sites[0].queues[0].mu_rec",
        "exactly one",
    ),
    (ONE_SITE + 'placement = "best"\n', "sites[0].queues[0].placement", "fastest"),
    (ONE_SITE + "nodes = 5\n", "sites[0].queues[0].nodes", "at most the site's 4"),
    (
        ONE_SITE + "groups = [[1.0, 4]]\n",
        "sites[0].queues[0].groups",
        "dealt",
    ),
    (ONE_SITE + '[[sites.queues]]\nname = "r"\n', "sites[0].queues[0].nodes", "several"),
    (
        ONE_SITE.replace('name = "q"', 'name = "q"\nnodes = 3'),
        "sites[0].queues",
        "partition",
    ),
    (
        ONE_SITE + 'nodes = 3\n[[sites.queues]]\nname = "q"\nnodes = 1\n',
        "sites[0].queues[1].name",
        "no other",
    ),
    (
        ONE_SITE.replace("groups = [[10.0, 4]]", "groups = [[10.0, 4]]\nsample = true"),
        "sites[0].groups",
        "sample",
    ),
    (ONE_SITE.replace("groups = [[10.0, 4]]", "sample = true"), "sites[0].nodes", "sample"),
    (ONE_SITE.replace("groups = [[10.0, 4]]", "groups = [[10.0]]"), "sites[0].groups[0]", "power"),
    (
        ONE_SITE.replace("groups = [[10.0, 4]]", "groups = [[-1.0, 4]]"),
        "sites[0].groups[0][0]",
        "> 0",
    ),
    (
        ONE_SITE.replace("groups = [[10.0, 4]]", "groups = [[1.0, 4]]\nnodes = 5"),
        "sites[0].nodes",
        "4",
    ),
    (ONE_SITE.replace('name = "a"', 'name = "a/b"'), "sites[0].name", "without"),
    (ONE_SITE + ONE_SITE, "sites[1].name", "no other site"),
    (ONE_SITE.replace("groups = [[10.0, 4]]\n", ""), "sites[0].queues[0].groups", "own groups"),
    ('[[sites]]\nname = "a"\ngroups = [[1.0, 1]]\n', "sites[0].queues", "[[sites.queues]]"),
    (ONE_SITE + "[sites.lan]\nbandwidth_mbit = -1\n", "sites[0].lan.bandwidth_mbit", "> 0"),
]


@pytest.mark.parametrize(("text", "path", "allowed"), BAD_FILES)
def test_errors_name_the_key_path_and_what_is_allowed(
    tmp_path: Path, text: str, path: str, allowed: str
) -> None:
    """Every mistake is a ConfigError whose option is the key path and whose message says
    what is allowed."""
    with pytest.raises(ConfigError) as info:
        load_platform(write(tmp_path, text))
    assert info.value.option == path
    assert allowed in info.value.allowed
    assert path in str(info.value)


def test_error_shows_the_bad_value(tmp_path: Path) -> None:
    """The message shows the value as written."""
    with pytest.raises(ConfigError) as info:
        load_platform(write(tmp_path, ONE_SITE + "t_max = -5\n"))
    assert "-5" in str(info.value)
    assert info.value.value == -5


def test_syntax_errors_and_missing_files_name_the_file(tmp_path: Path) -> None:
    """A TOML syntax error names the line; a missing file names the path."""
    with pytest.raises(ConfigError, match="line 3"):
        load_platform(write(tmp_path, "seed = 1\n[wan]\nbandwidth_mbit = = 3\n"))
    with pytest.raises(ConfigError, match="no-such.toml"):
        load_platform(tmp_path / "no-such.toml")


def test_empirical_service_times_from_a_file(tmp_path: Path) -> None:
    """{dist = "empirical", file = ...} reads seconds relative to the platform file."""
    (tmp_path / "mu.txt").write_text("# measured\n1.5\n2.5\n", encoding="utf-8")
    p = load_platform(
        write(tmp_path, ONE_SITE + 'mu_env = {dist = "empirical", file = "mu.txt"}\n')
    )
    assert p.queues()[0].mu_env == Empirical((1.5, 2.5))
    with pytest.raises(ConfigError) as info:
        load_platform(
            write(tmp_path, ONE_SITE + 'mu_env = {dist = "empirical", file = "no.txt"}\n')
        )
    assert info.value.option == "sites[0].queues[0].mu_env.file"
