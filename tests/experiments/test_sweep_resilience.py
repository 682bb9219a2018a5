"""A sweep killed with SIGKILL resumes to the same bytes; Dask gives the same results."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


def _model_sweep(tmp_path: Path) -> Path:
    """12 runs on generated workloads (no trace needed)."""
    path = tmp_path / "sweep.toml"
    path.write_text(
        """
[[workloads]]
model = "lublin:jobs=2000,procs=64,kind=all"
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
    report = __import__("json").loads(resumed.stdout)
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
    assert len(_files(dask_out)) == 12 * 4
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
    assert _files(dask_out) == _files(local_out) and len(_files(dask_out)) == 4 * 4
    shutil.rmtree(tmp_path / "dask-scratch-space", ignore_errors=True)
