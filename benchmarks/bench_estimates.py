"""The Tsafrir-Etsion-Feitelson estimate model on 250,000 jobs (was a timed unit test).

Usage (from the repository root)::

    python benchmarks/bench_estimates.py              # best of 5, CPU and wall seconds
    python benchmarks/bench_estimates.py --jobs 1000000

Run times are lognormal (mean of the log 6, deviation 2.5, cut to [1 s, 60 h]), the spread
of a real trace's. The target written when the model was built: well under 0.5 s for
250,000 jobs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from schedlab.workload.job import Workload
from schedlab.workload.models.tsafrir import add_estimates

HOUR = 3600.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=250_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    run = np.ceil(rng.lognormal(6, 2.5, args.jobs)).clip(1, 60 * HOUR)
    workload = Workload.from_columns(
        submit_time=np.arange(args.jobs, dtype=np.float64), run_time=run, procs=np.ones(args.jobs)
    )
    best_cpu = best_wall = float("inf")
    for seed in range(args.repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        add_estimates(workload, seed=seed)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    print(
        f"{args.jobs:,} jobs: best of {args.repeat}: {best_cpu:.3f} s CPU, {best_wall:.3f} s "
        f"wall ({args.jobs / best_wall:,.0f} jobs/s)"
    )


if __name__ == "__main__":
    main()
