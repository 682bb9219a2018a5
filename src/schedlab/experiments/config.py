"""One run of an experiment, fully described, and its stable identifier.

A run id is derived from the run's whole configuration (canonical JSON, SHA-256), so the
same configuration always gets the same id: that is what lets an interrupted or edited
sweep skip what is already done and run only what is new.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

RUN_ID_LENGTH = 16  # hex digits of the SHA-256 kept in a run id


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal configurations give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines the outcome of one simulation.

    ``workload``: an SWF path (as resolved by the sweep, relative paths against the sweep
    file's folder) or a model spec (``lublin:jobs=5000,procs=128``). ``seed`` seeds every
    random part of the run (a model's generator, random transforms); it is None for runs
    with nothing random, so that seeds do not multiply identical runs. ``transforms`` are
    applied in order before the load factor: ``(name, {arguments})`` pairs.

    **Grid runs** (Caron et al., LIP RR-2005-13; SPEC 5) have a ``platform``: a platform file
    (stored as the sweep wrote it, relative to the sweep file's folder) or a built-in one
    (``builtin:NAME``, `grid.platforms.BUILTIN_PLATFORMS`). Their ``policy`` is a
    meta-scheduler or dispatcher (`grid.registry`) and ``params`` its complete parameters;
    ``workload`` names the generator of the platform's own stream (``"grid"`` for that of
    Caron et al., ``"tdcs"`` for that of Baranov and Tikhomirov; `workload.streams`), whose
    settings (as written, without the seed) are ``generator``, or is an SWF trace replayed
    as ``stream`` ``"global"`` (every job to the meta-scheduler) or ``"local"`` (each job to
    its partition's site). ``seed`` seeds the stream and the meta-scheduler (None: 0); the
    load factor divides the submit times as for a cluster; ``procs`` and ``kill_on_overrun``
    do not apply (a pool always kills at its t_max). ``queue_policy`` (a policy and its
    complete parameters) puts every queue under one policy: the local managers of a TDCS run.
    The platform fields enter `to_dict`, and so the run id, only when set: a cluster run's id
    is what it was before they existed.

    **Runs on node types** (issue 24) have a ``cluster``: a cluster file of ``[[nodes]]``
    tables (`platform.cluster`), stored as the sweep wrote it, normalised, relative to the
    sweep file's folder (like trace paths). Its nodes are the machine (``procs`` is None):
    the workload is read, or a model generated, for its cores, and jobs are placed on its
    nodes under the node version of ``policy``. ``cluster`` enters `to_dict`, and so the run
    id, only when set, like the platform fields.
    """

    workload: str
    policy: str
    params: dict[str, Any] = field(default_factory=dict)
    load_factor: float = 1.0
    seed: int | None = None
    procs: int | None = None
    kill_on_overrun: bool = True
    transforms: tuple[tuple[str, dict[str, Any]], ...] = ()
    label: str | None = None  # the workload's short name in tables (default: derived)
    platform: str | None = None  # grid runs only (class docstring)
    stream: str | None = None  # grid trace replay: "global" or "local"
    generator: dict[str, Any] | None = None  # platform runs of the platform's own stream
    # platform runs whose queues all run one policy (the TDCS local managers): (name, params)
    queue_policy: tuple[str, dict[str, Any]] | None = None
    cluster: str | None = None  # runs on node types (class docstring)

    @property
    def is_grid(self) -> bool:
        """A run of a meta-scheduler on a platform (class docstring)."""
        return self.platform is not None

    @property
    def on_nodes(self) -> bool:
        """A run on a cluster of node types (class docstring)."""
        return self.cluster is not None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (also what the run id hashes, label excluded)."""
        out: dict[str, Any] = {
            "workload": self.workload,
            "policy": self.policy,
            "params": dict(sorted(self.params.items())),
            "load_factor": float(self.load_factor),
            "seed": self.seed,
            "procs": self.procs,
            "kill_on_overrun": bool(self.kill_on_overrun),
            "transforms": [[name, dict(sorted(args.items()))] for name, args in self.transforms],
        }
        # grid keys only when set, so that every cluster run keeps its id
        if self.platform is not None:
            out["platform"] = self.platform
        if self.stream is not None:
            out["stream"] = self.stream
        if self.generator is not None:
            out["generator"] = dict(sorted(self.generator.items()))
        if self.queue_policy is not None:
            name, params = self.queue_policy
            out["queue_policy"] = [name, dict(sorted(params.items()))]
        if self.cluster is not None:  # likewise: every run without one keeps its id
            out["cluster"] = self.cluster
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        return cls(
            workload=data["workload"],
            policy=data["policy"],
            params=dict(data.get("params", {})),
            load_factor=float(data.get("load_factor", 1.0)),
            seed=data.get("seed"),
            procs=data.get("procs"),
            kill_on_overrun=bool(data.get("kill_on_overrun", True)),
            transforms=tuple((name, dict(args)) for name, args in data.get("transforms", [])),
            label=data.get("label"),
            platform=data.get("platform"),
            stream=data.get("stream"),
            generator=None if data.get("generator") is None else dict(data["generator"]),
            queue_policy=_queue_policy(data.get("queue_policy")),
            cluster=data.get("cluster"),
        )

    @property
    def run_id(self) -> str:
        digest = hashlib.sha256(canonical_json(self.to_dict()).encode()).hexdigest()
        return digest[:RUN_ID_LENGTH]

    @property
    def workload_label(self) -> str:
        """Short name for tables: the label, else the file name without .swf(.gz)."""
        if self.label:
            return self.label
        if self.generator is not None:
            items = ",".join(f"{k}={v}" for k, v in sorted(self.generator.items()))
            return f"grid:{items}" if items else "grid"
        name = self.workload.rsplit("/", 1)[-1]
        for suffix in (".gz", ".swf"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
        return name


def _queue_policy(value: Any) -> tuple[str, dict[str, Any]] | None:
    if value is None:
        return None
    name, params = value
    return str(name), dict(params)
