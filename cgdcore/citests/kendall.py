"""Conditional Kendall's τ, the CI statistic of Priv-PC and CURATE.

Definition (shared/research/seed_privpc.md §5, "Definition 6, reconstructed to match the
code", steps 1–8; Priv-PC reference code ``indep_test.py`` ``bincondKendall``; the same
statistic is described in CURATE §II / App. VI-B, seed_curate.md §2.2):

1. strata k = observed value-tuples of the conditioning set S;
2. per stratum Kendall's τ-a, τ_k = (C_k − D_k) / (n_k(n_k−1)/2) (ties count 0; not τ-b);
3. skip strata with n_k ≤ 2 or with x or y constant in the stratum (τ undefined there);
4. weight w_k = 1/σ_k² = 9 n_k(n_k−1) / (2(2n_k+5)) (no-ties null variance);
5. z = Σ_k w_k τ_k / sqrt(Σ_k w_k)  (= τ·sqrt(9n(n−1)/(4n+10)) for S = ∅);
7. p-value: two-sided 2(1−Φ(|z|)) by default; ``sided="one"`` gives 1−Φ(|z|), which is
   what the Priv-PC and CURATE reference code use (``norm.sf(abs(z))``, anchors_cd.md §1.1),
   so their α = 0.10 corresponds to a two-sided 0.20.

For private runs the statistic keeps every stratum and divides by the *public* normaliser
sqrt(9n/4) instead of the data-dependent sqrt(Σ_k w_k) (``normaliser="public"``, see
:func:`kendall_public_z_from_table` and its sensitivity proof in
:mod:`cgdcore.citests.sensitivity`).

Implementation (our own): C_k − D_k is computed from the stratum's k_x × k_y contingency
table with 2-D suffix cumulative sums, vectorised over all strata — O(K·k_x·k_y) after the
one bincount that builds the table, never a loop over row pairs (anchors_cd.md §1.1,
"A vectorised version"). Caveat (seed_privpc.md §9.16): on heavily tied discrete data τ-a
with the no-ties variance is conservative, and on nominal variables it depends on the
arbitrary order of the codes.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from cgdcore import UserError
from cgdcore.citests.contingency import kernels_loaded
from cgdcore.citests.result import CIResult

__all__ = ["concordance_minus_discordance", "kendall_z_from_table", "kendall_public_z_from_table", "kendall_test",
           "normal_p_value", "NORMALISERS"]

SIDES = ("two", "one")
#: "strata": Priv-PC's sqrt(Σ w_k) over usable strata (the paper's statistic, no proven sensitivity);
#: "public": sqrt(9n/4), n public (sensitivity 9/√n, proven in cgdcore.citests.sensitivity).
NORMALISERS = ("strata", "public")
#: Kendall z from integer count tables in one compiled call (:func:`cgdcore.kernels.kendall_sums`) (True); False
#: selects the numpy reference path (kept for equivalence tests and bench/tables.py); None (default), the compiled
#: call once the kernels are loaded in this process (see ``cgdcore.citests.contingency.USE_KERNEL``).
USE_KERNEL: bool | None = None


def _kernel_ok(T) -> bool:
    return (USE_KERNEL if USE_KERNEL is not None else kernels_loaded()) and isinstance(T, np.ndarray) and T.ndim == 3 and T.dtype == np.int64


def _check_sided(sided: str) -> str:
    if sided not in SIDES:
        raise UserError(f"sided must be 'two' or 'one' (Priv-PC's reference code); got {sided!r}.")
    return sided


def normal_p_value(z: float, sided: str = "two") -> float:
    """p-value of a standard-normal statistic: 2(1−Φ(|z|)) or (``sided="one"``) 1−Φ(|z|).

    Computed as erfc(|z|/√2)/2 = Φ(−|z|), accurate in the far tail (no 1 − Φ cancellation);
    the same value scipy.special.ndtr(−|z|) gives, without importing scipy.
    """
    one = 0.5 * math.erfc(abs(z) / math.sqrt(2.0))
    return min(1.0, 2.0 * one) if sided == "two" else one


def concordance_minus_discordance(tables: np.ndarray) -> np.ndarray:
    """C − D (concordant minus discordant pairs) of each k_x × k_y table in ``tables`` (K, k_x, k_y).

    A pair of rows in cells (i, j), (i', j') is concordant if (i−i')(j−j') > 0, discordant if
    < 0, and neither if tied in x or y. With strict suffix sums
    G[i,j] = Σ_{i'>i, j'>j} T[i',j'] and H[i,j] = Σ_{i'>i, j'<j} T[i',j'],
    C = Σ T∘G and D = Σ T∘H. Exact in int64.
    """
    T = np.asarray(tables, dtype=np.int64)
    K, kx, ky = T.shape
    if kx < 2 or ky < 2 or K == 0:
        return np.zeros(K, dtype=np.int64)
    # R[i,j] = Σ_{i'≥i, j'≥j} T ; G[i,j] = R[i+1, j+1]
    R = T[:, ::-1, ::-1].cumsum(axis=1).cumsum(axis=2)[:, ::-1, ::-1]
    C = np.einsum("kij,kij->k", T[:, :-1, :-1], R[:, 1:, 1:])
    # L[i,j] = Σ_{i'≥i, j'≤j} T ; H[i,j] = L[i+1, j-1]
    L = T[:, ::-1, :].cumsum(axis=1)[:, ::-1, :].cumsum(axis=2)
    D = np.einsum("kij,kij->k", T[:, :-1, 1:], L[:, 1:, :-1])
    return C - D


def kendall_z_from_table(tables: np.ndarray) -> tuple[float, int]:
    """Stratified Kendall z from per-stratum tables (K, k_x, k_y): returns (z, strata used).

    z = Σ_k 9(C_k−D_k)/(2n_k+5) / sqrt(Σ_k w_k), using w_k τ_k = 9(C_k−D_k)/(2n_k+5)
    (seed_privpc.md §5 step 5). No usable stratum → (0.0, 0).
    """
    T = np.asarray(tables)
    if T.ndim != 3:
        raise ValueError(f"tables must have shape (K, kx, ky); got {T.shape}")
    if _kernel_ok(T):  # same integers C − D; the float sums only in another order
        from cgdcore.jit import frozen
        from cgdcore.kernels import kendall_sums

        _, num, wsum, used = kendall_sums(frozen(T))
        return (0.0, 0) if used == 0 else (num / math.sqrt(wsum), int(used))
    nk = T.sum(axis=(1, 2))
    rows_used = np.count_nonzero(T.sum(axis=2), axis=1)
    cols_used = np.count_nonzero(T.sum(axis=1), axis=1)
    usable = (nk > 2) & (rows_used > 1) & (cols_used > 1)  # step 3
    if not usable.any():
        return 0.0, 0
    T = T[usable]
    nk = nk[usable].astype(np.float64)
    cmd = concordance_minus_discordance(T).astype(np.float64)
    num = float(np.sum(9.0 * cmd / (2.0 * nk + 5.0)))
    wsum = float(np.sum(9.0 * nk * (nk - 1.0) / (2.0 * (2.0 * nk + 5.0))))
    return num / math.sqrt(wsum), int(T.shape[0])


def kendall_public_z_from_table(tables: np.ndarray, n: int) -> float:
    """z̃ = Σ_k 9(C_k − D_k)/(2n_k + 5) / sqrt(9n/4): every stratum counted, a public normaliser.

    Degenerate strata (n_k ≤ 2, or x or y constant) have C_k − D_k = 0 and add nothing, so there is
    no usable/unusable switch; n is the (public) number of rows. Under independence each term has
    variance w_k < 9n_k/4, so Var(z̃) < 1 and the test is conservative. Global sensitivity < 9/√n
    (proof: :func:`cgdcore.citests.sensitivity.kendall_public_z_sensitivity`).
    """
    T = np.asarray(tables)
    if T.ndim != 3:
        raise ValueError(f"tables must have shape (K, kx, ky); got {T.shape}")
    if _kernel_ok(T):
        from cgdcore.jit import frozen
        from cgdcore.kernels import kendall_sums

        return kendall_sums(frozen(T))[0] / math.sqrt(2.25 * float(n))
    nk = T.sum(axis=(1, 2)).astype(np.float64)
    cmd = concordance_minus_discordance(T).astype(np.float64)
    return float(np.sum(9.0 * cmd / (2.0 * nk + 5.0))) / math.sqrt(2.25 * float(n))


def kendall_test(stats, x: int, y: int, S: Sequence[int] = (), sided: str = "two",
                 normaliser: str = "strata", checked: bool = False) -> CIResult:
    """Conditional Kendall test of x ⟂ y | S on discrete data held in a SuffStats.

    Returns CIResult(statistic=z, p_value, dof=number of strata). ``normaliser="strata"`` (Priv-PC's
    statistic): strata that cannot contribute are skipped and, if none is usable, z = 0 and p = 1.
    ``"public"``: the provably bounded z̃ of :func:`kendall_public_z_from_table`. ``checked``: x, y, S were
    already validated by ``stats.key`` (the CITest path), so the table is looked up without a second check.
    """
    _check_sided(sided)
    table = stats.table_of_key(x, y, S) if checked else stats.table(x, y, S)
    if normaliser == "public":
        z = kendall_public_z_from_table(table, stats.n)
        return CIResult(z, normal_p_value(z, sided), float(table.shape[0]))
    z, used = kendall_z_from_table(table)
    return CIResult(float(z), normal_p_value(z, sided), float(used))
