"""One door for every workload argument: an SWF path or a model spec string.

A model spec is ``NAME:key=value,key=value`` (e.g. ``lublin:jobs=10000,procs=256,seed=1``);
anything else is taken as a path to a ``.swf`` or ``.swf.gz`` file.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError, WorkloadError
from schedlab.workload.job import Workload


def _lublin(**kwargs: Any) -> Workload:
    from schedlab.workload.models.lublin import generate_lublin

    return generate_lublin(**kwargs)


# name -> (generator, required keys)
MODELS: dict[str, tuple[Callable[..., Workload], tuple[str, ...]]] = {
    "lublin": (_lublin, ("jobs", "procs")),
}


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
        except ValueError:
            pass
    return text


def is_model_spec(text: str) -> bool:
    """True when ``text`` names a registered model (``NAME:...`` or just ``NAME``)."""
    name = text.split(":", 1)[0]
    return name in MODELS and not Path(text).exists()


def parse_model_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"lublin:jobs=5,procs=8"`` -> ``("lublin", {"jobs": 5, "procs": 8})``."""
    name, _, rest = spec.partition(":")
    if name not in MODELS:
        raise ConfigError("workload model", name, sorted(MODELS))
    params: dict[str, Any] = {}
    allowed = _model_keys(name)
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not value.strip():
            raise ConfigError(f"{name} model spec item", item, "key=value")
        if key not in allowed:
            raise ConfigError(f"{name} model parameter", key, allowed)
        params[key] = parse_scalar(value.strip())
    missing = [k for k in MODELS[name][1] if k not in params]
    if missing:
        raise ConfigError(f"{name} model spec", spec, f"must set {', '.join(missing)}")
    return name, params


def load_workload(source: str | Path, *, max_procs: int | None = None) -> Workload:
    """Read an SWF file or generate a model workload; ``max_procs`` overrides P."""
    text = str(source)
    if isinstance(source, str) and is_model_spec(text):
        name, params = parse_model_spec(text)
        if max_procs is not None:
            params["procs"] = max_procs
        return MODELS[name][0](**params)
    from schedlab.workload.swf import read_swf

    path = Path(text)
    if not path.exists():
        raise WorkloadError(
            text,
            "no such file (a workload is an .swf/.swf.gz path or a model spec such as "
            "'lublin:jobs=10000,procs=256,seed=1')",
        )
    return read_swf(path, max_procs=max_procs)
