"""Conservative backfilling (Mu'alem & Feitelson 2001), as SPEC section 4 states it.

Every job gets a reservation when it arrives: the earliest start in the availability
profile where it fits for its whole requested time. When a job ends before its requested
time, reservations are compressed: each waiting job, in arrival order, is taken out and put
back at its earliest start, so no job ever starts later than its first reservation.

Why compression is cheap: a job can only move earlier if, at some moment before its current
reservation, at least as many processors as it needs are free. The running maximum of free
processors over the profile answers that with one bisection, so the profile is searched only
for jobs that may move, and recomputed only after one did. Under overload (thousands
waiting, hundreds moving per early end) the C profile goes further: bounds of the runs of
free processors settle nearly every job with one lookup (only the run open at its start
can take it), and the others search on from where the previous job of their size stopped
(see ``_cprofile.c``). The reservations are an ``array('d')`` it reads and writes in place.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import ClassVar, cast

import numpy as np

from schedlab.engine.decisions import Decision, Start, WakeAt
from schedlab.engine.protocol import ClusterView
from schedlab.platform import Profile, split_due, warn_once_if_python_profile
from schedlab.schedulers.registry import ParamsPolicy, register_policy

_NAN = float("nan")
_INF = float("inf")


@dataclass(frozen=True)
class ConservativeParams:
    """``compress``: re-place reservations when a job ends early (True in SPEC 4)."""

    compress: bool = True


@register_policy
class ConservativeBackfilling(ParamsPolicy[ConservativeParams]):
    """Conservative backfilling: a reservation for every job, compressed on early ends."""

    name: ClassVar[str] = "conservative"
    preempts: ClassVar[bool] = False  # never suspends a job: sweeps rebuild its time series
    Params: ClassVar[type] = ConservativeParams

    def setup(self, view: ClusterView) -> None:
        self._view = view
        # references, never copies: inside a pool these lists grow as jobs arrive
        # (lists: the engine builds the view of lists, and the C profile reads them as such)
        self._req = cast(list[float], view.requested_time)
        self._procs = cast(list[int], view.procs)
        warn_once_if_python_profile()
        self.profile = Profile(view.total_procs, origin=view.submit_at[0] if view.jobs else 0.0)
        self._waiting: list[int] = []  # reserved, not started; arrival order
        self._arrivals: list[int] = []  # submitted this instant, not yet reserved
        # per-job state, one entry per submitted job (appended by on_submit)
        # current reservation (start): C doubles, which the C profile reads and writes in
        # place (a list would cost a Python float per read and per move)
        self.reserved_at: array[float] = array("d")
        self.first_reservation: list[float] = []  # reservation given at submission
        self._expected_end: list[float] = []  # of running jobs: start + requested time
        # a lower bound of the waiting jobs' reservations (inf: none waits; -inf: unknown)
        self._next_due = _INF
        self._ended_early = False
        self._wake_at = float("nan")  # last wake-up asked for

    def job_columns(self) -> dict[str, np.ndarray]:
        """Extra per-job column: the reservation each job got at submission (SPEC 4)."""
        return {"reservation_at": np.asarray(self.first_reservation, dtype=np.float64)}

    def on_submit(self, job: int) -> None:
        self.reserved_at.append(_NAN)
        self.first_reservation.append(_NAN)
        self._expected_end.append(0.0)
        self._arrivals.append(job)

    def on_finish(self, job: int) -> None:
        now = self._view.now
        end = self._expected_end[job]
        if now < end:
            self.profile.release(now, end, self._procs[job])
            self._ended_early = True

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        profile = self.profile
        profile.advance(now)
        if self._ended_early:
            self._ended_early = False
            if self.params.compress and self._waiting:
                self._compress(now)
        if self._arrivals:
            for j in self._arrivals:
                self._waiting.append(j)
                self._arrive(now, j)
            self._arrivals.clear()
        return self._start_due(now)

    def _arrive(self, now: float, j: int) -> None:
        """A new job gets its reservation (in arrival order, after every earlier one)."""
        self._place(now, j)
        self.first_reservation[j] = self.reserved_at[j]

    def _place(self, now: float, j: int) -> float:
        """Reserve job j at its earliest start and return it (and lower ``_next_due``)."""
        req = self._req[j]
        p = self._procs[j]
        start = self.profile.earliest_start(p, req, now)
        self.profile.reserve(start, start + req, p)
        self.reserved_at[j] = start
        if start < self._next_due:
            self._next_due = start
        return start

    def _compress(self, now: float) -> int:
        """Re-place every waiting job, in arrival order, at its earliest start (SPEC 4).

        Returns how many reservations moved (``benchmarks/bench_overload.py`` counts them:
        they bound from below the work of any compression that gives the same schedule).
        """
        moved = self.profile.compress(self._waiting, self.reserved_at, self._procs, self._req, now)
        if moved:
            self._next_due = -_INF  # jobs moved earlier: the next pass looks them over
        return len(moved)

    def _start_due(self, now: float) -> list[Decision]:
        """Start every job whose reservation is now; ask to be woken for the next one.

        A reservation may fall at the requested end of a job that in fact ended earlier,
        an instant with no event of its own: the WakeAt makes sure the pass happens.
        ``_next_due`` is a lower bound of the waiting jobs' reservations (exact after each
        `split_due`): until ``now`` reaches it nothing can be due, so most passes stop here.
        """
        out: list[Decision] = []
        if now >= self._next_due:
            reserved_at = self.reserved_at
            started, self._next_due = split_due(self._waiting, reserved_at, now)
            expected_end = self._expected_end
            req = self._req
            for j in started:  # (arrival order = job order, as the engine expects)
                out.append(Start(j))
                reserved_at[j] = _NAN
                expected_end[j] = now + req[j]
        nxt = self._next_due
        if nxt != self._wake_at and nxt != _INF:
            self._wake_at = nxt
            out.append(WakeAt(nxt))
        return out
