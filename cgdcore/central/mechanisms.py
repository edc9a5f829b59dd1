"""Central-DP mechanisms. Each one declares its cost to a :class:`~cgdcore.accounting.Ledger`
when (and only when) it releases something.

* Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006): f + Lap(Δ/ε) is ε-DP.
* Exponential mechanism (McSherry & Talwar 2007), sampled by the Gumbel-max trick:
  P[r] ∝ exp(ε·u(r)/(2Δu)) is ε-DP.
* AboveThreshold / sparse vector (Dwork & Roth 2014, Alg. 1): threshold noise Lap(2Δ/ε),
  query noise Lap(4Δ/ε); one "above" answer costs ε.
* Sub-sampling amplification (Balle, Barthe & Gaboardi 2018, Thm 9, without replacement):
  an ε0-DP mechanism on m of n rows is ln(1 + (m/n)(e^{ε0} − 1))-DP; Priv-PC's
  ε' = ln((n/m)(e^{ε/2} − 1) + 1) is the ε0 whose amplified cost is ε/2.
* Analytic Gaussian calibration (Balle & Wang 2018, Thm 8): the smallest σ with
  Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) ≤ δ.

Noise comes from a ``numpy.random.Generator`` passed in (no global RNG).
"""
from __future__ import annotations

import math

import numpy as np

from cgdcore.accounting import Ledger, validate_delta, validate_epsilon

__all__ = [
    "laplace_noise",
    "laplace_mechanism",
    "exponential_mechanism",
    "AboveThreshold",
    "amplified_epsilon",
    "sieve_epsilon",
    "analytic_gaussian_sigma",
    "classical_gaussian_sigma",
]


def _check_scale(scale: float) -> float:
    s = float(scale)
    if not (s > 0 and math.isfinite(s)):
        raise ValueError(f"noise scale must be a finite positive number; got {scale!r}")
    return s


def laplace_noise(rng: np.random.Generator, scale: float, size=None):
    """Draws from Lap(scale) (density e^{−|x|/b}/(2b)); ``scale`` must be finite and > 0."""
    return rng.laplace(0.0, _check_scale(scale), size)


def laplace_mechanism(value: float, sensitivity: float, epsilon: float, rng: np.random.Generator,
                      ledger: Ledger | None = None, **release) -> tuple[float, float]:
    """Release value + Lap(Δ/ε) and declare ε to ``ledger``. Returns (noisy value, noise)."""
    epsilon = validate_epsilon(epsilon)
    scale = _check_scale(sensitivity) / epsilon
    if ledger is not None:
        ledger.record("laplace", epsilon, laplace_ratio=scale / sensitivity, **release)
    noise = float(laplace_noise(rng, scale))
    return float(value) + noise, noise


def exponential_mechanism(utilities, sensitivity: float, epsilon: float, rng: np.random.Generator,
                          ledger: Ledger | None = None, **release) -> int:
    """Index r drawn with P[r] ∝ exp(ε·u_r / (2Δu)) (McSherry & Talwar 2007); ε-DP.

    Sampled as argmax(ε·u/(2Δu) + Gumbel) — exact and stable for any utility range. Entries
    of −inf are never chosen (they must not depend on the data).
    """
    epsilon = validate_epsilon(epsilon)
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise ValueError("utilities must be a non-empty 1-D array")
    if ledger is not None:
        ledger.record("exponential", epsilon, **release)
    logits = epsilon * u / (2.0 * _check_scale(sensitivity))
    return int(np.argmax(logits + rng.gumbel(size=u.size)))


class AboveThreshold:
    """Dwork & Roth (2014) Algorithm 1 (AboveThreshold), one instance per "above" answer.

    ρ ~ Lap(2Δ/ε) is added to the threshold once; each query adds ν_i ~ Lap(4Δ/ε) and is
    compared with the noisy threshold. The first "above" answer costs ε (declared then) and
    ends the instance; :meth:`refresh` starts the next one with a fresh ρ. Answers "below"
    cost nothing beyond that ε. ``threshold_noise_scale`` and ``query_noise_scale`` can be
    overridden for Priv-PC's sub-sampled variant (same ratios, different Δ and ε).
    """

    def __init__(self, threshold: float, sensitivity: float, epsilon: float, rng: np.random.Generator,
                 ledger: Ledger | None = None, *, cost: float | None = None, mechanism: str = "above-threshold"):
        self.epsilon = validate_epsilon(epsilon)
        self.sensitivity = _check_scale(sensitivity)
        self.threshold = float(threshold)
        self.rng = rng
        self.ledger = ledger
        self.cost = self.epsilon if cost is None else float(cost)
        self.mechanism = mechanism
        self.threshold_scale = 2.0 * self.sensitivity / self.epsilon
        self.query_scale = 4.0 * self.sensitivity / self.epsilon
        self.noisy_threshold = float("nan")
        self.refresh()

    def refresh(self) -> None:
        """Start a new instance: draw a fresh threshold noise ρ."""
        self.noisy_threshold = self.threshold + float(laplace_noise(self.rng, self.threshold_scale))

    def query(self, value: float, **release) -> tuple[bool, float, float]:
        """(above?, noisy value, noise). An "above" answer declares the instance's cost and
        refreshes the threshold."""
        noise = float(laplace_noise(self.rng, self.query_scale))
        noisy = float(value) + noise
        above = noisy >= self.noisy_threshold
        if above:
            if self.ledger is not None:
                self.ledger.record(self.mechanism, self.cost, **release)
            self.refresh()
        return above, noisy, noise


