"""Backfilling under overload: Lublin jobs at load 1.5 with Tsafrir estimates (issue 15).

Usage (from the repository root)::

    python benchmarks/bench_overload.py                                # easy,conservative,dbf
    python benchmarks/bench_overload.py --policies easy --baseline /tmp/old/src
    python benchmarks/bench_overload.py --policies easy --backfill-order sjf --timeout 60

For each policy and size (``--jobs``, default 10k, 20k, 40k, 80k) a child process generates
``lublin:jobs=N,procs=128,seed=S,load=1.5``, adds Tsafrir estimates (seed fixed), simulates
and computes the summary. Reported: the simulation alone (``sim``), generation + estimates +
simulation + metrics (``e2e``), the child's peak resident memory (its own
``resource.getrusage``), and the log-log slope of simulation time against jobs (1 = linear,
2 = quadratic) between successive sizes and from the first size to the last. For
conservative and DBF, ``read`` counts the waiting jobs their compressions looked at and
``moves`` the reservations they moved: any compression that keeps the same reservations
writes each of them, so the slope of the moves is the least slope the simulation time can
have (the JSON output also has the number of compressions).

At overload the queue grows without bound, so a policy whose pass looks at every waiting job
turns quadratic here while staying fast on real traces. ``--timeout`` (seconds, per run)
stops a run that takes minutes; it is then reported as "> T s" and the larger sizes of that
policy are not tried.

``--baseline DIR`` runs the same cases with another checkout's ``src`` folder first on
``PYTHONPATH`` (e.g. ``git worktree add /tmp/old HEAD``), interleaved with this checkout's
runs so that machine noise hits both alike (best of ``--repeat``). A worktree has no
compiled C profile: copy ``src/schedlab/platform/_cprofile*.so`` into it, else it runs the
pure-Python profile. A run on the pure-Python profile measures something else (several
times slower), so the script refuses it loudly, naming the side and its folder, unless
``--allow-pure-python`` is given. This checkout's side puts ``src/`` first on the path only
when the compiled extension was built there (an editable install); otherwise it runs the
installed package (a non-editable install has no extension in ``src/``). Every pair of runs
is also checked to give the same mean wait.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
import schedlab
from schedlab.platform import USING_C_PROFILE
from schedlab.workload.load import load_workload
from schedlab.workload.models.tsafrir import add_estimates
spec, est_seed, policy, params = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
t1 = time.perf_counter()
wl = add_estimates(load_workload(spec), seed=est_seed)
if policy == "dbf":
    from schedlab.workload.deadlines import mark_non_priority
    wl = mark_non_priority(wl, every=3, deadline="a")
moves = reads = compressions = None
if policy in ("conservative", "dbf"):
    from schedlab.schedulers.conservative import ConservativeBackfilling
    compress = ConservativeBackfilling._compress
    moves = reads = compressions = 0
    def counted(self, now):
        global moves, reads, compressions
        compressions += 1
        reads += len(self._waiting)
        got = compress(self, now)  # older checkouts return None: no count
        moves = moves + got if isinstance(got, int) and moves is not None else None
    ConservativeBackfilling._compress = counted
result = schedlab.simulate(wl, policy, **json.loads(params))
summary = result.summary()
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"sim": result.raw.wall_time, "e2e": t2 - t1, "jobs": len(wl), "rss": peak,
                  "wait": summary["mean_wait_time"], "c_profile": USING_C_PROFILE,
                  "src": schedlab.__file__, "moves": moves, "reads": reads,
                  "compressions": compressions}))
"""


