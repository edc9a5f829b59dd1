"""CURATE's per-iteration budget schedules (Bhattacharjee & Tandon 2024, §III-B, Lemma 2).

For iteration i of I with initial budget ε0 (seed_curate.md §3.3):
* additive        ε_i = ε0 (1 + i/I)
* exponential     ε_i = ε0 e^{i/I}
* multiplicative  ε_i = ε0^{1 + i/I}   — *decreases* when ε0 < 1 (ambiguity 13: implemented as
  written and shown, since the paper motivates it as giving later iterations more budget)
* geometric       ε_i = ε0 r^i with r > 1 — a truly increasing schedule, our addition.

Lemma 2 gives I from (ε_Total, ε0) under basic composition. The exponential count is the paper's
conservative bound and the additive/multiplicative ones are solved in closed form; we floor I
and then *check* the schedule's actual sum against ε_Total, shrinking I until it fits
(ambiguity 14: Σ_k ε_k ≤ ε_Total is enforced, never assumed).
"""
from __future__ import annotations

import math

import numpy as np

from cgdcore import UserError

__all__ = ["SCHEDULES", "DEFAULT_ITERATIONS", "lemma2_iterations", "schedule", "fitted_schedule", "eps0_for"]

SCHEDULES = ("additive", "exponential", "multiplicative", "geometric")
#: The iteration count the default ε0 aims for (:func:`eps0_for`), as many as DP-NOTEARS's gradient releases.
DEFAULT_ITERATIONS = 200


def lemma2_iterations(kind: str, eps_total: float, eps0: float, ratio: float = 1.05) -> float:
    """Lemma 2's iteration count I (real-valued) for a schedule kind (geometric: exact series)."""
    if kind == "additive":
        return (eps_total + eps0 / 2) / (eps0 + eps0 / 2)
    if kind == "exponential":
        return eps_total / (eps0 * math.e)
    if kind == "multiplicative":
        if eps0 == 1.0:
            return eps_total
        step = eps0 * (eps0 - 1) / eps_total  # the argument of the logarithm is 1 + step (log1p: exact near ε0 = 1)
        if step <= -1:
            return 0.0
        return math.log(eps0) / math.log1p(step)
    if kind == "geometric":
        # Σ_{i<I} ε0 r^i = ε0 (r^I − 1)/(r − 1) = ε_total
        return math.log1p(eps_total * (ratio - 1) / eps0) / math.log(ratio)
    raise UserError(f"unknown schedule {kind!r}; choose one of {', '.join(SCHEDULES)}.")


def schedule(kind: str, eps0: float, I: int, ratio: float = 1.05) -> np.ndarray:
    """ε_0..ε_{I−1} of the schedule (Lemma 2's exponent i/I)."""
    i = np.arange(I, dtype=float)
    if kind == "additive":
        return eps0 * (1 + i / I)
    if kind == "exponential":
        return eps0 * np.exp(i / I)
    if kind == "multiplicative":
        return eps0 ** (1 + i / I)
    if kind == "geometric":
        return eps0 * ratio ** i
    raise UserError(f"unknown schedule {kind!r}; choose one of {', '.join(SCHEDULES)}.")


def fitted_schedule(kind: str, eps_total: float, eps0: float, ratio: float = 1.05, max_iter: int = 100_000):
    """(I, ε_k): Lemma 2's I, floored, then reduced until Σ ε_k ≤ ε_total. I = 0 → UserError."""
    if not (eps0 > 0 and math.isfinite(eps0)):
        raise UserError(f"the initial budget ε0 must be a positive number; got {eps0!r}.")
    if eps0 > eps_total:
        raise UserError(f"the initial budget ε0 = {eps0:g} exceeds the total ε = {eps_total:g}; lower ε0.")
    I = int(min(max_iter, math.floor(lemma2_iterations(kind, eps_total, eps0, ratio))))
    while I > 0 and schedule(kind, eps0, I, ratio).sum() > eps_total * (1 + 1e-12):
        I -= 1
    if I <= 0:
        raise UserError(f"with ε0 = {eps0:g} the {kind} schedule fits no iteration into ε = {eps_total:g}; "
                        "lower ε0 or raise the total.")
    return I, schedule(kind, eps0, I, ratio)


def eps0_for(kind: str, eps_total: float, iterations: int = DEFAULT_ITERATIONS, ratio: float = 1.05) -> float:
    """The largest ε0 for which Lemma 2 gives at least ``iterations`` iterations within ε_total (bisection on log ε0;
    Lemma 2's I decreases in ε0 for every schedule). A rule on public numbers only, so the optimiser gets the same
    number of steps at every budget — with ε0 a fixed share of ε_total, a large ε would buy only a handful of
    steps (ε_total = 10⁴, ε0 = 100: six)."""
    lo, hi = math.log(1e-12), math.log(eps_total)
    if lemma2_iterations(kind, eps_total, math.exp(hi), ratio) >= iterations:
        return eps_total
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if lemma2_iterations(kind, eps_total, math.exp(mid), ratio) >= iterations:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)
