"""What the tests of the kernel's two loops share (tests/unit/test_compiled_loop*.py): every
run made twice, once per loop (``Kernel.compiled_loop`` True, then False), each loop counted
so that the C one provably ran the first time and the Python one the second, and outcomes
compared bit for bit (floats as bytes: a -0.0 or another NaN would show)."""

from __future__ import annotations

import dataclasses
import struct
from array import array
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np
import pytest

from schedlab.engine import compiled_loop as compiled_loop_module
from schedlab.engine import kernel as kernel_module
from schedlab.engine.kernel import Kernel, KernelRun
from schedlab.engine.protocol import ClusterView
from schedlab.results import Result
from schedlab.schedulers.fcfs import Fcfs

T = TypeVar("T")

needs_c_loop = pytest.mark.skipif(
    not compiled_loop_module.USING_C_LOOP,
    reason="the C loop is not in use (schedlab.engine._ckernel or _cevents not built, or "
    "SCHEDLAB_PURE_PYTHON set)",
)


# -- comparing outcomes -----------------------------------------------------------------------


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


def _first_difference(c: np.ndarray, py: np.ndarray) -> str:
    """Where two arrays of one shape first differ, bit for bit, and both values there."""
    flat_c, flat_py = c.reshape(-1), py.reshape(-1)
    for i in range(flat_c.size):
        if flat_c[i : i + 1].tobytes() != flat_py[i : i + 1].tobytes():
            return f"first at [{i}]: C {flat_c[i]!r}, Python {flat_py[i]!r}"
    return "no element differs"


