"""The yardstick: a minimal hand-written heapq EASY loop, as short as EASY can be written.

It reads the trace with numpy, applies the SPEC section 2 conventions and runs EASY
backfilling (SPEC section 4) with a completion heap and a list scan, nothing else: no
engine, no protocol, no validation. The benchmark times schedlab against it in the same run.
"""

from __future__ import annotations

import gzip
import heapq
import sys
import time
from bisect import insort

import numpy as np


def read(path: str) -> tuple[list[float], list[float], list[float], list[int], int]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        header = []
        rows = np.loadtxt(f, comments=";", ndmin=2)
    with opener(path, "rt") as f:
        for line in f:
            if not line.startswith(";"):
                break
            header.append(line)
    total = 0
    for line in header:
        if "MaxProcs:" in line:
            total = int(line.split(":")[1])
    submit, run = rows[:, 1], rows[:, 3]
    procs = np.where(rows[:, 4] > 0, rows[:, 4], rows[:, 7])
    req = np.where(rows[:, 8] > 0, rows[:, 8], run)
    total = total or int(procs.max())
    ok = (run > 0) & (procs > 0) & (procs <= total)
    order = np.argsort(submit[ok], kind="stable")
    return (
        submit[ok][order].tolist(),
        run[ok][order].tolist(),
        req[ok][order].tolist(),
        procs[ok][order].astype(int).tolist(),
        total,
    )


def easy(
    submit: list[float], run: list[float], req: list[float], procs: list[int], total: int
) -> list[float]:
    n = len(submit)
    start = [0.0] * n
    free = total
    queue: list[int] = []
    heap: list[tuple[float, int]] = []
    running: list[tuple[float, int]] = []
    nxt = 0
    inf = float("inf")
    while nxt < n or heap:
        t = heap[0][0] if heap else inf
        if nxt < n and submit[nxt] < t:
            t = submit[nxt]
        while heap and heap[0][0] == t:
            _, j = heapq.heappop(heap)
            free += procs[j]
            running.remove((start[j] + req[j], j))
        while nxt < n and submit[nxt] == t:
            queue.append(nxt)
            nxt += 1
        i = 0
        while i < len(queue) and procs[queue[i]] <= free:
            j = queue[i]
            start[j] = t
            free -= procs[j]
            heapq.heappush(heap, (t + min(run[j], req[j]), j))
            insort(running, (t + req[j], j))
            i += 1
        del queue[:i]
        if queue and free > 0:
            need = procs[queue[0]]
            avail = free
            shadow = t
            for end, j in running:
                avail += procs[j]
                if avail >= need:
                    shadow = end
                    break
            extra = free + sum(procs[j] for e, j in running if e <= shadow) - need
            keep = queue[:1]
            for j in queue[1:]:
                p = procs[j]
                if p <= free and (t + req[j] <= shadow or p <= extra):
                    start[j] = t
                    free -= p
                    heapq.heappush(heap, (t + min(run[j], req[j]), j))
                    insort(running, (t + req[j], j))
                    if t + req[j] > shadow:
                        extra -= p
                else:
                    keep.append(j)
            queue = keep
    return start


if __name__ == "__main__":
    t0 = time.perf_counter()
    jobs = read(sys.argv[1])
    t1 = time.perf_counter()
    starts = easy(*jobs)
    t2 = time.perf_counter()
    waits = np.array(starts) - np.array(jobs[0])
    print(
        f'{{"jobs": {len(starts)}, "read_time": {t1 - t0:.3f}, "sim_time": {t2 - t1:.3f}, '
        f'"total_time": {t2 - t0:.3f}, "mean_wait_time": {waits.mean():.6f}}}'
    )
