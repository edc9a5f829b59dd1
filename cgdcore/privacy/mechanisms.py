"""Central-DP measurements. Each one knows its sensitivity, its noise and its cost, and declares the
cost to the run's :class:`~cgdcore.privacy.ledger.Ledger` when (and only when) it releases.

Noise (``SAMPLERS``):

* ``"discrete"`` (default, floating-point safe): the value is put on a public lattice and exact
  discrete Laplace noise is added to the integer (:mod:`cgdcore.privacy.discrete`). The costs below
  then hold exactly, shift arguments included.
* ``"plain"`` ("as in paper"): numpy's floating-point Laplace draw, as the papers' code does. Its
  outputs leak the noised value through the gaps between doubles (Mironov 2012), so a run that
  uses it has no guarantee (the ledger says so).

Measurements:

* :class:`LaplaceMechanism` — value + Lap(Δ/ε): ε-DP (Dwork, McSherry, Nissim & Smith 2006).
* :class:`AboveThreshold` — Dwork & Roth (2014) Algorithm 1: threshold noise of scale 2Δ/ε, query
  noise 4Δ/ε, one instance ends at its first "above" answer and costs ε, *charged when it opens*
  (its "below" answers are part of what it released, so an instance still open when the run ends
  has been paid for). On a sub-sample of m of n rows drawn fresh for each instance, an instance
  whose noise is set for ε' costs ln(1 + (m/n)(e^{ε'} − 1)) (Balle, Barthe & Gaboardi 2018, Thm 9,
  sampling without replacement, replace-one neighbours).
* :class:`SieveAndExamine` — Priv-PC Algorithm 1: a sub-sampled AboveThreshold at
  ε' = ln((n/m)(e^{ε/2} − 1) + 1) (costing ε/2 after amplification) against T − t, then on a hit
  the full-data value + Lap(2Δ/ε) against T (ε/2): ε per round.
* :class:`GaussianMechanism` — value (or vector) + discrete Gaussian on a lattice, ρ-zCDP with
  ρ = K²/(2σ²) for the integer ℓ2 sensitivity K (Canonne, Kamath & Steinke 2020, Thm 14).
* :class:`ExponentialMechanism` — P[r] ∝ exp(ε·u_r/(2Δu)) (McSherry & Talwar 2007), ε-DP and ε²/8-zCDP, exact.

AboveThreshold's proof on the lattice (discrete sampler): answers compare q_i + ν_i with τ + ρ,
q_i the lattice index of query i (integer sensitivity K), ρ ~ DLap(2K/ε), ν_i ~ DLap(4K/ε). For
neighbours, map ρ ↦ ρ + K and ν_k ↦ ν_k + (q_k − q'_k) + K on the "above" query: both are integer
shifts (bijections of ℤ), every "below" stays below, the "above" stays above, and the densities
change by at most e^{ε/2}·e^{ε/2} (the DLap ratio bound of :mod:`cgdcore.privacy.discrete`).
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from cgdcore import UserError
from cgdcore.privacy.discrete import (MAX_SIGMA2, GaussianStream, Lattice, NoiseStream, bernoulli_exp_parts,
                                     rational_rate)
from cgdcore.privacy.ledger import BudgetExceeded, Ledger, validate_delta, validate_epsilon, zcdp_epsilon

__all__ = [
    "SAMPLERS", "DEFAULT_SAMPLER", "PLAIN_NOTE", "check_sampler", "Noisy", "LaplaceMechanism", "GaussianMechanism",
    "AboveThreshold",
    "Answer", "SieveAndExamine", "ExponentialMechanism", "amplified_epsilon", "sieve_epsilon",
    "analytic_gaussian_sigma", "classical_gaussian_sigma", "BudgetExceeded",
]

#: Noise samplers: exact discrete Laplace on a lattice (default) or numpy's floating-point draw.
SAMPLERS = ("discrete", "plain")
DEFAULT_SAMPLER = "discrete"
PLAIN_NOTE = ("noise from numpy's floating-point Laplace sampler ('plain', as in the papers' code): its outputs "
              "reveal the noised value through the gaps between doubles (Mironov 2012)")


def check_sampler(sampler) -> str:
    """A valid sampler name, or a UserError listing them."""
    if sampler not in SAMPLERS:
        raise UserError(f"unknown noise sampler {sampler!r}; choose 'discrete' (exact discrete Laplace on a lattice, "
                        "the default) or 'plain' (numpy's floating-point Laplace, as in the papers' code; no "
                        "guarantee).")
    return sampler


def _positive(x: float, what: str) -> float:
    v = float(x)
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{what} must be a finite positive number; got {x!r}")
    return v


class Noisy(NamedTuple):
    """One noised value: ``released`` is the exact value the noise was added to (its lattice point for
    the discrete sampler), ``sensitivity`` that value's sensitivity as charged, ``scale`` the noise's."""

    released: float
    noise: float
    noisy: float
    sensitivity: float
    scale: float


class _Noise:
    """Laplace noise of rate ε for values of sensitivity Δ lying in [−bound, bound]."""

    def __init__(self, sensitivity: float, epsilon: float, rng: np.random.Generator, sampler: str, bound: float,
                 lattice: Lattice | None = None):
        self.sampler = check_sampler(sampler)
        self.rng = rng
        self.epsilon = _positive(epsilon, "ε")
        if self.sampler == "discrete":
            self.lattice = lattice or Lattice.for_sensitivity(sensitivity, bound)
            self.stream = NoiseStream(rng, self.epsilon, self.lattice.sensitivity)
            self.sensitivity = self.lattice.sensitivity * self.lattice.resolution
            self.scale = self.stream.t / self.stream.s * self.lattice.resolution
        else:
            self.sensitivity = _positive(sensitivity, "sensitivity")
            self.scale = self.sensitivity / self.epsilon

    def index(self, value: float) -> int:
        return int(self.lattice.index(value))

    def add(self, value: float) -> Noisy:
        if self.sampler == "plain":
            z = float(self.rng.laplace(0.0, self.scale))
            return Noisy(float(value), z, float(value) + z, self.sensitivity, self.scale)
        q = self.index(value)
        z = self.stream.draw()
        lat = self.lattice
        return Noisy(float(lat.value(q)), float(lat.value(z)), float(lat.value(q + z)), self.sensitivity, self.scale)


class LaplaceMechanism:
    """value + Lap(Δ/ε), ε-DP; one object per (Δ, ε), charging ε per release (module docstring)."""

    def __init__(self, sensitivity: float, epsilon: float, rng: np.random.Generator, ledger: Ledger | None, *,
                 sampler: str = DEFAULT_SAMPLER, bound: float = 1.0, mechanism: str = "laplace", group: str = ""):
        self.cost = validate_epsilon(epsilon)
        self.noise = _Noise(sensitivity, self.cost, rng, sampler, bound)
        self.ledger = ledger
        self.mechanism = mechanism
        self.group = group

    def affordable(self, *also) -> bool:
        return self.ledger is None or self.ledger.can_afford(self.cost, *also)

    def release(self, value: float, *, order: int | None = None, what: str = "") -> Noisy:
        """Charge ε (BudgetExceeded if the filter refuses) and return the noised value."""
        if self.ledger is not None:
            ratio = self.noise.scale / self.noise.sensitivity if self.noise.sampler == "plain" else None
            self.ledger.record(self.mechanism, self.cost, order=order, what=what, group=self.group,
                               laplace_ratio=ratio)
        return self.noise.add(value)


class NoiseTooLarge(UserError):
    """A budget so small that its noise exceeds the exact sampler's range (a planned order stops on it, as on noise
    too large to decide anything; elsewhere it is the user's error: give a larger budget)."""


