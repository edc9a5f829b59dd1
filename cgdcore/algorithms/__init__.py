"""The algorithm registry: one :class:`AlgorithmSpec` per algorithm, one :class:`Param` per option.

Read by ``discover`` (validation), the CLI (its flags), sweeps (labels and re-run commands) and the pages
(defaults, ranges, descriptions). See :mod:`cgdcore.algorithms.registry` for the declarations.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from cgdcore import UserError
from cgdcore.algorithms.registry import PAPER_DELTA, PARAMS, REGISTRY
from cgdcore.algorithms.spec import AlgorithmSpec, Param

__all__ = ["AlgorithmSpec", "Param", "PAPER_DELTA", "PARAMS", "REGISTRY",
           "get", "names", "check_options", "flag_of", "register"]


def register(spec: AlgorithmSpec, *params: Param) -> AlgorithmSpec:
    """Add an algorithm (and any new options it declares) to the registry: ``discover``, its option checks and the
    sweeps then know it. A private PC algorithm names its policy builder in ``spec.build``."""
    for p in params:
        if p.key in PARAMS and PARAMS[p.key] != p:
            raise ValueError(f"option {p.key!r} is already declared differently")
        PARAMS[p.key] = p
    missing = [k for k in spec.params if k not in PARAMS]
    if missing:
        raise ValueError(f"{spec.name}: undeclared option(s) {missing}")
    if spec.family == "private-pc" and spec.name not in REGISTRY and spec.build is None:
        raise ValueError(f"{spec.name}: a new private PC algorithm names its policy builder (spec.build)")
    REGISTRY[spec.name] = spec
    return spec


def names(*, family: str | None = None, budget: str | None = None) -> tuple[str, ...]:
    """Algorithm names in registry order, optionally of one family or budget kind."""
    return tuple(s.name for s in REGISTRY.values()
                 if (family is None or s.family == family) and (budget is None or s.budget == budget))


def get(algo: str) -> AlgorithmSpec:
    """The spec of ``algo``, or a message listing the available ones."""
    try:
        return REGISTRY[algo]
    except (KeyError, TypeError):
        raise UserError(f"unknown algorithm {algo!r}; available: {', '.join(REGISTRY)}.") from None


def flag_of(key: str) -> str | None:
    """The CLI flag of option ``key`` (None when it has none)."""
    p = PARAMS.get(key)
    return None if p is None else p.flag


def _where(key: str) -> str:
    users = [s.name for s in REGISTRY.values() if key in s.params]
    return ", ".join(users)


def check_options(algo: str, options: Mapping[str, Any] | None,
                  name: Callable[[Param], str] = lambda p: f"option '{p.key}'",
                  algo_name: Callable[[str], str] = str) -> dict[str, Any]:
    """``options`` of ``algo`` converted and checked against their declarations: each must be one the algorithm
    takes, of its kind, within its choices or interval. ``name``/``algo_name`` say how a message names an option
    and an algorithm (the CLI names its flags). Cross-option rules (c1 only with the paper statistic, ...) stay
    with the algorithm that knows them."""
    spec = get(algo)
    out: dict[str, Any] = {}
    for key, value in (options or {}).items():
        p = PARAMS.get(key)
        if p is None:
            raise UserError(f"unknown option {key!r} for {algo_name(algo)}; it takes "
                            f"{', '.join(spec.params) or 'no options'}.")
        if key not in spec.params:
            raise UserError(f"{name(p)} applies to {', '.join(algo_name(a) for a in _where(key).split(', '))}; "
                            f"{algo_name(algo)} does not take it.")
        out[key] = None if value is None else p.parse(value, name(p))
    return out
