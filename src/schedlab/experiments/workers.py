"""Worker processes for sweeps: started safely, stopped in order, never left behind.

Stopping: SIGINT (Ctrl-C) and SIGTERM stop a sweep in order (``SweepInterrupted``): worker
processes are ended, the finished runs and the catalog stay, the lock is released; only the
runs in flight are lost, and run again on resume. Local workers ignore SIGINT (a Ctrl-C
reaches the whole process group; the parent decides) and die with their parent, even when it
is killed outright (SIGKILL), instead of running on with nobody to take their results.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from multiprocessing import get_context
from typing import Any

__all__ = [
    "SweepInterrupted",
    "completed_runs",
    "stop_on_sigterm",
    "submit_all",
    "worker_pool",
]

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_WORKER_STOP_TIME = 3.0  # s a worker gets to die of SIGTERM before SIGKILL
_PARENT_POLL_TIME = 0.5  # s between checks that the parent lives (where prctl is missing)
_SIGNAL_CHECK_TIME = 0.1  # s at most between a stop signal and the wait for runs noticing it


class SweepInterrupted(KeyboardInterrupt):
    """A signal (SIGTERM) stopped the sweep; finished runs are kept, those in flight lost.

    A KeyboardInterrupt, like the Ctrl-C it stands beside: a run's own ``except Exception``
    cannot swallow it, and code that handles Ctrl-C handles it too. ``signum`` gives the
    conventional exit status, 128 + signum (143 for SIGTERM).
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """SIGTERM raises SweepInterrupted in the main thread (as SIGINT raises KeyboardInterrupt)
    so that the sweep stops in order; the previous handler is back afterwards, and from the
    first SIGTERM on: a second one during the clean-up acts as it did before (by default, it
    kills). Signals can only be handled in the main thread, and one ignored stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_IGN:
        yield
        return
    if previous is None:  # a handler not set from Python cannot be put back: the default is
        previous = signal.SIG_DFL

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, previous)
        raise SweepInterrupted(signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _context() -> Any:
    """fork where it exists (workers start in milliseconds, the parent's imports shared),
    spawn elsewhere. The parent starts no thread before the workers exist (the CLI starts
    its progress display once the first outcome is back), so forking is safe."""
    import multiprocessing

    if "fork" in multiprocessing.get_all_start_methods():
        return get_context("fork")
    return get_context("spawn")


@contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while workers are forked: a worker then meets them only once
    its initializer has set what they do (no half-started worker dying with a traceback).
    Held signals arrive, in the parent too, when this ends."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _set_parent_death_signal() -> bool:
    """Have the kernel SIGKILL this process when its parent dies (Linux prctl
    PR_SET_PDEATHSIG); False where that is not available. The parent is the thread that
    forked, the main thread here (a fork pool starts its workers in the submitting thread),
    which lives as long as the sweep."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)) == 0  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
        return False


def _watch_parent(parent_pid: int) -> None:
    """Where no parent-death signal exists: exit as soon as the parent is gone (an orphan
    gets a new parent pid)."""
    while True:
        time.sleep(_PARENT_POLL_TIME)
        if os.getppid() != parent_pid:
            os._exit(1)


def _worker_init(parent_pid: int) -> None:
    """Pool initializer, run in each worker before any run: die with the parent, leave SIGINT
    to the parent, die of SIGTERM (the handler the parent had when it forked is not ours)."""
    if not _set_parent_death_signal():
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the signal was set
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    _one_blas_thread()


def _one_blas_thread() -> None:
    """A worker is one core's worth of work: BLAS threads (started by the small np.dot
    calls of the metrics) would only spin against the other workers."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the worker processes now (SIGTERM, SIGKILL after _WORKER_STOP_TIME): runs in
    flight are abandoned. ``_processes`` is private, but ProcessPoolExecutor has no public
    way to end its workers before Python 3.14, and shutdown() waits for their runs."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    with _stop_signals_blocked():  # every worker told, however often Ctrl-C is pressed
        for process in processes:
            process.terminate()
    deadline = time.monotonic() + _WORKER_STOP_TIME
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1.0)
    pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of worker processes that die with this process and never outlive an error or
    an interrupt: on any exception (Ctrl-C included) they are stopped at once. Submit
    through `submit_all`, which holds SIGINT and SIGTERM while workers are forked, and wait
    through `completed_runs`, where a stop signal cannot leave the pool's locks held."""
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_context(),
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )
    try:
        yield pool
    except BaseException:
        with _stop_signals_deferred():  # a short clean-up that a second Ctrl-C must not cut
            _stop_workers(pool)
        raise
    with _stop_signals_deferred() as check:
        pool.shutdown(wait=True)
        check()


def submit_all(
    pool: ProcessPoolExecutor, fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]]
) -> list[Future[Any]]:
    """``fn(*task)`` for every task on ``pool`` (workers are forked at the first submit)."""
    with _stop_signals_blocked():
        return [pool.submit(fn, *task) for task in tasks]


@contextmanager
def _stop_signals_deferred() -> Iterator[Callable[[], None]]:
    """SIGINT and SIGTERM only noted while runs are waited for; the check this yields then
    calls the handler they had (KeyboardInterrupt, SweepInterrupted) at a safe point.

    Why: raised at an arbitrary bytecode, the interrupt can land in concurrent.futures'
    wait() between taking the futures' locks one by one (it has no try/finally there): the
    locks stay held, the pool's manager thread blocks on one when the workers are stopped,
    and the shutdown that joins it never returns (a Ctrl-C that hung a sweep for good).
    Only Python handlers are deferred: an ignored or default signal keeps its effect."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    received: list[int] = []
    previous: dict[int, Callable[[int, Any], Any]] = {}

    def note(signum: int, frame: object) -> None:
        received.append(signum)

    for signum in _STOP_SIGNALS:
        handler = signal.getsignal(signum)
        if callable(handler):
            previous[signum] = handler
            signal.signal(signum, note)

    def restore() -> None:
        for signum, handler in previous.items():
            if signal.getsignal(signum) is note:
                signal.signal(signum, handler)

    def check() -> None:
        if received:
            restore()  # from here on, a signal goes straight to its handler
            noted = list(dict.fromkeys(received))
            received.clear()
            for signum in noted:  # each once, in order (a handler that raises ends it)
                previous[signum](signum, None)

    try:
        yield check
    finally:
        restore()


def completed_runs(futures: Iterable[Future[Any]]) -> Iterator[Future[Any]]:
    """The futures as they finish, like concurrent.futures.as_completed, but a stop signal
    (Ctrl-C, SIGTERM) surfaces here, between two waits, never inside one (see
    `_stop_signals_deferred`); the caller's code for each future runs uninterrupted too."""
    pending = set(futures)
    with _stop_signals_deferred() as check:
        while pending:
            finished, pending = wait(
                pending, timeout=_SIGNAL_CHECK_TIME, return_when=FIRST_COMPLETED
            )
            check()
            yield from finished
            check()
