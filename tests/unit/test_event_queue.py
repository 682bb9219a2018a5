"""The kernel's event queue (engine/queue.py): the C type of ``_cevents`` and its pure-Python
twin against a sorted list, the obviously correct reference."""

from __future__ import annotations

import gc
import math
import os
import weakref
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine import queue as queue_module
from schedlab.engine.queue import CEventQueue, PyEventQueue

QUEUES = [pytest.param(PyEventQueue, id="python")] + (
    [pytest.param(CEventQueue, id="c")] if CEventQueue is not None else []
)

# an operation: push (t, rank, order), or one of the reads and pops
_push = st.tuples(
    st.just("push"),
    st.sampled_from([0.0, 1.0, 2.5, 1e9, 7.0]),  # few times: many ties on time
    st.integers(0, 2),
    st.integers(0, 5),
)
_read = st.tuples(st.sampled_from(["pop", "pop_at", "order_at", "next_time"]), st.integers(0, 2))
_ops = st.lists(st.one_of(_push, _read), max_size=80)


class _Reference:
    """Every event in a list, the smallest key found by sorting: slow and obviously right."""

    def __init__(self) -> None:
        self.events: list[tuple[float, int, int, int, tuple[Any, ...]]] = []
        self.seq = 0

    def push(self, t: float, rank: int, order: int, kind: int, a: Any, b: Any) -> None:
        self.seq += 1
        self.events.append((t, rank, order, self.seq, (kind, order, a, b)))

    def top(self) -> tuple[float, int, int, int, tuple[Any, ...]] | None:
        return min(self.events) if self.events else None

    def take(self) -> tuple[Any, ...]:
        top = self.top()
        assert top is not None
        self.events.remove(top)
        return top[4]


@pytest.mark.parametrize("make", QUEUES)
@settings(max_examples=300, deadline=None)
@given(ops=_ops)
def test_the_queue_pops_in_the_order_of_time_rank_order_and_push(make: Any, ops: list) -> None:
    """Any sequence of pushes, pops and reads gives what the sorted list gives: the events
    in the order (time, rank, order, pushes), the item given at the push, -1 and None when
    the next event is not of the rank at the time asked, inf when none is left."""
    q, ref = make(), _Reference()
    for i, op in enumerate(ops):
        name = op[0]
        top = ref.top()
        if name == "push":
            _, t, rank, order = op
            q.push(t, rank, order, i % 8, ("a", i), None if i % 3 else [i])
            ref.push(t, rank, order, i % 8, ("a", i), None if i % 3 else [i])
        elif name == "next_time":
            assert q.next_time() == (top[0] if top else math.inf)
        elif name == "pop":
            if top is None:
                with pytest.raises(IndexError):
                    q.pop()
            else:
                assert q.pop() == ref.take()
        else:
            now = top[0] if top is not None and i % 2 else 2.5
            rank = op[1]
            here = top is not None and top[0] == now and top[1] == rank
            if name == "order_at":
                assert q.order_at(now, rank) == (top[2] if here else -1)
            else:
                assert q.pop_at(now, rank) == (ref.take() if here else None)
        assert len(q) == len(ref.events)
        assert q.seq == ref.seq
    while ref.events:  # what is left comes out in order too
        assert q.pop() == ref.take()
    assert len(q) == 0 and q.next_time() == math.inf


@pytest.mark.parametrize("make", QUEUES)
def test_the_queue_returns_exactly_what_was_pushed(make: Any) -> None:
    """A pop hands back the objects given (not copies), and defaults a and b to None; a time
    given as an int reads as a float."""
    q = make()
    message = object()
    q.push(3, 1, 7, 5, 2, message)
    q.push(1.5, 0, 4, 0)
    assert q.next_time() == 1.5 and q.pop() == (0, 4, None, None)
    assert isinstance(q.next_time(), float) and q.next_time() == 3.0
    kind, order, a, b = q.pop()
    assert (kind, order, a) == (5, 7, 2) and b is message


