"""The upper tail P(χ²_k ≥ s) for a whole number of degrees of freedom k, as a finite sum of positive terms.

With a = k/2 and x = s/2, P(χ²_k ≥ s) = Q(a, x), the regularised upper incomplete gamma function, which for whole
and half-whole a has closed forms (Abramowitz & Stegun 6.5.13 and 26.4.4–26.4.5; Press et al., Numerical Recipes
§6.2):

    k even (a = m):      Q(m, x)     = Σ_{j=0}^{m−1} e^−x x^j / j!                 (a Poisson tail)
    k odd  (a = m + ½):  Q(m + ½, x) = erfc(√x) + Σ_{j=0}^{m−1} e^−x x^{j+½} / Γ(j + 3/2)

Every term is positive, so the sum loses no digits to cancellation. Terms are formed in log space (no overflow of
x^j, no underflow of e^−x before the end) and summed outwards from the largest one until the rest cannot change
the sum (each side's terms fall at least geometrically past the peak), so a test costs O(√x) terms, not O(k). It
agrees with scipy's ``special.chdtrc`` to ≈1e-14 relative (tests/unit/test_chi2_tail.py checks 1e-12); the χ²
and G tests use it so that a PC run on discrete data imports no scipy (≈0.15 s CPU).
"""
from __future__ import annotations

import math

__all__ = ["chi2_upper_tail"]

_STOP = 2.0 ** -60  # a term this small relative to the running sum changes no double
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_S0, _S1, _S2, _S3, _S4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188


def _stirling_error(k: float) -> float:
    """ln Γ(k + 1) − (k + ½) ln k + k − ln √(2π) (Loader 2000, §2): the series beyond 15, lgamma below."""
    if k > 15.0:
        kk = k * k
        return (_S0 - (_S1 - (_S2 - (_S3 - _S4 / kk) / kk) / kk) / kk) / k
    return math.lgamma(k + 1.0) - (k + 0.5) * math.log(k) + k - _LOG_SQRT_2PI


def _deviance(k: float, x: float) -> float:
    """k ln(k/x) + x − k without cancellation (Loader 2000, §3: a series in v = (k − x)/(k + x) when k ≈ x)."""
    if abs(k - x) < 0.1 * (k + x):
        v = (k - x) / (k + x)
        s = (k - x) * v
        ej = 2.0 * k * v
        j = 1
        while True:
            ej *= v * v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
            j += 1
    return k * math.log(k / x) + x - k


def _log_term(k: float, x: float) -> float:
    """ln(e^−x x^k / Γ(k + 1)) for k > 0, to full relative precision at any size (Loader's saddle-point form:
    −stirling_error(k) − deviance(k, x) − ln √(2πk))."""
    return -_stirling_error(k) - _deviance(k, x) - _LOG_SQRT_2PI - 0.5 * math.log(k)


def chi2_upper_tail(statistic: float, dof: int) -> float:
    """P(χ²_dof ≥ statistic) for a whole number dof ≥ 1 (1 when statistic ≤ 0; 0 when it is +∞ or NaN, as the
    clamped scipy value was)."""
    if statistic <= 0.0:
        return 1.0
    if not statistic < math.inf:
        return 0.0
    x = 0.5 * statistic
    m, odd = divmod(int(dof), 2)
    half = 0.5 if odd else 0.0
    base = math.erfc(math.sqrt(x)) if odd else 0.0
    if m == 0:
        return base
    # terms t_j = e^−x x^{j+h} / Γ(j + h + 1), j = 0..m−1; the largest at j + h ≈ x
    peak = min(m - 1, max(0, int(x - half)))
    k = peak + half
    log_peak = -x if k == 0.0 else _log_term(k, x)
    total = 1.0  # Σ t_j / t_peak
    t = 1.0
    for j in range(peak - 1, -1, -1):  # t_j = t_{j+1}·(j + 1 + h)/x, falling
        t *= (j + 1 + half) / x
        total += t
        if t < _STOP * total:
            break
    t = 1.0
    for j in range(peak + 1, m):  # t_j = t_{j−1}·x/(j + h), falling
        t *= x / (j + half)
        total += t
        if t < _STOP * total:
            break
    log_sum = log_peak + math.log(total)
    if log_sum < -745.2:  # below the smallest double
        return base
    p = base + (total * math.exp(log_peak) if log_peak > -700.0 else math.exp(log_sum))
    return 1.0 if p > 1.0 else p