class GaussianMechanism:
    """value + N_Z(0, σ²) on a lattice (a scalar, or a vector of ``dim`` coordinates), ρ-zCDP.

    Lattice: resolution r = 2^j ≤ Δ/steps, values clipped to [−bound, bound] coordinate-wise and floored to
    r. Each coordinate's index moves by less than |Δ_i|/r + 2 between neighbours (floor, plus the float
    margin of :mod:`cgdcore.privacy.discrete`), so the index vector's ℓ2 sensitivity is at most
    K = ⌈Δ/r + 2√dim⌉ (⌈Δ/r⌉ + 1 for a scalar). Noise: independent discrete Gaussians of integer variance
    σ_L² = ⌈K²/(2ρ)⌉ per coordinate, so the release is K²/(2σ_L²) ≤ ρ zCDP (Canonne, Kamath & Steinke 2020,
    Thm 14: Rényi divergence α‖Δ‖²/(2σ²) for integer shifts); ``cost`` is that ρ. ``steps`` shrinks when
    σ_L would exceed the int64 sampler's range, at the price of slightly more rounding noise.
    """

    def __init__(self, sensitivity: float, rho: float, rng: np.random.Generator, ledger: Ledger | None, *,
                 bound: float = 1.0, dim: int = 1, steps: int = 256, mechanism: str = "gaussian", group: str = ""):
        sens = _positive(sensitivity, "sensitivity")
        rho = _positive(rho, "ρ")
        self.dim = int(dim)
        sigma_over_delta = 1.0 / math.sqrt(2.0 * rho)
        # a finer lattice at large ρ, so that σ stays ≥ 10 lattice steps and the rounding stays negligible
        steps = int(min(max(steps, math.ceil(10.0 * math.sqrt(2.0 * rho) * 4)), 2**40))
        while True:
            lat = Lattice.for_sensitivity(sens, bound, steps)
            k = (lat.sensitivity if self.dim == 1 else
                 math.ceil(sens / lat.resolution + 2.0 * math.sqrt(self.dim)))
            sigma2 = math.ceil(k * k / (2.0 * rho))
            if sigma2 <= MAX_SIGMA2 or steps <= 1:
                break
            steps //= 2
        if sigma2 > MAX_SIGMA2:
            raise NoiseTooLarge(f"ρ = {rho:.3g} is too small for the discrete Gaussian sampler (σ/Δ = "
                                f"{sigma_over_delta:.3g}); give a larger budget.")
        self.lattice, self.k, self.sigma2 = lat, int(k), int(sigma2)
        self.cost = k * k / (2.0 * sigma2)
        self.sensitivity = k * lat.resolution
        self.scale = math.sqrt(sigma2) * lat.resolution  # σ on the value axis
        self.stream = GaussianStream(rng, sigma2)
        self.ledger, self.mechanism, self.group = ledger, mechanism, group

    def affordable(self) -> bool:
        return self.ledger is None or self.ledger.can_afford((self._epsilon(), 0.0, self.cost))

    def _epsilon(self) -> float:
        return zcdp_epsilon(self.cost, self.ledger.delta) if self.ledger is not None else self.cost

    def release(self, value, *, order: int | None = None, what: str = ""):
        """Charge ρ (BudgetExceeded if the filter refuses) and return the noised value: a :class:`Noisy` for a
        scalar, (released, noise, noisy) arrays for a vector."""
        if self.ledger is not None:
            self.ledger.record(self.mechanism, self._epsilon(), order=order, what=what, group=self.group,
                               rho=self.cost)
        lat = self.lattice
        if self.dim == 1:
            q = int(lat.index(value))
            z = self.stream.draw()
            return Noisy(float(lat.value(q)), float(lat.value(z)), float(lat.value(q + z)), self.sensitivity,
                         self.scale)
        q = lat.index(value)
        z = self.stream.draw(q.size).reshape(q.shape)
        return lat.value(q), lat.value(z), lat.value(q + z)


