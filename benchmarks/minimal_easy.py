"""The yardstick: EASY backfilling as a careful plain-Python loop, with nothing around it.

It is what a competent programmer writes in an afternoon to answer "how fast can EASY be in
Python?": the trace read with ``str.split`` (SPEC section 2's conventions: processors
allocated, else requested; requested time, else the run time; jobs with no run time or no
processors, or wider than the machine, dropped; submit order, stable), a heap of actual ends,
a list of running jobs sorted by requested end (bisect, for the shadow time), one list for
the queue, and a scheduling pass only where something can start. No engine, no protocol, no
validation, no metrics beyond the mean wait. schedlab's EASY is timed against it in the same
call (`bench_policies.py`, or the two commands timed in turn), so it must stay honestly this
fast: a slower yardstick flatters us. ``--check`` also runs schedlab's EASY on the trace and exits 1
unless every job starts at the same time in both.
"""

from __future__ import annotations

import gzip
import sys
import time
from bisect import bisect_left, insort
from heapq import heappop, heappush


def read(path: str) -> tuple[list[float], list[float], list[float], list[int], int]:
    """submit, run, requested time, processors (in submit order) and the machine size."""
    opener = gzip.open if path.endswith(".gz") else open
    total = 0
    rows: list[tuple[float, float, float, int]] = []
    append = rows.append
    with opener(path, "rb") as f:
        text = f.read().decode()
    for line in text.splitlines():
        if not line or line[0] == ";":
            if "MaxProcs:" in line:
                total = int(line.split(":")[1])
            continue
        fields = line.split(None, 9)
        if len(fields) < 9:
            continue
        run = float(fields[3])
        procs = int(fields[4])
        if procs <= 0:
            procs = int(fields[7])
        requested = float(fields[8])
        append((float(fields[1]), run, requested if requested > 0 else run, procs))
    total = total or max(r[3] for r in rows)
    kept = sorted((r for r in rows if r[1] > 0 and 0 < r[3] <= total), key=lambda r: r[0])
    return (
        [r[0] for r in kept],
        [r[1] for r in kept],
        [r[2] for r in kept],
        [r[3] for r in kept],
        total,
    )


def easy(
    submit: list[float], run: list[float], req: list[float], procs: list[int], total: int
) -> list[float]:
    """Start times under EASY: FCFS, then backfill what fits now and ends before the head's
    shadow time or uses only the processors the head will not need."""
    n = len(submit)
    start = [0.0] * n
    free = total
    queue: list[int] = []
    ends: list[tuple[float, int]] = []  # heap of (actual end, job)
    running: list[tuple[float, int]] = []  # (requested end, job), sorted
    # queue[:checked] cannot start before a job ends: between ends, processors only get
    # taken, and the head's shadow time and extra processors stay as computed
    checked = 0
    shadow = extra = 0.0
    nxt = 0
    inf = float("inf")
    while nxt < n or ends:
        t = ends[0][0] if ends else inf
        if nxt < n and submit[nxt] < t:
            t = submit[nxt]
        if ends and ends[0][0] == t:
            checked = 0
            while ends and ends[0][0] == t:
                j = heappop(ends)[1]
                free += procs[j]
                del running[bisect_left(running, (start[j] + req[j], j))]
        while nxt < n and submit[nxt] == t:
            queue.append(nxt)
            nxt += 1
        if free == 0 or checked == len(queue):
            continue
        if checked == 0:
            i = 0
            while i < len(queue) and procs[queue[i]] <= free:
                j = queue[i]
                start[j] = t
                free -= procs[j]
                heappush(ends, (t + (run[j] if run[j] < req[j] else req[j]), j))
                insort(running, (t + req[j], j))
                i += 1
            if i:
                del queue[:i]
            if not queue:
                continue
            need = procs[queue[0]]
            avail = free
            for k, (end, j) in enumerate(running):
                avail += procs[j]
                if avail >= need:
                    shadow = end
                    for tied_end, tied in running[k + 1 :]:  # ending with it: free for the head
                        if tied_end > shadow:
                            break
                        avail += procs[tied]
                    extra = avail - need
                    break
            checked = 1
        keep = queue[:checked]
        for position in range(checked, len(queue)):
            j = queue[position]
            p = procs[j]
            if p <= free and (t + req[j] <= shadow or p <= extra):
                start[j] = t
                free -= p
                heappush(ends, (t + (run[j] if run[j] < req[j] else req[j]), j))
                insort(running, (t + req[j], j))
                if t + req[j] > shadow:
                    extra -= p
                if free == 0:
                    keep += queue[position + 1 :]
                    break
            else:
                keep.append(j)
        queue = keep
        checked = len(queue)
    return start


def check(path: str, starts: list[float], submit: list[float]) -> None:
    """Exit 1 unless schedlab's EASY starts every job at the yardstick's time (same jobs, same
    submit order): the yardstick must compute what schedlab computes, or its speed says
    nothing."""
    import numpy as np

    import schedlab
    from schedlab.workload.load import load_workload

    columns = schedlab.simulate(load_workload(path), "easy").columns
    submitted = np.asarray(columns["submitted_at"])
    order = np.lexsort((np.arange(len(submitted)), submitted))  # stable, by submit
    ours = np.asarray(columns["started_at"])[order]
    same = len(ours) == len(starts) and np.array_equal(submitted[order], np.asarray(submit))
    if not same or not np.array_equal(ours, np.asarray(starts)):
        differ = np.flatnonzero(ours != np.asarray(starts)) if same else [0]
        print(f"{path}: start times differ from schedlab's EASY (first at job {differ[0]})")
        sys.exit(1)
    print(f"{path}: every start time equals schedlab's EASY ({len(starts)} jobs)")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--check"):
        sys.exit("usage: python benchmarks/minimal_easy.py TRACE [--check]")
    t0 = time.perf_counter()
    jobs = read(sys.argv[1])
    t1 = time.perf_counter()
    starts = easy(*jobs)
    t2 = time.perf_counter()
    waits = [s - a for s, a in zip(starts, jobs[0])]
    print(
        f'{{"jobs": {len(starts)}, "read_time": {t1 - t0:.3f}, "sim_time": {t2 - t1:.3f}, '
        f'"total_time": {t2 - t0:.3f}, "mean_wait_time": {sum(waits) / len(waits):.6f}}}'
    )
    if len(sys.argv) == 3:
        check(sys.argv[1], starts, jobs[0])
