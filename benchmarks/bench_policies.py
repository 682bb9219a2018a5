"""Speed and memory of schedlab on real traces, against a minimal hand-written EASY loop.

Usage (from the repository root, with ../shared/workloads beside it)::

    python benchmarks/bench_policies.py                     # SDSC-BLUE and HPC2N, all policies
    python benchmarks/bench_policies.py --policies dbf,pps --dbf-deadline b
    python benchmarks/bench_policies.py --policies easy --scaling
    python benchmarks/bench_policies.py --json-out bench.json

Each measurement runs ``schedlab run TRACE --policy P --json`` in its own process, so that
peak memory (ru_maxrss of that child) and the process wall time are the user's. Reported:
- ``sim``: the simulation alone (the ``wall_time`` summary key);
- ``e2e``: parse + simulate + metrics inside the process (``total_wall_time``);
- ``proc``: the whole process, interpreter start and imports included.
The yardstick (benchmarks/minimal_easy.py) is timed the same way in the same run.
``--scaling`` times the simulation on the first 10k, 20k, 40k, ... jobs of each trace.
``dbf`` runs paper 000's experiment: one job in three non-priority, deadline rule
``--dbf-deadline`` (a: max(24 h, 2 x run), b: max(72 h, 2 x run)); its line also gives the
milliseconds per job, the figure paper 000 reports (under 40 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ROOT.parent / "shared" / "workloads"
DEFAULT_TRACES = ["SDSC-BLUE-2000-4.2-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"]


def run_child(argv: list[str]) -> tuple[dict, float, float]:
    """Run a command; returns its JSON output, wall seconds and peak RSS in MiB."""
    clock = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - clock
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err}")
    return json.loads(out), wall, usage.ru_maxrss / 1024.0


def schedlab_command() -> list[str]:
    exe = shutil.which("schedlab", path=str(Path(sys.executable).parent)) or shutil.which(
        "schedlab"
    )
    if exe is None:
        return [sys.executable, "-c", "from schedlab.cli import main; main()"]
    return [exe]


def best_of(repeat: int, argv: list[str]) -> tuple[dict, float, float]:
    runs = [run_child(argv) for _ in range(repeat)]
    return min(runs, key=lambda r: r[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="*", default=DEFAULT_TRACES)
    parser.add_argument("--policies", default="fcfs,easy,conservative,dbf,pps")
    parser.add_argument("--dbf-deadline", default="a", help="deadline rule for dbf: a or b")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--scaling", action="store_true", help="also time 10k..all jobs")
    parser.add_argument("--json-out", type=Path, help="write every measurement as JSON")
    args = parser.parse_args()
    rows = []
    cmd = schedlab_command()
    header = (
        f"{'trace':<32} {'policy':<13} {'jobs':>7} {'sim s':>7} {'e2e s':>7} {'proc s':>7} "
        f"{'e2e jobs/s':>11} {'proc jobs/s':>11} {'peak MiB':>9}"
    )
    print(header)
    print("-" * len(header))
    for trace in args.traces:
        path = WORKLOADS / trace
        if not path.exists():
            print(f"{trace}: not found in {WORKLOADS}, skipped")
            continue
        yard, ywall, yrss = best_of(
            args.repeat, [sys.executable, str(ROOT / "benchmarks" / "minimal_easy.py"), str(path)]
        )
        n = yard["jobs"]
        print(
            f"{trace[:32]:<32} {'(yardstick)':<13} {n:>7} {yard['sim_time']:>7.2f} "
            f"{yard['total_time']:>7.2f} {ywall:>7.2f} {n / yard['total_time']:>11,.0f} "
            f"{n / ywall:>11,.0f} {yrss:>9.0f}"
        )
        rows.append(
            {
                "trace": trace,
                "policy": "minimal-easy-yardstick",
                "jobs": n,
                "sim_time": yard["sim_time"],
                "e2e_time": yard["total_time"],
                "process_time": ywall,
                "peak_mib": yrss,
            }
        )
        for policy in args.policies.split(","):
            extra = policy_options(policy, args.dbf_deadline)
            summary, wall, rss = best_of(
                args.repeat, [*cmd, "run", str(path), "--policy", policy, "--json", *extra]
            )
            n = summary["jobs"]
            e2e = summary["total_wall_time"]
            print(
                f"{trace[:32]:<32} {policy:<13} {n:>7} {summary['wall_time']:>7.2f} {e2e:>7.2f} "
                f"{wall:>7.2f} {n / e2e:>11,.0f} {n / wall:>11,.0f} {rss:>9.0f}"
            )
            row = {
                "trace": trace,
                "policy": policy,
                "jobs": n,
                "sim_time": summary["wall_time"],
                "e2e_time": e2e,
                "process_time": wall,
                "peak_mib": rss,
                "mean_wait_time": summary["mean_wait_time"],
            }
            if policy == "dbf":
                print(f"{'':<32} {'':<13} {1000 * summary['wall_time'] / n:.4f} ms per job")
            if policy == "easy":
                row["e2e_vs_yardstick"] = e2e / yard["total_time"]
                print(
                    f"{'':<32} {'':<13} easy e2e / yardstick e2e = {row['e2e_vs_yardstick']:.2f}"
                    f"; mean wait {summary['mean_wait_time']:.3f} vs yardstick "
                    f"{yard['mean_wait_time']:.3f}"
                )
            rows.append(row)
    if args.scaling:
        rows.extend(scaling(args.traces, args.policies.split(",")))
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=2))


def policy_options(policy: str, dbf_deadline: str) -> list[str]:
    """Extra `schedlab run` options a policy's experiment needs (dbf: non-priority jobs)."""
    if policy == "dbf":
        return ["--non-priority", f"every=3,deadline={dbf_deadline}"]
    return []


def scaling(traces: list[str], policies: list[str]) -> list[dict]:
    """Simulation time on growing prefixes of each trace: it should grow about linearly."""
    import schedlab
    from schedlab.workload.deadlines import mark_non_priority
    from schedlab.workload.transforms import first_jobs

    out = []
    print("\nscaling (simulation only, in process)")
    print(
        f"{'trace':<32} {'policy':<13} "
        + " ".join(f"{k:>9}" for k in ["10k", "20k", "40k", "80k", "160k", "all"])
        + "   (jobs/s)"
    )
    for trace in traces:
        path = WORKLOADS / trace
        if not path.exists():
            continue
        full = schedlab.read_swf(path)
        for policy in policies:
            cells = []
            for size in (10_000, 20_000, 40_000, 80_000, 160_000, None):
                w = full if size is None or size >= len(full) else first_jobs(full, size)
                if policy == "dbf":
                    w = mark_non_priority(w, every=3, deadline="a")
                result = schedlab.simulate(w, policy)
                rate = len(w) / result.raw.wall_time
                cells.append(f"{rate:>9,.0f}")
                out.append(
                    {
                        "trace": trace,
                        "policy": policy,
                        "jobs": len(w),
                        "sim_time": result.raw.wall_time,
                        "scaling": True,
                    }
                )
            print(f"{trace[:32]:<32} {policy:<13} " + " ".join(cells))
    return out


if __name__ == "__main__":
    main()
