"""Exact discrete noise on an integer lattice: the floating-point-safe basis of every central mechanism.

Why a lattice. Textbook ``x + Lap(b)`` in doubles leaks x through the gaps between doubles (Mironov
2012), and the sparse-vector proof shifts the threshold noise by the sensitivity Δ, which a snapping
grid coarser than Δ cannot do. Here every released value v is first mapped to an integer

    q(v) = ⌊clamp_B(v) / r⌋,   r = 2^j a public resolution,

and noise is an integer drawn *exactly* from the discrete Laplace distribution
P[Z = z] ∝ exp(−|z|·s/t) (Canonne, Kamath & Steinke 2020, "The discrete Gaussian for differential
privacy", Algorithms 1–2: only uniform integers and Bernoulli(exp(−γ)) draws with rational γ, no
floating-point probability anywhere). The output (q + Z)·r is post-processing of an integer.

Integer sensitivity (:class:`Lattice`). If |v − v'| ≤ Δ for the exact values, and each computed value
is within η < r/2 of its exact value, then |q(v) − q(v')| ≤ K = ⌈Δ/r⌉ + 1:
v/r is exact (r a power of two), clamping is 1-Lipschitz, and ⌊a⌋ − ⌊b⌋ < a − b + 1 ≤ Δ/r + 2η/r + 1,
an integer strictly below ⌈Δ/r⌉ + 2. The statistics here are computed to ~1e−12 relative, far
inside r/2 (r ≈ Δ/1024).

Privacy (pure ε, exact). With integer sensitivity K and noise scale t/s ≥ K/ε in lattice units,
P[q + Z = k] / P[q' + Z = k] = exp((|k − q'| − |k − q|)·s/t) ≤ exp(K·s/t) ≤ e^ε for every integer k,
and shifting Z by an integer is a bijection of ℤ, so the shift arguments of the sparse-vector proof
hold verbatim (:mod:`cgdcore.privacy.mechanisms`).

The random bits come from a ``numpy.random.Generator`` (PCG64): uniform integers are drawn exactly
(Lemire's method), but PCG64 is not a cryptographic generator; anyone who can predict its state
(e.g. who knows a fixed seed) can remove the noise.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["bernoulli_exp", "bernoulli_exp_parts", "discrete_laplace", "discrete_laplace_pmf", "discrete_gaussian", "discrete_gaussian_pmf",
           "rational_rate", "Lattice", "NoiseStream", "GaussianStream"]


#: sampler calls a process makes with the numpy loops before it loads the compiled ones (a long run)
NUMPY_CALLS = 256
_numpy_calls = 0


def _compiled():
    """The compiled loops (:mod:`cgdcore.privacy.kernels`: the same draws from the same generator calls, 7–19×
    faster) once numba is loaded or the process has drawn noise :data:`NUMPY_CALLS` times, else None: loading
    numba costs ~0.25 s, more than a small run's numpy loops, and a long run soon repays it."""
    global _numpy_calls
    if "numba" not in sys.modules and _numpy_calls < NUMPY_CALLS:
        _numpy_calls += 1
        return None
    from cgdcore.privacy import kernels

    return kernels


def _bernoulli_exp_unit(rng: np.random.Generator, num: np.ndarray, den: int) -> np.ndarray:
    """Bernoulli(exp(−num/den)) for integer arrays 0 ≤ num ≤ den (CKS 2020, Algorithm 1, vectorised):
    draw A_k ~ Bernoulli(γ/k) for k = 1, 2, … until the first 0; the result is 1 iff that k is odd."""
    num = np.asarray(num, dtype=np.int64)
    out = np.ones(num.shape, dtype=bool)  # k = 1: the first draw failed (or γ = 0)
    live = np.flatnonzero(num > 0)
    # Bernoulli(num/(k·den)) without forming k·den: a uniform integer of [0, k·den) is U1·den + U2 with U1
    # uniform on [0, k) and U2 on [0, den), and it is below num < den iff U1 = 0 and U2 < num. U1 = 0 in the
    # first round (k = 1) and U2 = 0 < num = 1 when den = 1 (the Bernoulli(e^−1) draws): numpy draws no bits for
    # a range of one value, so those draws are skipped and the stream, and every result, stay the same
    if den > 1 and live.size:
        live = live[rng.integers(0, den, size=live.size, dtype=np.int64) < num[live]]
    return _from_second_draw(rng, out, live, num, den)


