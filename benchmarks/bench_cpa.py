"""CPA planning time as the number of chains grows (paper 004's clairvoyant reference).

Usage (from the repository root)::

    python benchmarks/bench_cpa.py                    # 8, 32, 128, 256 chains, P = 64
    python benchmarks/bench_cpa.py --chains 8,64 --procs 64 --pi 0.9 --repeat 5

Instances are HLW-like random chains (SPEC 7), built here so that the benchmark does not
depend on the HLW workload generator: each chain has a uniform number of steps in [1, 60];
a step is a task of work 1, followed with probability 0.33 by a task of work 15; Amdahl's law
with ``--pi``. Planning = CPA's allocation phase plus its list schedule (`plan_cpa`), timed
best of ``--repeat``; the instance is built outside the timing. Prints a Markdown table: chains,
tasks, allocation iterations, allocation and total plan seconds, planned makespan, T_CP, T_A.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from schedlab.engine.durations import Amdahl
from schedlab.schedulers.moldable.cpa import CpaInstance, allocate, plan_cpa


def hlw_chains(chains: int, pi: float, seed: int) -> CpaInstance:
    """``chains`` HLW-like chains (module docstring), every root released at 0."""
    rng = np.random.default_rng(seed)
    work: list[float] = []
    parent: list[int] = []
    for _ in range(chains):
        previous = -1
        for _ in range(int(rng.integers(1, 61))):
            work.append(1.0)
            parent.append(previous)
            previous = len(work) - 1
            if rng.random() < 0.33:
                work.append(15.0)
                parent.append(previous)
                previous = len(work) - 1
    n = len(work)
    return CpaInstance(
        work=work,
        models=[Amdahl(pi)] * n,
        size=[1] * n,
        parent=parent,
        think=[0.0] * n,
        release_at=[0.0] * n,
    )


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """Fastest of ``repeat`` calls of ``fn`` (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        clock = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - clock)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", default="8,32,128,256", help="comma-separated chain counts")
    parser.add_argument("--procs", type=int, default=64)
    parser.add_argument("--pi", type=float, default=0.99)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"CPA planning, P = {args.procs}, pi = {args.pi}, seed {args.seed}, best of", args.repeat)
    print()
    print("| chains | tasks | alloc. iterations | allocation s | plan s | makespan | T_CP | T_A |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for chains in (int(c) for c in args.chains.split(",")):
        inst = hlw_chains(chains, args.pi, args.seed)
        alloc_time = best_of(args.repeat, partial(allocate, inst, args.procs))
        plan_time = best_of(args.repeat, partial(plan_cpa, inst, args.procs))
        plan = plan_cpa(inst, args.procs)
        a = plan.allocation
        print(
            f"| {chains} | {len(inst)} | {a.iterations} | {alloc_time:.4f} | {plan_time:.4f} "
            f"| {plan.makespan:.1f} | {a.critical_path_time:.1f} | {a.average_area_time:.1f} |"
        )


if __name__ == "__main__":
    main()
