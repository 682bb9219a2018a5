"""The cost of the general kernel against the inlined loop, and of this checkout against
another one (issues 9 and 26).

Usage (from the repository root, with ../shared/workloads beside it)::

    python benchmarks/bench_engine.py                          # inlined vs general kernel
    python benchmarks/bench_engine.py --baseline /tmp/old/src  # and an older checkout's src/
    python benchmarks/bench_engine.py --baseline /tmp/old/src --baseline-engine general

For each trace and policy it runs, in child processes interleaved so that machine noise hits
every variant alike (``--repeat`` rounds): this checkout's inlined loop
(``engine="inlined"``), its general kernel (``engine="general"``, one pool, jobs delivered
straight to it) and, with ``--baseline``, another checkout (its ``src`` folder first on
``PYTHONPATH``; its default engine, or ``--baseline-engine``; copy its compiled extensions,
``src/schedlab/*/_c*.so``, into it: a warning follows the table when the sides do not run
the same compiled parts, as ``schedlab --version`` names them). Each child reports the CPU
time of ``simulate`` (set-up, loop and outcome; not the trace's reading) and its peak
resident memory once the metrics are computed. The table gives medians, and the kernel's
CPU and memory over the inlined loop's as the median of the rounds' ratios (the goal of
issue 26: 1.3x at most). It also prints the kernel's speed on an M/M/4 workload through a
dispatching actor, the path the grid meta-schedulers take.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ROOT.parent / "shared" / "workloads"
DEFAULT_TRACES = ["SDSC-BLUE-2000-4.2-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"]

CHILD = """
import json, sys, resource, time, schedlab
from schedlab.about import version_line
trace, policy, engine = sys.argv[1:4]
wl = schedlab.read_swf(trace)
kw = {} if engine == "default" else {"engine": engine}
cpu = time.process_time()
result = schedlab.simulate(wl, policy, **kw)
cpu = time.process_time() - cpu
wait = result.summary()["mean_wait_time"]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu": cpu, "jobs": len(wl), "rss": peak, "wait": wait,
                  "compiled": version_line().split("; ", 1)[1]}))
"""

ACTOR_CHILD = """
import json, sys, time
from schedlab.engine.actors import DirectDispatch
from schedlab.engine.kernel import JobSpecs, Kernel
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy
from schedlab.workload.models.mmc import generate_mmc
wl = generate_mmc(servers=4, load=0.9, jobs=int(sys.argv[1]), seed=1)
specs = JobSpecs.rigid(submit_at=wl.submit_time.tolist(), run_time=wl.run_time.tolist(),
                       requested_time=wl.requested_time.tolist(), procs=wl.procs.tolist(),
                       target_actor=0)
kernel = Kernel(jobs=specs, pools=[(PoolSpec.cluster(4), make_policy("fcfs"))],
                actors=[DirectDispatch(0)])
run = kernel.run()
print(json.dumps({"sim": run.wall_time, "jobs": len(wl)}))
"""


def child(code: str, args: list[str], pythonpath: str | None = None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=",".join(DEFAULT_TRACES))
    parser.add_argument("--policies", default="easy,conservative")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", help="src/ folder of another checkout to compare with")
    parser.add_argument(
        "--baseline-engine", default="default", choices=["default", "inlined", "general"]
    )
    parser.add_argument("--actor-jobs", type=int, default=200_000)
    args = parser.parse_args()
    variants = [("inlined", "inlined", None), ("general", "general", None)]
    if args.baseline:
        variants.insert(0, ("baseline", args.baseline_engine, args.baseline))
    names = " | ".join(f"{v[0]} CPU, peak" for v in variants)
    print(f"| trace | policy | {names} | general / inlined: CPU, peak |")
    print("|---|---|" + "---|" * (len(variants) + 1))
    compiled: set[tuple[str, str]] = set()  # (side, what its --version says runs compiled)
    for name in args.traces.split(","):
        trace = str(WORKLOADS / name)
        for policy in args.policies.split(","):
            runs: dict[str, list[dict]] = {v[0]: [] for v in variants}
            for _ in range(args.repeat):
                for label, engine, path in variants:
                    runs[label].append(child(CHILD, [trace, policy, engine], path))
            waits = {round(r["wait"], 6) for got in runs.values() for r in got}
            jobs = runs["inlined"][0]["jobs"]
            cells = []
            for label, _, _ in variants:
                cpu = median(r["cpu"] for r in runs[label])
                rss = median(r["rss"] for r in runs[label])
                cells.append(f"{cpu:.2f} s ({jobs / cpu / 1000:.0f}k jobs/s), {rss:.0f} MiB")
            pairs = list(zip(runs["general"], runs["inlined"]))
            cpu_ratio = median(g["cpu"] / i["cpu"] for g, i in pairs)
            rss_ratio = median(g["rss"] / i["rss"] for g, i in pairs)
            same = "" if len(waits) == 1 else " (results differ!)"
            print(
                f"| {name.split('.')[0]} | {policy} | {' | '.join(cells)} | "
                f"{cpu_ratio:.2f}x, {rss_ratio:.2f}x{same} |"
            )
            compiled.update((label, r["compiled"]) for label, got in runs.items() for r in got)
    if len({line for _, line in compiled}) > 1:  # e.g. a baseline without its .so files
        print("\nWARNING: the sides do not run the same compiled parts:")
        for label, line in sorted(compiled):
            print(f"- {label}: {line}")
    got = min(
        (child(ACTOR_CHILD, [str(args.actor_jobs)]) for _ in range(args.repeat)),
        key=lambda g: g["sim"],
    )
    print(
        f"\nM/M/4 at load 0.9 through a dispatching actor, {got['jobs']:,} jobs: "
        f"{got['sim']:.2f} s ({got['jobs'] / got['sim'] / 1000:.0f}k jobs/s)"
    )


if __name__ == "__main__":
    main()
