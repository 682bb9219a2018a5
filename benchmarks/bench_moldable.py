"""Speed of the moldable schedulers of paper 004 on HLW instances (issue 10).

Usage (from the repository root)::

    python benchmarks/bench_moldable.py                 # scenario a, 5 instances each
    python benchmarks/bench_moldable.py --instances 20 --scenario f

For each algorithm it simulates the same instances (seeds 1..K) of one scenario of paper
004's Figure 1 and reports instances per second and tasks per second (simulation and, for
CPA, its planning included), best of ``--repeat``; the HLW generation time is given apart.
"""

from __future__ import annotations

import argparse
import time

import schedlab
from schedlab.experiments.reproduce.hlw import ALL_REFERENCES, DISPLAY, FS_FAMILY, SCENARIOS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="a", choices=[s.name for s in SCENARIOS])
    parser.add_argument("--instances", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    scenario = next(s for s in SCENARIOS if s.name == args.scenario)
    clock = time.perf_counter()
    instances = [
        schedlab.load_workload(f"{scenario.model},seed={seed}")
        for seed in range(1, args.instances + 1)
    ]
    generation = time.perf_counter() - clock
    tasks = sum(len(w) for w in instances)
    print(
        f"scenario {scenario.name}: n = {scenario.n}, N = {scenario.nodes}, pi = {scenario.pi}; "
        f"{args.instances} instances, {tasks:,} tasks, generated in {generation:.2f} s\n"
    )
    print("| algorithm | seconds | instances/s | tasks/s | median normalized Cmax |")
    print("|---|---|---|---|---|")
    for policy in (*FS_FAMILY, *ALL_REFERENCES):
        best = float("inf")
        values = []
        for _ in range(args.repeat):
            clock = time.perf_counter()
            values = [schedlab.simulate(w, policy).summary()["normalized_cmax"] for w in instances]
            best = min(best, time.perf_counter() - clock)
        values.sort()
        median = values[len(values) // 2]
        print(
            f"| {DISPLAY[policy]} | {best:.2f} | {args.instances / best:.1f} | "
            f"{tasks / best:,.0f} | {median:.3f} |"
        )


if __name__ == "__main__":
    main()
