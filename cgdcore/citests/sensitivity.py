"""Sensitivities of the private CI statistics: the proven one, and the papers' constants.

All functions take the (public) dataset size n and return an ℓ1 sensitivity of a scalar statistic
under replace-one neighbours (n fixed). Which of them gives a *valid* DP guarantee is itself a
teaching point:

* :func:`kendall_public_z_sensitivity` — 9/√n for the Kendall statistic with a public normaliser
  (:func:`cgdcore.citests.kendall.kendall_public_z_from_table`), proven below and checked by an
  exhaustive search over one-row replacements in the tests. This is what the private runs use.
* Priv-PC's z-sensitivity c1/√n (Theorem 3) for its statistic normalised by sqrt(Σ w_k) over the
  *usable* strata is only sketched (Appendix D is missing). It is not a bound: one replaced row can
  make a stratum usable or unusable and move Σ w_k (an exhaustive search finds 7.0/√n > 6/√n with
  five rows). Offered "as in paper", with no guarantee.
* CURATE's constant (seed_curate.md §2.3) comes from an invalid product rule and underestimates the
  empirical worst case by 2.3–3.3×; offered "as in paper", with no guarantee.
"""
from __future__ import annotations

import functools
import math
import numbers

from cgdcore import UserError

__all__ = [
    "KENDALL_PUBLIC_C",
    "kendall_public_z_sensitivity",
    "p_sensitivity",
    "KENDALL_C1",
    "CURATE_VARIANTS",
    "kendall_z_sensitivity",
    "kendall_p_sensitivity",
    "subsampled_p_sensitivity",
    "curate_constant",
    "curate_p_sensitivity",
    "g2_sensitivity",
]

#: Named choices of Priv-PC's constant c1 (seed_privpc.md §5, "Sensitivity constant c1").
KENDALL_C1 = {"reference code": 6.0, "paper asymptotic": 4.5}

#: CURATE's constant C in Δ = C/√n: "code" (cgdCURATE reference code, 0.3626748) or "paper"
#: (App. VI-B eq. 16 as printed, 0.51290); seed_curate.md §2.3.
CURATE_VARIANTS = ("code", "paper")


def _check_n(n, name: str = "n") -> float:
    if isinstance(n, bool) or not isinstance(n, numbers.Real):
        raise UserError(f"{name} must be a number of rows (>= 1); got {n!r}.")
    v = float(n)
    if not math.isfinite(v) or v < 1:
        raise UserError(f"{name} must be a number of rows >= 1; got {n!r}.")
    return v


def _check_c1(c1) -> float:
    if isinstance(c1, bool) or not isinstance(c1, numbers.Real) or not math.isfinite(float(c1)) or c1 <= 0:
        raise UserError(f"the sensitivity constant c1 must be a positive number; got {c1!r}.")
    return float(c1)


def _check_sided(sided: str) -> int:
    if sided == "one":
        return 1
    if sided == "two":
        return 2
    raise UserError(f"sided must be 'one' or 'two'; got {sided!r}.")


#: The proven constant c in Δz̃ < c/√n for the public-normaliser Kendall statistic.
KENDALL_PUBLIC_C = 9.0


def kendall_public_z_sensitivity(n) -> float:
    """Global sensitivity of z̃ = Σ_k a_k / sqrt(9n/4), a_k = 9(C_k − D_k)/(2n_k + 5): Δz̃ < 9/√n.

    Proof (replace one row r = (s, x, y) by r' = (s', x', y'); n fixed and public). Write S_k = C_k − D_k.
    A row's pairs with the other n_k − 1 rows of its stratum each contribute −1, 0 or +1 to S_k.

    * Same stratum (s = s'): only stratum k changes, each of the row's n_k − 1 pair signs by at most 2,
      so |ΔS_k| ≤ 2(n_k − 1) and |Δa_k| ≤ 18(n_k − 1)/(2n_k + 5) < 9.
    * A row moving between strata (s ≠ s'): stratum k loses r (n_k = m + 1 → m) and stratum l gains r'.
      With S_rest the other m rows' S (|S_rest| ≤ m(m − 1)/2) and δ the row's own pairs (|δ| ≤ m),
      a_k − a_k' = 9[δ/(2m + 7) − 2S_rest/((2m + 5)(2m + 7))], so
      |Δa_k| ≤ 9m(3m + 4)/((2m + 5)(2m + 7)) < 27/4 (as 4m(3m + 4) < 3(2m + 5)(2m + 7)).
      Gaining a row is the same change reversed: |Δa_l| < 27/4. Together |ΔΣa| < 27/2.
    * Empty, tiny and degenerate strata: a stratum with n_k ≤ 2 rows, or constant x or y, has S_k = 0
      and a_k = 0, so nothing switches on or off; a stratum that empties or appears is the m = 0 case
      above (bound 0). Strata never enter through a data-dependent weight: the normaliser is public.

    Hence |Δz̃| < (27/2)/sqrt(9n/4) = 9/√n. |z̃| has the same sensitivity (||a| − |b|| ≤ |a − b|).
    Checked by exhaustive search over every one-row replacement of every small table (tests).
    """
    return KENDALL_PUBLIC_C / math.sqrt(_check_n(n))


