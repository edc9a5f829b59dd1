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

Noise comes from a ``numpy.random.Generator`` passed in (no global RNG), through one function,
:func:`noisy_value`, with a choice of sampler (``SAMPLERS``):

* ``"snapping"`` (the default): Mironov's snapping mechanism (CCS 2012; see
  :mod:`cgdcore.central.snapping`). The value is clamped to [−B, B] (B a power of two ≥ the
  value's known range, widened to 2Λ when the scale λ reaches it, so λ < B as Theorem 1
  needs) and the output lies on the grid of multiples of Λ. A release whose exact-Laplace
  analysis gives ε costs ε + 2^−49·B/λ per noise draw (:func:`release_epsilon`), and that
  larger ε is what gets recorded and budget-checked. The mechanisms here set λ from the ε
  they are given; the PC policies, which spend planned amounts, set it from the slightly
  smaller ε of :func:`nominal_epsilon`, so what they record never exceeds the plan.
* ``"plain"``: numpy's ``rng.laplace`` added in floating point; its outputs leak the input
  through the gaps between doubles (Mironov 2012), so its ε holds only in exact arithmetic.

AboveThreshold and sieve-and-examine compose their noise draws by the textbook Laplace proofs;
with snapping each draw's floating-point term is added to the cost (the proofs' shift argument
is Mironov's per-draw ratio bound applied to each noise variable).
"""
from __future__ import annotations

import math

import numpy as np

from cgdcore import UserError
from cgdcore.accounting import Ledger, validate_delta, validate_epsilon
from cgdcore.central.snapping import FP_TERM, snapping_grid, snapping_laplace_array

__all__ = [
    "SAMPLERS",
    "DEFAULT_SAMPLER",
    "check_sampler",
    "snapping_bound",
    "noisy_value",
    "release_epsilon",
    "nominal_epsilon",
    "laplace_cost",
    "noisy_release",
    "laplace_noise",
    "laplace_mechanism",
    "exponential_mechanism",
    "AboveThreshold",
    "above_threshold_cost",
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


#: Noise samplers: Mironov's snapping mechanism (default) or numpy's plain Laplace draw.
SAMPLERS = ("snapping", "plain")
DEFAULT_SAMPLER = "snapping"


def check_sampler(sampler) -> str:
    """A valid sampler name, or a UserError listing them."""
    if sampler not in SAMPLERS:
        raise UserError(f"unknown noise sampler {sampler!r}; choose 'snapping' (Mironov 2012, the default) or "
                        "'plain' (numpy's Laplace sampler, which leaks through floating-point gaps).")
    return sampler


def snapping_bound(scale: float, bound: float = 1.0) -> float:
    """The clamp B for a value known to lie in [−bound, bound]: the smallest power of two ≥ bound,
    replaced by 2Λ (Λ the smallest power of two ≥ λ) when that is not above λ, since Mironov's
    Theorem 1 needs λ < B. A power of two, so every output is a multiple of Λ."""
    b = float(bound)
    if not (b > 0 and math.isfinite(b)):
        raise ValueError(f"the value bound must be a finite positive number; got {bound!r}")
    lam = _check_scale(scale)
    pow2, _ = snapping_grid(b)
    return pow2 if pow2 > lam else 2.0 * snapping_grid(lam)[0]


def _fp_term(scale: float, sampler: str, bound: float) -> float:
    """Snapping's floating-point term 2^−49·B/λ for one draw (0 for the plain sampler)."""
    if check_sampler(sampler) == "plain":
        return 0.0
    return FP_TERM * snapping_bound(scale, bound) / _check_scale(scale)


def release_epsilon(epsilon: float, scales, sampler: str = DEFAULT_SAMPLER, bounds=1.0) -> float:
    """The ε to record for a release whose exact-Laplace analysis gives ``epsilon`` and that draws
    noise at ``scales`` (one scale or a sequence, one per noise variable, with their ``bounds``).

    Plain: ``epsilon`` unchanged. Snapping: ε + Σ 2^−49·B/λ (Mironov 2012, Theorem 1: each draw's
    Δ/λ becomes Δ/λ + 2^−49·B/λ)."""
    scales = [scales] if np.ndim(scales) == 0 else list(scales)
    bounds = [bounds] * len(scales) if np.ndim(bounds) == 0 else list(bounds)
    return float(epsilon) + math.fsum(_fp_term(s, sampler, b) for s, b in zip(scales, bounds))


def nominal_epsilon(budget: float, cost) -> float:
    """An ε (within 2^−40 relative of the largest) with ``cost(ε) ≤ budget``, for a ``cost`` ≥ ε
    that grows with ε, e.g. the recorded ε of a snapping release whose scale is set by ε.

    Policies spending a planned budget use it to pick their noise scale, so the recorded
    amount (Mironov's 2^−49·B/λ term included) never exceeds the plan; for the plain sampler
    the cost is ε itself and ``budget`` comes back unchanged."""
    budget = float(budget)
    if cost(budget) <= budget:
        return budget
    eps = budget * (budget / cost(budget))  # the cost is ε·(1 + tiny): scale the tiny part off
    while cost(eps) > budget:  # a bound may have widened at the smaller ε: shave a hair more
        eps *= 1.0 - 2.0 ** -40
    return eps


