"""Where a private CI decision puts its noise, and where it draws the line.

Two scales (``SCALES``):

* ``"z"`` (default): the released value is the Kendall statistic z̃ itself (public normaliser, sensitivity
  9/√n, clipped to ±``Z_BOUND``, which changes no decision). A test says "independent" when the noisy |z̃| is
  at most a critical value c. Noise widens the null distribution — z̃ + N(0, σ²) is N(0, ≤ 1 + σ²) under
  independence — so c is *calibrated to the noise*: the value at which the noisy test declares a truly
  independent pair dependent no more often than the exact test at level α does (``critical_value``). Strong
  dependence keeps its whole margin, which the p-value scale squashes into [0, α] (private_decisions.md §1).
* ``"p"`` ("as in paper"): the released value is the one-sided p-value (sensitivity Φ(Δz) − ½), compared with
  the threshold T = α, as Priv-PC and CURATE do.

The critical value is computed from public quantities only (α, the noise scale), so choosing it is
post-processing.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from cgdcore import UserError
from cgdcore.central.roots import bisect_root

__all__ = ["SCALES", "Z_BOUND", "G_BOUND", "MAX_NOISE_SD", "DecisionScale", "GScale", "z_alpha", "critical_value",
           "critical_value_min", "chi2_quantile", "g_margin", "min_abs_z"]

SCALES = ("z", "p")
#: |z̃| beyond this is clipped before release: no decision changes (every critical value here is far below it).
Z_BOUND = 64.0
#: The noise standard deviation (z units) up to which critical values follow the noise (``DecisionScale.line``);
#: planned algorithms do not run an order whose noise would exceed it (cgdcore.central.policies).
MAX_NOISE_SD = 10.0


def z_alpha(alpha: float, sided: str = "one") -> float:
    """The |z| at which the exact test's p-value equals α: Φ⁻¹(1 − α) one-sided, Φ⁻¹(1 − α/2) two-sided.

    Φ⁻¹ is Wichura's AS 241 (1988), as the standard library's ``statistics.NormalDist.inv_cdf`` computes it
    (≈1e-16 relative; it and scipy's ``ndtri`` differ by ≤ 2e-15 relative, tested), so that a private run
    needs no scipy for its line."""
    from statistics import NormalDist

    return float(-NormalDist().inv_cdf(alpha if sided == "one" else alpha / 2.0))


_SQRT1_2 = math.sqrt(0.5)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def log_ndtr(x: float) -> float:
    """ln Φ(x) from the C library's erfc in four branches: −Φ(−x) above 6 (ln(1 − u) ≈ −u), ln1p(−Φ(−x)) above 0,
    ln Φ(x) above −20 (Φ(x) = erfc(−x/√2)/2), and below the asymptotic series
    ln φ(x) − ln(−x) + ln Σ_i (−1)^i (2i − 1)!!/x^{2i} summed to machine precision (Abramowitz & Stegun 26.2.12).
    Within 5e-10 relative of scipy's everywhere on [−400, 40], and the critical values below within 1e-14."""
    if x > 6.0:
        return -0.5 * math.erfc(x * _SQRT1_2)
    if x > 0.0:
        return math.log1p(-0.5 * math.erfc(x * _SQRT1_2))
    if x > -20.0:
        return math.log(0.5 * math.erfc(-x * _SQRT1_2))
    last, total, term, sign, i, inv2 = 0.0, 1.0, 1.0, 1.0, 0, 1.0 / (x * x)
    while abs(last - total) > 2.220446049250313e-16:
        i += 1
        last = total
        sign = -sign
        term *= (2 * i - 1) * inv2
        total += sign * term
    return -0.5 * x * x - math.log(-x) - _HALF_LOG_2PI + math.log(total)


def _laplace_tail(c: float, b: float) -> float:
    """P(Z + L > c) for Z ~ N(0, 1), L ~ Laplace(b), c ≥ 0 (the normal–Laplace convolution, in log space)."""
    t1 = math.exp(log_ndtr(-c))
    a = 1.0 / b
    # ½ e^{a²/2 − a c} Φ(c − a) and ½ e^{a²/2 + a c} Φ(−c − a)
    t2 = 0.5 * math.exp(0.5 * a * a - a * c + log_ndtr(c - a))
    t3 = 0.5 * math.exp(0.5 * a * a + a * c + log_ndtr(-c - a))
    return min(1.0, max(0.0, t1 + t2 - t3))


def critical_value(z_a: float, noise: str, scale: float) -> float:
    """c with P(|Z + N| > c) = P(|Z| > z_a) for Z ~ N(0, 1) and independent noise N of the given kind and scale
    ("gaussian": σ; "laplace": b; "none"), so the noisy test keeps the exact test's false-dependence rate.
    (z̃ has variance ≤ 1 under independence, so the rate is at most that.)"""
    if noise == "none" or scale <= 0:
        return z_a
    if noise == "gaussian":
        return z_a * math.sqrt(1.0 + scale * scale)
    if noise != "laplace":
        raise ValueError(f"unknown noise kind {noise!r}")
    if scale < 0.05:  # the convolution's tail formula cancels badly; a variance-matched Gaussian is within 0.1 %
        return z_a * math.sqrt(1.0 + 2.0 * scale * scale)
    target = math.erfc(z_a / math.sqrt(2.0)) / 2.0  # P(Z > z_a)
    hi = z_a + 40.0 * scale + 10.0
    return float(bisect_root(lambda c: _laplace_tail(c, scale) - target, z_a, hi))


@functools.lru_cache(maxsize=4096)
def critical_value_min(z_a: float, sd: float) -> float:
    """c with P(|Z| + N > c) = P(|Z| > z_a) for Z ~ N(0, 1) and N ~ N(0, sd²): the line for a released
    minimum m = min_S |z̃_S| + N (Gauss-PC). Under independence given some candidate S*, m ≤ |z̃_S*|, whose law is
    at most |N(0, 1)|, so the noisy test declares the pair dependent no more often than the exact test at α.
    P(|Z| + N > c) = 2∫₀^∞ φ(z)·Φ̄((c − z)/sd) dz, decreasing in c, solved by bisection."""
    if sd <= 0:
        return z_a
    from scipy.integrate import quad
    from scipy.optimize import brentq

    root2 = math.sqrt(2.0)
    target = math.erfc(z_a / root2)  # P(|Z| > z_a)

    def tail(c):
        f = lambda z: math.exp(-0.5 * z * z) * math.erfc((c - z) / (sd * root2))  # noqa: E731
        return quad(f, 0.0, math.inf, epsabs=1e-13)[0] / math.sqrt(2.0 * math.pi)

    return float(brentq(lambda c: tail(c) - target, z_a - 1.0, z_a + 10.0 * sd + 10.0, xtol=1e-9))


def min_abs_z(statistics) -> tuple[np.ndarray, int]:
    """(|z̃_S| clipped to ``Z_BOUND`` for every candidate S, the index of the smallest): Gauss-PC releases the
    smallest. Sensitivity < Δ whenever every z̃_S moves by less than Δ (|min a − min b| ≤ max |a − b|; abs and
    clipping are 1-Lipschitz)."""
    z = np.minimum(np.abs(np.asarray(statistics, dtype=float)), Z_BOUND)
    return z, int(np.argmin(z))


class DecisionScale:
    """The scale of one run: what is noised, its sensitivity and bound, and how a noisy value decides."""

    def __init__(self, kind: str, alpha: float, sided: str, z_sensitivity: float, p_sensitivity: float):
        if kind not in SCALES:
            raise UserError(f"the decision scale must be 'z' (the statistic, default) or 'p' (the p-value, as in "
                            f"the papers); got {kind!r}.")
        self.kind = kind
        self.alpha = float(alpha)
        self.sided = sided
        self.z_alpha = z_alpha(alpha, sided)
        self.sensitivity = float(z_sensitivity if kind == "z" else p_sensitivity)
        self.bound = Z_BOUND if kind == "z" else 1.0

    def value(self, result) -> float:
        """What a Laplace or Gaussian mechanism releases: the clipped signed z̃, or the p-value."""
        if self.kind == "p":
            return float(result.p_value)
        return max(-Z_BOUND, min(Z_BOUND, float(result.statistic)))

    def score(self, result) -> float:
        """What a sparse-vector query releases ("above" = independent): −|z̃| (clipped), or the p-value."""
        if self.kind == "p":
            return float(result.p_value)
        return -min(Z_BOUND, abs(float(result.statistic)))

    def line(self, noise: str = "none", scale: float = 0.0) -> float:
        """The value a noisy release is compared with: the noise-calibrated critical value c on the z scale,
        T = α on the p scale. The calibration follows the noise up to a standard deviation of ``MAX_NOISE_SD``
        only: beyond it, a line that keeps pace would call almost every pair independent and empty the graph,
        so the line stops rising and a noisier test keeps edges instead."""
        if self.kind == "p":
            return self.alpha
        sd_per_unit = math.sqrt(2.0) if noise == "laplace" else 1.0
        return critical_value(self.z_alpha, noise, min(scale, MAX_NOISE_SD / sd_per_unit))

    def min_line(self, sd: float) -> float:
        """The line for a released minimum min_S |z̃_S| + N(0, sd²) (:func:`critical_value_min`), following the
        noise up to ``MAX_NOISE_SD`` like :meth:`line`."""
        return critical_value_min(self.z_alpha, min(sd, MAX_NOISE_SD))

    def excess(self, x: int, y: int, sets, results) -> np.ndarray:
        """What Gauss-PC minimises over an edge's candidate sets: |z̃_S| clipped to ``Z_BOUND``."""
        return min_abs_z([r.statistic for r in results])[0]

    def exact_p(self, x: int, y: int, sets, results) -> float:
        """The non-private test's p-value for the pair: the largest over the candidate sets (a diagnostic)."""
        return max(float(r.p_value) for r in results)

    def set_line(self, x: int, y: int, sets, sd: float) -> float:
        """The line for Gauss-PC's released minimum (:meth:`min_line`; the same for every edge)."""
        return self.min_line(sd)

    def independent(self, noisy: float, line: float) -> bool:
        """The decision from a noisy Laplace/Gaussian release: |z̃ + noise| ≤ c, or p + noise ≥ T."""
        return abs(noisy) <= line if self.kind == "z" else noisy >= line

    def svt_threshold(self, line: float) -> float:
        """A sparse-vector threshold for :meth:`score`: −c on the z scale, T on the p scale."""
        return -line if self.kind == "z" else line


#: |G − q| beyond this is clipped before release (no decision changes: every line here is far below it).
G_BOUND = 1.0e7


@functools.lru_cache(maxsize=4096)
def chi2_quantile(dof: int, alpha: float) -> float:
    """q with P(χ²_dof > q) = α: the exact G-test's critical value."""
    from scipy.special import chdtri

    return float(chdtri(dof, alpha))


@functools.lru_cache(maxsize=4096)
def g_margin(dof: int, alpha: float, sd: float) -> float:
    """c ≥ 0 with P(X + N > q + c) = α for X ~ χ²_dof, N ~ N(0, sd²) and q = :func:`chi2_quantile`: the margin
    that keeps the noisy G-test's false-dependence rate at the exact test's α (where χ²_dof is G's null law).
    P(X + N > t) = ∫ p_dof(x)·Φ̄((t − x)/sd) dx, decreasing in t, solved by bisection."""
    q = chi2_quantile(dof, alpha)
    if sd <= 0:
        return 0.0
    from scipy.integrate import quad
    from scipy.optimize import brentq
    from scipy.special import chdtrc, gammaln

    k = 0.5 * dof
    root2 = math.sqrt(2.0)

    def density(x):
        return math.exp((k - 1.0) * math.log(x) - 0.5 * x - gammaln(k) - k * math.log(2.0)) if x > 0 else 0.0

    def tail(t):
        f = lambda x: density(x) * 0.5 * math.erfc((t - x) / (sd * root2))  # noqa: E731
        hi = max(t, q) + 40.0 * sd
        body = quad(f, 0.0, hi, limit=200, points=[min(q, hi)], epsabs=1e-14)[0]
        return body + float(chdtrc(dof, hi))  # beyond hi the normal factor is 1 to within 1e-300

    return float(brentq(lambda c: tail(q + c) - alpha, 0.0, 40.0 * sd + 10.0, xtol=1e-9))


class GScale:
    """Gauss-PC on the G statistic (``--ci-test g2``): each candidate set S releases its excess over the
    exact test's critical value, u_S = G_S − q_S, where q_S is the χ² quantile at α for the *public* degrees of
    freedom (k_x − 1)(k_y − 1)·Π_{s∈S} k_s (the schema's numbers of levels; the empty-cell adjustment of the
    non-private test is data-dependent, so it is not used). The pair is independent at an order iff
    min_S u_S + N ≤ line; u_S moves by at most ΔG = :func:`cgdcore.citests.sensitivity.g2_sensitivity` between
    neighbours whatever S is, so the minimum does too. The line is the largest :func:`g_margin` over the
    candidate sets' degrees of freedom: under independence given some candidate S*, min_S u_S ≤ u_S*, so the
    noisy test declares the pair dependent no more often than the exact test at α."""

    kind = "g"
    bound = G_BOUND

    def __init__(self, alpha: float, sensitivity: float, arities):
        self.alpha = float(alpha)
        self.sensitivity = float(sensitivity)
        self.arities = tuple(int(a) for a in arities)

    def dof(self, x: int, y: int, S) -> int:
        d = (self.arities[x] - 1) * (self.arities[y] - 1)
        for s in S:
            d *= self.arities[s]
        return max(int(d), 1)

    def excess(self, x: int, y: int, sets, results) -> np.ndarray:
        """u_S = G_S − q_S for each candidate set, clipped to ±``G_BOUND`` (1-Lipschitz)."""
        u = [float(r.statistic) - chi2_quantile(self.dof(x, y, S), self.alpha) for S, r in zip(sets, results)]
        return np.clip(np.asarray(u, dtype=float), -G_BOUND, G_BOUND)

    def set_line(self, x: int, y: int, sets, sd: float) -> float:
        return max(g_margin(self.dof(x, y, S), self.alpha, float(sd)) for S in sets)

    def exact_p(self, x: int, y: int, sets, results) -> float:
        """The noiseless version of this test's decision, as a p-value: the largest over the candidate sets of
        P(χ²_dof ≥ G_S) at the public dof, so "flipped by the noise" compares like with like (a diagnostic)."""
        from cgdcore.citests.chisq import chi2_sf

        return max(chi2_sf(float(r.statistic), self.dof(x, y, S)) for S, r in zip(sets, results))

    def line(self, noise: str = "none", scale: float = 0.0) -> float:
        return 0.0