def g2_sensitivity(n) -> float:
    """Global sensitivity of the stratified G statistic G = 2 Σ_k Σ_ij O_ij ln(O_ij/E_ij) (any arities, any
    number of strata): ΔG ≤ 4·g(n − 1), g(m) = (m + 1) ln(m + 1) − m ln m ≤ ln n + 1.

    Proof (replace one row: remove it, then add another; n fixed and public). With f(c) = c ln c (f(0) = 0),
    G/2 = T = Σ_xyz f(c_xyz) − Σ_xz f(c_xz) − Σ_yz f(c_yz) + Σ_z f(c_z) (the n ln n terms cancel; strata with
    no rows contribute 0, so empty strata switch nothing on or off). Adding a row (x, y, z) to counts
    a = c_xyz ≤ b = c_xz ≤ d = c_z and a ≤ c = c_yz ≤ d changes T by [g(d) − g(b)] − [g(c) − g(a)], where
    g(k) = f(k + 1) − f(k) is increasing with g(0) = 0; each bracket lies in [0, g(m)] for m rows before the
    addition, so |ΔT| ≤ g(m). Removing a row is an addition reversed. A replacement — in the same stratum or
    moving between strata, in a tiny or degenerate stratum alike — is one removal (n → n − 1 rows) and one
    addition (n − 1 → n), so |ΔT| ≤ 2 g(n − 1) and |ΔG| ≤ 4 g(n − 1) = 4[n ln n − (n − 1) ln(n − 1)].
    The bound does not depend on the conditioning set, so a minimum over sets moves by as little.
    Checked by exhaustive search over every one-row replacement of small datasets (tests).
    """
    n = _check_n(n)
    if n < 2:
        return 0.0
    return 4.0 * (n * math.log(n) - (n - 1.0) * math.log(n - 1.0))


def p_sensitivity(dz: float, sided: str = "one") -> float:
    """Sensitivity of the normal p-value of a statistic with sensitivity ``dz``: Φ(Δz) − ½ one-sided.

    p = Φ(−|z|) moves by ∫ φ over the interval |z| moves in; φ is decreasing on [0, ∞), so the
    largest change is ∫_0^{Δz} φ = Φ(Δz) − ½. Two-sided p = 2Φ(−|z|) doubles it.
    """
    factor = _check_sided(sided)
    return factor * 0.5 * math.erf(float(dz) / math.sqrt(2.0))


def kendall_z_sensitivity(n, c1: float = 6.0) -> float:
    """Priv-PC's claimed sensitivity of its conditional Kendall z, **as in paper**: Δ_z(n) = c1/√n.

    Not a bound for the statistic normalised over usable strata (module docstring). Source: Priv-PC (Wang, Pang, Song, NeurIPS 2020), Theorem 3: "c1/√n … c1 … approaching
    9/2"; reference code (sunblaze-ucb ``src/pc.py``): 6/√n. Default c1 = 6 (code,
    conservative); 4.5 is the "paper asymptotic" value. See seed_privpc.md §5 and §10;
    resolution: configurable c1, default 6 (seed_privpc.md §9.10).
    """
    return _check_c1(c1) / math.sqrt(_check_n(n))


