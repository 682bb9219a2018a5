"""Slow, plain reference simulator used by the test-suite as an oracle.

It is written from SPEC.md sections 1 and 4 only (not from the fast engine), so that the two
implementations are independent readings of the same contract. Speed is not a goal; every
step is written out the way the spec states it.

Model (SPEC section 1 plus the project's fixed decisions):

* Jobs are parallel lists indexed 0..n-1, sorted by (submit time, trace position).
* With ``kill_on_overrun`` (default) a job runs for ``min(run, req)`` and is killed iff
  ``run > req``. Without it the caller must already have raised ``req`` to ``>= run``.
* Instants: at each instant the completions are applied, then the submissions (each in job
  index order), then the policy makes exactly one scheduling pass.
* The next instant is the smallest time among pending completions and the next submission.
  For conservative backfilling it is also the smallest reservation of a waiting job (see
  ``_simulate_conservative`` for why this wake-up is needed; it never changes a result the
  spec's event list alone would produce, it only prevents a job from being stranded).

Policies: ``"fcfs"``, ``"easy"``, ``"conservative"``.
"""

from __future__ import annotations

from collections import defaultdict

POLICIES = ("fcfs", "easy", "conservative")


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def reference_simulate(
    submit: list[float],
    run: list[float],
    req: list[float],
    procs: list[int],
    P: int,
    policy: str,
    kill_on_overrun: bool = True,
) -> dict[str, list]:
    """Simulate ``policy`` on one cluster of ``P`` processors.

    Returns a dict with ``start``, ``end`` (floats) and ``killed`` (bools), one entry per job;
    for ``policy == "conservative"`` also ``reservation_at_submit`` (the reservation each job
    was given when it was submitted).
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; expected one of {POLICIES}")
    _validate(submit, run, req, procs, P, kill_on_overrun)

    n = len(submit)
    # The time a job really occupies its processors.
    duration = [min(run[j], req[j]) for j in range(n)]
    killed = [kill_on_overrun and run[j] > req[j] for j in range(n)]

    if policy == "conservative":
        start, reservation_at_submit = _simulate_conservative(submit, duration, req, procs, P)
    else:
        start = _simulate_queue_policy(submit, duration, req, procs, P, policy)

    end = [start[j] + duration[j] for j in range(n)]
    result: dict[str, list] = {"start": start, "end": end, "killed": killed}
    if policy == "conservative":
        result["reservation_at_submit"] = reservation_at_submit
    return result


def check_schedule(
    submit: list[float],
    run: list[float],
    req: list[float],
    procs: list[int],
    P: int,
    start: list[float],
    end: list[float],
    killed: list[bool],
    kill_on_overrun: bool = True,
) -> None:
    """Assert the invariants every valid schedule satisfies (raises AssertionError).

    * start >= submit for every job;
    * end == start + min(run, req) (kill on) or start + run (kill off), exactly;
    * killed iff run > req (kill on); never killed (kill off);
    * processors in use never exceed P (sweep; at equal times ends are applied before starts).
    """
    n = len(submit)
    for name, xs in (("run", run), ("req", req), ("procs", procs), ("start", start)):
        if len(xs) != n:
            raise AssertionError(f"{name} has {len(xs)} entries, expected {n}")
    if len(end) != n or len(killed) != n:
        raise AssertionError("end/killed have the wrong length")

    for j in range(n):
        if not start[j] >= submit[j]:
            raise AssertionError(f"job {j} starts at {start[j]} before its submit {submit[j]}")
        if kill_on_overrun:
            expected_end = start[j] + min(run[j], req[j])
            expected_killed = run[j] > req[j]
        else:
            expected_end = start[j] + run[j]
            expected_killed = False
        if end[j] != expected_end:
            raise AssertionError(f"job {j}: end {end[j]} != expected {expected_end}")
        if bool(killed[j]) != expected_killed:
            raise AssertionError(f"job {j}: killed={killed[j]}, expected {expected_killed}")
        if not 1 <= procs[j] <= P:
            raise AssertionError(f"job {j}: procs {procs[j]} not in 1..{P}")

    # Sweep: (time, 0 = end / 1 = start, procs); sorting puts ends before starts at a tie.
    events = []
    for j in range(n):
        events.append((end[j], 0, procs[j]))
        events.append((start[j], 1, procs[j]))
    events.sort()
    in_use = 0
    for t, kind, p in events:
        in_use += p if kind == 1 else -p
        if in_use > P:
            raise AssertionError(f"{in_use} processors in use at time {t} > P = {P}")


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _validate(submit, run, req, procs, P, kill_on_overrun):
    n = len(submit)
    if not (len(run) == len(req) == len(procs) == n):
        raise ValueError("submit, run, req and procs must have the same length")
    if P < 1:
        raise ValueError("P must be >= 1")
    for j in range(n):
        if j > 0 and submit[j] < submit[j - 1]:
            raise ValueError(f"jobs must be sorted by submit time (job {j})")
        if not run[j] > 0:
            raise ValueError(f"job {j}: run must be > 0")
        if not req[j] > 0:
            raise ValueError(f"job {j}: req must be > 0")
        if not 1 <= procs[j] <= P:
            raise ValueError(f"job {j}: procs {procs[j]} not in 1..{P}")
        if not kill_on_overrun and req[j] < run[j]:
            raise ValueError(
                f"job {j}: with kill_on_overrun=False the caller must raise req to >= run"
            )


# --------------------------------------------------------------------------------------------
# FCFS and EASY
# --------------------------------------------------------------------------------------------


def _simulate_queue_policy(submit, duration, req, procs, P, policy):
    n = len(submit)
    start = [None] * n
    end = [None] * n  # actual end, known once a job starts
    waiting = []  # job indices, always in index order (= arrival order)
    running = []  # job indices
    free = P
    next_sub = 0

    while next_sub < n or running or waiting:
        candidates = [end[j] for j in running]
        if next_sub < n:
            candidates.append(submit[next_sub])
        # Waiting jobs with nothing running and nothing to come would be a bug: the head
        # always fits in an empty machine.
        assert candidates, "waiting jobs but no future event"
        now = min(candidates)

        # (1) completions, in index order.
        for j in sorted(running):
            if end[j] == now:
                running.remove(j)
                free += procs[j]
        # (2) submissions, in index order.
        while next_sub < n and submit[next_sub] == now:
            waiting.append(next_sub)
            next_sub += 1

        # (3) one scheduling pass.
        if policy == "fcfs":
            started = _fcfs_pass(waiting, procs, free)
        else:
            started = _easy_pass(now, waiting, running, start, req, procs, free)
        for j in started:
            waiting.remove(j)
            running.append(j)
            start[j] = now
            end[j] = now + duration[j]
            free -= procs[j]
        assert free >= 0

    return start


def _fcfs_pass(waiting, procs, free):
    """Start jobs from the head of the queue while the head fits; stop at the first that
    does not."""
    started = []
    for j in waiting:
        if procs[j] > free:
            break
        started.append(j)
        free -= procs[j]
    return started


def _easy_pass(now, waiting, running, start, req, procs, free):
    """One EASY pass. Returns the jobs to start now, in the order they were chosen."""
    started = []
    queue = list(waiting)

    # FCFS part: start from the head while it fits.
    while queue and procs[queue[0]] <= free:
        j = queue.pop(0)
        started.append(j)
        free -= procs[j]
    if not queue:
        return started

    # The head does not fit. Running jobs = those running before this pass plus those just
    # started by the FCFS part (they are running now, with expected end now + req).
    head = queue[0]
    running_now = [(start[j], j) for j in running] + [(now, j) for j in started]
    by_expected_end = sorted((s + req[j], j) for s, j in running_now)

    # Shadow time: walk running jobs by expected end (ties by index) until enough
    # processors would be free for the head.
    available = free
    shadow = None
    for expected_end, j in by_expected_end:
        available += procs[j]
        if available >= procs[head]:
            shadow = expected_end
            break
    assert shadow is not None, "head wider than the machine"

    # Extra processors: free at the shadow time, beyond what the head needs.
    extra = free
    for expected_end, j in by_expected_end:
        if expected_end <= shadow:
            extra += procs[j]
    extra -= procs[head]

    # Backfilling scan over the rest of the queue, in index order.
    for j in queue[1:]:
        if procs[j] <= free and (now + req[j] <= shadow or procs[j] <= extra):
            started.append(j)
            free -= procs[j]
            if now + req[j] > shadow:
                extra -= procs[j]
    return started


# --------------------------------------------------------------------------------------------
# Conservative backfilling
# --------------------------------------------------------------------------------------------


def free_steps(items, P, now):
    """Availability profile from ``now`` on, as a step function.

    ``items`` are ``(begin, finish, procs)`` occupying ``[begin, finish)``. Returns a list
    ``[(t0, f0), (t1, f1), ...]`` with ``t0 = now``, strictly increasing times, meaning
    "``f_k`` processors are free on ``[t_k, t_{k+1})``"; the last step lasts forever.
    """
    delta = defaultdict(int)  # time after now -> change of processors in use at that time
    in_use_now = 0
    for begin, finish, p in items:
        if finish <= now:
            continue  # over already (cannot happen for live items; kept for safety)
        if begin <= now:
            in_use_now += p
        else:
            delta[begin] += p
        delta[finish] -= p
    steps = [(now, P - in_use_now)]
    in_use = in_use_now
    for t in sorted(delta):
        in_use += delta[t]
        steps.append((t, P - in_use))
    return steps


def earliest_fit(items, P, now, p, length):
    """Earliest time t >= now such that at least ``p`` processors are free on
    ``[t, t + length)`` given ``items`` (see ``free_steps``).

    The free count is constant between breakpoints, so the earliest such t is a breakpoint
    (``now`` or the end of some item); every breakpoint is tried in increasing order.
    """
    steps = free_steps(items, P, now)
    for k, (t, free) in enumerate(steps):
        if free < p:
            continue
        finish = t + length
        fits = True
        for u, later_free in steps[k + 1 :]:
            if u >= finish:
                break
            if later_free < p:
                fits = False
                break
        if fits:
            return t
    raise AssertionError("unreachable: the last step has all P processors free")


def _simulate_conservative(submit, duration, req, procs, P):
    """Conservative backfilling, at one instant:

    (1) completions; (2) if a job completed strictly before its expected end (start + req),
    compression: each waiting job in index order is taken out and put back at its earliest
    feasible start >= now given everything else; (3) each job submitted now, in index order,
    gets a reservation at its earliest feasible start >= now; (4) every waiting job whose
    reservation == now starts.

    Why reservations are also wake-up instants: a reservation is always at ``now`` or at the
    *expected* end of something in the profile. After a compression that item may itself
    have moved earlier (a waiting job with a larger index re-placed after this one), or it
    may be a job that starts and then ends exactly on time earlier than planned, so no
    completion or submission need fall on the reserved time. Waking up at every
    reservation gives the same schedule whenever the reserved time is also a completion or
    submission instant, and otherwise lets the job start at its reservation as step (4) says
    (instead of never). See test ``test_cbf_reservation_between_events``.
    """
    n = len(submit)
    start = [None] * n
    end = [None] * n
    reservation = [None] * n  # current reservation of a waiting job
    reservation_at_submit = [None] * n
    waiting = []  # indices, index order
    running = []  # indices
    free = P  # processors actually idle now
    next_sub = 0

    def profile_items(exclude):
        """Everything in the profile except job ``exclude``: running jobs on
        [start, start + req) and waiting jobs' reservations on [res, res + req)."""
        items = [(start[j], start[j] + req[j], procs[j]) for j in running]
        items += [
            (reservation[j], reservation[j] + req[j], procs[j]) for j in waiting if j != exclude
        ]
        return items

    while next_sub < n or running or waiting:
        candidates = [end[j] for j in running] + [reservation[j] for j in waiting]
        if next_sub < n:
            candidates.append(submit[next_sub])
        now = min(candidates)
        assert all(reservation[j] >= now for j in waiting), "a reservation was missed"

        # (1) completions, in index order.
        early = False
        for j in sorted(running):
            if end[j] == now:
                running.remove(j)
                free += procs[j]
                if end[j] < start[j] + req[j]:
                    early = True

        # (2) compression.
        if early:
            for j in list(waiting):  # index order
                old = reservation[j]
                new = earliest_fit(profile_items(exclude=j), P, now, procs[j], req[j])
                assert new <= old, f"compression moved job {j} later ({old} -> {new})"
                reservation[j] = new

        # (3) submissions, in index order, each placed given everything already placed.
        while next_sub < n and submit[next_sub] == now:
            j = next_sub
            next_sub += 1
            reservation[j] = earliest_fit(profile_items(exclude=j), P, now, procs[j], req[j])
            reservation_at_submit[j] = reservation[j]
            waiting.append(j)

        # (4) start every waiting job whose reservation is now.
        for j in list(waiting):
            if reservation[j] == now:
                waiting.remove(j)
                running.append(j)
                start[j] = now
                end[j] = now + duration[j]
                free -= procs[j]
        assert free >= 0, "reservations over-committed the machine"

    return start, reservation_at_submit