def _bernoulli_exp_minus_one(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` Bernoulli(e^−1) draws: :func:`_bernoulli_exp_unit` with num = den = 1, the same random stream."""
    return _from_second_draw(rng, np.ones(size, dtype=bool), np.arange(size), None, 1)


def _from_second_draw(rng: np.random.Generator, out: np.ndarray, live: np.ndarray, num, den: int) -> np.ndarray:
    """Algorithm 1's loop from k = 2 for the draws ``live`` (their first draw succeeded): a draw ending at an even k
    is 0 in ``out``. Every draw still going has had the same number of successes, so one k serves them all."""
    k = 2
    while live.size:
        hit = rng.integers(0, k, size=live.size, dtype=np.int64) == 0
        if den > 1:
            hit &= rng.integers(0, den, size=live.size, dtype=np.int64) < num[live]
        if k % 2 == 0:
            out[live[~hit]] = False
        live = live[hit]
        k += 1
    return out


def bernoulli_exp(rng: np.random.Generator, num, den: int) -> np.ndarray:
    """Exact Bernoulli(exp(−num/den)) draws for integer ``num`` ≥ 0 (an array) and ``den`` ≥ 1
    (CKS 2020, Algorithm 1: ⌊γ⌋ draws of Bernoulli(e^−1), all 1, then Bernoulli(e^−(γ − ⌊γ⌋)))."""
    num = np.asarray(num, dtype=np.int64)
    whole, frac = np.divmod(num, den)
    return bernoulli_exp_parts(rng, whole, frac, den)


def bernoulli_exp_parts(rng: np.random.Generator, whole: np.ndarray, frac: np.ndarray, den: int) -> np.ndarray:
    """Bernoulli(exp(−(whole + frac/den))) for int64 arrays whole ≥ 0 and 0 ≤ frac < den."""
    whole = np.asarray(whole, dtype=np.int64)
    if (fast := _compiled()) is not None:
        return fast.bernoulli_exp_parts(rng, np.ascontiguousarray(whole), np.ascontiguousarray(frac, dtype=np.int64),
                                        int(den))
    out = _bernoulli_exp_unit(rng, np.asarray(frac, dtype=np.int64), den)
    live = np.flatnonzero(out & (whole > 0))
    left = whole[live]
    while live.size:
        ok = _bernoulli_exp_minus_one(rng, live.size)
        out[live[~ok]] = False
        left = left[ok] - 1
        live = live[ok]
        keep = left > 0
        live, left = live[keep], left[keep]
    return out


def discrete_laplace(rng: np.random.Generator, s: int, t: int, size: int) -> np.ndarray:
    """``size`` exact draws with P[Z = z] ∝ exp(−|z|·s/t) (scale t/s), CKS 2020 Algorithm 2, vectorised.

    U uniform on {0..t−1} kept with probability exp(−U/t), V the number of Bernoulli(e^−1) successes
    before the first failure, X = U + tV is geometric with ratio e^{−1/t}, Y = ⌊X/s⌋ geometric with
    ratio e^{−s/t}; a random sign, rejecting (−, 0), makes it two-sided.
    """
    if s < 1 or t < 1:
        raise ValueError(f"discrete Laplace needs integers s, t ≥ 1; got s={s}, t={t}")
    if (fast := _compiled()) is not None:
        return fast.discrete_laplace(rng, int(s), int(t), int(size))
    out = np.empty(int(size), dtype=np.int64)
    todo = np.arange(out.size)
    while todo.size:
        m = todo.size
        u = rng.integers(0, t, size=m, dtype=np.int64)
        keep = _bernoulli_exp_unit(rng, u, t)  # exp(−u/t) with u < t: bernoulli_exp's whole part is 0
        v = np.zeros(m, dtype=np.int64)
        live = np.flatnonzero(keep)
        while live.size:
            a = _bernoulli_exp_minus_one(rng, live.size)
            v[live[a]] += 1
            live = live[a]
        y = (u + t * v) // s
        neg = rng.integers(0, 2, size=m, dtype=np.int8) == 1
        ok = keep & ~(neg & (y == 0))
        out[todo[ok]] = np.where(neg, -y, y)[ok]
        todo = todo[~ok]
    return out


#: Largest σ² the int64 sampler takes: 2σ²t² (t ≈ σ) and, on the fast path |Y| ≤ 3t, (|Y|t − σ²)² must stay
#: below 2^63; larger |Y| are handled in exact Python integers.
MAX_SIGMA2 = 10 ** 9


def discrete_gaussian(rng: np.random.Generator, sigma2: int, size: int) -> np.ndarray:
    """``size`` exact draws with P[Z = z] ∝ exp(−z²/(2σ²)) for an integer σ² ≥ 1 (CKS 2020, Algorithm 3,
    vectorised): Y from the discrete Laplace of scale t = ⌊σ⌋ + 1, kept with probability
    exp(−(|Y| − σ²/t)²/(2σ²)) = exp(−(|Y|t − σ²)²/(2σ²t²)), an exact Bernoulli of a rational exponent
    (all in int64 for σ² up to ~10^9)."""
    sigma2 = int(sigma2)
    if not 1 <= sigma2 <= MAX_SIGMA2:
        raise ValueError(f"discrete Gaussian needs an integer 1 ≤ σ² ≤ {MAX_SIGMA2}; got {sigma2}")
    t = math.isqrt(sigma2) + 1
    den = 2 * sigma2 * t * t
    out = np.empty(int(size), dtype=np.int64)
    todo = np.arange(out.size)
    while todo.size:
        y = np.abs(discrete_laplace(rng, 1, t, todo.size))
        big = y > 3 * t  # (|Y|t − σ²)² could leave int64: exact Python integers for these (~5 % of draws)
        small = ~big
        whole = np.zeros(y.size, dtype=np.int64)
        frac = np.zeros(y.size, dtype=np.int64)
        whole[small], frac[small] = np.divmod((y[small] * t - sigma2) ** 2, den)
        for i in np.flatnonzero(big):
            w, f = divmod((int(y[i]) * t - sigma2) ** 2, den)
            whole[i], frac[i] = w, f
        ok = bernoulli_exp_parts(rng, whole, frac, den)
        signed = np.where(rng.integers(0, 2, size=y.size, dtype=np.int8) == 1, -y, y)
        out[todo[ok]] = signed[ok]
        todo = todo[~ok]
    return out


def discrete_gaussian_pmf(z, sigma2: int, support: int = 60) -> np.ndarray:
    """Exact-up-to-float pmf of :func:`discrete_gaussian` at integers ``z`` (normalised over ±support·σ)."""
    s = math.sqrt(sigma2)
    grid = np.arange(-int(support * s) - 1, int(support * s) + 2)
    norm = np.exp(-grid.astype(float) ** 2 / (2.0 * sigma2)).sum()
    return np.exp(-np.asarray(z, dtype=float) ** 2 / (2.0 * sigma2)) / norm


def discrete_laplace_pmf(z, s: int, t: int) -> np.ndarray:
    """Exact pmf of :func:`discrete_laplace` at integers ``z``: (1 − e^{−s/t})/(1 + e^{−s/t})·e^{−|z|s/t}."""
    a = s / t
    c = math.tanh(a / 2.0)  # (1 − e^−a)/(1 + e^−a)
    return c * np.exp(-np.abs(np.asarray(z, dtype=float)) * a)


def rational_rate(epsilon: float, k: int) -> tuple[int, int]:
    """(s, t) with s/t ≤ ε/K as a rational, t a power of two and s ≥ 2^20 (or as large as t allows):
    the noise rate in lattice units, rounded *down*, so the noise is never smaller than asked."""
    target = Fraction(float(epsilon)) / int(k)
    e = max(0, 20 - math.floor(math.log2(float(target)))) if target > 0 else 52
    t = 1 << min(e, 52)
    s = math.floor(target * t)
    if s < 1:
        raise ValueError(f"ε/K = {float(target):.3g} is too small for the discrete sampler")
    return int(s), int(t)


@dataclass(frozen=True)
class Lattice:
    """The public grid of a release: resolution r = 2^j, clamp bound B, integer sensitivity K.

    :meth:`for_sensitivity` picks r as the largest power of two ≤ Δ/1024, so rounding adds at most
    (2r)/Δ ≈ 0.2 % to the noise, and K = ⌈Δ/r⌉ + 1 (see the module docstring for the proof).
    """

    resolution: float
    bound: float
    sensitivity: int

    @classmethod
    def for_sensitivity(cls, delta: float, bound: float, steps: int = 1024) -> "Lattice":
        d, b = float(delta), float(bound)
        if not (d > 0 and math.isfinite(d)):
            raise ValueError(f"a lattice needs a finite sensitivity Δ > 0; got {delta!r}")
        if not (b > 0 and math.isfinite(b)):
            raise ValueError(f"a lattice needs a finite bound B > 0; got {bound!r}")
        r = math.ldexp(1.0, math.floor(math.log2(d / steps)))
        while r > d / steps:  # floor(log2) of an inexact log: make sure r ≤ Δ/steps
            r /= 2.0
        k = math.ceil(d / r) + 1
        bound_steps = min(math.ceil(b / r), 2**52)
        return cls(r, bound_steps * r, int(k))

    def index(self, values) -> np.ndarray:
        """⌊clamp_B(v)/r⌋ as int64 (exact: r is a power of two). NaN is refused: it has no lattice point.
        One Python number (a release's common case) takes the same steps in Python floats: 3× faster."""
        if isinstance(values, (float, int)):
            v = float(values)
            if v != v:
                raise ValueError("a NaN value cannot be released")
            return np.int64(math.floor(math.ldexp(min(max(v, -self.bound), self.bound), -_exponent(self.resolution))))
        v = np.asarray(values, dtype=np.float64)
        if np.isnan(v).any():
            raise ValueError("a NaN value cannot be released")
        v = np.clip(v, -self.bound, self.bound)
        return np.floor(np.ldexp(v, -_exponent(self.resolution))).astype(np.int64)

    def value(self, index) -> np.ndarray:
        """The lattice point k·r of integer ``index`` (exact)."""
        if isinstance(index, (int, np.integer)):
            return np.float64(math.ldexp(float(index), _exponent(self.resolution)))
        return np.ldexp(np.asarray(index, dtype=np.float64), _exponent(self.resolution))

    def scale(self, epsilon: float) -> float:
        """The noise's scale on the value axis, (t/s)·r ≥ K·r/ε."""
        s, t = rational_rate(epsilon, self.sensitivity)
        return t / s * self.resolution


def _exponent(r: float) -> int:
    m, e = math.frexp(r)
    return e - 1  # r = 2^(e−1) exactly (m == 0.5)


class GaussianStream:
    """Discrete Gaussian draws of one integer variance σ², produced in blocks (the noise does not depend on the
    data, so drawing it ahead changes nothing but speed)."""

    BLOCK = 256

    def __init__(self, rng: np.random.Generator, sigma2: int):
        self.rng = rng
        self.sigma2 = int(sigma2)
        self._buf = np.empty(0, dtype=np.int64)
        self._at = 0

    def draw(self, size: int | None = None):
        want = 1 if size is None else int(size)
        if self._at + want > self._buf.size:
            fresh = discrete_gaussian(self.rng, self.sigma2, max(self.BLOCK, want))
            self._buf = np.concatenate([self._buf[self._at:], fresh])
            self._at = 0
        out = self._buf[self._at:self._at + want]
        self._at += want
        return int(out[0]) if size is None else out.copy()


class NoiseStream:
    """Discrete Laplace draws at one rate, produced in blocks (the noise does not depend on the data,
    so drawing it ahead changes nothing but speed)."""

    BLOCK = 256

    def __init__(self, rng: np.random.Generator, epsilon: float, k: int):
        self.rng = rng
        self.s, self.t = rational_rate(epsilon, k)
        self._buf = np.empty(0, dtype=np.int64)
        self._at = 0

    def draw(self, size: int | None = None):
        """One integer (size None) or an int64 array of ``size`` draws."""
        want = 1 if size is None else int(size)
        if self._at + want > self._buf.size:
            fresh = discrete_laplace(self.rng, self.s, self.t, max(self.BLOCK, want))
            self._buf = np.concatenate([self._buf[self._at:], fresh])
            self._at = 0
        out = self._buf[self._at:self._at + want]
        self._at += want
        return int(out[0]) if size is None else out.copy()
