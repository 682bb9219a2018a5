"""Check that EASY's bucketed pass starts every job when the list scan before it did.

Usage (from the repository root)::

    python benchmarks/check_easy_starts.py                    # traces + Lublin at load 1.5
    python benchmarks/check_easy_starts.py --lublin "lublin:jobs=80000,procs=128,seed=2,load=1.5"

Issue 15 replaced the backfilling pass of ``schedlab.schedulers.easy`` (linear per pass
instead of a re-sort of every narrow-enough waiting job). The old class is kept as
``tests/reference_easy_listscan.py``. For SDSC-BLUE and HPC2N (from ../shared/workloads) and
each Lublin spec (Tsafrir estimates added, seed ``--estimates-seed``), for both backfill
orders and with the extra-processor rule on and off, this runs both and compares the start
time of every job, exactly, and exits with status 1 if any differs (naming the first job).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import schedlab  # noqa: E402
from reference_easy_listscan import ListScanEasy  # noqa: E402
from schedlab.schedulers.easy import EasyParams  # noqa: E402
from schedlab.workload.job import Workload  # noqa: E402
from schedlab.workload.load import load_workload  # noqa: E402
from schedlab.workload.models.tsafrir import add_estimates  # noqa: E402

WORKLOADS = ROOT.parent / "shared" / "workloads"
DEFAULT_TRACES = "SDSC-BLUE-2000-4.2-cln.swf.gz,HPC2N-2002-2.1-cln.swf.gz"
DEFAULT_LUBLIN = "lublin:jobs=40000,procs=128,seed=1,load=1.5"


def compare(name: str, wl: Workload) -> bool:
    """Both implementations, every order and rule; True when all starts are identical."""
    ok = True
    for order in ("fcfs", "sjf"):
        for extra in (True, False):
            params = EasyParams(backfill_order=order, extra_procs=extra)
            old = schedlab.simulate(wl, ListScanEasy(params))
            new = schedlab.simulate(wl, "easy", backfill_order=order, extra_procs=extra)
            a = old.jobs["started_at"].to_numpy()
            b = new.jobs["started_at"].to_numpy()
            same = np.array_equal(a, b)
            line = (
                f"{name[:40]:<40} {order:<5} extra={str(extra):<5} {len(a):>7} jobs  "
                f"old {old.raw.wall_time:6.2f} s  new {new.raw.wall_time:6.2f} s  "
            )
            if same:
                print(line + "identical")
            else:
                j = int(np.flatnonzero(a != b)[0])
                print(
                    line + f"DIFFER: {int((a != b).sum())} jobs, first job {j}: "
                    f"{a[j]} (old) vs {b[j]} (new)"
                )
                ok = False
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=DEFAULT_TRACES, help="comma-separated, '' for none")
    parser.add_argument("--lublin", default=DEFAULT_LUBLIN, help="';'-separated model specs")
    parser.add_argument("--estimates-seed", type=int, default=1)
    args = parser.parse_args()
    ok = True
    for trace in filter(None, args.traces.split(",")):
        path = WORKLOADS / trace
        if not path.exists():
            print(f"{trace}: not found in {WORKLOADS}, skipped")
            continue
        ok &= compare(trace, schedlab.read_swf(path))
    for spec in filter(None, args.lublin.split(";")):
        clock = time.perf_counter()
        wl = add_estimates(load_workload(spec), seed=args.estimates_seed)
        ok &= compare(f"{spec} +est", wl)
        print(f"  ({time.perf_counter() - clock:.0f} s)")
    if not ok:
        raise SystemExit(1)
    print("all starts identical")


if __name__ == "__main__":
    main()
