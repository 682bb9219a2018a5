"""Overhead of the sweep layer: 100 tiny runs against the sum of their own run times.

Usage::

    python benchmarks/bench_sweep.py [--runs 100] [--jobs 300] [--workers N] [--dask local]

The individual run times are measured in one process, one run after the other, each run
timed alone (workload generation + simulation + per-job table to Parquet: what a run costs
wherever it runs). The sweep is then run end to end through the CLI, as a user would, into a
fresh folder: process start, worker start-up, result writing and the catalog included.
The issue's target: the sweep within 2x the sum of the individual run times on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--dask", default=None)
    args = parser.parse_args()
    from schedlab.experiments.runner import execute_run
    from schedlab.experiments.sweep import load_sweep

    with tempfile.TemporaryDirectory() as tmp:
        sweep = Path(tmp) / "tiny.toml"
        seeds = list(range(1, args.runs // 2 + 1))
        sweep.write_text(
            f'[[workloads]]\nmodel = "lublin:jobs={args.jobs},procs=32,kind=all"\n'
            '[[policies]]\nname = "easy"\n[[policies]]\nname = "fcfs"\n'
            f"[grid]\nseed = {seeds}\n"
        )
        runs = load_sweep(sweep).runs
        execute_run(runs[0].to_dict())  # warm-up: imports, caches
        individual = 0.0
        for run in runs:
            clock = time.perf_counter()
            outcome = execute_run(run.to_dict())
            individual += time.perf_counter() - clock
            assert outcome.ok, outcome.error
        cmd = [
            sys.executable,
            "-c",
            "from schedlab.cli import main; main()",
            "sweep",
            str(sweep),
            "--out",
            str(Path(tmp) / "out"),
            "--json",
        ]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        if args.dask:
            cmd += ["--dask", args.dask]
        clock = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        sweep_time = time.perf_counter() - clock
        report = json.loads(done.stdout)
    print(
        f"{len(runs)} runs of {args.jobs} jobs: sum of individual run times "
        f"{individual:.2f} s; sweep end to end {sweep_time:.2f} s "
        f"(ratio {sweep_time / individual:.2f}, target <= 2); done {report['done']}"
    )


if __name__ == "__main__":
    main()
