"""Running many simulations: one run in a worker, many runs on processes or a Dask cluster.

``execute_run`` is the unit of work: a plain function of a configuration dict that never
raises (a failure comes back as an outcome with the error), importable by name so Dask
workers on other machines can run it. Outcomes travel back to the client, which alone
writes the results folder: workers need no access to it.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing import get_context
from typing import Any

from schedlab.errors import ConfigError
from schedlab.experiments.arrow import parquet_bytes
from schedlab.experiments.config import RunConfig
from schedlab.experiments.store import ResultStore, RunOutcome

EXECUTORS = ("local", "dask")


@lru_cache(maxsize=4)
def _read_trace(path: str, procs: int | None) -> Any:
    """Traces are read once per worker, however many runs use them."""
    from schedlab.workload.swf import read_swf

    return read_swf(path, max_procs=procs)


@lru_cache(maxsize=2)
def _generate(name: str, params: tuple[tuple[str, Any], ...]) -> Any:
    """Model workloads too are generated once per worker (batches of one big workload)."""
    from schedlab.workload.load import MODELS

    return MODELS[name][0](**dict(params))


def build_workload(run: RunConfig, base_dir: str | None) -> Any:
    """The workload of a run: model (seeded) or trace, then its transforms in order."""
    from schedlab.experiments.sweep import apply_transforms, resolve_workload
    from schedlab.workload.load import is_model_spec, parse_model_spec

    source = resolve_workload(run.workload, base_dir or ".")
    if is_model_spec(source):
        name, params = parse_model_spec(source)
        if run.seed is not None:
            params["seed"] = run.seed  # the run's seed seeds the model
        if run.procs is not None:
            params["procs"] = run.procs
        workload = _generate(name, tuple(sorted(params.items())))
    else:
        workload = _read_trace(source, run.procs)
    return apply_transforms(workload, run.transforms)


def execute_run(config: dict[str, Any], base_dir: str | None = None) -> RunOutcome:
    """Simulate one run; every error is caught and returned in the outcome."""
    run_id = "?"
    try:
        run = RunConfig.from_dict(config)
        run_id = run.run_id
        from schedlab.simulation import simulate

        clock = time.perf_counter()
        workload = build_workload(run, base_dir)
        result = simulate(
            workload,
            run.policy,
            load_factor=run.load_factor,
            kill_on_overrun=run.kill_on_overrun,
            timeseries=True,
            **run.params,
        )
        summary = result.summary()
        sim_time = summary.pop("wall_time")
        timeseries = result.timeseries_columns
        assert timeseries is not None
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
            timeseries=parquet_bytes(timeseries),
            meta={
                "wall_time": sim_time,
                "run_time": time.perf_counter() - clock,
                "schedlab_version": schedlab.__version__,
                "host": os.uname().nodename,
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
    tcp://host:8786). Interrupting (Ctrl-C) loses only the runs in flight.
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


def _context() -> Any:
    """fork where it exists (workers start in milliseconds, the parent's imports shared),
    spawn elsewhere. The parent starts no thread before the workers exist (the CLI starts
    its progress display once the first outcome is back), so forking is safe."""
    import multiprocessing

    if "fork" in multiprocessing.get_all_start_methods():
        return get_context("fork")
    return get_context("spawn")


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
    pool = ProcessPoolExecutor(max_workers=min(workers, len(configs)), mp_context=_context())
    try:
        futures: set[Future[RunOutcome]] = {
            pool.submit(execute_run, config, base_dir) for config in configs
        }
        while futures:
            finished, futures = wait(futures, return_when=FIRST_COMPLETED)
            for future in finished:
                record(future.result())
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


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
    cluster = None
    if address == "local":
        cluster = LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        client = Client(cluster)
    else:
        if not address.startswith(("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")):
            raise ConfigError(
                "--dask", address, "local, or a scheduler address like tcp://HOST:8786"
            )
        try:
            client = Client(address, timeout="10s")
        except OSError as exc:
            raise ConfigError("--dask", address, f"a reachable Dask scheduler ({exc})") from None
    try:
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
        client.close()
        if cluster is not None:
            cluster.close()
