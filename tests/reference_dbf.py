"""Slow, plain reference for DBF (deadline-aware conservative backfilling), the tests' oracle.

Written from SPEC.md sections 1 and 4 (CBF and DBF bullets), Algorithm 1 of paper 000
(N'Takpe & Suter, ComPAS 2016, section 3) and the decisions stated in the module docstring
of ``schedlab.schedulers.dbf`` -- not from its code. Plain lists and loops; the availability
profile is rebuilt from scratch from the list of reservations every time it is needed
(``earliest_fit`` of ``tests/reference.py``). Speed is not a goal.

Model:

* Jobs are parallel lists indexed 0..n-1, sorted by (submit time, trace position). "Submit
  order" and "arrival order" are index order: jobs of one instant arrive one by one.
* ``deadline_at[j]`` is the absolute deadline of a non-priority job, ``None`` for a priority
  job. A job meets its deadline when its reservation + its requested time <= the deadline.
* A waiting job has a reservation, either *definitive* (priority list) or *provisional*
  (non-priority list). A running job occupies its processors on [start, start + req).
* At one instant: (1) completions, in index order; (2) if some job completed strictly before
  start + req, compression: every waiting job, definitive or provisional, in index order, is
  taken out and put back at its earliest start >= now given everything else (it never moves
  later); (3) submissions one by one in index order (below); (4) every waiting job whose
  reservation is now starts. The next instant is the earliest completion, submission or
  reservation (reservations are wake-ups, as in the conservative reference).
* A non-priority job arriving is placed at its earliest fit given every running job and
  every reservation (definitive or provisional). If it ends after its deadline there, it is
  *promoted*: from then on it is a priority job, and it is placed as a priority job arriving
  (Algorithm 1, below) -- its class is ``"promoted"``.
* A priority job T_p arriving (Algorithm 1 with the project's decisions):

  1. cancel every provisional reservation; ``base`` = running jobs + definitive
     reservations;
  2. L_TMP by the literal test: T_p at its earliest fit in ``base``, then every
     non-priority job in index order at its earliest fit after it (each in the profile of
     ``base`` + T_p + the jobs placed before it in this trial); those ending after their
     deadline form L_TMP and leave the non-priority list;
  3. place L_TMP alone in index order (``base`` + the L_TMP jobs placed before);
  4-6. if a job of L_TMP misses its deadline, every non-priority job with an index below the
     latest (highest index) such job joins L_TMP and L_TMP is placed again the same way; if
     a job still misses its deadline, L_TMP takes back the provisional reservations it had
     before step 1 (they fit together and each met its deadline);
  8. place T_p after L_TMP;
  10. place the remaining non-priority jobs again in index order after all that. If some of
     them end after their deadline, all those join L_TMP and steps 3-10 are done again
     (each round moves at least one job, so this ends);
  9. finally L_TMP becomes definitive (class ``"migrated"``), T_p gets its definitive
     reservation, the remaining non-priority jobs get their new provisional reservations.

Outputs per job: ``start``, ``end``, ``killed``, ``definitive_at`` (the reservation given
when the job became definitive: priority and promoted jobs at their arrival, migrated jobs
when Algorithm 1 migrated them; NaN for jobs that started while still non-priority) and
``job_class`` (``"priority"``, ``"promoted"``, ``"non_priority"``, ``"migrated"``).
"""

from __future__ import annotations

import math

from reference import earliest_fit

CLASSES = ("priority", "promoted", "non_priority", "migrated")