def laplace_cost(sensitivity: float, sampler: str = DEFAULT_SAMPLER, bound: float = 1.0):
    """ε ↦ the recorded ε of a Laplace release of scale Δ/ε (see :func:`release_epsilon`)."""
    sens = _check_scale(sensitivity)
    check_sampler(sampler)
    return lambda eps: release_epsilon(eps, sens / eps, sampler, bound)


def noisy_release(value, scale: float, rng: np.random.Generator, sampler: str = DEFAULT_SAMPLER,
                  bound: float = 1.0):
    """(noisy value, noise) for :func:`noisy_value`; the noise is the raw draw for "plain" and
    noisy − value for "snapping" (rounding and clamping included)."""
    scale = _check_scale(scale)
    if check_sampler(sampler) == "plain":
        if np.ndim(value) == 0:
            noise = float(rng.laplace(0.0, scale))
            return float(value) + noise, noise
        v = np.asarray(value, dtype=float)
        noise = rng.laplace(0.0, scale, v.shape)
        return v + noise, noise
    v = np.asarray(value, dtype=float)
    out = snapping_laplace_array(np.atleast_1d(v), scale, snapping_bound(scale, bound), rng).reshape(v.shape)
    if np.ndim(value) == 0:
        return float(out), float(out) - float(v)
    return out, out - v


def noisy_value(value, scale: float, rng: np.random.Generator, sampler: str = DEFAULT_SAMPLER, bound: float = 1.0):
    """``value`` (a float or an array) plus Laplace noise of scale λ, by the chosen sampler.

    ``"snapping"``: Mironov's snapping mechanism (CCS 2012) with B = :func:`snapping_bound`
    (``bound`` is the range the value is known to lie in, e.g. 1 for p-values); the result
    is clamped to [−B, B] and lies on the multiples of Λ ≥ λ. ``"plain"``: value + numpy's
    ``rng.laplace(0, λ)``, whose floating-point outputs leak the value (Mironov 2012).
    """
    return noisy_release(value, scale, rng, sampler, bound)[0]


def laplace_noise(rng: np.random.Generator, scale: float, size=None):
    """Draws from Lap(scale) with numpy's sampler (the "plain" sampler's noise; density
    e^{−|x|/b}/(2b)); ``scale`` must be finite and > 0. Added to a value in floating point it
    leaks through the gaps between doubles (Mironov 2012): private code uses :func:`noisy_value`."""
    return rng.laplace(0.0, _check_scale(scale), size)


def laplace_mechanism(value: float, sensitivity: float, epsilon: float, rng: np.random.Generator,
                      ledger: Ledger | None = None, *, sampler: str = DEFAULT_SAMPLER, bound: float = 1.0,
                      **release) -> tuple[float, float]:
    """Release value + Lap(Δ/ε) by ``sampler`` and declare its ε to ``ledger`` (ε itself for
    "plain", ε + 2^−49·B/λ for "snapping"). Returns (noisy value, noise)."""
    epsilon = validate_epsilon(epsilon)
    scale = _check_scale(sensitivity) / epsilon
    if ledger is not None:
        ratio = scale / sensitivity if sampler == "plain" else None  # snapping is not a Laplace PLD
        ledger.record("laplace", release_epsilon(epsilon, scale, sampler, bound), laplace_ratio=ratio, **release)
    return noisy_release(value, scale, rng, sampler, bound)


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


def above_threshold_cost(epsilon: float, sensitivity: float, sampler: str = DEFAULT_SAMPLER,
                         bounds: tuple[float, float] = (1.0, 1.0)) -> float:
    """The recorded ε of one AboveThreshold instance at ε (threshold noise 2Δ/ε with bound
    ``bounds[0]``, query noise 4Δ/ε with ``bounds[1]``): ε, plus 2^−49·B/λ per noise
    variable for the snapping sampler."""
    sens = _check_scale(sensitivity)
    return release_epsilon(epsilon, (2.0 * sens / epsilon, 4.0 * sens / epsilon), sampler, bounds)