#: the trace stages of the sparse vector (SVT-PC's instances, Priv-PC's sieve): AboveThreshold releases only each
#: query's above/below answer (Dwork & Roth 2014, Thm 3.23); its noisy threshold and noisy query values are the
#: mechanism's internal draws, not covered by ε, and a trace that shows them is a diagnostic
ANSWER_ONLY_STAGES = frozenset({"svt", "sieve"})


class Answer(NamedTuple):
    """One AboveThreshold answer: ``threshold`` is the noisy threshold it was compared with and
    ``charged`` the ε this query recorded (the instance's cost on its opening query, else 0)."""

    above: bool
    value: Noisy
    threshold: float
    charged: float


class AboveThreshold:
    """Dwork & Roth (2014) Algorithm 1, instance after instance (module docstring for the proof).

    ``epsilon`` sets the noise (threshold 2Δ/ε, queries 4Δ/ε); an instance costs ``cost`` =
    ε, or its amplification ln(1 + rate·(e^ε − 1)) when each instance runs on a fresh uniform
    sub-sample at ``rate`` = m/n. The cost is charged when an instance opens (its first query), so
    the instance open at the end of a run is paid for. An "above" answer closes the instance.
    """

    def __init__(self, threshold: float, sensitivity: float, epsilon: float, rng: np.random.Generator,
                 ledger: Ledger | None, *, sampler: str = DEFAULT_SAMPLER, bound: float = 1.0, rate: float = 1.0,
                 mechanism: str = "above-threshold", group: str = "svt"):
        self.epsilon = validate_epsilon(epsilon)
        self.cost = amplified_epsilon(self.epsilon, rate)
        self.threshold = float(threshold)
        bound = max(float(bound), abs(self.threshold))
        lattice = Lattice.for_sensitivity(sensitivity, bound) if check_sampler(sampler) == "discrete" else None
        self._rho = _Noise(sensitivity, self.epsilon / 2.0, rng, sampler, bound, lattice)
        self._nu = _Noise(sensitivity, self.epsilon / 4.0, rng, sampler, bound, lattice)
        self.ledger = ledger
        self.mechanism = mechanism
        self.group = group
        self.is_open = False
        self.noisy_threshold = float("nan")
        self.instances = 0

    @property
    def threshold_scale(self) -> float:
        return self._rho.scale

    @property
    def query_scale(self) -> float:
        return self._nu.scale

    def can_open(self, *also) -> bool:
        """Whether the filter admits a new instance (plus ``also`` releases reserved with it)."""
        return self.ledger is None or self.ledger.can_afford(self.cost, *also)

    def open(self, *, order: int | None = None, what: str = "") -> None:
        """Charge the instance and draw its threshold noise (BudgetExceeded if refused)."""
        if self.ledger is not None:
            self.ledger.record(self.mechanism, self.cost, order=order, group=self.group, what=what)
        self._t = self._rho.add(self.threshold)
        self.noisy_threshold = self._t.noisy
        self.is_open = True
        self.instances += 1

    def query(self, value: float, *, order: int | None = None, what: str = "") -> Answer:
        """Compare ``value`` + noise with the noisy threshold; opens (and charges) an instance first if
        none is open. An "above" answer closes the instance."""
        charged = 0.0
        if not self.is_open:
            self.open(order=order, what=what)
            charged = self.cost
        v = self._nu.add(value)
        threshold = self.noisy_threshold
        above = v.noisy >= threshold
        if above:
            self.is_open = False
        return Answer(bool(above), v, threshold, charged)


