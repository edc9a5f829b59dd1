"""Pearson χ² and G (log-likelihood ratio) tests of x ⟂ y | S, summed over the strata of S.

Per stratum k with table O (k_x × k_y), margins r_i, c_j and size n_k, the expected counts
under conditional independence are E_ij = r_i c_j / n_k, and

    X² = Σ_k Σ_ij (O_ij − E_ij)² / E_ij        (cells with E_ij > 0)
    G  = 2 Σ_k Σ_ij O_ij ln(O_ij / E_ij)       (cells with O_ij > 0)

Degrees of freedom: Σ_k (r'_k − 1)(c'_k − 1), where r'_k, c'_k count the non-empty rows and
columns of stratum k — the empty-cell adjustment of causal-learn's Chisq/Gsq tests
(``causallearn/utils/cit.py``; shared/research/anchors_cd.md §3.1). pcalg's ``gSquareDis``
instead uses the unadjusted (k_x−1)(k_y−1)·Π|S| (anchors_cd.md §3.3); we follow causal-learn.
dof = 0 (no stratum has two non-empty rows and columns) → p = 1. The p-value is the χ²
upper tail (:func:`chi2_sf`: a closed-form sum for whole dof, scipy's ``chdtrc`` otherwise).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from cgdcore.citests.chi2_tail import chi2_upper_tail
from cgdcore.citests.contingency import kernels_loaded
from cgdcore.citests.result import CIResult

__all__ = ["chisq_from_table", "reference_chisq_from_table", "chi2_test", "g2_test", "chi2_sf"]

LAMBDAS = ("pearson", "log-likelihood")
#: Compute (statistic, dof) of integer count tables with the compiled :func:`cgdcore.kernels.chisq_stat` (True),
#: the numpy reference :func:`reference_chisq_from_table` (False), or (None, default) the compiled one once the
#: kernels are loaded in this process (see ``cgdcore.citests.contingency.USE_KERNEL``).
USE_KERNEL: bool | None = None


_chdtrc = None


def chi2_sf(statistic: float, dof: float) -> float:
    """Upper tail P(χ²_dof ≥ statistic); 1 when dof ≤ 0. Whole dof (every χ²/G test) through the positive-term sum
    of :func:`cgdcore.citests.chi2_tail.chi2_upper_tail` (no scipy import); fractional dof (the de-biased local
    tests) through scipy's ``chdtrc``."""
    if dof <= 0:
        return 1.0
    if float(dof).is_integer():
        return chi2_upper_tail(float(statistic), int(dof))
    global _chdtrc
    if _chdtrc is None:
        from scipy.special import chdtrc  # lazy: importing scipy.special costs ~0.4 s

        _chdtrc = chdtrc
    p = float(_chdtrc(dof, statistic if statistic > 0.0 else 0.0))
    return 1.0 if p > 1.0 else p if p >= 0.0 else 0.0  # (NaN -> 0, as min(1, max(0, p)) gave)


def chisq_from_table(tables: np.ndarray, lambda_: str = "pearson") -> tuple[float, int]:
    """(statistic, dof) of the stratified χ² (``"pearson"``) or G (``"log-likelihood"``) test.

    ``tables`` has shape (K, k_x, k_y) (one table per stratum) or (k_x, k_y). Integer count tables go
    through one compiled call (:func:`cgdcore.kernels.chisq_stat`); other tables (e.g. the de-biased
    estimates of cgdcore.local, which are floats) through :func:`reference_chisq_from_table`. Both evaluate
    the same expressions; they differ only in the order of the final sums (≈ 1e-16 relative).
    """
    if lambda_ not in LAMBDAS:
        raise ValueError(f"lambda_ must be one of {LAMBDAS}; got {lambda_!r}")
    if (USE_KERNEL if USE_KERNEL is not None else kernels_loaded()) and isinstance(tables, np.ndarray) and tables.dtype == np.int64 and tables.ndim in (2, 3):
        from cgdcore.jit import frozen
        from cgdcore.kernels import chisq_stat

        stat, dof = chisq_stat(frozen(tables if tables.ndim == 3 else tables[None]), lambda_ == "pearson")
        return float(stat), int(dof)
    return reference_chisq_from_table(tables, lambda_)


def reference_chisq_from_table(tables: np.ndarray, lambda_: str = "pearson") -> tuple[float, int]:
    """The numpy path of before the compiled kernels (about twenty small reductions per call): the reference
    for equivalence tests and bench/tables.py, and the path for non-integer tables."""
    if lambda_ not in LAMBDAS:
        raise ValueError(f"lambda_ must be one of {LAMBDAS}; got {lambda_!r}")
    O = np.asarray(tables, dtype=np.float64)
    if O.ndim == 2:
        O = O[None]
    r = O.sum(axis=2)  # (K, kx)
    c = O.sum(axis=1)  # (K, ky)
    nk = r.sum(axis=1)
    dof = int(np.sum((np.count_nonzero(r, axis=1) - 1).clip(min=0) * (np.count_nonzero(c, axis=1) - 1).clip(min=0)))
    nz = nk > 0
    if not nz.all():
        O, r, c, nk = O[nz], r[nz], c[nz], nk[nz]
    E = r[:, :, None] * c[:, None, :] / nk[:, None, None]
    if lambda_ == "pearson":
        pos = E > 0
        stat = float(np.sum((O[pos] - E[pos]) ** 2 / E[pos]))
    else:
        pos = O > 0  # E > 0 wherever O > 0
        o = O[pos]
        stat = float(2.0 * np.sum(o * np.log(o / E[pos])))
    return max(stat, 0.0), dof


def chisq_test_of_key(stats, x: int, y: int, s: tuple[int, ...], pearson: bool) -> CIResult:
    """χ² (``pearson``) or G test for arguments already checked by ``stats.key`` (the CITest path)."""
    stat, dof = chisq_from_table(stats.table_of_key(x, y, s), "pearson" if pearson else "log-likelihood")
    return CIResult(stat, chi2_sf(stat, dof), float(dof))


def chi2_test(stats, x: int, y: int, S: Sequence[int] = ()) -> CIResult:
    """Pearson χ² test of x ⟂ y | S on discrete data held in a SuffStats."""
    stat, dof = chisq_from_table(stats.table(x, y, S), "pearson")
    return CIResult(stat, chi2_sf(stat, dof), float(dof))


def g2_test(stats, x: int, y: int, S: Sequence[int] = ()) -> CIResult:
    """G-test (G² = 2 Σ O ln(O/E)) of x ⟂ y | S on discrete data held in a SuffStats."""
    stat, dof = chisq_from_table(stats.table(x, y, S), "log-likelihood")
    return CIResult(stat, chi2_sf(stat, dof), float(dof))
