"""Speed of runs on node types (issue 24): a synthetic mixed CPU/GPU workload on a 500-node
cluster, replayed by ``schedlab run LOG.csv --platform CLUSTER.toml`` in a child process.

Usage (from the repository root)::

    python benchmarks/bench_nodes.py                        # 200k jobs, easy
    python benchmarks/bench_nodes.py --jobs 20000 --policies fcfs,easy,conservative
    python benchmarks/bench_nodes.py --placement best_fit --json-out nodes.json

The cluster: 450 CPU nodes (64 cores, 256 GiB) and 50 GPU nodes (64 cores, 512 GiB, 4 GPUs),
i.e. 10 % GPU nodes. The jobs (seeded, written once as a CSV log beside the cluster file):
Poisson arrivals at the given offered load of cores; 70 % single-node jobs of 1 to 64 cores
with 2 to 4 GiB per core; 20 % multi-node jobs of 2 to 16 whole nodes; 10 % GPU jobs of 1 or
2 nodes with 1 to 4 GPUs each; run times log-uniform from a minute to a day, requested times
1 to 5 times the run time. Reported per policy: the simulation alone (``wall_time``), jobs
per second of it, the whole process and its peak memory (ru_maxrss of the child).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_policies import schedlab_command  # noqa: E402

CLUSTER = """name = "bench-500"
placement = "{placement}"

[[nodes]]
name = "cpu"
count = 450
cores = 64
memory = "256G"

[[nodes]]
name = "gpu"
count = 50
cores = 64
memory = "512G"
gpus = 4
"""
CORES = 500 * 64


def write_workload(path: Path, jobs: int, load: float, seed: int) -> None:
    """The synthetic log of the module docstring, as CSV with schedlab's column names."""
    rng = np.random.default_rng(seed)
    kind = rng.choice(3, size=jobs, p=[0.7, 0.2, 0.1])
    nodes = np.ones(jobs, dtype=np.int64)
    cores = rng.integers(1, 65, size=jobs)
    gpus = np.zeros(jobs, dtype=np.int64)
    multi = kind == 1
    nodes[multi] = rng.integers(2, 17, size=int(multi.sum()))
    cores[multi] = 64
    gpu = kind == 2
    nodes[gpu] = rng.integers(1, 3, size=int(gpu.sum()))
    cores[gpu] = rng.integers(4, 33, size=int(gpu.sum()))
    gpus[gpu] = rng.integers(1, 5, size=int(gpu.sum()))
    mem_mib = cores * rng.integers(2, 5, size=jobs) * 1024
    run = np.exp(rng.uniform(np.log(60.0), np.log(86400.0), size=jobs)).round()
    req = np.minimum(run * rng.uniform(1.0, 5.0, size=jobs), 7 * 86400.0).round()
    req = np.maximum(req, run)
    work = float(np.sum(nodes * cores * run))
    span = work / (load * CORES)  # seconds over which the jobs arrive
    submit = np.sort(rng.uniform(0.0, span, size=jobs)).round()
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(
            ["job_id", "submit", "run", "requested_time", "requested_procs", "nodes",
             "cores_per_node", "mem_per_node", "gpus_per_node", "user"]
        )  # fmt: skip
        for j in range(jobs):
            out.writerow(
                [j + 1, int(submit[j]), int(run[j]), int(req[j]), int(nodes[j] * cores[j]),
                 int(nodes[j]), int(cores[j]), int(mem_mib[j]), int(gpus[j]), j % 97]
            )  # fmt: skip


def run_child(argv: list[str]) -> tuple[dict, float, float]:
    """Run a command; its JSON output, wall seconds and peak RSS (MiB)."""
    clock = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - clock
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err}")
    return json.loads(out), wall, usage.ru_maxrss / 1024.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=200_000)
    ap.add_argument("--load", type=float, default=0.85)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policies", default="easy")
    ap.add_argument("--placement", default="first_fit", choices=("first_fit", "best_fit"))
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "jobs.csv"
        cluster = Path(tmp) / "cluster.toml"
        write_workload(log, args.jobs, args.load, args.seed)
        cluster.write_text(CLUSTER.format(placement=args.placement))
        for policy in args.policies.split(","):
            argv = [*schedlab_command(), "run", str(log), "--platform", str(cluster),
                    "--policy", policy, "--json"]  # fmt: skip
            summary, wall, rss = run_child(argv)
            sim = float(summary["wall_time"])
            row = {
                "policy": policy,
                "placement": args.placement,
                "jobs": int(summary["jobs"]),
                "sim_s": round(sim, 2),
                "jobs_per_s": round(summary["jobs"] / sim) if sim > 0 else None,
                "process_s": round(wall, 2),
                "peak_rss_mib": round(rss),
                "core_utilization": summary.get("core_utilization"),
                "gpu_utilization": summary.get("gpu_utilization"),
            }
            rows.append(row)
            print(json.dumps(row))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
