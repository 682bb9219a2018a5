"""Running many simulations: one run in a worker, many runs on processes or a Dask cluster.

``execute_run`` is the unit of work: a plain function of a configuration dict that never
raises (a failure comes back as an outcome with the error), importable by name so Dask
workers on other machines can run it. It builds the run's `Scenario`
(`experiments.scenarios`), runs it and stores what its `Result` gives: the summary, the
per-job table and the time series. Outcomes travel back to the client, which alone writes
the results folder: workers need no access to it. Stopping a sweep in order and the worker
processes: `experiments.workers`.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from schedlab.errors import ConfigError
from schedlab.experiments.arrow import parquet_bytes
from schedlab.experiments.config import RunConfig
from schedlab.experiments.store import ResultStore, RunOutcome
from schedlab.experiments.workers import (
    SweepInterrupted,
    completed_runs,
    stop_on_sigterm,
    submit_all,
    worker_pool,
)

__all__ = ["EXECUTORS", "SweepInterrupted", "SweepProgress", "execute_run", "run_sweep"]

EXECUTORS = ("local", "dask")


def execute_run(config: dict[str, Any], base_dir: str | None = None) -> RunOutcome:
    """Simulate one run (a cluster run, or a platform run: `RunConfig.is_grid`); every error
    is caught and returned in the outcome."""
    run_id = "?"
    try:
        from schedlab.experiments.scenarios import scenario_of
        from schedlab.scenario import run as run_scenario
        from schedlab.version import __version__

        run = RunConfig.from_dict(config)
        run_id = run.run_id
        clock = time.perf_counter()
        scenario = scenario_of(run, base_dir, label=config.get("policy_label"))
        result = run_scenario(scenario)
        summary = result.summary()
        sim_time = summary.pop("wall_time")
        series = result.series_columns()
        meta: dict[str, Any] = {
            "wall_time": sim_time,
            "run_time": time.perf_counter() - clock,
            "schedlab_version": __version__,
            "host": os.uname().nodename,
        }
        if not run.is_grid:
            meta["timeseries_recorded"] = series is not None
            # the run's own workload: a cluster of node types also skips the jobs no node holds
            skipped = getattr(result.workload, "skipped", {})
            meta["skipped_by_reason"] = {k: v for k, v in skipped.items() if v}
        return RunOutcome(
            run_id=run_id,
            config={
                **run.to_dict(),
                "label": run.workload_label,
                "policy_label": config.get("policy_label", run.policy),
            },
            summary=summary,
            jobs=parquet_bytes(result.columns),
            timeseries=None if series is None else parquet_bytes(series),
            meta=meta,
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

    with stop_on_sigterm():
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
