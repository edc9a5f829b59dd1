"""The one PC engine: skeleton search and orientation, with a pluggable CI-decision policy.

Spirtes, Glymour & Scheines (2000) PC; the "stable" skeleton of Colombo & Maathuis
(2014); conservative orientation of Ramsey, Zhang & Spirtes (2006); majority rule of
Colombo & Maathuis (2014); the "union" rule of causal-learn's stable PC (every separating set at the removal
depth); Meek (1995) rules R1–R4. The loop follows pcalg's
``skeleton()``: ordered pairs in lexicographic order, conditioning sets drawn from
adj(x) \\ {y} in lexicographic order, first separating set kept.

Every decision "x ⟂ y | S ?" is delegated to a *policy* object (see :class:`CIPolicy`).
Private variants (Laplace, SVT, sieve-and-examine, CURATE ...) are policies; the loop
is never copied.

Layout: :mod:`cgdcore.pc.policy` (what a policy answers), :mod:`cgdcore.pc.skeleton` (the skeleton loop),
:mod:`cgdcore.pc.orient` (colliders and Meek's rules); :func:`pc` runs both and returns a :class:`Result`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from cgdcore import UserError
from cgdcore.pc.orient import ORIENTATION_RULES, orient
from cgdcore.pc.policy import CIPolicy, Decision, OraclePolicy, Policy, PValuePolicy, TestRecord
from cgdcore.pc.skeleton import SKELETON_VARIANTS, max_ci_queries, skeleton_search

__all__ = ["CIPolicy", "Decision", "ORIENTATION_RULES", "OraclePolicy", "PValuePolicy", "Policy", "Result",
           "SKELETON_VARIANTS", "TestRecord", "max_ci_queries", "orient", "pc", "skeleton_search"]


@dataclass(frozen=True, eq=False)
class Result:
    """What one PC run produced. Frozen; arrays are read-only.

    cpdag: (d, d) bool, ``cpdag[i, j] and not cpdag[j, i]`` is i -> j, both is i - j.
    sepsets: {(i, j): S} for i < j, the separating set that removed the edge.
    trace: every CI query in the order it was asked.
    tests_per_order: number of skeleton CI queries at each conditioning-set size.
    """

    variables: tuple[str, ...]
    cpdag: np.ndarray
    skeleton: np.ndarray
    sepsets: Mapping[tuple[int, int], tuple[int, ...]]
    trace: tuple[TestRecord, ...]
    tests_per_order: tuple[int, ...]
    seconds: float
    params: Mapping[str, Any]
    stopped_early: bool = False
    stop_reason: str | None = None
    ambiguous_triples: tuple[tuple[int, int, int], ...] = ()
    orientation_conflicts: int = 0
    extras: Mapping[str, Any] = field(default_factory=dict)

    n_ci_tests: int = 0


def _check_params(d, variant, orientation, max_order):
    if variant not in SKELETON_VARIANTS:
        raise UserError(f"unknown skeleton variant {variant!r}; choose one of {', '.join(SKELETON_VARIANTS)}.")
    if orientation not in ORIENTATION_RULES:
        raise UserError(
            f"unknown orientation rule {orientation!r}; choose one of {', '.join(ORIENTATION_RULES)}."
        )
    if orientation == "union" and variant != "stable":
        raise UserError("the union collider rule reads the separating sets of the stable skeleton search; "
                        "use --variant stable or another collider rule.")
    if max_order is not None:
        if int(max_order) != max_order or max_order < 0:
            raise UserError(f"maximum order must be a whole number ≥ 0 (got {max_order}).")
    if d < 2:
        raise UserError("causal discovery needs at least two variables.")


def pc(
    policy: CIPolicy,
    variables: Sequence[str],
    *,
    variant: str = "stable",
    orientation: str = "standard",
    max_order: int | None = None,
    skip_repeated: bool = True,
    record_trace: bool = True,
    progress=None,
    params: Mapping[str, Any] | None = None,
) -> Result:
    """Run PC with the given CI-decision policy and return a frozen :class:`Result`."""
    variables = tuple(str(v) for v in variables)
    d = len(variables)
    _check_params(d, variant, orientation, max_order)
    t0 = time.perf_counter()
    levels = [] if orientation == "union" else None
    adj, sepsets, trace, per_order, stopped, reason = skeleton_search(
        d, policy, variant=variant, max_order=max_order, skip_repeated=skip_repeated,
        record_trace=record_trace, progress=progress, levels=levels,
    )
    best = policy.best_sepset  # a batched policy may prefer another separating set
    if best is not None:
        sepsets = {k: tuple(best(k[0], k[1], S)) for k, S in sepsets.items()}
    n_orient_before = len(trace)
    cpdag, ambiguous, conflicts = orient(adj, sepsets, rule=orientation, policy=policy, trace=trace, levels=levels)
    seconds = time.perf_counter() - t0
    for arr in (cpdag, adj):
        arr.setflags(write=False)
    all_params = {"variant": variant, "orientation": orientation, "max_order": max_order}
    all_params.update(params or {})
    return Result(
        variables=variables,
        cpdag=cpdag,
        skeleton=adj,
        sepsets=dict(sepsets),
        trace=tuple(trace),
        tests_per_order=tuple(per_order),
        seconds=seconds,
        params=all_params,
        stopped_early=stopped,
        stop_reason=reason,
        ambiguous_triples=ambiguous,
        orientation_conflicts=conflicts,
        n_ci_tests=sum(per_order) + len(trace) - n_orient_before,
    )
