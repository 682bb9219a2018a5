"""Slow, plain reference for PPS (priority-based preemptive scheduling), the tests' oracle.

Written from SPEC.md sections 1 and 4 (PPS bullet) and paper 002 section 3 only, not from
the fast policy in ``schedlab.schedulers.pps``: a loop over instants on plain lists, every
quantity recomputed from scratch where it is used. Speed is not a goal.

Model:

* Jobs are parallel lists indexed 0..n-1, sorted by (submit time, trace position); the
  index is the priority (lower index = higher priority).
* Instants: the next instant is the earliest of the next submission and the end of every
  running job's current run segment. At an instant, the segments that end are applied
  (completions and overrun kills, in index order), then the submissions (index order), then
  one scheduling pass.
* A run segment of job j that (re)starts with ``done`` seconds of work already kept lasts
  ``run - done`` seconds, or with ``kill_on_overrun`` at most ``req - done`` (its remaining
  budget); a segment cut by the budget ends with the job killed.
* The pass scans the waiting queue (waiting and suspended jobs, by index): a job starts if
  the free processors suffice; otherwise, if free processors + processors of running jobs
  with a higher index suffice, the running job with the highest index is suspended and put
  back in the queue, repeatedly, until it fits, and it starts; the scan goes on with the
  next job by index (suspended jobs included).
* Suspensions take effect at the end of the pass. A job suspended by a pass and started
  again by the same pass was never stopped: no preemption counted, progress kept.
* Suspend mode keeps the work done; requeue mode throws it away (counted as wasted time)
  and the next segment restarts from scratch with the whole budget.
"""

from __future__ import annotations

MODES = ("suspend", "requeue")


def reference_pps(
    submit: list[float],
    run: list[float],
    req: list[float],
    procs: list[int],
    P: int,
    preemption: str = "suspend",
    kill_on_overrun: bool = True,
) -> dict[str, list]:
    """Simulate PPS on ``P`` processors.

    Returns per-job lists: ``start`` (first start), ``end``, ``killed``, ``preemptions``,
    ``suspended_time``, ``wasted_time`` and ``executed_time`` (work of the last attempt).
    """
    if preemption not in MODES:
        raise ValueError(f"unknown preemption {preemption!r}; expected one of {MODES}")
    n = len(submit)
    for j in range(n):
        if j and submit[j] < submit[j - 1]:
            raise ValueError(f"jobs must be sorted by submit time (job {j})")
        if not 1 <= procs[j] <= P:
            raise ValueError(f"job {j}: procs {procs[j]} not in 1..{P}")
        if not kill_on_overrun and req[j] < run[j]:
            raise ValueError(f"job {j}: with kill_on_overrun=False req must be >= run")

    start: list = [None] * n
    end: list = [None] * n
    killed = [False] * n
    preemptions = [0] * n
    suspended_time = [0.0] * n
    wasted_time = [0.0] * n
    done = [0.0] * n  # work kept by the current attempt before its current segment
    seg_start: list = [None] * n  # start of the current segment of a running job
    suspended_at: list = [None] * n  # when a suspended job was stopped
    waiting: list[int] = []  # waiting + suspended jobs, kept sorted by index
    running: list[int] = []  # running jobs, any order
    free = P
    next_sub = 0
    finished = 0

    def segment_length(j: int) -> float:
        length = run[j] - done[j]
        if kill_on_overrun:
            length = min(length, req[j] - done[j])
        return length

    while finished < n:
        times = [seg_start[j] + segment_length(j) for j in running]
        if next_sub < n:
            times.append(submit[next_sub])
        if not times:
            raise AssertionError("jobs left but no event: the reference is stuck")
        now = min(times)

        # (1) segments ending now: completions and overrun kills, in index order
        for j in sorted(running):
            if seg_start[j] + segment_length(j) == now:
                running.remove(j)
                free += procs[j]
                killed[j] = kill_on_overrun and run[j] - done[j] > req[j] - done[j]
                done[j] += now - seg_start[j]
                end[j] = now
                finished += 1

        # (2) submissions, in index order (each has a higher index than every queued job)
        while next_sub < n and submit[next_sub] == now:
            waiting.append(next_sub)
            next_sub += 1

        # (3) one pass over the waiting queue by priority
        victims: list[int] = []  # suspended by this pass (applied when it ends)
        pos = 0
        while pos < len(waiting):
            j = waiting[pos]
            if procs[j] > free:
                preemptible = sum(procs[k] for k in running if k > j)
                if free + preemptible < procs[j]:
                    pos += 1
                    continue
                while free < procs[j]:
                    v = max(running)  # the lowest priority running job
                    running.remove(v)
                    free += procs[v]
                    victims.append(v)
                    waiting.append(v)
                    waiting.sort()
            # start j (its position has not moved: victims have higher indices)
            assert waiting[pos] == j
            del waiting[pos]
            free -= procs[j]
            running.append(j)
            if j in victims:
                victims.remove(j)  # stopped and restarted at once: it just goes on
            elif start[j] is None:
                start[j] = now
                seg_start[j] = now
            else:
                suspended_time[j] += now - suspended_at[j]
                suspended_at[j] = None
                seg_start[j] = now
        for v in victims:
            preemptions[v] += 1
            suspended_at[v] = now
            worked = done[v] + (now - seg_start[v])
            if preemption == "suspend":
                done[v] = worked
            else:
                wasted_time[v] += worked
                done[v] = 0.0
            seg_start[v] = None
        assert 0 <= free <= P

    return {
        "start": start,
        "end": end,
        "killed": killed,
        "preemptions": preemptions,
        "suspended_time": suspended_time,
        "wasted_time": wasted_time,
        "executed_time": done,
    }