class AboveThreshold:
    """Dwork & Roth (2014) Algorithm 1 (AboveThreshold), one instance per "above" answer.

    ρ ~ Lap(2Δ/ε) is added to the threshold once; each query adds ν_i ~ Lap(4Δ/ε) and is
    compared with the noisy threshold. The first "above" answer costs ε (declared then) and
    ends the instance; :meth:`refresh` starts the next one with a fresh ρ. Answers "below"
    cost nothing beyond that ε. Noise comes from ``sampler`` (:func:`noisy_value`); queries are
    taken to lie in [−bound, bound] (snapping clamps them there; the threshold's own bound
    also covers |threshold|). The default ``cost`` is ε for "plain" and
    ε + 2^−49·(B_ρ/λ_ρ + B_ν/λ_ν) for "snapping" (Mironov 2012, Theorem 1, per noise variable).
    """

    def __init__(self, threshold: float, sensitivity: float, epsilon: float, rng: np.random.Generator,
                 ledger: Ledger | None = None, *, cost: float | None = None, mechanism: str = "above-threshold",
                 sampler: str = DEFAULT_SAMPLER, bound: float = 1.0):
        self.epsilon = validate_epsilon(epsilon)
        self.sensitivity = _check_scale(sensitivity)
        self.threshold = float(threshold)
        self.rng = rng
        self.ledger = ledger
        self.sampler = check_sampler(sampler)
        self.bound = float(bound)
        self.threshold_bound = max(self.bound, abs(self.threshold))
        self.mechanism = mechanism
        self.threshold_scale = 2.0 * self.sensitivity / self.epsilon
        self.query_scale = 4.0 * self.sensitivity / self.epsilon
        self.cost = (above_threshold_cost(self.epsilon, self.sensitivity, self.sampler,
                                          (self.threshold_bound, self.bound)) if cost is None else float(cost))
        self.noisy_threshold = float("nan")
        self.refresh()

    def refresh(self) -> None:
        """Start a new instance: draw a fresh threshold noise ρ."""
        self.noisy_threshold = noisy_value(self.threshold, self.threshold_scale, self.rng, self.sampler,
                                           self.threshold_bound)

    def query(self, value: float, **release) -> tuple[bool, float, float]:
        """(above?, noisy value, noise). An "above" answer declares the instance's cost and
        refreshes the threshold."""
        noisy, noise = noisy_release(value, self.query_scale, self.rng, self.sampler, self.bound)
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
    if eps0 > 700:  # ln(r·e^a·(1 + (1 − r)e^{−a}/r)), without overflowing e^a
        return eps0 + math.log(rate) + math.log1p((1.0 - rate) * math.exp(-eps0) / rate)
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
                      ledger: Ledger | None = None, *, sampler: str = DEFAULT_SAMPLER, bound: float = 1.0):
    """Priv-PC Algorithm 1 (one-off sieve-and-examine), ε-DP: returns the index k or None (⊥).

    ``queries(rows) -> array`` evaluates every query f_i on the given rows. The sieve runs
    AboveThreshold with ε' = ln((n/m)(e^{ε/2} − 1) + 1) on a uniform m-row sub-sample D'
    against T − t + Lap(2Δ_m/ε') with query noise Lap(4Δ_m/ε') (line 4 with ε', the
    resolution of seed_privpc.md §9 item 1); the first hit k is examined on the full data:
    f_k(D) + Lap(2Δ/ε) ≥ T. Each half costs ε/2 (declared when spent); with the snapping
    sampler each half also pays its draws' floating-point terms (:func:`release_epsilon`), the
    sieve's before amplification. Query values lie in [−bound, bound].
    """
    epsilon = validate_epsilon(epsilon)
    n = data.shape[0]
    eps_s = sieve_epsilon(epsilon, n, m)
    idx = rng.choice(n, size=m, replace=False)
    sub_vals = np.asarray(queries(data[idx]), dtype=float)
    check_sampler(sampler)
    t_scale, q_scale, e_scale = 2.0 * sensitivity_sub / eps_s, 4.0 * sensitivity_sub / eps_s, 2.0 * sensitivity_full / epsilon
    t_bound = max(float(bound), abs(threshold - tweak))
    t_hat = noisy_value(threshold - tweak, t_scale, rng, sampler, t_bound)
    noisy = noisy_value(sub_vals, q_scale, rng, sampler, bound)
    hits = np.flatnonzero(noisy >= t_hat)
    if hits.size == 0:
        return None
    k = int(hits[0])
    if ledger is not None:
        sieve_cost, examine_cost = epsilon / 2, epsilon / 2
        if sampler != "plain":
            eps_s_cost = release_epsilon(eps_s, (t_scale, q_scale), sampler, (t_bound, bound))
            sieve_cost = amplified_epsilon(eps_s_cost, m / n)
            examine_cost = release_epsilon(examine_cost, e_scale, sampler, bound)
        ledger.record("sieve (sub-sampled AboveThreshold)", sieve_cost, group="sieve")
        ledger.record("laplace", examine_cost, group="examine",
                      laplace_ratio=2.0 / epsilon if sampler == "plain" else None)
    full = float(np.asarray(queries(data), dtype=float)[k])
    return k if noisy_value(full, e_scale, rng, sampler, bound) >= threshold else None
