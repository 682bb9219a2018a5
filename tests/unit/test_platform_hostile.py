"""Platform files, grid runs and the grid generator from a hostile world (issue 22, items 1,
2, 3, 6 and 8).

Every minimal case here is one the issue found (or one of its kind): a measured service-time
file replaced by ``--jobs-out``, a WAN latency of 1e17 s, ``mu_rec`` uniform up to 1e308,
an unbounded ``mu_rec`` under ``pilot_simple``, a sampled site of 2**31 - 1 nodes, a queue
under ``cpa``, a generator that builds no job. Each gives one line naming the file and key
(or the option), exit 2, before any simulation; or a run with finite metrics.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import ConfigError, PolicyError, SchedlabError
from schedlab.grid.dirac import DiracParams, PilotParams, _later
from schedlab.grid.direct import DirectParams
from schedlab.grid.platforms import load_platform
from schedlab.grid.push import PushParams
from schedlab.metrics.grid import grid_summary
from schedlab.platform.description import DEFAULT_MAX_NODES, DEFAULT_MAX_QUEUES
from schedlab.platform.files import PlatformFileError
from schedlab.platform.network import Network
from schedlab.platform.service import MAX_DELAY, Empirical
from schedlab.simulation import run_grid
from schedlab.workload.models.grid import generate_grid

# one site of 4 nodes, its queue last so that a case can append queue keys
BASE = """\
seed = 1
[wan]
bandwidth_mbit = 100
latency_s = 0
[[sites]]
name = "s1"
groups = [[96.0, 4]]
[[sites.queues]]
name = "default"
t_max = 24000
"""
SMALL = "meta_jobs=4,local_jobs=2"


def write(folder: Path, text: str, name: str = "plat.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def schedlab(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The command line as a user runs it (the input guard is on only there)."""
    return subprocess.run(
        [sys.executable, "-m", "schedlab", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The single error line of a refused command (exit 2, no traceback)."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("schedlab: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


# -- item 1: a measured service-time file is an input ----------------------------------------


def test_jobs_out_onto_the_service_time_file_is_refused_even_with_force(tmp_path: Path) -> None:
    """`mu_rec = {dist = "empirical", file = "times.csv"}` then `--jobs-out times.csv
    --force`: refused before the run, the file left as it was."""
    times = tmp_path / "times.csv"
    times.write_text("1\n2\n3\n", encoding="utf-8")
    write(tmp_path, BASE + 'mu_rec = {dist = "empirical", file = "times.csv"}\n')
    result = schedlab(
        "grid", "run", "plat.toml", "--generator", SMALL, "--jobs-out", "times.csv", "--force",
        cwd=tmp_path,
    )  # fmt: skip
    line = one_line_error(result)
    assert "--jobs-out" in line and "input" in line
    assert times.read_text(encoding="utf-8") == "1\n2\n3\n"


def test_the_platform_file_itself_is_an_input_too(tmp_path: Path) -> None:
    write(tmp_path, BASE, "plat.csv")  # a TOML file with a table's name
    result = schedlab(
        "grid", "run", "plat.csv", "--generator", SMALL, "--jobs-out", "plat.csv", "--force",
        cwd=tmp_path,
    )  # fmt: skip
    assert "--jobs-out" in one_line_error(result)
    assert (tmp_path / "plat.csv").read_text(encoding="utf-8") == BASE


def test_service_time_files_name_the_line_and_refuse_special_files(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("# measured\n1.5\n\n2.5  # a comment\n", encoding="utf-8")
    plat = load_platform(write(tmp_path, BASE + 'mu_rec = {dist = "empirical", file = "t.txt"}\n'))
    assert plat.queues()[0].mu_rec == Empirical((1.5, 2.5))
    for content, words in [("1\nabc\n", "line 2"), ("1\n1e300\n", "line 2"), ("", "at least")]:
        (tmp_path / "t.txt").write_text(content, encoding="utf-8")
        with pytest.raises(PlatformFileError) as info:
            load_platform(tmp_path / "plat.toml")
        assert info.value.option == "sites[0].queues[0].mu_rec.file"
        assert words in str(info.value) and "plat.toml" in str(info.value)
    write(tmp_path, BASE + 'mu_rec = {dist = "empirical", file = "/dev/zero"}\n')
    with pytest.raises(PlatformFileError, match="not a regular file"):
        load_platform(tmp_path / "plat.toml")
    for name, words in [
        ("~nosuchuser/t.txt", "no such file"),
        ("x\\u0000y", "NUL"),
        (".", "directory"),
    ]:
        write(tmp_path, BASE + f'mu_rec = {{dist = "empirical", file = "{name}"}}\n')
        with pytest.raises(PlatformFileError, match=words):
            load_platform(tmp_path / "plat.toml")
    with pytest.raises(ConfigError, match="no such file"):
        load_platform("~nosuchuser/plat.toml")  # (used to raise RuntimeError)


# -- item 8: TOML files are read as inputs, errors name the file -------------------------------


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.encode("utf-8"))
    assert load_platform(path).total_nodes == 4


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_device_as_the_platform_is_one_line(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.toml")
    for name in ("fifo.toml", "/dev/zero"):
        line = one_line_error(schedlab("grid", "run", name, cwd=tmp_path, timeout=60))
        assert "not a regular file" in line


def test_a_platform_over_the_input_size_limit_is_refused(tmp_path: Path) -> None:
    write(tmp_path, BASE + "# " + "x" * 4000 + "\n")
    line = one_line_error(
        schedlab("--max-input-size", "1K", "grid", "run", "plat.toml", cwd=tmp_path)
    )
    assert "--max-input-size" in line


def test_policy_and_stream_mistakes_name_the_file_as_well_as_the_key(tmp_path: Path) -> None:
    for extra, key in [
        ('policy = "lifo"\n', "sites[0].queues[0].policy"),
        ("t_max = -5\n", "sites[0].queues[0].t_max"),
    ]:
        text = BASE.replace("t_max = 24000\n", "") + extra
        with pytest.raises(PlatformFileError) as info:
            load_platform(write(tmp_path, text, "named.toml"))
        assert info.value.option == key
        assert str(info.value).startswith(f"{tmp_path / 'named.toml'}: ")
    with pytest.raises(PlatformFileError) as info:
        load_platform(write(tmp_path, BASE + "[stream]\nmeta_jobs = -1\n", "named.toml"))
    assert info.value.option == "stream.meta_jobs" and "named.toml" in str(info.value)


def test_the_file_error_crosses_process_boundaries() -> None:
    import pickle

    exc = PlatformFileError("wan.latency_s", 1e17, "seconds", "p.toml")
    back = pickle.loads(pickle.dumps(exc))
    assert (back.option, back.source, str(back)) == ("wan.latency_s", "p.toml", str(exc))


# -- item 2: every time-like and size-like key bounded where it enters -------------------------

QUEUE = "sites[0].queues[0]"
TOO_BIG = [
    (BASE.replace("latency_s = 0", "latency_s = 1e17"), "wan.latency_s"),
    (BASE.replace("bandwidth_mbit = 100", "bandwidth_mbit = 1e-300"), "wan.bandwidth_mbit"),
    ("control_message_kb = 1e308\n" + BASE, "control_message_kb"),
    (BASE + 'mu_rec = {dist = "uniform", low = 0, high = 1e308}\n', f"{QUEUE}.mu_rec.high"),
    (BASE + 'mu_rec = {dist = "exponential", mean = 1e300}\n', f"{QUEUE}.mu_rec.mean"),
    (BASE + 'mu_env = {dist = "empirical", values = [1, 1e300]}\n', f"{QUEUE}.mu_env.values[1]"),
    (BASE + "mu_env = 1e16\n", f"{QUEUE}.mu_env"),
    (BASE.replace("t_max = 24000", "t_max = 1e300"), f"{QUEUE}.t_max"),
    (BASE.replace("96.0, 4", "1e-300, 4"), "sites[0].groups[0][0]"),
    (BASE.replace("96.0, 4", "1e300, 4"), "sites[0].groups[0][0]"),
    (
        BASE.replace("groups = [[96.0, 4]]", "nodes = 4\nsample = true")
        + "[reference_nodes]\ntypes = [{power = 1.0, weight = 1e308}, {power = 2.0, weight = 1}]"
        + "\n",
        "reference_nodes.types[0].weight",
    ),
    (BASE + "[sites.lan]\nlatency_s = inf\n", "sites[0].lan.latency_s"),
    (BASE + "[sites.lan]\nbandwidth_mbit = nan\n", "sites[0].lan.bandwidth_mbit"),
]


@pytest.mark.parametrize(("text", "key"), TOO_BIG)
def test_huge_tiny_and_infinite_values_are_refused_where_they_enter(
    tmp_path: Path, text: str, key: str
) -> None:
    with pytest.raises(PlatformFileError) as info:
        load_platform(write(tmp_path, text))
    assert info.value.option == key
    assert "plat.toml" in str(info.value)


def test_latency_of_1e17_is_one_line_at_the_command_line(tmp_path: Path) -> None:
    """The issue's case: exit 0 with a makespan of 1e17 s before."""
    write(tmp_path, BASE.replace("latency_s = 0", "latency_s = 1e17"))
    line = one_line_error(schedlab("grid", "run", "plat.toml", "--generator", SMALL, cwd=tmp_path))
    assert "plat.toml" in line and "wan.latency_s" in line


def test_the_largest_delays_allowed_still_give_finite_metrics(tmp_path: Path) -> None:
    """Every delay at its ceiling: the run ends with finite numbers, the clock far below
    1e15 s; --json is strict JSON."""
    text = BASE.replace("latency_s = 0", f"latency_s = {MAX_DELAY:g}") + (
        f'mu_rec = {{dist = "uniform", low = 0, high = {MAX_DELAY:g}}}\nmu_env = {MAX_DELAY:g}\n'
    )
    write(tmp_path, text)
    result = schedlab(
        "grid", "run", "plat.toml", "--generator", SMALL, "--json", "--check", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr

    def no_constant(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    data = json.loads(result.stdout, parse_constant=no_constant)
    numbers = [v for v in data.values() if isinstance(v, float)]
    assert numbers and all(math.isfinite(v) for v in numbers)
    assert data["makespan"] < 1e10


def test_meta_scheduler_times_are_bounded() -> None:
    for bad in (1e-300, 1e300, math.inf, -1.0, True):
        with pytest.raises(ConfigError):
            PushParams(refresh=bad)
    for bad in (1e-9, 1e300, 0.0):
        with pytest.raises(ConfigError):
            DiracParams(retry=bad)
    for bad in (1e308, 0.0, math.nan):
        with pytest.raises(ConfigError):
            PilotParams(epsilon=bad)
    with pytest.raises(ConfigError):
        DirectParams(delay=1e300)
    assert PushParams(refresh=5).refresh == 5  # an int stays as written (run ids)


# -- item 3: no hang, no memory blow-up ---------------------------------------------------------


def test_pilot_simple_with_an_unbounded_mu_rec_ends(tmp_path: Path) -> None:
    """Exponential mu_rec (unbounded) at its largest mean: pilot_simple ends, finitely."""
    text = BASE + f'mu_rec = {{dist = "exponential", mean = {MAX_DELAY:g}}}\n'
    plat = load_platform(write(tmp_path, text))
    wl = generate_grid(plat, meta_jobs=2, local_jobs=1, seed=1)
    result = run_grid(plat, wl, "pilot_simple", seed=1, check=True, retry=3600.0)
    summary = result.summary()
    assert summary["jobs"] == 3 and math.isfinite(summary["makespan"])


def test_agents_that_would_poll_for_ages_are_refused_up_front(tmp_path: Path) -> None:
    """Meta-jobs a billion seconds apart: the static agents would ask every 60 s for 3e9 s
    (tens of millions of requests); refused before the run, naming --param retry."""
    write(tmp_path, BASE)
    spec = "meta_jobs=3,local_jobs=0,meta_interarrival=1e9"
    result = schedlab("grid", "run", "plat.toml", "--meta", "static", "--generator", spec,
                      cwd=tmp_path)  # fmt: skip
    assert "--param retry" in one_line_error(result)


def test_a_run_stops_after_a_ceiling_of_matcher_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import schedlab.grid.dirac as dirac

    monkeypatch.setattr(dirac, "MAX_REQUESTS", 20)
    plat = load_platform(write(tmp_path, BASE))
    wl = generate_grid(plat, meta_jobs=3, local_jobs=0, meta_interarrival=5000.0, seed=1)
    with pytest.raises(PolicyError, match="more than 20 matcher requests.*longer retry"):
        run_grid(plat, wl, "static", seed=1)


def test_a_wake_up_is_always_later_than_now() -> None:
    """At a large clock a short retry would round to now (an agent asking for ever)."""
    now = 9.9e14
    assert now + 1e-3 == now
    assert _later(now, 1e-3) > now
    assert _later(10.0, 60.0) == 70.0


SLOW_NODES = """\
[[sites]]
name = "s1"
groups = [[100.0, 1], [1.0, 1]]
[[sites.queues]]
name = "default"
t_max = 1000
mu_rec = 5
placement = "{placement}"
"""


@pytest.mark.parametrize("meta", ["pilot_simple", "pilot_filling"])
def test_pilots_that_always_land_on_too_slow_a_node_stop_with_one_error(
    tmp_path: Path, meta: str
) -> None:
    """Placement "slowest": every pilot lands on the node of power 1, where no job fits in
    t_max; the agents used to submit pilots for ever. Now one PolicyError names the job and
    the queue."""
    plat = load_platform(write(tmp_path, SLOW_NODES.format(placement="slowest")))
    wl = generate_grid(plat, meta_jobs=3, local_jobs=0, size_max=60000, seed=1)
    with pytest.raises(PolicyError, match="can never run.*s1/default.*placement 'slowest'"):
        run_grid(plat, wl, meta, seed=1, check=True)


@pytest.mark.parametrize("placement", ["random", "fastest"])
def test_pilots_that_may_reach_a_fast_node_run_every_job(tmp_path: Path, placement: str) -> None:
    plat = load_platform(write(tmp_path, SLOW_NODES.format(placement=placement)))
    wl = generate_grid(plat, meta_jobs=3, local_jobs=0, size_max=60000, seed=1)
    result = run_grid(plat, wl, "pilot_simple", seed=1, check=True)
    assert result.summary()["jobs"] == 3 and result.summary()["killed"] == 0


def test_a_sampled_site_of_2_31_nodes_is_refused_and_the_ceiling_can_be_raised(
    tmp_path: Path,
) -> None:
    """Sampling takes 8 bytes a node: 2**31 - 1 nodes used to take 16 GiB."""
    site = '[[sites]]\nname = "s"\nnodes = {n}\nsample = true\n[[sites.queues]]\nname = "q"\n'
    with pytest.raises(PlatformFileError) as info:
        load_platform(write(tmp_path, site.format(n=2**31 - 1)))
    assert info.value.option == "sites[0].nodes"
    assert f"{DEFAULT_MAX_NODES:,}" in info.value.allowed and "max_nodes = N" in info.value.allowed
    assert load_platform(write(tmp_path, "max_nodes = 1500000\n" + site.format(n=1_200_000)))
    with pytest.raises(PlatformFileError, match="max_nodes"):
        load_platform(write(tmp_path, "max_nodes = 0\n" + site.format(n=1)))


def test_explicit_groups_count_towards_the_node_ceiling(tmp_path: Path) -> None:
    text = BASE.replace("96.0, 4", "96.0, 2000000")
    with pytest.raises(PlatformFileError, match="max_nodes"):
        load_platform(write(tmp_path, text))
    assert load_platform(write(tmp_path, "max_nodes = 2000000\n" + text)).total_nodes == 2_000_000


def test_queues_and_sites_have_a_ceiling_too(tmp_path: Path) -> None:
    site = '[[sites]]\nname = "s{i}"\ngroups = [[1.0, 1]]\n[[sites.queues]]\nname = "q"\n'
    many = "".join(site.format(i=i) for i in range(DEFAULT_MAX_QUEUES + 1))
    with pytest.raises(PlatformFileError) as info:
        load_platform(write(tmp_path, many))
    assert "max_queues = N" in info.value.allowed
    assert len(load_platform(write(tmp_path, "max_queues = 2000\n" + many)).sites) == 1001


def test_the_network_grows_with_the_sites_not_their_pairs() -> None:
    """Latency and bandwidth are worked out per pair: 10,000 sites take 10,000 entries."""
    net = Network((0.5,) * 10_000, (1e6,) * 10_000, 0.25, 2e6, 30e3)
    assert net.sites == 10_000 and net.transfer_time(3, 3, 1e9) == 0.0
    assert net.transfer_time(0, 9_999, 1e6) == pytest.approx(1.25 + 1.0)
    assert net.message_time(1, 2) == pytest.approx(1.25 + 0.03)


def test_the_generator_has_a_ceiling_on_jobs_a_user_can_raise(tmp_path: Path) -> None:
    plat = load_platform(write(tmp_path, BASE))
    with pytest.raises(ConfigError) as info:
        generate_grid(plat, meta_jobs=5, local_jobs=0, max_jobs=4)
    assert info.value.option == "grid meta_jobs" and "max_jobs=N" in info.value.allowed
    assert len(generate_grid(plat, meta_jobs=5, local_jobs=0, max_jobs=5)) == 5
    with pytest.raises(ConfigError, match="max_jobs=N"):
        generate_grid(plat, meta_jobs=10**9, local_jobs=0)


def test_generator_settings_that_pass_the_end_of_time_name_the_option(tmp_path: Path) -> None:
    write(tmp_path, BASE)
    for setting, option in [
        ("meta_interarrival=1e14", "--generator meta_interarrival"),
        ("size_shape=1e-9", "--generator size_shape"),
        ("size_scale=1e300", "--generator size_scale"),
        ("meta_jobs=1000000000", "--generator meta_jobs"),
    ]:
        result = schedlab(
            "grid", "run", "plat.toml", "--generator", f"meta_jobs=5,local_jobs=0,{setting}"
            if not setting.startswith("meta_jobs") else setting, cwd=tmp_path,
        )  # fmt: skip
        assert option in one_line_error(result), setting


def test_a_trace_run_past_the_end_of_time_is_refused(tmp_path: Path) -> None:
    plat = load_platform(write(tmp_path, BASE.replace("t_max = 24000\n", "")))
    wl = generate_grid(plat, meta_jobs=2, local_jobs=0, seed=1)
    wl.work[:] = 1e20  # a replayed job of 1e20 NCU on 96 NCU/s nodes, no t_max
    with pytest.raises(ConfigError, match="work.*before 1e\\+14 s"):
        wl.check_platform(plat)


# -- item 6: input errors, not engine errors ----------------------------------------------------


def test_a_queue_under_cpa_is_refused_naming_the_file_and_key(tmp_path: Path) -> None:
    write(tmp_path, BASE + 'policy = "cpa"\n')
    line = one_line_error(schedlab("grid", "run", "plat.toml", "--generator", SMALL, cwd=tmp_path))
    assert "plat.toml" in line and f"{QUEUE}.policy" in line and "online" in line


def test_a_generator_of_no_job_is_refused_naming_the_option(tmp_path: Path) -> None:
    """`--generator meta_jobs=0,local_jobs=0` gave KeyError: 'makespan'."""
    write(tmp_path, BASE)
    result = schedlab(
        "grid", "run", "plat.toml", "--generator", "meta_jobs=0,local_jobs=0", cwd=tmp_path
    )
    assert "--generator meta_jobs" in one_line_error(result)


def test_a_tdcs_stream_of_no_job_is_refused_naming_the_option(tmp_path: Path) -> None:
    result = schedlab(
        "grid", "run", "builtin:tdcs", "--meta", "tdcs", "--generator", "hours=0.001",
        cwd=tmp_path,
    )  # fmt: skip
    assert "--generator" in one_line_error(result)


def test_a_summary_of_no_job_is_undefined_not_a_key_error() -> None:
    empty = {k: np.array([]) for k in ("job_id", "stream", "run_time", "procs", "killed")}
    summary = grid_summary(empty, procs=4, counters={}, wall_time=0.0)
    assert summary["jobs"] == 0 and math.isnan(summary["makespan"])
    assert math.isnan(summary["utilization"])


def test_every_example_platform_still_loads_within_the_bounds() -> None:
    examples = Path(__file__).parents[2] / "examples"
    for path in sorted(examples.glob("platform-*.toml")):
        plat = load_platform(path)
        assert plat.total_nodes <= DEFAULT_MAX_NODES


def test_errors_are_schedlab_errors_and_name_the_file() -> None:
    assert issubclass(PlatformFileError, ConfigError)
    assert issubclass(PlatformFileError, SchedlabError)
