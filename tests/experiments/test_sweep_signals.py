"""Worker processes die with their parent where Linux's parent-death signal is missing too,
and a Dask sweep stopped by SIGTERM closes its LocalCluster."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_sweep_resilience import (
    SCHEDLAB,
    _descendants,
    _kill_all,
    _model_sweep,
    _wait_for_runs,
    _wait_gone,
    needs_proc,
)

WITHOUT_PRCTL = """
import os, threading, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from schedlab.experiments import workers as runner

runner._set_parent_death_signal = lambda: False  # as on a system without prctl

def thread_count():
    time.sleep(0.2)  # both workers get one
    return threading.active_count()

pool = ProcessPoolExecutor(
    2, mp_context=get_context("fork"), initializer=runner._worker_init, initargs=(os.getpid(),)
)
futures = [pool.submit(thread_count) for _ in range(2)]
print(*(f.result() for f in futures), flush=True)
time.sleep(120)
"""


@needs_proc
def test_workers_without_a_parent_death_signal_exit_when_the_parent_dies(
    tmp_path: Path,
) -> None:
    """The portable fallback: a thread in each worker notices its parent is gone (its
    parent pid changes) and ends the worker within a second."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WITHOUT_PRCTL],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    workers: dict[int, int] = {}
    try:
        assert proc.stdout is not None
        counts = [int(n) for n in proc.stdout.readline().split()]
        assert counts and min(counts) >= 2, f"no watching thread in the workers: {counts}"
        workers = _descendants(proc.pid)
        assert len(workers) == 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert _wait_gone(workers, 3.0) == [], "workers outlived their killed parent"
    finally:
        _kill_all(proc, workers)


@needs_proc
def test_sigterm_stops_a_dask_sweep_and_its_cluster(tmp_path: Path) -> None:
    """--dask local: SIGTERM mid-sweep ends the sweep within a few seconds, the finished
    runs in the catalog, the lock released, and no process of the LocalCluster left."""
    pytest.importorskip("distributed")
    sweep = _model_sweep(tmp_path, jobs=40_000)
    out = tmp_path / "out"
    log = tmp_path / "stderr.txt"
    with open(log, "wb") as stderr:
        proc = subprocess.Popen(
            [*SCHEDLAB, "sweep", str(sweep), "--out", str(out), "--dask", "local"]
            + ["--workers", "2"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
            cwd=tmp_path,  # Dask's scratch space goes there
        )
    cluster: dict[int, int] = {}
    try:
        _wait_for_runs(proc, out, 2)
        cluster = _descendants(proc.pid)
        assert cluster, "no LocalCluster worker process found"
        sent = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        returncode = proc.wait(timeout=60)
        assert time.monotonic() - sent < 10.0, "the sweep took too long to stop"
        assert returncode in (130, 143), log.read_text()
        assert _wait_gone(cluster, 5.0) == [], "LocalCluster processes outlived the sweep"
        import pandas as pd

        done = sorted(p.name for p in (out / "runs").iterdir())
        assert 2 <= len(done) < 12
        assert sorted(pd.read_parquet(out / "catalog.parquet")["run_id"]) == done
        assert (out / ".lock").read_bytes() == b""
    finally:
        _kill_all(proc, cluster)


SIGNAL_DURING_WAIT = """
import signal, sys, threading
from concurrent.futures import ThreadPoolExecutor
from schedlab.experiments import workers as runner

signum = getattr(signal, sys.argv[1])
# Python's own Ctrl-C handler, even when started from a background job (which inherits
# SIGINT ignored, and Python then leaves it so)
signal.signal(signal.SIGINT, signal.default_int_handler)
real_wait = runner.wait
log = []

def wait_hit_by_the_signal(*args, **kwargs):
    signal.raise_signal(signum)  # arrives while the futures' locks are being taken
    result = real_wait(*args, **kwargs)
    log.append("wait returned")
    return result

runner.wait = wait_hit_by_the_signal

def free(future):  # from another thread, as the pool's manager thread would take it
    box = []
    thread = threading.Thread(target=lambda: box.append(future._condition.acquire(timeout=2)))
    thread.start()
    thread.join()
    return box[0]

with ThreadPoolExecutor(2) as pool:
    futures = [pool.submit(lambda i=i: i) for i in range(4)]
    with runner.stop_on_sigterm():
        try:
            for future in runner.completed_runs(futures):
                log.append("recorded")
        except KeyboardInterrupt as exc:
            log.append(type(exc).__name__)
    print(*log, sep="|")
    print(all(free(f) for f in futures))
    print(signal.getsignal(signum) in (signal.default_int_handler, signal.SIG_DFL))
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_stop_signal_during_the_wait_surfaces_after_it(name: str) -> None:
    """A Ctrl-C or SIGTERM landing inside the wait for runs is noted, not raised there: the
    wait returns, the run in hand is recorded, then the interrupt comes, with every future's
    lock free (an interrupt raised mid-wait could leave one held and hang the shutdown), and
    the signal's own handler back."""
    proc = subprocess.run(
        [sys.executable, "-c", SIGNAL_DURING_WAIT, name],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    events, locks_free, handler_back = proc.stdout.splitlines()
    expected = "KeyboardInterrupt" if name == "SIGINT" else "SweepInterrupted"
    assert events.split("|")[0] == "wait returned"
    assert events.split("|")[-1] == expected
    assert events.split("|").count(expected) == 1
    assert locks_free == "True"
    assert handler_back == "True"
