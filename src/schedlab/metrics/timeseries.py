"""Observers that record time series during a run: they read the state, never steer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from schedlab.engine.fastpath import Simulator


class TimeSeriesObserver:
    """Queue length and busy processors after every instant (a step function of time)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.queued: list[int] = []
        self.busy: list[int] = []
        self.running: list[int] = []

    def after_step(self, now: float, sim: Simulator) -> None:
        self.times.append(now)
        self.running.append(sim.running)
        self.queued.append(sim.submitted - sim.running - sim.done)
        self.busy.append(sim.total_procs - sim.free_procs)

    def finish(self, sim: Simulator) -> None:
        pass

    def columns(self) -> dict[str, np.ndarray]:
        """Columns time, queued (jobs waiting or suspended), running, busy_procs."""
        return {
            "time": np.asarray(self.times, dtype=np.float64),
            "queued": np.asarray(self.queued, dtype=np.int64),
            "running": np.asarray(self.running, dtype=np.int64),
            "busy_procs": np.asarray(self.busy, dtype=np.int64),
        }

    def frame(self) -> pd.DataFrame:
        """The same columns as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.columns())
