"""One door for every workload argument: a trace or log path, or a model spec string.

A model spec is ``NAME:key=value,key=value`` (e.g. ``lublin:jobs=10000,procs=256,seed=1``);
anything else names a file: an ``.swf``/``.swf.gz`` trace, or a Slurm ``sacct``, PBS
accounting or CSV log, told by a prefix (``slurm:PATH``, ``pbs:PATH``, ``csv:PATH``,
``csv:PATH?KEY=COLUMN,...``, ``swf:PATH``) or by the content (`workload.importers`).

`load_workload` tells the user (on stderr, `schedlab.notes`, silenced by ``--quiet``) what
they should know about what it read: a machine size inferred from a log, and a trace
whose jobs come from several partitions, which a single-cluster command simulates as one
machine (`workload.partitions`; said once per trace and process).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError, WorkloadError
from schedlab.workload.job import Workload
from schedlab.workload.models.hlw import check_hlw_params, generate_hlw
from schedlab.workload.models.mmc import check_mmc_params, generate_mmc


def _lublin(**kwargs: Any) -> Workload:
    from schedlab.workload.models.lublin import generate_lublin

    return generate_lublin(**kwargs)


def _check_lublin(**kwargs: Any) -> None:
    from schedlab.workload.models.lublin import check_lublin_params

    check_lublin_params(**kwargs)


# name -> (generator, required keys)
MODELS: dict[str, tuple[Callable[..., Workload], tuple[str, ...]]] = {
    "lublin": (_lublin, ("jobs", "procs")),
    "mmc": (generate_mmc, ("servers", "load", "jobs")),
    "hlw": (generate_hlw, ("n", "nodes")),
}
# name -> the model's parameter check (raises ConfigError without generating anything);
# a model without one is checked when it generates.
_CHECKS: dict[str, Callable[..., None]] = {
    "lublin": _check_lublin,
    "hlw": check_hlw_params,
    "mmc": check_mmc_params,
}
# name -> how a spec is written (default: its keys), and what each required key means
_USAGE: dict[str, str] = {
    "lublin": (
        "lublin:jobs=N,procs=N[,seed=N][,load=X][,kind=batch|interactive|mixed|all]"
        "[,start_time=SECONDS]"
    ),
    "mmc": "mmc:servers=C,load=RHO,jobs=N[,seed=N][,service=SECONDS][,max_jobs=N]",
    "hlw": (
        "hlw:n=N,nodes=N[,pi=X][,seed=N][,w1=SECONDS][,w2=SECONDS][,p=X][,opt_min=N][,opt_max=N]"
        "[,max_tasks=N]"
    ),
}
# name -> the parameter that sets the machine size (what --procs overrides)
SIZE_KEYS: dict[str, str] = {"lublin": "procs", "mmc": "servers", "hlw": "nodes"}
_REQUIRED_MEANING: dict[str, str] = {
    "jobs": "the number of jobs to generate",
    "procs": "the machine size",
    "servers": "the number of servers (processors)",
    "load": "the load per server, rho",
    "n": "the number of top tasks tau0 (independent chains)",
    "nodes": "the number of nodes N (the machine size)",
}


def _usage(name: str) -> str:
    """How a spec of model ``name`` is written."""
    if name in _USAGE:
        return _USAGE[name]
    return f"{name}:" + ",".join(f"{k}=..." for k in _model_keys(name))


def _model_keys(name: str) -> list[str]:
    if name == "lublin":
        from schedlab.workload.models.lublin import generate_lublin

        fn: Callable[..., Any] = generate_lublin
    else:
        fn = MODELS[name][0]
    return [p for p in inspect.signature(fn).parameters if p not in ("self",)]


def parse_scalar(text: str) -> Any:
    """``"3"`` -> 3, ``"0.5"`` -> 0.5, ``"true"``/``"false"`` -> bool, anything else as is."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:  # (also int() of more than 4300 digits: then it is a float)
            pass
    return text


