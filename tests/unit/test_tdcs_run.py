"""Paper 003's streams and whole runs (SPEC 6): the pre-registered generator's promises,
SWF priorities, and runs of every configuration under the kernel's invariant checker."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import ConfigError
from schedlab.grid.platforms import load_platform_source
from schedlab.grid.tdcs import CONFIGURATIONS
from schedlab.simulation import run_tdcs
from schedlab.workload.job import Workload
from schedlab.workload.models.tdcs import TdcsWorkload, generate_tdcs, offered_load

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def plat():  # type: ignore[no-untyped-def]
    return load_platform_source("builtin:tdcs")


def test_builtin_platform_is_the_example_file(plat) -> None:  # type: ignore[no-untyped-def]
    from schedlab.grid.platforms import load_platform

    example = load_platform(ROOT / "examples" / "platform-tdcs.toml")
    assert plat.pool_specs() == example.pool_specs()


def test_generator_keeps_its_promises(plat) -> None:  # type: ignore[no-untyped-def]
    """Same seed, same jobs; > 60 % end an hour before their requested time; offered load
    near 0.85 over a long span; background near 20 % of the capacity; 64-processor jobs
    never local to the 32-node cluster."""
    a = generate_tdcs(plat, hours=24, seed=4)
    b = generate_tdcs(plat, hours=24, seed=4)
    assert np.array_equal(a.grid.work, b.grid.work) and np.array_equal(a.origin, b.origin)
    long = generate_tdcs(plat, hours=2000, seed=1)
    assert long.early_share() > 0.6
    assert offered_load(long, plat, 2000 * 3600) == pytest.approx(0.85, rel=0.08)
    bg = long.priority == 0
    share = float(np.dot(long.grid.work[bg], long.grid.procs[bg])) / long.grid.total_work
    assert share == pytest.approx(0.20 / 0.85, rel=0.1)
    assert set(long.checkpointable[bg].tolist()) == {1}
    assert set(long.checkpointable[long.priority == 2].tolist()) == {0}
    local_d = long.grid.stream == 3
    assert long.grid.procs[local_d].max() <= 32
    assert np.all(long.requested >= long.grid.work)


def test_swf_priorities(plat, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Priorities from the queue field or a CSV; the lowest level is checkpointable; round
    robin origins."""
    wl = Workload.from_columns(
        submit_time=np.array([0.0, 1.0, 2.0]),
        run_time=np.array([10.0, 10.0, 10.0]),
        procs=np.array([1, 2, 4]),
        requested_time=np.array([100.0, 5.0, 20.0]),
        queue_id=np.array([2, 0, -1]),
    )
    t = TdcsWorkload.from_swf(wl, plat)
    assert t.priority.tolist() == [2, 0, 0]
    assert t.checkpointable.tolist() == [0, 1, 1]
    assert t.origin.tolist() == [0, 1, 2]
    assert t.requested.tolist() == [100.0, 10.0, 20.0]  # never below the run time
    table = tmp_path / "prio.csv"
    table.write_text("job_id,priority\n1,0\n3,5\n")
    t = TdcsWorkload.from_swf(wl, plat, priority_from=str(table), mode="local")
    assert t.priority.tolist() == [0, 0, 5]
    assert t.grid.stream.tolist() == [0, 1, 2]
    with pytest.raises(ConfigError, match="origin"):
        TdcsWorkload.from_swf(wl, plat, origin="nearest")


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_runs_hold_the_invariants(plat, name: str) -> None:  # type: ignore[no-untyped-def]
    """Every configuration on 12 h of the scenario with the checker on (no cluster over-
    allocates, work conserved): every job ends once, never on a cluster too small for it,
    and the four components add up to the processing time."""
    wl = generate_tdcs(plat, hours=12, seed=2)
    r = run_tdcs(plat, wl, name, seed=2, check=True)
    c = r.columns
    assert np.all(np.isfinite(c["finished_at"]))
    sizes = {s.name: s.nodes for s in plat.sites}
    assert all(p <= sizes[k] for p, k in zip(c["procs"], c["cluster"]))
    parts = c["global_queue_time"] + c["transfer_time"] + c["local_queue_time"] + c["run_time"]
    assert np.allclose(parts, c["processing_time"], rtol=0, atol=1e-6)
    for key in ("global_queue_time", "transfer_time", "local_queue_time"):
        assert c[key].min() > -1e-6, key
    local = c["stream"] == "local"
    assert np.all(c["global_queue_time"][local] == 0) and np.all(c["transfer_time"][local] == 0)
    assert list(c["cluster"][local]) == list(c["origin"][local])
    s = r.summary()
    total = sum(s[k] for k in ("global_queue_time", "transfer_time", "local_queue_time",
                               "run_time"))  # fmt: skip
    assert total == pytest.approx(s["high_priority_mean_processing_time"])
    if name == "tdcs_no_preemption":
        assert s["preemptions"] == 0 and s["lost_work"] == 0
    else:
        assert s["preemptions"] > 0


def test_every_number_of_the_summary_can_be_tabled(plat) -> None:  # type: ignore[no-untyped-def]
    """`schedlab results` takes any summary key (`all_summary_keys`): every number a TDCS
    summary gives is one."""
    from schedlab.metrics.summary import all_summary_keys

    summary = run_tdcs(plat, generate_tdcs(plat, hours=2, seed=1), "tdcs", seed=1).summary()
    numbers = {k for k, v in summary.items() if not isinstance(v, str)}
    assert numbers <= set(all_summary_keys())
