"""Scale of the grid simulation (issue 11): 100 sites, 30,000 nodes, 1,000,000 jobs.

Usage (from the repository root)::

    python benchmarks/bench_grid.py                        # 100k, 300k and 1M jobs
    python benchmarks/bench_grid.py --jobs 100000 --meta push
    python benchmarks/bench_grid.py --jobs 100000 --meta push_exact   # push with Δt = 0

The platform is built from a TOML written here: 100 sites of 300 nodes each, one FCFS queue
per site (t_max 24,000 s, paper 001's service times mu_rec 3.75 s and mu_env 2 s), node
powers sampled without replacement from the built-in reference pool of 20 node types (so
about 20 power groups per site, mean 96 NCU/s). The workload is paper 001's generator with
meta-jobs only: Weibull sizes cut to [37,300, 242,800] NCU, Poisson arrivals at the rate
that offers load 0.9 to the 30,000 nodes. Each run goes through `run_grid` in a child
process, which reports its wall time (generation, simulation, metrics), its CPU time and
peak memory. ``push`` refreshes its information every 60 s; ``push_exact`` is push with
exact information (Δt = 0, the registry's default).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SITES = 100
NODES = 300
LOAD = 0.9

CHILD = """
import json, resource, sys, time
from schedlab.simulation import run_grid
from schedlab.grid.platforms import load_platform
from schedlab.workload.models.grid import generate_grid, truncated_weibull_mean
platform_file, jobs, meta = sys.argv[1], int(sys.argv[2]), sys.argv[3].removesuffix("_exact")
params = json.loads(sys.argv[4])
clock = time.perf_counter()
platform = load_platform(platform_file)
power = platform.mean_power * platform.total_nodes
mean_size = truncated_weibull_mean(0.45, 142.2 * 96, 37300.0, 242800.0)
interarrival = mean_size / (OFFERED_LOAD * power)
wl = generate_grid(platform, meta_jobs=jobs, local_jobs=0, meta_interarrival=interarrival, seed=1)
generated = time.perf_counter() - clock
result = run_grid(platform, wl, meta, seed=1, **params)
summary = result.summary()
total = time.perf_counter() - clock
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"generate": generated, "simulate": result.raw.wall_time, "total": total,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "jobs": len(wl), "mean_wait": summary["mean_wait_time"],
                  "utilization": summary["utilization"],
                  "pilots": summary.get("pilots", 0), "wasted": summary.get("wasted_pilots", 0)}))
""".replace("OFFERED_LOAD", repr(LOAD))


def platform_toml() -> str:
    sites = []
    for i in range(SITES):
        sites.append(
            f"""
[[sites]]
name = "site{i:03d}"
nodes = {NODES}
sample = true
[sites.lan]
bandwidth_mbit = 1000
latency_s = 0
[[sites.queues]]
name = "q"
t_max = 24000
policy = "fcfs"
mu_rec = 3.75
mu_env = 2
"""
        )
    return (
        'description = "benchmark: 100 sites x 300 nodes"\nseed = 1\ncontrol_message_kb = 30\n'
        "[wan]\nbandwidth_mbit = 100\nlatency_s = 0\n" + "".join(sites)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="100000,300000,1000000")
    parser.add_argument("--meta", default="push,pilot_filling")
    args = parser.parse_args()
    metas = {"push": {"refresh": 60.0}, "push_exact": {"refresh": 0.0}, "pilot_filling": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "platform.toml"
        path.write_text(platform_toml())
        print(f"{SITES} sites x {NODES} nodes, offered load {LOAD}")
        print(
            "| meta-scheduler | jobs | wall (s) | CPU (s) | simulation (s) | jobs/s | "
            "peak RSS (MiB) |"
        )
        print("|---|---|---|---|---|---|---|")
        for meta in args.meta.split(","):
            for jobs in (int(j) for j in args.jobs.split(",")):
                clock = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, str(path), str(jobs), meta,
                     json.dumps(metas.get(meta, {}))],
                    capture_output=True, text=True, check=True, env=dict(os.environ),
                )  # fmt: skip
                got = json.loads(out.stdout)
                wall = time.perf_counter() - clock
                print(
                    f"| {meta} {metas.get(meta, '')} | {jobs:,} | {wall:.1f} | {got['cpu']:.1f} | "
                    f"{got['simulate']:.1f} | {jobs / got['simulate']:,.0f} | "
                    f"{got['rss_mib']:,.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