class SieveAndExamine:
    """Priv-PC (Wang, Pang & Song 2020) Algorithm 1, one round after another, ε per round.

    Sieve: on a fresh uniform sub-sample of m of the n rows (drawn when a round opens), AboveThreshold
    with ε' = ln((n/m)(e^{ε/2} − 1) + 1) and sub-sample sensitivity ``sens_sub`` against T − t (or
    ``sieve_threshold``); its instance costs ε/2 after amplification and is charged when the round opens.
    Examine: on the first sieve hit, the full-data value + Lap(2Δ/ε), decided by ``examine_rule`` (default:
    at or above T), charged ε/2 then; the round ends either way (the reference code's refresh semantics,
    which the proof needs; seed_privpc.md §2).
    """

    def __init__(self, threshold: float, tweak: float, n: int, m: int, sens_full: float, sens_sub: float,
                 epsilon: float, rng: np.random.Generator, ledger: Ledger | None, *,
                 sampler: str = DEFAULT_SAMPLER, bound: float = 1.0, sieve_threshold: float | None = None,
                 examine_rule: Callable[[float], bool] | None = None):
        self.epsilon = validate_epsilon(epsilon)
        if not 1 <= m <= n:
            raise ValueError(f"sub-sample size m must be in [1, n]; got m={m}, n={n}")
        self.n, self.m, self.rng = int(n), int(m), rng
        self.threshold = float(threshold)
        #: the examine's decision from its noisy value (default: at or above the un-tweaked threshold)
        self.examine_rule = examine_rule or (lambda noisy: noisy >= self.threshold)
        self.eps_sieve = sieve_epsilon(self.epsilon, self.n, self.m)
        at = self.threshold - tweak if sieve_threshold is None else float(sieve_threshold)
        self.sieve = AboveThreshold(at, sens_sub, self.eps_sieve, rng, ledger, sampler=sampler,
                                    bound=bound, rate=self.m / self.n, mechanism="sieve (sub-sampled AboveThreshold)",
                                    group="sieve")
        self.examine = LaplaceMechanism(sens_full, self.epsilon / 2.0, rng, ledger, sampler=sampler, bound=bound,
                                        group="examine")
        self.rows: np.ndarray | None = None
        self.rounds = 0

    @property
    def cost(self) -> float:
        return self.sieve.cost + self.examine.cost

    def can_open(self) -> bool:
        """A round is affordable only with its examine reserved."""
        return self.sieve.can_open(self.examine.cost)

    def query(self, sub_value: Callable[[np.ndarray], float], full_value: Callable[[], float], *,
              order: int | None = None, what: str = ""):
        """One query: ``sub_value(rows)`` on the round's sub-sample, ``full_value()`` on the whole data if
        the sieve fires. Returns (stage, independent, Answer of the sieve, Noisy of the examine or None,
        ε charged by this query)."""
        charged = 0.0
        if not self.sieve.is_open:
            if self.m < self.n:
                self.rows = np.sort(self.rng.choice(self.n, size=self.m, replace=False))
            elif self.rows is None:  # every round sieves on all rows: one index array, and callers see the same
                self.rows = np.arange(self.n)  # rows as in the round before
            self.sieve.open(order=order, what=f"sieve round on {self.m} rows")
            charged += self.sieve.cost
        ans = self.sieve.query(sub_value(self.rows), order=order, what=what)
        if not ans.above:
            return "sieve", False, ans, None, charged
        self.rounds += 1
        ex = self.examine.release(full_value(), order=order, what=f"examine {what}")
        return "examine", bool(self.examine_rule(ex.noisy)), ans, ex, charged + self.examine.cost