def amplified_epsilon(eps0: float, rate: float) -> float:
    """ε of an ε0-DP mechanism run on a uniform sub-sample (without replacement) at rate m/n:
    ln(1 + rate·(e^{ε0} − 1)) (Balle, Barthe & Gaboardi 2018, Thm 9)."""
    if not 0 < rate <= 1:
        raise ValueError(f"sampling rate must be in (0, 1]; got {rate!r}")
    return math.log1p(rate * math.expm1(eps0))


def sieve_epsilon(eps: float, n: int, m: int) -> float:
    """Priv-PC Algorithm 1 line 3 / Algorithm 2 line 4: ε' = ln((n/m)(e^{ε/2} − 1) + 1).

    ε' is the budget the sieve may use on the m-row sub-sample so that, amplified, it costs
    ε/2 on the full data: amplified_epsilon(ε', m/n) = ε/2.
    """
    if eps / 2.0 > 700:  # ln(r(e^a − 1) + 1) = a + ln r + O(e^{−a})
        return eps / 2.0 + math.log(n / m)
    return math.log1p((n / m) * math.expm1(eps / 2.0))


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ for which N(0, σ²) noise on an ℓ2-sensitivity-Δ query is (ε, δ)-DP.

    Balle & Wang (ICML 2018), Theorem 8: the mechanism is (ε, δ)-DP iff
    Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ. The left side decreases in σ; solved by
    Brent's method on log σ. ε = 1, δ = 1e-5, Δ = 1 gives σ = 3.7306 (seed_curate.md §0).
    """
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    epsilon = validate_epsilon(epsilon)
    delta = validate_delta(delta)
    sens = _check_scale(sensitivity)

    def excess(log_s: float) -> float:
        s = math.exp(log_s) / sens  # σ/Δ
        a = 1.0 / (2.0 * s)
        b = epsilon * s
        # Φ(a − b) − e^ε Φ(−a − b), in a form that keeps precision when both terms are tiny
        t1 = math.exp(log_ndtr(a - b))
        t2 = math.exp(epsilon + log_ndtr(-a - b))
        return (t1 - t2) - delta

    lo, hi = math.log(1e-6 * sens), math.log(1e6 * sens)
    while excess(lo) < 0:
        lo -= 5.0
    while excess(hi) > 0:
        hi += 5.0
    return math.exp(brentq(excess, lo, hi, xtol=1e-14, rtol=1e-13, maxiter=500))


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Dwork & Roth (2014) Thm A.1: σ = Δ·sqrt(2 ln(1.25/δ))/ε (valid only for ε < 1)."""
    return _check_scale(sensitivity) * math.sqrt(2.0 * math.log(1.25 / validate_delta(delta))) / validate_epsilon(epsilon)


def sieve_and_examine(data: np.ndarray, queries, threshold: float, tweak: float, epsilon: float, m: int,
                      sensitivity_full: float, sensitivity_sub: float, rng: np.random.Generator,
                      ledger: Ledger | None = None):
    """Priv-PC Algorithm 1 (one-off sieve-and-examine), ε-DP: returns the index k or None (⊥).

    ``queries(rows) -> array`` evaluates every query f_i on the given rows. The sieve runs
    AboveThreshold with ε' = ln((n/m)(e^{ε/2} − 1) + 1) on a uniform m-row sub-sample D'
    against T − t + Lap(2Δ_m/ε') with query noise Lap(4Δ_m/ε') (line 4 with ε', the
    resolution of seed_privpc.md §9 item 1); the first hit k is examined on the full data:
    f_k(D) + Lap(2Δ/ε) ≥ T. Each half costs ε/2 (declared when spent).
    """
    epsilon = validate_epsilon(epsilon)
    n = data.shape[0]
    eps_s = sieve_epsilon(epsilon, n, m)
    idx = rng.choice(n, size=m, replace=False)
    sub_vals = np.asarray(queries(data[idx]), dtype=float)
    t_hat = threshold - tweak + float(laplace_noise(rng, 2.0 * sensitivity_sub / eps_s))
    noisy = sub_vals + laplace_noise(rng, 4.0 * sensitivity_sub / eps_s, sub_vals.shape)
    hits = np.flatnonzero(noisy >= t_hat)
    if hits.size == 0:
        return None
    k = int(hits[0])
    if ledger is not None:
        ledger.record("sieve (sub-sampled AboveThreshold)", epsilon / 2, group="sieve")
        ledger.record("laplace", epsilon / 2, group="examine", laplace_ratio=2.0 / epsilon)
    full = float(np.asarray(queries(data), dtype=float)[k])
    return k if full + float(laplace_noise(rng, 2.0 * sensitivity_full / epsilon)) >= threshold else None
