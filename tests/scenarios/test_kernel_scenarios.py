"""Hand-computed scenarios of the general kernel: ``kernel/NAME.toml`` against
``kernel/NAME.expected.csv`` (issue 9: one per new mechanism).

A scenario file describes pools (node groups, policy, t_max, mu_rec, mu_env, placement),
jobs (submit, run time at their size on power 1, requested time, size, optional parent and
think time, optional Amdahl fraction ``pi``, and where they go: a pool or the actor) and an
optional scripted actor. Its comments hold the reasoning by which the expected times were
worked out by hand. The expected CSV has ``job,started_at,finished_at,killed,procs,pool,
node_power``; every run has the kernel's invariant checker on.

The scripted pieces: the actor returns, at each time of its script, the decisions written
there, and asks to be woken at those times; a pool with ``policy = "scripted"`` starts its
waiting jobs in arrival order while they fit (at their own size) and adds the decisions of
its script at their times.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
import pytest

from schedlab.engine.actors import JobEvent, PlatformView
from schedlab.engine.checker import KernelChecker
from schedlab.engine.decisions import (
    ActorDecision,
    Decision,
    Dispatch,
    End,
    Evict,
    RunIn,
    Send,
    Spawn,
    Start,
    WakeAt,
)
from schedlab.engine.durations import RIGID, Amdahl
from schedlab.engine.kernel import JobSpecs, Kernel
from schedlab.engine.protocol import ClusterView
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).parent / "kernel"
SCENARIOS = sorted(HERE.glob("*.toml"))
COLUMNS = ["job", "started_at", "finished_at", "killed", "procs", "pool", "node_power"]


class ScriptedActor:
    """Decisions at given times (module docstring); keeps the events it was told of."""

    name: ClassVar[str] = "scripted"

    def __init__(self, script: dict[float, list[list[Any]]], pools: dict[str, int]) -> None:
        self.script = script
        self.pools = pools
        self.events: list[tuple[float, int, str]] = []
        self.messages: list[tuple[float, object]] = []
        self.platform: PlatformView | None = None
        self._woken = False

    def setup(self, index: int, platform: PlatformView) -> None:
        self.platform = platform

    def on_arrival(self, job: int) -> None:
        self.events.append((self._now(), job, "arrival"))

    def on_message(self, message: object) -> None:
        self.messages.append((self._now(), message))

    def on_job_event(self, job: int, event: JobEvent) -> None:
        self.events.append((self._now(), job, event.name.lower()))

    def _now(self) -> float:
        assert self.platform is not None
        return self.platform.now

    def schedule(self, now: float) -> list[ActorDecision]:
        out: list[ActorDecision] = []
        if not self._woken:
            self._woken = True
            out += [WakeAt(t) for t in self.script if t > now]
        for kind, *args in self.script.pop(now, []):
            if kind == "dispatch":
                out.append(Dispatch(args[0], self.pools[args[1]], float(args[2])))
            elif kind == "spawn":
                out.append(Spawn(self.pools[args[0]], int(args[1]), float(args[2]), float(args[3])))
            elif kind == "run_in":
                out.append(RunIn(args[0], args[1]))
            elif kind == "end":
                out.append(End(args[0]))
            elif kind == "send":
                out.append(Send(0, args[0], float(args[1])))
            else:
                raise ValueError(f"unknown scripted actor decision {kind!r}")
        return out


class ScriptedPolicy:
    """Starts waiting jobs in arrival order while they fit, plus scripted decisions."""

    name: ClassVar[str] = "scripted"

    def __init__(self, script: dict[float, list[list[Any]]]) -> None:
        self.script = script
        self.waiting: list[int] = []
        self.view: ClusterView | None = None

    def setup(self, view: ClusterView) -> None:
        self.view = view

    def on_submit(self, job: int) -> None:
        self.waiting.append(job)

    def on_finish(self, job: int) -> None:
        pass

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        out: list[Decision] = []
        free = view.free_procs
        for kind, *args in self.script.pop(now, []):
            if kind == "evict":
                out.append(Evict(args[0]))
                if args[0] in self.waiting:
                    self.waiting.remove(args[0])
            elif kind == "start":
                out.append(Start(args[0], int(args[1])))
                free -= int(args[1])
                self.waiting.remove(args[0])
            elif kind == "wake":
                out.append(WakeAt(float(args[0])))
            else:
                raise ValueError(f"unknown scripted policy decision {kind!r}")
        rest = []
        for j in self.waiting:
            if view.procs[j] <= free:
                free -= view.procs[j]
                out.append(Start(j))
            else:
                rest.append(j)
        self.waiting = rest
        return out


def _script(raw: dict[str, Any] | None) -> dict[float, list[list[Any]]]:
    return {float(t): list(v) for t, v in (raw or {}).items()}


def run_scenario(path: Path) -> tuple[pd.DataFrame, ScriptedActor | None]:
    data = tomllib.loads(path.read_text())
    pools = []
    names = {}
    for i, entry in enumerate(data["pools"]):
        names[entry["name"]] = i
        if entry.get("policy", "fcfs") == "scripted":
            policy: Any = ScriptedPolicy(_script(entry.get("script")))
        else:
            policy = make_policy(entry.get("policy", "fcfs"))
        spec = PoolSpec(
            name=entry["name"],
            groups=tuple((float(p), int(c)) for p, c in entry["groups"]),
            policy=policy,
            t_max=float(entry.get("t_max", math.inf)),
            mu_rec=float(entry.get("mu_rec", 0.0)),
            mu_env=float(entry.get("mu_env", 0.0)),
            placement=entry.get("placement", "fastest"),
        )
        pools.append((spec, policy))
    jobs = data["jobs"]
    specs = JobSpecs.rigid(
        submit_at=[j["submit"] for j in jobs],
        run_time=[j["run"] for j in jobs],
        requested_time=[j.get("requested", j["run"]) for j in jobs],
        procs=[j["procs"] for j in jobs],
        parent=[j.get("parent", -1) for j in jobs],
        think=[j.get("think", 0.0) for j in jobs],
        speedup=[Amdahl(j["pi"]) if "pi" in j else RIGID for j in jobs],
    )
    specs.target_actor = [0 if j.get("to") == "actor" else -1 for j in jobs]
    specs.target_pool = [names.get(j.get("to", ""), 0) for j in jobs]
    actor = None
    actors = []
    if "actor" in data:
        actor = ScriptedActor(_script(data["actor"].get("script")), names)
        actors.append(actor)
    checker = KernelChecker()
    kernel = Kernel(
        jobs=specs,
        pools=pools,
        actors=actors,
        kill_on_overrun=data.get("kill_on_overrun", True),
        tracer=checker,
    )
    run = kernel.run()
    checker.audit(kernel)
    frame = pd.DataFrame(
        {
            "job": range(len(run.started_at)),
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "killed": run.killed,
            "procs": run.alloc_procs,
            "pool": [run.pool_names[p] if p >= 0 else "" for p in run.pool],
            "node_power": run.node_power,
        }
    )
    return frame, actor


def test_there_is_a_scenario_for_every_new_mechanism() -> None:
    names = {s.stem for s in SCENARIOS}
    assert {
        "amdahl_durations",
        "delivery_delay",
        "end_open_ended_pilot",
        "evict_and_redispatch",
        "mu_env_holds_nodes",
        "t_max_kill",
        "placement_mixed_powers",
    } <= names, names


@pytest.mark.parametrize("path", SCENARIOS, ids=[s.stem for s in SCENARIOS])
def test_kernel_scenario(path: Path) -> None:
    got, _ = run_scenario(path)
    expected = pd.read_csv(path.with_suffix(".expected.csv"), keep_default_na=False)
    assert list(expected.columns) == COLUMNS
    got = got[COLUMNS].reset_index(drop=True)
    expected["killed"] = expected["killed"].astype(bool)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, check_exact=True)