def reference_dbf(
    submit: list[float],
    run: list[float],
    req: list[float],
    procs: list[int],
    P: int,
    deadline_at: list[float | None],
    kill_on_overrun: bool = True,
) -> dict[str, list]:
    """Simulate DBF on one cluster of ``P`` processors (see the module docstring)."""
    n = len(submit)
    if not (len(run) == len(req) == len(procs) == len(deadline_at) == n):
        raise ValueError("submit, run, req, procs and deadline_at must have the same length")
    for j in range(n):
        if j and submit[j] < submit[j - 1]:
            raise ValueError(f"jobs must be sorted by submit time (job {j})")
        if not 1 <= procs[j] <= P:
            raise ValueError(f"job {j}: procs {procs[j]} not in 1..{P}")
        if not run[j] > 0 or not req[j] > 0:
            raise ValueError(f"job {j}: run and req must be > 0")
        if not kill_on_overrun and req[j] < run[j]:
            raise ValueError(f"job {j}: with kill_on_overrun=False req must be >= run")
        if deadline_at[j] is not None and math.isnan(deadline_at[j]):
            raise ValueError(f"job {j}: a priority job has deadline None, not NaN")

    duration = [min(run[j], req[j]) for j in range(n)]
    killed = [kill_on_overrun and run[j] > req[j] for j in range(n)]

    start: list = [None] * n
    job_class: list = [None] * n
    definitive_at: list = [math.nan] * n
    reservation: dict[int, float] = {}  # waiting job -> its current reservation
    definitive: set[int] = set()  # waiting jobs in the priority list
    running: list[int] = []

    def item(j: int, at: float) -> tuple[float, float, int]:
        return (at, at + req[j], procs[j])

    def running_items() -> list[tuple[float, float, int]]:
        return [item(j, start[j]) for j in running]

    def all_items(exclude: int | None = None) -> list[tuple[float, float, int]]:
        items = running_items()
        for j in sorted(reservation):
            if j != exclude:
                items.append(item(j, reservation[j]))
        return items

    def meets(j: int, at: float) -> bool:
        return at + req[j] <= deadline_at[j]

    def place_in_order(items, jobs, now):
        """Place ``jobs`` one by one in index order after ``items`` (extended in place)."""
        placed = {}
        for j in sorted(jobs):
            at = earliest_fit(items, P, now, procs[j], req[j])
            placed[j] = at
            items.append(item(j, at))
        return placed

    def algorithm1(tp: int, now: float) -> None:
        # (1) cancel every provisional reservation.
        non_priority = sorted(j for j in reservation if j not in definitive)
        before = {j: reservation[j] for j in non_priority}
        for j in non_priority:
            del reservation[j]
        base = all_items()  # running jobs + definitive reservations

        # (2) literal test: T_p first, then the non-priority jobs after it.
        trial = list(base)
        at = earliest_fit(trial, P, now, procs[tp], req[tp])
        trial.append(item(tp, at))
        placed = place_in_order(trial, non_priority, now)
        ltmp = [j for j in non_priority if not meets(j, placed[j])]
        rest = [j for j in non_priority if j not in ltmp]

        while True:
            # (3) L_TMP alone, in submit order.
            items = list(base)
            ltmp_at = place_in_order(items, ltmp, now)
            missing = [j for j in ltmp if not meets(j, ltmp_at[j])]
            if missing:
                # (4-6) every non-priority job submitted before the latest one joins.
                latest = max(missing)
                ltmp = sorted(ltmp + [j for j in rest if j < latest])
                rest = [j for j in rest if j > latest]
                items = list(base)
                ltmp_at = place_in_order(items, ltmp, now)
                if any(not meets(j, ltmp_at[j]) for j in ltmp):
                    # strict deadlines: keep the provisional reservations they had.
                    ltmp_at = {j: before[j] for j in ltmp}
                    items = list(base) + [item(j, ltmp_at[j]) for j in ltmp]
            # (8) T_p.
            tp_at = earliest_fit(items, P, now, procs[tp], req[tp])
            items.append(item(tp, tp_at))
            # (10) the other non-priority jobs again, in submit order.
            rest_at = place_in_order(items, rest, now)
            late = [j for j in rest if not meets(j, rest_at[j])]
            if not late:
                break
            ltmp = sorted(ltmp + late)
            rest = [j for j in rest if j not in late]

        # (9) L_TMP becomes definitive; T_p definitive; the rest provisional.
        for j in ltmp:
            reservation[j] = ltmp_at[j]
            definitive.add(j)
            definitive_at[j] = ltmp_at[j]
            job_class[j] = "migrated"
        reservation[tp] = tp_at
        definitive.add(tp)
        definitive_at[tp] = tp_at
        for j in rest:
            reservation[j] = rest_at[j]

    next_sub = 0
    while next_sub < n or running or reservation:
        candidates = [start[j] + duration[j] for j in running] + list(reservation.values())
        if next_sub < n:
            candidates.append(submit[next_sub])
        now = min(candidates)
        assert all(at >= now for at in reservation.values()), "a reservation was missed"

        # (1) completions, in index order.
        early = False
        for j in sorted(running):
            if start[j] + duration[j] == now:
                running.remove(j)
                if now < start[j] + req[j]:
                    early = True

        # (2) compression: every waiting job, in index order.
        if early:
            for j in sorted(reservation):
                old = reservation[j]
                new = earliest_fit(all_items(exclude=j), P, now, procs[j], req[j])
                assert new <= old, f"compression moved job {j} later ({old} -> {new})"
                reservation[j] = new

        # (3) submissions, one by one in index order.
        while next_sub < n and submit[next_sub] == now:
            j = next_sub
            next_sub += 1
            if deadline_at[j] is None:
                job_class[j] = "priority"
                algorithm1(j, now)
                continue
            at = earliest_fit(all_items(), P, now, procs[j], req[j])
            if meets(j, at):
                job_class[j] = "non_priority"
                reservation[j] = at
            else:
                job_class[j] = "promoted"
                algorithm1(j, now)

        # (4) every waiting job whose reservation is now starts.
        for j in sorted(reservation):
            if reservation[j] == now:
                del reservation[j]
                definitive.discard(j)
                running.append(j)
                start[j] = now
        in_use = sum(procs[j] for j in running)
        assert in_use <= P, f"{in_use} processors in use at {now} > {P}"

    end = [start[j] + duration[j] for j in range(n)]
    return {
        "start": start,
        "end": end,
        "killed": killed,
        "definitive_at": definitive_at,
        "job_class": job_class,
    }
