"""Running many simulations: one run in a worker, many runs on processes or a Dask cluster.

``execute_run`` is the unit of work: a plain function of a configuration dict that never
raises (a failure comes back as an outcome with the error), importable by name so Dask
workers on other machines can run it. Outcomes travel back to the client, which alone
writes the results folder: workers need no access to it.

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
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing import get_context
from typing import Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.experiments.arrow import parquet_bytes
from schedlab.experiments.config import RunConfig
from schedlab.experiments.store import ResultStore, RunOutcome

EXECUTORS = ("local", "dask")
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


@lru_cache(maxsize=4)
def _read_trace(path: str, procs: int | None) -> Any:
    """Traces are read once per worker, however many runs use them (SWF, or a Slurm, PBS
    or CSV log: `workload.importers`)."""
    from schedlab.workload.importers import read_trace

    return read_trace(path, max_procs=procs)


@lru_cache(maxsize=2)
def _generate(name: str, params: tuple[tuple[str, Any], ...]) -> Any:
    """Model workloads too are generated once per worker (batches of one big workload)."""
    from schedlab.workload.load import MODELS

    return MODELS[name][0](**dict(params))


def build_workload(run: RunConfig, base_dir: str | None) -> Any:
    """The workload of a run: model (seeded) or trace, then its transforms in order."""
    from schedlab.experiments.sweep import apply_transforms, resolve_workload
    from schedlab.workload.load import SIZE_KEYS, is_model_spec, parse_model_spec

    source = resolve_workload(run.workload, base_dir or ".")
    if is_model_spec(source):
        name, params = parse_model_spec(source)
        if run.seed is not None:
            params["seed"] = run.seed  # the run's seed seeds the model
        if run.procs is not None:
            params[SIZE_KEYS[name]] = run.procs
        workload = _generate(name, tuple(sorted(params.items())))
    else:
        workload = _read_trace(source, run.procs)
    return apply_transforms(workload, run.transforms)


@lru_cache(maxsize=4)
def _platform(source: str) -> Any:
    """Platforms too are read once per worker."""
    from schedlab.experiments.sweep import load_platform_source

    return load_platform_source(source)


def build_grid_run(run: RunConfig, base_dir: str | None) -> tuple[Any, Any]:
    """(`Platform`, `GridWorkload`) of a grid run, with the per-worker caches."""
    from schedlab.experiments.sweep import grid_workload_of, resolve_platform, resolve_workload

    assert run.platform is not None
    platform = _platform(resolve_platform(run.platform, base_dir or "."))
    trace = None
    if run.generator is None:
        trace = _read_trace(resolve_workload(run.workload, base_dir or "."), None)
    return platform, grid_workload_of(run, platform, trace)


def grid_timeseries(result: Any) -> dict[str, np.ndarray]:
    """A grid run's time series (``result.bins`` evenly spaced instants): jobs ``queued``,
    ``running`` and ``done`` (`GridResult.timeseries`), ``busy_procs`` (processors running
    jobs; a pilot's own time before and between its payloads is not counted), and the
    matcher's requests in the bin that starts at each instant: ``matcher_requests`` (all;
    0 without a matcher) and ``matcher_requests_KIND`` for each kind the meta-scheduler
    counts (agent, first_pull, refill for DIRAC)."""
    frame = result.timeseries()
    out: dict[str, np.ndarray] = {
        "time": frame["time"].to_numpy(np.float64),
        "queued": frame["queued"].to_numpy(np.int64),
        "running": frame["running"].to_numpy(np.int64),
        "done": frame["done"].to_numpy(np.int64),
    }
    columns = result.columns
    started = np.asarray(columns["started_at"], dtype=np.float64)
    finished = np.asarray(columns["finished_at"], dtype=np.float64)
    procs = np.asarray(columns["procs"], dtype=np.int64)
    ran = np.isfinite(started)
    times = out["time"]
    starts = np.argsort(started[ran], kind="stable")
    ends = np.argsort(finished[ran], kind="stable")
    begun = np.concatenate(([0], np.cumsum(procs[ran][starts])))
    over = np.concatenate(([0], np.cumsum(procs[ran][ends])))
    n_start = np.searchsorted(started[ran][starts], times, side="right")
    n_end = np.searchsorted(finished[ran][ends], times, side="right")
    out["busy_procs"] = (begun[n_start] - over[n_end]).astype(np.int64)
    requests = result.matcher_requests()
    kinds = [c for c in requests.columns if c != "time"]
    total = np.zeros(len(times), dtype=np.int64)
    for kind in kinds:
        total += requests[kind].to_numpy(np.int64)
    out["matcher_requests"] = total
    for kind in kinds:
        out[f"matcher_requests_{kind}"] = requests[kind].to_numpy(np.int64)
    return out


def _execute_grid(run: RunConfig, config: dict[str, Any], base_dir: str | None) -> RunOutcome:
    """A grid run (Caron et al., LIP RR-2005-13): `run_grid` on the run's platform and grid
    workload."""
    from schedlab.grid.run import run_grid

    clock = time.perf_counter()
    platform, workload = build_grid_run(run, base_dir)
    result = run_grid(platform, workload, run.policy, seed=run.seed or 0, **run.params)
    summary = result.summary()
    sim_time = summary.pop("wall_time")
    import schedlab

    return RunOutcome(
        run_id=run.run_id,
        config={
            **run.to_dict(),
            "label": run.workload_label,
            "policy_label": config.get("policy_label", run.policy),
        },
        summary=summary,
        jobs=parquet_bytes(result.columns),
        timeseries=parquet_bytes(grid_timeseries(result)),
        meta={
            "wall_time": sim_time,
            "run_time": time.perf_counter() - clock,
            "schedlab_version": schedlab.__version__,
            "host": os.uname().nodename,
        },
    )


def records_timeseries(policy: str) -> bool:
    """Whether a run of ``policy`` records its time series while simulating.

    Recording costs about 13 % of an EASY simulation plus a Parquet file per run, and the
    series can be rebuilt exactly from the per-job table (`metrics.occupancy`) whenever every
    job runs in one piece. Only a policy that may suspend or requeue jobs (``preempts`` not
    False on its class; unknown policies count as preempting) records it.
    """
    from schedlab.schedulers.registry import policy_class

    return bool(getattr(policy_class(policy), "preempts", True))


def execute_run(config: dict[str, Any], base_dir: str | None = None) -> RunOutcome:
    """Simulate one run (a cluster run, or a grid run: `RunConfig.is_grid`); every error is
    caught and returned in the outcome."""
    run_id = "?"
    try:
        run = RunConfig.from_dict(config)
        run_id = run.run_id
        if run.is_grid:
            return _execute_grid(run, config, base_dir)
        from schedlab.simulation import simulate

        clock = time.perf_counter()
        workload = build_workload(run, base_dir)
        record = records_timeseries(run.policy)
        result = simulate(
            workload,
            run.policy,
            load_factor=run.load_factor,
            kill_on_overrun=run.kill_on_overrun,
            timeseries=record,
            **run.params,
        )
        summary = result.summary()
        sim_time = summary.pop("wall_time")
        timeseries = result.timeseries_columns
        import schedlab

        return RunOutcome(
            run_id=run_id,
            config={
                **run.to_dict(),
                "label": run.workload_label,
                "policy_label": config.get("policy_label", run.policy),
            },
            summary=summary,
            jobs=parquet_bytes(result.columns),
            timeseries=None if timeseries is None else parquet_bytes(timeseries),
            meta={
                "wall_time": sim_time,
                "run_time": time.perf_counter() - clock,
                "schedlab_version": schedlab.__version__,
                "host": os.uname().nodename,
                "timeseries_recorded": timeseries is not None,
                "skipped_by_reason": {k: v for k, v in workload.skipped.items() if v},
            },
        )
    except Exception as exc:  # noqa: BLE001 - a run that raises is recorded, never fatal
        return RunOutcome(
            run_id=run_id,
            config=dict(config),
            error=f"{type(exc).__name__}: {exc}",
            traceback=traceback.format_exc(),
        )


@dataclass
class SweepProgress:
    """Counts a progress display shows; ``on_change`` is called after every outcome."""

    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    failures: list[RunOutcome] = field(default_factory=list)

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.done - self.failed


def run_sweep(
    runs: Iterable[RunConfig],
    store: ResultStore,
    *,
    base_dir: str | None = None,
    policy_labels: dict[str, str] | None = None,
    executor: str = "local",
    workers: int | None = None,
    dask_address: str | None = None,
    on_change: Callable[[SweepProgress], None] | None = None,
) -> SweepProgress:
    """Run every configuration not already in ``store``; record each outcome as it comes.

    ``executor``: "local" (a pool of processes, ``workers`` of them, default all cores) or
    "dask" (``dask_address`` "local" for a LocalCluster, or a scheduler address such as
    tcp://host:8786). Interrupting (Ctrl-C: KeyboardInterrupt; SIGTERM, in the main thread:
    SweepInterrupted) loses only the runs in flight; the catalog is written either way.
    """
    if executor not in EXECUTORS:
        raise ConfigError("executor", executor, EXECUTORS)
    all_runs = list(runs)
    done = store.done_ids()
    pending = [r for r in all_runs if r.run_id not in done]
    progress = SweepProgress(total=len(all_runs), skipped=len(all_runs) - len(pending))
    if on_change:
        on_change(progress)

    def record(outcome: RunOutcome) -> None:
        store.write(outcome)
        if outcome.ok:
            progress.done += 1
        else:
            progress.failed += 1
            progress.failures.append(outcome)
        if on_change:
            on_change(progress)

    with _stop_on_sigterm():
        try:
            if pending:
                labels = policy_labels or {}
                configs = [
                    {
                        **r.to_dict(),
                        "label": r.workload_label,
                        "policy_label": labels.get(r.run_id, r.policy),
                    }
                    for r in pending
                ]
                if executor == "local":
                    _run_local(configs, base_dir, workers, record)
                else:
                    _run_dask(configs, base_dir, workers, dask_address or "local", record)
        finally:
            store.write_catalog()
    return progress


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
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


def _run_local(
    configs: list[dict[str, Any]],
    base_dir: str | None,
    workers: int | None,
    record: Callable[[RunOutcome], None],
) -> None:
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ConfigError("--workers", workers, "an integer >= 1")
    if workers == 1 or len(configs) == 1:
        for config in configs:
            record(execute_run(config, base_dir))
        return
    with worker_pool(min(workers, len(configs))) as pool:
        futures = submit_all(pool, execute_run, ((c, base_dir) for c in configs))
        for future in completed_runs(futures):
            record(future.result())


def _run_dask(
    configs: list[dict[str, Any]],
    base_dir: str | None,
    workers: int | None,
    address: str,
    record: Callable[[RunOutcome], None],
) -> None:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:  # pragma: no cover - depends on the install
        raise ConfigError(
            "--dask", address, "an install with Dask: pip install 'schedlab[dist]'"
        ) from None
    schemes = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")
    if address != "local" and not address.startswith(schemes):
        raise ConfigError("--dask", address, "local, or a scheduler address like tcp://HOST:8786")
    cluster: Any = None
    client: Any = None
    try:  # whatever stops the sweep (SIGTERM, Ctrl-C, an error), the cluster goes with it
        if address == "local":
            cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout="10s")
            except OSError as exc:
                reason = f"a reachable Dask scheduler ({exc})"
                raise ConfigError("--dask", address, reason) from None
        futures = [
            client.submit(
                execute_run,
                config,
                base_dir,
                pure=False,
                key=f"schedlab-run-{i}-{RunConfig.from_dict(config).run_id}",
            )
            for i, config in enumerate(configs)
        ]
        for future in as_completed(futures):
            record(future.result())
    finally:
        if client is not None:
            client.close()  # a scheduler forgets the runs no client waits for any more
        if cluster is not None:
            cluster.close()