def kendall_p_sensitivity(n, c1: float = 6.0, sided: str = "one") -> float:
    """Priv-PC's p-value sensitivity **as in paper**: Δ_p(n) = Φ(c1/√n) − ½ (one-sided p).

    The one-sided p = 1 − Φ(|z|) is Lipschitz in z with its steepest slope φ(0) at z = 0, so a
    change of at most Δ_z = c1/√n in z moves p by at most ∫_0^{Δ_z} φ = Φ(Δ_z) − ½
    (Priv-PC reference code, which integrates φ numerically; seed_privpc.md §5 table:
    n = 1,000 → 0.07524, 10,000 → 0.02392, 100,000 → 0.0075689 with c1 = 6;
    anchors_cd.md §1.2). For the two-sided p₂ = 2(1 − Φ(|z|)) = 2·p₁, every change doubles,
    so ``sided="two"`` returns 2·(Φ(c1/√n) − ½). Computed as ½·erf(Δ_z/√2), exact for small Δ_z.
    """
    return p_sensitivity(kendall_z_sensitivity(n, c1), sided)


def subsampled_p_sensitivity(n, m, c1: float = 6.0, sided: str = "one", method: str = "reference") -> float:
    """Sensitivity of the Kendall p-value computed on a sub-sample of m of the n rows.

    ``method="reference"``: Δ_p(n)·sqrt(n/m), what the Priv-PC reference code uses
    (seed_privpc.md §5, "Subsample: the code uses Δ_p·sqrt(n/m)"; §10).
    ``method="direct"``: Δ_p(m) = Φ(c1/√m) − ½, the sensitivity of the statistic on m rows.
    Since Φ is concave on [0, ∞) and sqrt(n/m) ≥ 1, reference ≥ direct: the code's value is
    conservative (seed_privpc.md §5).
    """
    nv = _check_n(n)
    mv = _check_n(m, "m (sub-sample size)")
    if mv > nv:
        raise UserError(f"the sub-sample size m={m!r} cannot exceed n={n!r}.")
    if method == "reference":
        return kendall_p_sensitivity(nv, c1, sided) * math.sqrt(nv / mv)
    if method == "direct":
        return kendall_p_sensitivity(mv, c1, sided)
    raise UserError(f"method must be 'reference' or 'direct'; got {method!r}.")


@functools.lru_cache(maxsize=None)
def curate_constant(variant: str = "code") -> float:
    """CURATE's constant C in Δ_p ≤ C/√n for the Kendall p-value (seed_curate.md §2.3).

    C = max_{i ≥ 2} g(i)·L/(i − 1) with g(i) = 9i(i+1)/(2(2i+7)) − 9i²/(2(2i+5)) (App. VI-B
    eqs. 14–16; the n_i² vs n_i(n_i−1) inconsistency kept as printed), attained at i = 2:
    * ``"code"``: L = 2/√(2π) (cgdCURATE ``CURATE_cb.py``) → C = 0.3626748;
    * ``"paper"``: L = 2/√π (eq. 16 as printed, an extra √2) → C = 0.51290.
    """
    if variant not in CURATE_VARIANTS:
        raise UserError(f"CURATE sensitivity variant must be one of {CURATE_VARIANTS}; got {variant!r}.")
    lead = 2.0 / math.sqrt(2.0 * math.pi) if variant == "code" else 2.0 / math.sqrt(math.pi)
    best = 0.0
    for i in range(2, 10_000):  # g(i)/(i-1) decreases; the max is at i = 2
        g = 9.0 * i * (i + 1) / (2.0 * (2 * i + 7)) - 9.0 * i * i / (2.0 * (2 * i + 5))
        best = max(best, lead * g / (i - 1))
    return best


def curate_p_sensitivity(n, variant: str = "code", sided: str = "one") -> float:
    """CURATE's sensitivity of the Kendall p-value: Δ = C/√n (seed_curate.md §2.3).

    C from :func:`curate_constant` (0.3626748 "code", 0.51290 "paper"); at n = 10⁵ the code
    value is 0.0011469. ``sided="two"`` doubles it (p₂ = 2p₁). **Not a valid worst-case
    bound**: the derivation multiplies sensitivities (an invalid rule) and the empirical
    worst case is ≈1.19/√n for skewed marginals (seed_curate.md §2.3 and §7 item 9). Use
    :func:`kendall_p_sensitivity` for a conservative choice.
    """
    factor = _check_sided(sided)
    return factor * curate_constant(variant) / math.sqrt(_check_n(n))