def _exists(path: Path) -> bool:
    """Path.exists that answers False for names the OS refuses (too long, NUL byte)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def is_model_spec(text: str) -> bool:
    """True when ``text`` names a registered model (``NAME:...`` or just ``NAME``)."""
    name = text.split(":", 1)[0]
    return name in MODELS and not _exists(Path(text))


def _split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Name and parameters of ``spec``, checked for syntax and known keys only."""
    name, _, rest = spec.partition(":")
    if name not in MODELS:
        raise ConfigError("workload model", name, sorted(MODELS))
    params: dict[str, Any] = {}
    allowed = _model_keys(name)
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not value.strip():
            raise ConfigError(f"{name} model spec item", item, f"key=value, as in {_usage(name)}")
        if key not in allowed:
            raise ConfigError(f"{name} model parameter", key, allowed)
        if key in params:
            raise ConfigError(f"{name} model parameter", key, "each parameter once")
        params[key] = parse_scalar(value.strip())
    return name, params


def _check_required(name: str, spec: str, params: dict[str, Any]) -> None:
    missing = [k for k in MODELS[name][1] if k not in params]
    if missing:
        hints = "; ".join(f"{k}=N: {_REQUIRED_MEANING.get(k, 'required')}" for k in missing)
        raise ConfigError(f"{name} model spec", spec, f"{_usage(name)} (missing {hints})")


def parse_model_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"lublin:jobs=5,procs=8"`` -> ``("lublin", {"jobs": 5, "procs": 8})``.

    Checks the syntax, the keys (each once, the required ones present) and the values (the
    model's ranges, e.g. lublin's jobs and procs), so a bad spec fails here, not later.
    """
    name, params = _split_spec(spec)
    _check_required(name, spec, params)
    check = _CHECKS.get(name)
    if check is not None:
        check(**params)
    return name, params


def load_workload(
    source: str | Path,
    *,
    max_procs: int | None = None,
    columns: Mapping[str, str] | None = None,
    note_partitions: bool = True,
) -> Workload:
    """Read a trace or log, or generate a model workload; ``max_procs`` overrides P.

    For a model spec ``max_procs`` replaces its machine size (``procs``, for mmc
    ``servers``, for hlw ``nodes``), which may then be left out. ``columns`` names the
    columns of a CSV log (``--columns``, `importers.csvlog`). ``note_partitions=False``
    leaves out the note on several partitions (for a caller that shows them itself).
    """
    text = str(source)
    if isinstance(source, str) and is_model_spec(text):
        if columns:
            raise ConfigError("--columns", dict(columns), "only for a CSV log, not a model")
        name, params = _split_spec(text)
        if max_procs is not None:
            params[SIZE_KEYS[name]] = max_procs
        _check_required(name, text, params)
        return MODELS[name][0](**params)
    from schedlab.notes import note
    from schedlab.workload.importers import log_format, parse_source, read_trace

    src = parse_source(text)
    if not _exists(Path(src.path)):
        raise WorkloadError(
            text,
            "no such file (a workload is an .swf/.swf.gz path, a Slurm, PBS or CSV log "
            "(slurm:PATH, pbs:PATH, csv:PATH) or a model spec such as "
            "'lublin:jobs=10000,procs=256,seed=1')",
        )
    workload = read_trace(text, max_procs=max_procs, columns=columns, on_note=note)
    if note_partitions:
        _note_partitions(workload, text, is_swf=log_format(text) == "swf")
    return workload


# Traces whose partitions were already told of in this process (say it once).
_TOLD_PARTITIONS: set[str] = set()


def _note_partitions(workload: Workload, source: str, *, is_swf: bool) -> None:
    """Tell once that a trace of several partitions is simulated as one machine."""
    from schedlab.notes import note
    from schedlab.workload.partitions import several_partitions_note

    if source in _TOLD_PARTITIONS:
        return
    text = several_partitions_note(workload, source, is_swf=is_swf)
    if text is not None:
        _TOLD_PARTITIONS.add(source)
        note(text)