class ExponentialMechanism:
    """Index r with P[r] ∝ exp(ε·u_r/(2Δu)) (McSherry & Talwar 2007): ε-DP, and ε-bounded-range, hence
    ε²/8-zCDP (Cesar & Rogers 2021, Lemma 3.2), charged per selection (ε, and ρ = ε²/8 for a zCDP ledger).

    Exact, with no floating-point probability: the utilities go to a public lattice (resolution r ≤ Δu/1024,
    clamp ``bound``, integer sensitivity K; :class:`~cgdcore.privacy.discrete.Lattice`), the rate ε/(2K) is
    rounded down to a rational s/t, and the index is drawn by rejection — r uniform among the allowed entries,
    accepted with probability exp(−(q_max − q_r)·s/t) by the exact Bernoulli of CKS 2020 — so
    P[r] ∝ exp(q_r·s/t) exactly. Between neighbours every q_r moves by at most K, so each weight and the
    normaliser move by at most e^{K·s/t} ≤ e^{ε/2}. Entries of −inf are never chosen (which entries are −inf
    must not depend on the data)."""

    def __init__(self, sensitivity: float, epsilon: float, rng: np.random.Generator, ledger: Ledger | None, *,
                 bound: float = 2.0**40, mechanism: str = "exponential", group: str = ""):
        self.cost = validate_epsilon(epsilon)
        self.sensitivity = _positive(sensitivity, "utility sensitivity")
        self.lattice = Lattice.for_sensitivity(self.sensitivity, bound)
        self.rate = rational_rate(self.cost, 2 * self.lattice.sensitivity)  # (s, t): s/t ≤ ε/(2K)
        self.rng, self.ledger, self.mechanism, self.group = rng, ledger, mechanism, group

    @property
    def rho(self) -> float:
        return self.cost * self.cost / 8.0

    def affordable(self) -> bool:
        return self.ledger is None or self.ledger.can_afford((self.cost, 0.0, self.rho))

    def select(self, utilities, *, order: int | None = None, what: str = "") -> int:
        u = np.asarray(utilities, dtype=float)
        if u.ndim != 1 or u.size == 0:
            raise ValueError("utilities must be a non-empty 1-D array")
        allowed = np.flatnonzero(~np.isneginf(u))
        if allowed.size == 0:
            raise ValueError("every utility is −inf: nothing can be selected")
        if self.ledger is not None:
            self.ledger.record(self.mechanism, self.cost, order=order, group=self.group, what=what, rho=self.rho)
        q = self.lattice.index(u[allowed])
        gap = [int(g) for g in (int(q.max()) - q)]  # Python ints: (gap·s) may exceed int64
        s, t = self.rate
        while True:
            picks = self.rng.integers(0, allowed.size, size=2 * allowed.size)
            whole = np.array([(gap[i] * s) // t for i in picks], dtype=np.int64)
            frac = np.array([(gap[i] * s) % t for i in picks], dtype=np.int64)
            ok = np.flatnonzero(bernoulli_exp_parts(self.rng, whole, frac, t))
            if ok.size:
                return int(allowed[picks[ok[0]]])


def amplified_epsilon(eps0: float, rate: float) -> float:
    """ε of an ε0-DP mechanism run on a uniform sub-sample (without replacement) at rate m/n:
    ln(1 + rate·(e^{ε0} − 1)) (Balle, Barthe & Gaboardi 2018, Thm 9)."""
    if not 0 < rate <= 1:
        raise ValueError(f"sampling rate must be in (0, 1]; got {rate!r}")
    if rate == 1:
        return float(eps0)
    if eps0 > 700:  # ln(r·e^a·(1 + (1 − r)e^{−a}/r)), without overflowing e^a
        return eps0 + math.log(rate) + math.log1p((1.0 - rate) * math.exp(-eps0) / rate)
    return math.log1p(rate * math.expm1(eps0))


def sieve_epsilon(eps: float, n: int, m: int) -> float:
    """Priv-PC Algorithm 1 line 3 / Algorithm 2 line 4: ε' = ln((n/m)(e^{ε/2} − 1) + 1), the ε the
    sieve may use on m of n rows so that, amplified, it costs ε/2."""
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
    sens = _positive(sensitivity, "sensitivity")

    def excess(log_s: float) -> float:
        s = math.exp(log_s) / sens  # σ/Δ
        a = 1.0 / (2.0 * s)
        b = epsilon * s
        return (math.exp(log_ndtr(a - b)) - math.exp(epsilon + log_ndtr(-a - b))) - delta

    lo, hi = math.log(1e-6 * sens), math.log(1e6 * sens)
    while excess(lo) < 0:
        lo -= 5.0
    while excess(hi) > 0:
        hi += 5.0
    return math.exp(brentq(excess, lo, hi, xtol=1e-14, rtol=1e-13, maxiter=500))


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Dwork & Roth (2014) Thm A.1: σ = Δ·sqrt(2 ln(1.25/δ))/ε (valid only for ε < 1)."""
    return (_positive(sensitivity, "sensitivity") * math.sqrt(2.0 * math.log(1.25 / validate_delta(delta)))
            / validate_epsilon(epsilon))
