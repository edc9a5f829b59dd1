"""Fisher-z test of zero partial correlation, from the cached correlation matrix.

As in pcalg's ``gaussCItest`` and causal-learn's FisherZ (shared/research/anchors_cd.md
§3.1, §3.3): r = partial correlation of (x, y | S), z = atanh(r)·sqrt(n − |S| − 3),
two-sided p = 2(1 − Φ(|z|)).

The partial correlation is computed from the Schur complement of the S block of the
correlation matrix R: Σ_{ab·S} = R_ab − R_aS R_SS⁺ R_Sb for a, b ∈ {x, y}, with the
Moore–Penrose pseudo-inverse R_SS⁺ (so collinear conditioning variables are handled), and
r = Σ_{xy·S} / sqrt(Σ_{xx·S} Σ_{yy·S}). This equals −P_xy/sqrt(P_xx P_yy) with
P = R_{xyS}⁻¹ whenever that inverse exists. If x or y is (numerically) a linear function of
S, its residual variance is 0, r is undefined and x ⟂ y | S holds trivially: we report r = 0,
p = 1. Otherwise r is clipped to ±(1 − 1e−12) before atanh. With n − |S| − 3 < 1 there is
too little data for the test: statistic 0, p = 1, dof = max(n − |S| − 3, 0).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from cgdcore.citests.kendall import normal_p_value
from cgdcore.citests.result import CIResult

__all__ = ["partial_correlation", "fisherz_test"]

_R_CLIP = 1.0 - 1e-12
_RESID_TOL = 1e-10


def partial_correlation(corr: np.ndarray, x: int, y: int, S: Sequence[int] = ()) -> float:
    """Partial correlation of x and y given S from a correlation (or covariance) matrix."""
    s = list(S)
    if not s:
        sxx, syy, sxy = corr[x, x], corr[y, y], corr[x, y]
    else:
        ab = [x, y]
        R_ss = corr[np.ix_(s, s)]
        R_as = corr[np.ix_(ab, s)]
        cond = R_as @ np.linalg.pinv(R_ss, hermitian=True) @ R_as.T
        sxx = corr[x, x] - cond[0, 0]
        syy = corr[y, y] - cond[1, 1]
        sxy = corr[x, y] - cond[0, 1]
    if sxx <= _RESID_TOL * corr[x, x] or syy <= _RESID_TOL * corr[y, y]:
        return 0.0
    r = float(sxy / math.sqrt(sxx * syy))
    if not math.isfinite(r):
        return 0.0
    return max(-_R_CLIP, min(_R_CLIP, r))


def fisherz_test(stats, x: int, y: int, S: Sequence[int] = ()) -> CIResult:
    """Fisher-z test of x ⟂ y | S (two-sided). statistic = z, dof = n − |S| − 3."""
    x, y, s = stats.key(x, y, S)
    dof = stats.n - len(s) - 3
    if dof < 1:
        return CIResult(0.0, 1.0, float(max(dof, 0)))
    r = partial_correlation(stats.corr(), x, y, s)
    z = math.atanh(r) * math.sqrt(dof)
    return CIResult(z, normal_p_value(z, "two"), float(dof))