@pytest.mark.skipif(CEventQueue is None, reason="C extension schedlab.engine._cevents not built")
def test_the_c_queue_refuses_bad_arguments_and_frees_its_items() -> None:
    """Wrong arguments raise TypeError (nothing is pushed); a dropped queue releases the
    objects it holds, even in a cycle through them (the collector sees its items)."""
    assert CEventQueue is not None
    q = CEventQueue()
    with pytest.raises(TypeError):
        q.push(1.0, 0)
    with pytest.raises(TypeError):
        q.push("soon", 0, 1, 0)
    with pytest.raises(TypeError):
        q.push(1.0, "first", 1, 0)
    with pytest.raises(TypeError):
        q.pop_at(1.0)
    with pytest.raises(TypeError):
        CEventQueue(1)
    assert len(q) == 0 and q.seq == 0

    class Message:
        pass

    message = Message()
    held = weakref.ref(message)
    cycle = CEventQueue()
    message.queue = cycle  # type: ignore[attr-defined]
    cycle.push(1.0, 1, 2, 5, 0, message)
    del message, cycle
    gc.collect()
    assert held() is None


def test_the_kernel_uses_the_c_queue_when_it_is_built() -> None:
    """``EventQueue`` is the C type whenever it was compiled (unless forced to Python). CI
    installs with a C compiler: there the extension must have been built (setup.py's
    ``optional=True`` would otherwise hide a compile error behind the slower twin)."""
    if os.environ.get("CI"):
        assert CEventQueue is not None, "the C event queue (_cevents.c) was not built"
    if queue_module.USING_C_QUEUE:
        assert queue_module.EventQueue is CEventQueue
    else:
        assert queue_module.EventQueue is PyEventQueue


def test_version_says_which_event_queue_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """`schedlab --version` names the queue the kernel uses, read from the files (numpy
    unimported), and says when SCHEDLAB_PURE_PYTHON overrides the compiled one."""
    from schedlab.about import event_queue_note, version_line

    note = event_queue_note()
    assert note in version_line()
    assert (note == "event queue: C extension") == queue_module.USING_C_QUEUE
    monkeypatch.setenv("SCHEDLAB_PURE_PYTHON", "1")
    assert event_queue_note().startswith("event queue: heapq (")


@pytest.mark.skipif(CEventQueue is None, reason="C extension schedlab.engine._cevents not built")
def test_kernel_runs_are_the_same_on_either_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole kernel runs that make every kind of event (a preemptive policy with wake-ups,
    dependants, a grid with receive and release delays, messages and pilots) give the same
    per-job outcome with the C queue and with the `heapq` twin."""
    import dataclasses

    import numpy as np

    import schedlab
    from schedlab.engine import core
    from schedlab.grid.platforms import load_platform_source
    from schedlab.workload.streams import platform_stream

    dirac = load_platform_source("builtin:dirac")
    stream = platform_stream(dirac, {"meta_jobs": 60, "local_jobs": 20}, seed=2)
    runs = {
        "preemptive": lambda: schedlab.simulate(
            "lublin:jobs=400,procs=32,seed=2", "pps", engine="general"
        ),
        "dependants": lambda: schedlab.simulate(
            "hlw:n=4,nodes=8,seed=2", "fs0.5mpx", engine="general"
        ),
        "pilots": lambda: schedlab.run_grid(dirac, stream, "pilot_filling", seed=2),
        "push": lambda: schedlab.run_grid(dirac, stream, "push", seed=2),
    }

    made: list[str] = []  # the queues the kernel made: every run is on the kernel

    def counted(kind: Any) -> Any:
        def make() -> Any:
            made.append(kind.__name__)
            return kind()

        return make

    def outcome(name: str) -> dict[str, Any]:
        before = len(made)
        raw = runs[name]().raw
        assert len(made) == before + 1, name
        return {
            f.name: getattr(raw, f.name)
            for f in dataclasses.fields(raw)
            if f.name not in ("wall_time",) and getattr(raw, f.name) is not None
        }

    monkeypatch.setattr(core, "EventQueue", counted(CEventQueue))
    with_c = {name: outcome(name) for name in runs}
    monkeypatch.setattr(core, "EventQueue", counted(PyEventQueue))
    for name in runs:
        with_py = outcome(name)
        assert with_py.keys() == with_c[name].keys()
        for field, value in with_c[name].items():
            if isinstance(value, np.ndarray):
                assert np.array_equal(value, with_py[field], equal_nan=True), (name, field)
            else:
                assert value == with_py[field], (name, field)
    assert made == ["EventQueue"] * len(runs) + ["PyEventQueue"] * len(runs)
    assert with_c["preemptive"]["preemptions"].sum() > 0  # (suspensions and resumptions)
    assert with_c["pilots"]["spawned"] > 0
