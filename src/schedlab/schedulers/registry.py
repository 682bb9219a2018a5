"""Policy names -> classes, for the API, the CLI and experiment files.

Built-in policies register themselves on import; third parties declare an entry point in the
group ``schedlab.policies`` whose object is a policy class (with ``name`` and ``Params``).
The machinery is the generic `schedlab.registry`; the names here are the policy API that
policies, plug-ins and tests import.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from schedlab.engine.protocol import Policy
from schedlab.registry import Registry, check_param, make_params, param_types

__all__ = [
    "POLICIES",
    "ParamsPolicy",
    "available_policies",
    "check_param",
    "make_params",
    "make_policy",
    "param_types",
    "policy_class",
    "register_policy",
]

POLICIES = Registry("policy", "schedlab.policies")


# the policy API that policies, plug-ins and tests import (see `Registry` for each)
register_policy = POLICIES.register  # class decorator: available under ``cls.name``
available_policies = POLICIES.available  # every name, sorted
policy_class = POLICIES.get  # the class of a name; ConfigError listing the names otherwise


P = TypeVar("P")


class ParamsPolicy(Generic[P]):
    """A policy built from its ``Params`` dataclass: ``cls(params)`` (the registry's way) or
    ``cls()`` for the defaults; a subclass that only changes ``Params`` changes the defaults."""

    Params: ClassVar[type]

    def __init__(self, params: P | None = None) -> None:
        self.params: P = params or self.Params()


def make_policy(name: str, **params: Any) -> Policy:
    """A fresh policy instance, configured by keyword parameters."""
    policy: Policy = POLICIES.make(name, **params)
    return policy
