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

__all__ = ["SCHEDULES", "lemma2_iterations", "schedule", "fitted_schedule"]

SCHEDULES = ("additive", "exponential", "multiplicative", "geometric")


def lemma2_iterations(kind: str, eps_total: float, eps0: float, ratio: float = 1.05) -> float:
    """Lemma 2's iteration count I (real-valued) for a schedule kind (geometric: exact series)."""
    if kind == "additive":
        return (eps_total + eps0 / 2) / (eps0 + eps0 / 2)
    if kind == "exponential":
        return eps_total / (eps0 * math.e)
    if kind == "multiplicative":
        if eps0 == 1.0:
            return eps_total
        if eps0 < 1.0:
            arg = 1 - eps0 * (1 - eps0) / eps_total
        else:
            arg = 1 + eps0 * (eps0 - 1) / eps_total
        if arg <= 0 or arg == 1:
            return 0.0
        return math.log(eps0) / math.log(arg)
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
