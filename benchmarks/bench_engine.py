"""The cost of the general kernel, and of this checkout against another one (issue 9).

Usage (from the repository root, with ../shared/workloads beside it)::

    python benchmarks/bench_engine.py                          # inlined vs general loop
    python benchmarks/bench_engine.py --baseline /tmp/old/src  # and an older checkout's src/

For each trace and policy it times the simulation alone (the ``wall_time`` of the result,
best of ``--repeat``) in child processes, interleaved so that machine noise hits every
variant alike: this checkout's inlined loop (``engine="inlined"``), its general kernel
(``engine="general"``, one pool, jobs delivered straight to it) and, with ``--baseline``,
the inlined loop of another checkout (whose ``src`` folder is put first on ``PYTHONPATH``).
It also prints the kernel's speed on an M/M/4 workload through a dispatching actor, the
path the grid meta-schedulers take.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ROOT.parent / "shared" / "workloads"
DEFAULT_TRACES = ["SDSC-BLUE-2000-4.2-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"]

CHILD = """
import json, sys, resource, schedlab
trace, policy, engine = sys.argv[1:4]
wl = schedlab.read_swf(trace)
kw = {} if engine == "default" else {"engine": engine}
result = schedlab.simulate(wl, policy, **kw)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"sim": result.raw.wall_time, "jobs": len(wl), "rss": peak,
                  "wait": result.summary()["mean_wait_time"]}))
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
    parser.add_argument("--actor-jobs", type=int, default=200_000)
    args = parser.parse_args()
    variants = [("inlined", "inlined", None), ("general", "general", None)]
    if args.baseline:
        variants.insert(0, ("baseline", "default", args.baseline))
    print(f"| trace | policy | {' | '.join(v[0] for v in variants)} | general / inlined |")
    print("|---|---|" + "---|" * (len(variants) + 1))
    for name in args.traces.split(","):
        trace = str(WORKLOADS / name)
        for policy in args.policies.split(","):
            best: dict[str, float] = {}
            waits = set()
            jobs = 0
            for _ in range(args.repeat):
                for label, engine, path in variants:
                    got = child(CHILD, [trace, policy, engine], path)
                    best[label] = min(best.get(label, float("inf")), got["sim"])
                    waits.add(round(got["wait"], 6))
                    jobs = got["jobs"]
            cells = [
                f"{best[v[0]]:.2f} s ({jobs / best[v[0]] / 1000:.0f}k jobs/s)" for v in variants
            ]
            ratio = best["general"] / best["inlined"]
            same = "" if len(waits) == 1 else " (results differ!)"
            print(f"| {name.split('.')[0]} | {policy} | {' | '.join(cells)} | {ratio:.2f}x{same} |")
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
