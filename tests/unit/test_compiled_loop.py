"""The kernel's loop in C (engine/_ckernel.c, run through engine/compiled_loop.py) against
`Kernel._loop`, its twin in Python and the oracle.

Every run here is made twice, once per loop (``Kernel.compiled_loop`` True, then False),
each loop counted so that the C one provably ran the first time and the Python one the
second, and must give the same per-job outcome bit for bit (floats compared as bytes: a
-0.0 or another NaN would show): whole runs through the public API (clusters under every
kind of policy, dependants, moldable jobs, the invariant checker, observers, progress,
grids with pilots), random small kernels (node groups of several powers, random placement,
two pools, kills, delays, actors that listen), and the errors of a policy or of the code
the loop calls, which must come out of the C loop unchanged.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import schedlab
from loop_twins import (
    LoopCalls,
    assert_same_result,
    both_loops,
    needs_c_loop,
    run_under,
)
from schedlab.engine import compiled_loop as compiled_loop_module
from schedlab.engine import core
from schedlab.engine.durations import Amdahl, PowerLaw
from schedlab.engine.kernel import Kernel, KernelRun
from schedlab.engine.queue import CEventQueue, PyEventQueue
from schedlab.results import Result
from schedlab.workload.transforms import first_jobs
from workloads import trace_path


def test_the_c_loop_is_built_on_ci() -> None:
    """CI installs with a C compiler: there the extension must have been built (setup.py's
    ``optional=True`` would otherwise hide a compile error behind the slower loop). Where it
    runs, every kernel asks for it by default."""
    if os.environ.get("CI"):
        importlib.import_module("schedlab.engine._ckernel")
    assert Kernel.compiled_loop is compiled_loop_module.USING_C_LOOP
    if compiled_loop_module.USING_C_LOOP:
        assert CEventQueue is not None and core.EventQueue is CEventQueue


# -- whole runs through the public API ---------------------------------------------------------

LUBLIN = "lublin:jobs=1000,procs=64,seed=2"
HLW = "hlw:n=4,nodes=8,seed=2"


def _kth(jobs: int = 400) -> schedlab.Workload:
    return first_jobs(schedlab.read_swf(trace_path("KTH-SP2-1996-2.swf.gz")), jobs)


def _grid(meta: str, *, check: bool = False) -> Callable[[], Result]:
    """A run of the builtin DIRAC platform under ``meta`` (the stream is made once)."""

    def run() -> Result:
        from schedlab.grid.platforms import load_platform_source
        from schedlab.workload.streams import platform_stream

        dirac = load_platform_source("builtin:dirac")
        stream = platform_stream(dirac, {"meta_jobs": 300, "local_jobs": 100}, seed=2)
        return schedlab.run_grid(dirac, stream, meta, seed=2, check=check)

    return run


def _tdcs(preemption: str) -> Callable[[], Result]:
    """A TDCS run (dispatchers that evict, clusters under pps with absolute priorities read
    from job attributes, checkpoints or requeues) on the builtin platform."""

    def run() -> Result:
        from schedlab.grid.platforms import load_platform_source
        from schedlab.workload.models.tdcs import generate_tdcs

        tdcs = load_platform_source("builtin:tdcs")
        jobs = generate_tdcs(tdcs, hours=12, seed=5)
        return schedlab.run_tdcs(tdcs, jobs, "tdcs", seed=5, preemption=preemption)

    return run


def _cluster(workload: str | None, policy: str, **options: Any) -> Callable[[], Result]:
    """A one-cluster run on the general kernel (``workload`` None: the real trace slice,
    read when the run is made: its test is skipped where the trace is absent)."""

    def run() -> Result:
        return schedlab.simulate(
            _kth() if workload is None else workload, policy, engine="general", **options
        )

    return run


RUNS: dict[str, Callable[[], Result]] = {
    **{
        f"lublin-{policy}": _cluster(LUBLIN, policy)
        for policy in ("easy", "conservative", "fcfs", "pps", "fs0.5mpx", "multifactor")
    },
    **{f"trace-{policy}": _cluster(None, policy) for policy in ("easy", "conservative", "fcfs")},
    "trace-easy-heavier": _cluster(None, "easy", load_factor=1.5),
    "dependants-fs0.5mpx": _cluster(HLW, "fs0.5mpx"),
    "dependants-easy": _cluster(HLW, "easy"),
    "no-kill-on-overrun": _cluster(LUBLIN, "easy", kill_on_overrun=False),
    "moldable-easy": _cluster(LUBLIN, "easy", speedup=Amdahl(0.8)),
    "moldable-conservative": _cluster(LUBLIN, "conservative", speedup=PowerLaw(0.5)),
    "checked-easy": _cluster(LUBLIN, "easy", check=True),
    "checked-pps": _cluster(LUBLIN, "pps", check=True),
    "timeseries-easy": _cluster(LUBLIN, "easy", timeseries=True),
    "grid-push": _grid("push"),
    "grid-pilot_filling": _grid("pilot_filling"),
    "grid-static": _grid("static"),
    "grid-push-checked": _grid("push", check=True),
    "tdcs-checkpoint": _tdcs("checkpoint"),
    "tdcs-requeue": _tdcs("requeue"),
}


@needs_c_loop
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.trace] if name.startswith("trace-") else [])
        for name in RUNS
    ],
)
def test_public_runs_are_the_same_on_either_loop(name: str) -> None:
    """Clusters under `Steps` policies (easy, fcfs: the C loop's own case) and classic ones
    (conservative, multifactor, preemptive pps and fs0.5mpx: their hooks called and their
    plain starts made from C, any other decision through Python), on a synthetic workload
    and a real trace slice, with dependants, without kills, with moldable jobs, with the
    invariant checker (a traced run: every start and end through Python), with an observer
    (the time series), grids (actors, delays, pilots) and TDCS runs (evictions, checkpoints,
    requeues): the same result, bit for bit, from either loop."""
    with_c, with_python = both_loops(RUNS[name])
    assert_same_result(with_c, with_python)
    assert len(with_c.raw.started_at) > 0 and not np.isnan(with_c.raw.finished_at).any()


@needs_c_loop
def test_pilots_grow_the_job_table_during_a_c_run() -> None:
    """Pilots spawned while the C loop runs append to every column of the job table (which
    moves the columns' buffers): the loop must take its pointers again, and the run still
    ends as the Python one does (a stale pointer would write into freed memory)."""
    with_c, with_python = both_loops(_grid("pilot_filling"))
    raw = with_c.raw
    assert isinstance(raw, KernelRun)
    assert raw.spawned > 0
    assert len(raw.started_at) == len(with_c.workload) + raw.spawned  # (by global id)
    assert_same_result(with_c, with_python)


@needs_c_loop
def test_progress_is_told_the_same_on_either_loop() -> None:
    """``progress(ended, jobs)``, called every 4096 instants, gets the same calls from the C
    loop (a run long enough for two of them)."""
    told: list[tuple[int, int]] = []

    def run() -> tuple[Result, list[tuple[int, int]]]:
        told.clear()
        result = schedlab.simulate(
            "lublin:jobs=5000,procs=64,seed=3",
            "easy",
            engine="general",
            progress=lambda ended, jobs: told.append((ended, jobs)),
        )
        return result, list(told)

    (with_c, c_told), (with_python, python_told) = both_loops(run)
    assert len(c_told) >= 2
    assert c_told == python_told
    assert_same_result(with_c, with_python)


@needs_c_loop
def test_the_c_loop_runs_only_on_the_c_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel given the Python twin of the event queue runs the Python loop, even when it
    asks for the C one (the C loop pops through the C queue's own API)."""
    monkeypatch.setattr(core, "EventQueue", PyEventQueue)
    calls = LoopCalls()
    result = run_under(True, lambda: schedlab.simulate(LUBLIN, "easy", engine="general"), calls)
    assert calls == LoopCalls(python=1)
    monkeypatch.undo()
    with_c = run_under(
        True, lambda: schedlab.simulate(LUBLIN, "easy", engine="general"), LoopCalls()
    )
    assert_same_result(with_c, result)


def test_version_says_which_kernel_loop_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """`schedlab --version` names the kernel's loop, read from the files (numpy unimported),
    and says when SCHEDLAB_PURE_PYTHON overrides the compiled one."""
    from schedlab.about import kernel_loop_note, version_line

    note = kernel_loop_note()
    assert note in version_line()
    assert (note == "kernel loop: C extension") == compiled_loop_module.USING_C_LOOP
    monkeypatch.setenv("SCHEDLAB_PURE_PYTHON", "1")
    assert kernel_loop_note().startswith("kernel loop: Python (")
