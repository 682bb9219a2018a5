"""SWF parsing with the C tokenizer against numpy.loadtxt (issue 15 item 5).

Usage (from the repository root, with ../shared/workloads beside it)::

    python benchmarks/bench_parse.py                   # SDSC-BLUE and HPC2N
    python benchmarks/bench_parse.py --no-end-to-end   # parsing only (a few seconds)

For each trace it prints, best of ``--repeat`` (5) in this process: `read_swf` (decompression,
header, job lines, checks, `Workload`) and the job-line step alone (the body already in
memory), each with the C tokenizer ``schedlab.workload._cswf`` and with the loadtxt
fallback that runs when the extension was not compiled. Then, best of 3, the end-to-end
``schedlab run TRACE --policy easy --json`` in a child process per run, interleaved: the
whole process (interpreter and imports included) and the ``total_wall_time`` it reports
(parse + simulate + metrics). The fallback is chosen by setting ``swf._C_PARSE_JOBS`` to
None, so nothing else differs between the two.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from schedlab.workload import swf

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ROOT.parent / "shared" / "workloads"
DEFAULT_TRACES = ["SDSC-BLUE-2000-4.2-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"]

# `schedlab ARGS...` in a child, with the C tokenizer or (argv[1] == "loadtxt") without it.
CLI_CHILD = """
import sys
import schedlab.workload.swf as swf
if sys.argv[1] == "loadtxt":
    swf._C_PARSE_JOBS = None
sys.argv = ["schedlab", *sys.argv[2:]]
from schedlab.cli import main
main()
"""


def best_of(repeat: int, call: Callable[[], object]) -> float:
    """The shortest wall time of `repeat` calls (the least disturbed by other processes)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def with_parser(
    parser: Callable[[bytes], bytearray | None] | None, call: Callable[[], object]
) -> Callable[[], object]:
    """`call` with ``swf._C_PARSE_JOBS`` set to `parser` (None: the loadtxt fallback)."""

    def run() -> object:
        saved = swf._C_PARSE_JOBS
        swf._C_PARSE_JOBS = parser
        try:
            return call()
        finally:
            swf._C_PARSE_JOBS = saved

    return run


def end_to_end(trace: str, variant: str) -> tuple[float, float]:
    """(process wall time, its total_wall_time) of one ``schedlab run`` in a child."""
    args = ["run", trace, "--policy", "easy", "--json"]
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CLI_CHILD, variant, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    return wall, float(json.loads(out.stdout)["total_wall_time"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=",".join(DEFAULT_TRACES))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--e2e-repeat", type=int, default=3)
    parser.add_argument("--no-end-to-end", action="store_true")
    args = parser.parse_args()
    c_parser = swf._C_PARSE_JOBS
    if c_parser is None:
        sys.exit("bench_parse: schedlab.workload._cswf is not compiled: nothing to compare")
    print("| trace | jobs | read_swf C | read_swf loadtxt | job lines C | job lines loadtxt |")
    print("|---|---|---|---|---|---|")
    for name in args.traces.split(","):
        path = WORKLOADS / name
        _, _, body = swf._split_header(gzip.decompress(path.read_bytes()))
        jobs = len(swf.read_swf(path))
        read_c = best_of(args.repeat, with_parser(c_parser, lambda p=path: swf.read_swf(p)))
        read_py = best_of(args.repeat, with_parser(None, lambda p=path: swf.read_swf(p)))
        lines_c = best_of(args.repeat, lambda b=body: c_parser(b))
        lines_py = best_of(args.repeat, lambda b=body: swf._parse_loadtxt(b))
        print(
            f"| {name.removesuffix('.swf.gz')} | {jobs:,} | {read_c:.3f} s | {read_py:.3f} s "
            f"| {lines_c:.3f} s | {lines_py:.3f} s |"
        )
    if args.no_end_to_end:
        return
    print("\n`schedlab run TRACE --policy easy --json`, best of", args.e2e_repeat)
    print("| trace | process C | process loadtxt | total_wall_time C | total_wall_time loadtxt |")
    print("|---|---|---|---|---|")
    for name in args.traces.split(","):
        trace = str(WORKLOADS / name)
        best = {v: (float("inf"), float("inf")) for v in ("c", "loadtxt")}
        for _ in range(args.e2e_repeat):
            for variant in best:  # interleaved: machine noise hits both alike
                wall, inside = end_to_end(trace, variant)
                best[variant] = (min(best[variant][0], wall), min(best[variant][1], inside))
        print(
            f"| {name.removesuffix('.swf.gz')} | {best['c'][0]:.2f} s | {best['loadtxt'][0]:.2f} s "
            f"| {best['c'][1]:.2f} s | {best['loadtxt'][1]:.2f} s |"
        )


if __name__ == "__main__":
    main()
