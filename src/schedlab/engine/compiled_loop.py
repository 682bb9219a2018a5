"""The kernel's loop in C (`engine/_ckernel.c`, an optional extension): what it is given.

`engine.kernel.Kernel._loop` is the loop in Python, the fallback and the oracle the C loop
is tested against. The C loop does, itself, what every job of a cluster does: release,
admission to its pool's view, start on its own size (a `Steps` policy's, or a classic
policy's `Start(job)`) and end (the arithmetic of `engine.lifecycle`, the same operations in
the same order, so the same bits). For everything else it calls the kernel's own Python
methods (`Kernel._loop_parts` hands them over): a job that goes to an actor, crosses a
delay, ends with payloads, dependants or a node-release delay, or is watched by an actor;
any other decision of a policy; actors; messages; observers.

It needs the C event queue too (it pops and pushes through the queue's capsule), so it runs
when both were built and ``SCHEDLAB_PURE_PYTHON`` does not force Python
(`schedlab.compiled`).
"""

from __future__ import annotations

from typing import Any

from schedlab.engine.queue import USING_C_QUEUE, CEventQueue

__all__ = ["USING_C_LOOP", "compiled_loop", "runs_compiled"]


def _load() -> Any:
    try:
        from schedlab.engine._ckernel import run
    except ImportError:  # not compiled (no compiler at install time)
        return None
    return run


_C_RUN = _load()
USING_C_LOOP = USING_C_QUEUE and _C_RUN is not None


def runs_compiled(kernel: Any) -> bool:
    """Whether ``kernel`` (an `engine.kernel.Kernel`) runs the C loop: it asks for it
    (``Kernel.compiled_loop``, True when the loop was built) and its events are in the C
    queue (a test may hand it the Python twin)."""
    return kernel.compiled_loop and CEventQueue is not None and type(kernel.events) is CEventQueue


def compiled_loop(kernel: Any, parts: dict[str, Any]) -> tuple[int, int]:
    """Run the loop of ``kernel`` (an `engine.kernel.Kernel`) in C, given the ``parts`` it
    hands over (`Kernel._loop_parts`); returns (instants, rounds), as `Kernel._loop` does."""
    instants, rounds = _C_RUN(kernel, parts)
    return int(instants), int(rounds)
