"""A sweep killed with SIGKILL resumes to the same bytes; Dask gives the same results.

A sweep stopped by SIGTERM or SIGINT, or whose parent alone is killed, leaves no worker
process behind and no lock that refuses the resume.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from schedlab.experiments.store import ResultStore
from workloads import SHARED_WORKLOADS

SCHEDLAB = [sys.executable, "-c", "from schedlab.cli import main; main()"]


def _files(root: Path) -> dict[str, bytes]:
    """Every result file (meta.json excluded: it holds timings) by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / "runs").rglob("*"))
        if p.is_file() and p.name != "meta.json"
    }


def _trace_sweep(tmp_path: Path) -> Path:
    """12 runs over two real traces (cut to 3000 jobs each)."""
    if not SHARED_WORKLOADS.is_dir():
        pytest.skip(f"real traces not available: {SHARED_WORKLOADS} is absent")
    path = tmp_path / "sweep.toml"
    path.write_text(
        f"""
[[workloads]]
path = "{SHARED_WORKLOADS / "KTH-SP2-1996-2.swf.gz"}"
first = 3000
[[workloads]]
path = "{SHARED_WORKLOADS / "HPC2N-2002-2.1-cln.swf.gz"}"
first = 3000
[[policies]]
name = "fcfs"
[[policies]]
name = "easy"
[[policies]]
name = "conservative"
[grid]
load_factor = [0.9, 1.2]
"""
    )
    return path


def _model_sweep(tmp_path: Path, jobs: int = 2000) -> Path:
    """12 runs on generated workloads (no trace needed)."""
    path = tmp_path / "sweep.toml"
    path.write_text(
        f"""
[[workloads]]
model = "lublin:jobs={jobs},procs=64,kind=all"
[[policies]]
name = "fcfs"
[[policies]]
name = "easy"
[[policies]]
name = "conservative"
[grid]
load_factor = [0.9, 1.2]
seed = [1, 2]
"""
    )
    return path