def assert_same(c: Any, py: Any, where: str = "outcome") -> None:
    """``c`` (from the C loop) is ``py`` (from the Python loop), field by field and bit for
    bit: dataclasses (``wall_time`` skipped), dicts, sequences, numpy and typed arrays,
    floats as their bytes."""
    assert type(c) is type(py), f"{where}: C gives a {type(c)}, Python a {type(py)}"
    if dataclasses.is_dataclass(c) and not isinstance(c, type):
        for f in dataclasses.fields(c):
            if f.name != "wall_time":
                assert_same(getattr(c, f.name), getattr(py, f.name), f"{where}.{f.name}")
    elif isinstance(c, np.ndarray):
        assert (c.dtype, c.shape) == (py.dtype, py.shape), f"{where}: dtype or shape"
        if c.dtype.kind == "O":
            for i, (a, b) in enumerate(zip(c.tolist(), py.tolist())):
                assert_same(a, b, f"{where}[{i}]")
            return
        floats = c.dtype.kind in "fc"
        assert np.array_equal(c, py, equal_nan=floats), f"{where}: {_first_difference(c, py)}"
        # (equal values, yet other bits: -0.0 for 0.0, or a NaN of another payload)
        assert c.tobytes() == py.tobytes(), f"{where}: {_first_difference(c, py)}"
    elif isinstance(c, array):
        assert c.typecode == py.typecode, f"{where}: typecode"
        assert_same(np.array(c), np.array(py), where)
    elif isinstance(c, dict):
        assert list(c) == list(py), f"{where}: keys {list(c)} != {list(py)}"
        for key in c:
            assert_same(c[key], py[key], f"{where}[{key!r}]")
    elif isinstance(c, list | tuple):
        assert len(c) == len(py), f"{where}: length {len(c)} != {len(py)}"
        for i, (a, b) in enumerate(zip(c, py)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(c, float):
        assert _bits(c) == _bits(py), f"{where}: C {c!r}, Python {py!r}"
    else:
        assert c == py, f"{where}: C {c!r}, Python {py!r}"


def assert_same_result(c: Result, py: Result) -> None:
    """Two public results: the raw outcome, and what is derived from it or recorded beside
    it (the per-job table, the policy's columns, the time series, the meta-scheduler's
    counters and request times)."""
    assert_same(c.raw, py.raw, "raw")
    assert_same(c.columns, py.columns, "columns")
    assert_same(c.extra_columns, py.extra_columns, "extra_columns")
    assert_same(c.timeseries_columns, py.timeseries_columns, "timeseries_columns")
    assert_same(c.meta, py.meta, "meta")


# -- running both loops -----------------------------------------------------------------------


@dataclasses.dataclass
class LoopCalls:
    """How many kernel runs went through each loop."""

    c: int = 0
    python: int = 0


def run_under(compiled: bool, run: Callable[[], T], calls: LoopCalls) -> T:
    """``run()`` with ``Kernel.compiled_loop`` set to ``compiled``; every entry into either
    loop counted in ``calls`` (the C one through the name the kernel module calls)."""
    real_c = kernel_module.compiled_loop
    real_python = Kernel._loop

    def counted_c(*args: Any, **kwargs: Any) -> tuple[int, int]:
        calls.c += 1
        return real_c(*args, **kwargs)

    def counted_python(*args: Any, **kwargs: Any) -> tuple[int, int]:
        calls.python += 1
        return real_python(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Kernel, "compiled_loop", compiled)
        mp.setattr(kernel_module, "compiled_loop", counted_c)
        mp.setattr(Kernel, "_loop", counted_python)
        return run()


def both_loops(run: Callable[[], T], kernels: int = 1) -> tuple[T, T]:
    """``run()`` on the C loop, then on the Python loop: (C outcome, Python outcome). Each
    time, each of its ``kernels`` kernel runs went through that loop only."""
    on_c, on_python = LoopCalls(), LoopCalls()
    with_c = run_under(True, run, on_c)
    assert on_c == LoopCalls(c=kernels), f"the C loop did not run alone: {on_c}"
    with_python = run_under(False, run, on_python)
    assert on_python == LoopCalls(python=kernels), f"the Python loop did not run: {on_python}"
    return with_c, with_python


def both_loops_raise(
    run: Callable[[], object], expected: type[BaseException]
) -> tuple[BaseException, BaseException]:
    """``run()`` must raise ``expected`` on either loop (the same class, not a subclass);
    returns (from C, from Python) after checking the C loop raised it itself, unwrapped."""
    raised: list[BaseException] = []
    for compiled in (True, False):
        calls = LoopCalls()
        with pytest.raises(expected) as info:
            run_under(compiled, run, calls)
        assert calls == (LoopCalls(c=1) if compiled else LoopCalls(python=1)), calls
        assert type(info.value) is expected, repr(info.value)
        raised.append(info.value)
    from_c, from_python = raised
    assert str(from_c) == str(from_python)
    assert from_c.__cause__ is None and from_c.__context__ is None, repr(from_c.__context__)
    return from_c, from_python


class ClassicFcfs(Fcfs):
    """FCFS through the classic protocol (it overrides the hooks below `step`), logging every
    hook: the C loop calls ``on_submit`` and ``on_finish`` itself."""

    name: ClassVar[str] = "classic-fcfs"

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self.view = view
        self.log: list[tuple[Any, ...]] = []

    def on_submit(self, job: int) -> None:
        self.log.append(("submit", self.view.now, job, self.view.free_procs))
        super().on_submit(job)

    def on_finish(self, job: int) -> None:
        self.log.append(("finish", self.view.now, job, self.view.free_procs))
        super().on_finish(job)


_POOL_NAMES = ("queued", "received", "running", "held", "free", "free_total", "ended", "gids")


def kernel_state(kernel: Kernel, outcome: KernelRun | None = None) -> dict[str, Any]:
    """All a run leaves: its outcome, every column of the job table, the kernel's counters
    and queue, each pool's counts, nodes and view, what the policies and actors logged."""
    table = kernel.jobs
    return {
        "outcome": outcome,
        "table": {name: getattr(table, name) for name, _, _ in table.columns},
        "payloads": table.payloads,
        "kernel": {
            name: getattr(kernel, name)
            for name in ("now", "running", "done", "released", "spawned", "unreleased")
        },
        "clock": kernel.clock.now,
        "events": (kernel.events.seq, len(kernel.events)),
        "pools": [
            {
                **{name: getattr(pool, name) for name in _POOL_NAMES},
                "dirty": pool.dirty,
                "view": pool.view,
                "policy": getattr(pool.policy, "log", None),
            }
            for pool in kernel.pools
        ],
        "actors": [
            {name: getattr(actor, name, None) for name in ("log", "changes")}
            for actor in kernel.actors
        ],
    }