def run_child(argv: list[str], pythonpath: str | None, timeout: float) -> dict | None:
    """One measurement in a fresh process; None when it ran out of time."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        raise SystemExit(f"child {argv} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def this_checkout() -> str | None:
    """This checkout's ``src`` when its compiled profile is there (an editable install),
    else None: the installed package."""
    platform = ROOT / "src" / "schedlab" / "platform"
    return str(ROOT / "src") if any(platform.glob("_cprofile*.so")) else None


def slope(n0: int, t0: float, n1: int, t1: float) -> float:
    """Log-log slope of time against jobs between two sizes."""
    return math.log(t1 / t0) / math.log(n1 / n0)


def fmt_time(t: float | None, timeout: float) -> str:
    return f"> {timeout:g} s" if t is None else f"{t:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default="easy,conservative,dbf")
    parser.add_argument("--jobs", default="10000,20000,40000,80000")
    parser.add_argument("--load", type=float, default=1.5)
    parser.add_argument("--procs", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1, help="Lublin model seed")
    parser.add_argument("--estimates-seed", type=int, default=1, help="Tsafrir estimates seed")
    parser.add_argument("--backfill-order", help="EASY's backfill_order (fcfs or sjf)")
    parser.add_argument("--no-extra-procs", action="store_true", help="EASY extra_procs=false")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--baseline", help="src/ folder of another checkout to compare with")
    parser.add_argument("--json-out", type=Path, help="write every measurement as JSON")
    parser.add_argument(
        "--allow-pure-python",
        action="store_true",
        help="measure even a side that runs the pure-Python profile (refused by default)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.jobs.split(",")]
    variants: list[tuple[str, str | None]] = [("now", this_checkout())]
    if args.baseline:
        variants.insert(0, ("baseline", args.baseline))
    rows = []
    for policy in args.policies.split(","):
        params: dict[str, object] = {}
        if policy == "easy":
            if args.backfill_order:
                params["backfill_order"] = args.backfill_order
            if args.no_extra_procs:
                params["extra_procs"] = False
        print(f"\n{policy} {json.dumps(params) if params else ''}".rstrip())
        print(
            f"{'variant':<9} {'jobs':>7} {'sim':>10} {'e2e':>10} {'peak MiB':>9} "
            f"{'slope':>7} {'read':>8} {'moves':>8}  mean wait (s)   profile"
        )
        timed_out: set[str] = set()
        best: dict[tuple[str, int], dict | None] = {}
        for n in sizes:
            spec = f"lublin:jobs={n},procs={args.procs},seed={args.seed},load={args.load}"
            argv = [spec, str(args.estimates_seed), policy, json.dumps(params)]
            for _ in range(args.repeat):
                for label, path in variants:  # interleaved: noise hits both alike
                    if label in timed_out:
                        continue
                    got = run_child(argv, path, args.timeout)
                    if got is not None and not got["c_profile"] and not args.allow_pure_python:
                        raise SystemExit(
                            f"{label}: {got['src']} runs the pure-Python availability profile, "
                            "several times slower than the compiled one: build it (pip install "
                            "-e .) or copy src/schedlab/platform/_cprofile*.so there, or pass "
                            "--allow-pure-python to measure it anyway"
                        )
                    if got is None:
                        timed_out.add(label)
                        best[(label, n)] = None
                        continue
                    old = best.get((label, n))
                    if old is None or got["sim"] < old["sim"]:
                        best[(label, n)] = got
            waits = {round(g["wait"], 6) for (_, m), g in best.items() if m == n and g}
            for label, _ in variants:
                if (label, n) not in best:
                    continue
                got = best[(label, n)]
                prev = [(m, best[(label, m)]) for m in sizes if m < n and best.get((label, m))]
                s = rss = wait = moves = reads = "-"
                profile = ""
                if prev:
                    m, g = prev[-1]
                    # a timed-out run took at least the timeout: its slope is a lower bound
                    t = got["sim"] if got else args.timeout
                    s = ("" if got else "> ") + f"{slope(m, g['sim'], n, t):.2f}"
                if got:
                    rss = f"{got['rss']:.0f}"
                    wait = f"{got['wait']:.1f}"
                    profile = "C" if got["c_profile"] else "pure Python"
                    if got.get("moves") is not None:
                        moves = f"{got['moves'] / 1e6:.2f}M"
                    if got.get("reads") is not None:
                        reads = f"{got['reads'] / 1e6:.1f}M"
                print(
                    f"{label:<9} {n:>7} {fmt_time(got and got['sim'], args.timeout):>10} "
                    f"{fmt_time(got and got['e2e'], args.timeout):>10} {rss:>9} {s:>7} "
                    f"{reads:>8} {moves:>8}  {wait:>13}   {profile}"
                )
                row = got or {"timeout": args.timeout}
                rows.append({"policy": policy, "variant": label, "jobs": n, **row})
            if len(waits) > 1:
                print(f"{'':<9} results differ between variants at {n} jobs: {sorted(waits)}")
        for label, _ in variants:
            first, last = best.get((label, sizes[0])), best.get((label, sizes[-1]))
            if first and last and len(sizes) > 1:
                s = slope(sizes[0], first["sim"], sizes[-1], last["sim"])
                print(f"{label}: slope {sizes[0]} -> {sizes[-1]} jobs: {s:.2f}")
                if first.get("moves") and last.get("moves"):
                    s = slope(sizes[0], first["moves"], sizes[-1], last["moves"])
                    print(f"{label}: slope of the moves: {s:.2f} (no exact compression does less)")
            elif first and len(sizes) > 1:
                # a lower bound: the first size that ran out of time took at least the timeout
                stop = next(m for m in sizes if (label, m) in best and best[(label, m)] is None)
                s = slope(sizes[0], first["sim"], stop, args.timeout)
                print(f"{label}: slope {sizes[0]} -> {stop} jobs: > {s:.2f} (timeout)")
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