def _sweep(sweep: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SCHEDLAB, "sweep", str(sweep), "--out", str(out), "--json", *extra],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _kill_midway_and_resume(sweep: Path, tmp_path: Path) -> None:
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [*SCHEDLAB, "sweep", str(sweep), "--out", str(killed), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        runs = killed / "runs"
        if runs.is_dir() and len(list(runs.iterdir())) >= 4:
            break
        if proc.poll() is not None:
            pytest.fail("the sweep ended before it could be killed midway")
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # the process and its workers, like kill -9 of the job
    proc.wait()
    partial = len(list((killed / "runs").iterdir()))
    assert 4 <= partial < 12, f"{partial} runs were done when the sweep was killed"
    resumed = _sweep(sweep, killed)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["skipped"] == partial and report["done"] == 12 - partial
    clean = tmp_path / "clean"
    assert _sweep(sweep, clean).returncode == 0
    assert sorted(p.name for p in (killed / "runs").iterdir()) == sorted(
        p.name for p in (clean / "runs").iterdir()
    )
    assert len(list((killed / "runs").iterdir())) == 12
    assert _files(killed) == _files(clean)
    assert not any((killed / "tmp").iterdir())


def test_sigkill_midway_then_resume_gives_identical_results(tmp_path: Path) -> None:
    """Killed with SIGKILL after a few runs and restarted: every run once, same bytes."""
    _kill_midway_and_resume(_model_sweep(tmp_path), tmp_path)


@pytest.mark.trace
def test_sigkill_midway_on_real_traces(tmp_path: Path) -> None:
    """Same over two traces from ../shared/workloads."""
    _kill_midway_and_resume(_trace_sweep(tmp_path), tmp_path)


# -- processes a sweep leaves behind -------------------------------------------------------
# Found by scanning /proc (no psutil); a process is identified by pid and start time, so a
# reused pid is not mistaken for a survivor, and a zombie (dead, not yet reaped by whoever
# inherited it) does not count as alive.

needs_proc = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="finds processes through /proc (Linux)"
)
LONG_JOBS = 40_000  # jobs per run: 12 runs take ~3 s on two workers, time to stop midway


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process, None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def _descendants(root: int) -> dict[int, int]:
    """Every process below ``root``: {pid: start time}."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = (stat[1], stat[2])
    found: dict[int, int] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, start) in parents.items():
            if ppid == parent and pid not in found:
                found[pid] = start
                frontier.append(pid)
    return found


def _alive(procs: dict[int, int]) -> list[int]:
    alive = []
    for pid, start in procs.items():
        stat = _stat(pid)
        if stat is not None and stat[2] == start and stat[0] not in "ZX":
            alive.append(pid)
    return alive


def _wait_gone(procs: dict[int, int], timeout: float) -> list[int]:
    """Those of ``procs`` still alive after up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while (alive := _alive(procs)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _kill_all(proc: subprocess.Popen[bytes], procs: dict[int, int]) -> None:
    """Leave nothing running: the sweep's process group, then any survivor by pid."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in _alive(procs):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def _start_sweep(sweep: Path, out: Path, log: Path) -> subprocess.Popen[bytes]:
    """The sweep as a terminal would start it. A shell without job control starts its
    background commands with SIGINT ignored (and schedlab, rightly, keeps it ignored), so
    when the tests run in the background the child gets SIGINT's default back: a Python
    handler here becomes the default across exec."""
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with open(log, "wb") as stderr:
            return subprocess.Popen(
                [*SCHEDLAB, "sweep", str(sweep), "--out", str(out), "--workers", "2"],
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,
            )
    finally:
        if previous == signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _wait_for_runs(proc: subprocess.Popen[bytes], out: Path, count: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        runs = out / "runs"
        if runs.is_dir() and len(list(runs.iterdir())) >= count:
            return
        if proc.poll() is not None:
            pytest.fail("the sweep ended before it could be stopped midway")
        time.sleep(0.02)
    pytest.fail(f"no {count} runs done in 120 s")


@pytest.fixture(scope="module")
def long_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """The long model sweep and the files of an uninterrupted run of it (made once)."""
    folder = tmp_path_factory.mktemp("long")
    sweep = _model_sweep(folder, jobs=LONG_JOBS)
    clean = _sweep(sweep, folder / "clean", "--workers", "2")
    assert clean.returncode == 0, clean.stderr
    return sweep, _files(folder / "clean")


def _resume_equals_clean(sweep: Path, out: Path, clean: dict[str, bytes]) -> None:
    """An immediate resume runs exactly what is missing and ends as an uninterrupted run."""
    partial = len(list((out / "runs").iterdir()))
    assert 2 <= partial < 12, f"{partial} runs were done when the sweep was stopped"
    resumed = _sweep(sweep, out, "--workers", "2")
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["skipped"] == partial and report["done"] == 12 - partial
    assert _files(out) == clean
    assert (out / ".lock").read_bytes() == b""  # closed cleanly this time


@needs_proc
def test_parent_killed_alone_takes_its_workers_along(
    tmp_path: Path, long_sweep: tuple[Path, dict[str, bytes]]
) -> None:
    """SIGKILL of the sweep process only (not its group): its workers die within 5 s, and
    the resume that follows at once is not refused by a lock they hold."""
    sweep, clean = long_sweep
    out = tmp_path / "out"
    proc = _start_sweep(sweep, out, tmp_path / "stderr.txt")
    workers: dict[int, int] = {}
    try:
        _wait_for_runs(proc, out, 2)
        workers = _descendants(proc.pid)
        assert len(workers) >= 2, f"expected two worker processes, found {workers}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert _wait_gone(workers, 5.0) == [], "workers outlived their killed parent"
        holder = json.loads((out / ".lock").read_text())  # the record of the dead sweep
        assert holder["pid"] == proc.pid
        _resume_equals_clean(sweep, out, clean)
    finally:
        _kill_all(proc, workers)


@needs_proc
@pytest.mark.parametrize(
    ("signum", "to_group"),
    [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGINT, True)],
    ids=["SIGTERM", "SIGINT", "SIGINT-to-group"],
)
def test_signal_stops_the_sweep_in_order(
    tmp_path: Path,
    long_sweep: tuple[Path, dict[str, bytes]],
    signum: signal.Signals,
    to_group: bool,
) -> None:
    """SIGTERM or SIGINT to the sweep (or Ctrl-C, which signals the whole process group):
    it exits non-zero within 5 s, without a traceback, no worker left; the finished runs
    are intact and in the catalog, the lock released; the resume completes the sweep."""
    sweep, clean = long_sweep
    out = tmp_path / "out"
    log = tmp_path / "stderr.txt"
    proc = _start_sweep(sweep, out, log)
    workers: dict[int, int] = {}
    try:
        _wait_for_runs(proc, out, 2)
        workers = _descendants(proc.pid)
        assert len(workers) >= 2, f"expected two worker processes, found {workers}"
        sent = time.monotonic()
        if to_group:
            os.killpg(proc.pid, signum)
        else:
            os.kill(proc.pid, signum)
        returncode = proc.wait(timeout=30)
        assert time.monotonic() - sent < 5.0, "the sweep took too long to stop"
        assert returncode in (130, 128 + signum), log.read_text()
        assert _wait_gone(workers, 5.0) == [], "workers outlived the stopped sweep"
        assert "Traceback" not in log.read_text(), log.read_text()
        done = sorted(p.name for p in (out / "runs").iterdir())
        store = ResultStore(out)
        for run_id in done:
            assert store.summary(run_id)["jobs"] == LONG_JOBS
            assert len(store.jobs(run_id)) == LONG_JOBS
        import pandas as pd

        assert sorted(pd.read_parquet(out / "catalog.parquet")["run_id"]) == done
        assert (out / ".lock").read_bytes() == b""  # released in order, nobody to take over
        _resume_equals_clean(sweep, out, clean)
    finally:
        _kill_all(proc, workers)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.trace
def test_dask_scheduler_and_two_workers_give_identical_results(tmp_path: Path) -> None:
    """The same sweep through a separately started dask scheduler and two workers."""
    pytest.importorskip("distributed")
    sweep = _trace_sweep(tmp_path)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "distributed.cli.dask_worker",
                        address,
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--local-directory",
                        str(tmp_path),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        dask_out = tmp_path / "dask"
        result = _sweep(sweep, dask_out, "--dask", address)
        assert result.returncode == 0, result.stderr
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    local_out = tmp_path / "local"
    assert _sweep(sweep, local_out).returncode == 0
    assert len(_files(dask_out)) == 12 * 3  # config, summary, jobs (time series: rebuilt)
    assert _files(dask_out) == _files(local_out)


def test_dask_local_cluster_gives_identical_results(tmp_path: Path) -> None:
    """--dask local (a LocalCluster) equals the process pool, byte for byte."""
    pytest.importorskip("distributed")
    sweep = tmp_path / "small.toml"
    sweep.write_text(
        '[[workloads]]\nmodel = "lublin:jobs=300,procs=32"\n'
        '[[policies]]\nname = "easy"\n[[policies]]\nname = "fcfs"\n[grid]\nseed = [1, 2]\n'
    )
    dask_out, local_out = tmp_path / "dask", tmp_path / "local"
    result = _sweep(sweep, dask_out, "--dask", "local", "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert _sweep(sweep, local_out).returncode == 0
    # 4 runs x config, summary, jobs (no time series: fcfs/easy/conservative never suspend)
    assert _files(dask_out) == _files(local_out) and len(_files(dask_out)) == 4 * 3
    shutil.rmtree(tmp_path / "dask-scratch-space", ignore_errors=True)
