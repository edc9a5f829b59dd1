"""Mironov's snapping mechanism: a Laplace mechanism that stays private in floating point.

Mironov, "On significance of the least significant bits for differential privacy" (CCS 2012).
Textbook x + Lap(λ) computed in doubles (numpy's ``rng.laplace`` included) has an output set
full of input-dependent gaps: some doubles can only come from some inputs, so one output can
reveal the input (§3–4 of the paper). The snapping mechanism (§5.2)

    f̃(x) = clamp_B(⌊clamp_B(x) ⊕ S ⊗ λ ⊗ LN(U*)⌉_Λ)

clamps the input to [−B, B], adds λ·ln(U*) with a random sign S, rounds to the nearest
multiple of Λ (the smallest power of two ≥ λ) and clamps again. Theorem 1: for a function of
sensitivity 1 and λ < B < 2^46·λ it is (1/λ + 2^−49·B/λ)-DP. For sensitivity Δ (the theorem
applied to f/Δ with scale λ/Δ and bound B/Δ) that reads Δ/λ + 2^−49·B/λ (:func:`snapping_epsilon`).

Sampling as implemented (numpy, vectorised, from a ``numpy.random.Generator``):

* U* is uniform over the doubles of (0, 1), each drawn with probability equal to its spacing
  (Mironov's U*, i.e. a uniform real truncated to a double): the binary exponent −k is
  geometric (P[k] = 2^−k, k ≥ 1, counted as the leading zero bits of 64-bit random words,
  drawing more words while all are zero) and the 52-bit mantissa uniform:
  U* = (1 + m·2^−52)·2^−k. Every double of [2^−1022, 1) can occur (past 2^−1022, probability
  2^−1022, ``ldexp`` rounds into the subnormals).
* LN is numpy's ``log`` (Mironov's analysis assumes a logarithm accurate to within one ulp;
  numpy's is not certified correctly rounded as CRlibm's is).
* Λ = 2^j is found from the binary exponent of λ (``math.frexp``), and the rounding is exact:
  x/Λ and k·Λ are exponent shifts (``ldexp``), the nearest integer ``rint`` (ties to even).
* A result of −0.0 is returned as +0.0, so the sign of zero carries nothing.
"""
from __future__ import annotations

import math

import numpy as np

from cgdcore import UserError

__all__ = ["snapping_laplace", "snapping_laplace_array", "snapping_epsilon", "snapping_grid",
           "uniform_doubles", "check_snapping", "FP_TERM", "MAX_BOUND_RATIO"]

#: Theorem 1's floating-point term: ε = Δ/λ + FP_TERM·B/λ.
FP_TERM = 2.0 ** -49
#: Theorem 1 needs B < 2^46·λ (so the floating-point term stays below 1/8).
MAX_BOUND_RATIO = 2.0 ** 46


def check_snapping(scale: float, bound: float) -> tuple[float, float]:
    """(λ, B) as floats, or a UserError unless λ < B < 2^46·λ (Mironov 2012, Theorem 1)."""
    lam, b = float(scale), float(bound)
    if not (lam > 0 and math.isfinite(lam)):
        raise UserError(f"the snapping mechanism needs a finite noise scale λ > 0; got {scale!r}.")
    if not (b > 0 and math.isfinite(b)):
        raise UserError(f"the snapping mechanism needs a finite clamping bound B > 0; got {bound!r}.")
    if not lam < b:
        raise UserError(f"the snapping mechanism needs the noise scale λ={lam:.6g} below the clamping bound "
                        f"B={b:.6g} (Mironov 2012, Theorem 1: λ < B < 2^46·λ); raise B.")
    if not b < MAX_BOUND_RATIO * lam:
        raise UserError(f"the snapping mechanism's bound B={b:.6g} is too large for the noise scale λ={lam:.6g}: "
                        f"Theorem 1 (Mironov 2012) needs B < 2^46·λ = {MAX_BOUND_RATIO * lam:.6g}, beyond which "
                        "its floating-point term 2^-49·B/λ stops being small; lower B or raise λ (smaller ε).")
    return lam, b


def snapping_grid(scale: float) -> tuple[float, int]:
    """(Λ, j): Λ = 2^j, the smallest power of two ≥ λ, from λ's binary exponent (exact)."""
    m, e = math.frexp(float(scale))  # λ = m·2^e, m in [0.5, 1)
    j = e - 1 if m == 0.5 else e
    return math.ldexp(1.0, j), j


def snapping_epsilon(sensitivity: float, scale: float, bound: float) -> float:
    """ε of one snapping release: Δ/λ + 2^−49·B/λ (Mironov 2012, Theorem 1, for sensitivity Δ)."""
    lam, b = check_snapping(scale, bound)
    return float(sensitivity) / lam + FP_TERM * b / lam


def _bit_length(words: np.ndarray) -> np.ndarray:
    """Bit length of each uint64 (0 for 0), exactly: each 32-bit half converts to float exactly."""
    hi = (words >> np.uint64(32)).astype(np.float64)
    lo = (words & np.uint64(0xFFFFFFFF)).astype(np.float64)
    return np.where(hi > 0, 32 + np.frexp(hi)[1], np.frexp(lo)[1]).astype(np.int64)


def uniform_doubles(rng: np.random.Generator, size=None):
    """Mironov's U*: doubles of (0, 1), each with probability equal to its spacing (see module doc)."""
    shape = () if size is None else (size if isinstance(size, tuple) else (int(size),))
    n = int(np.prod(shape, dtype=np.int64))
    k = np.ones(n, dtype=np.int64)  # U* in [2^-k, 2^-k+1): k = 1 + leading zero bits
    todo = np.arange(n)
    while todo.size:
        words = rng.integers(0, np.iinfo(np.uint64).max, size=todo.size, dtype=np.uint64, endpoint=True)
        bits = _bit_length(words)
        k[todo] += 64 - bits
        todo = todo[bits == 0]  # all 64 bits zero (probability 2^-64): keep counting
    mantissa = rng.integers(0, 1 << 52, size=n, dtype=np.int64)
    u = np.ldexp(1.0 + np.ldexp(mantissa.astype(np.float64), -52), -k)
    return u.reshape(shape) if size is not None else float(u[0])


def snapping_laplace_array(values, scale: float, bound: float, rng: np.random.Generator) -> np.ndarray:
    """Mironov's snapping mechanism applied to every entry of ``values`` (independent draws).

    Each output is clamp_B(⌊clamp_B(v) + S·λ·ln(U*)⌉_Λ): a multiple of Λ (the smallest power
    of two ≥ λ) in [−B, B], or ±B. Guarantee (Mironov 2012, Theorem 1): Δ/λ + 2^−49·B/λ per
    entry for an entry of sensitivity Δ; needs λ < B < 2^46·λ (a UserError otherwise).
    """
    lam, b = check_snapping(scale, bound)
    x = np.clip(np.asarray(values, dtype=np.float64), -b, b)
    u = uniform_doubles(rng, x.shape)
    sign = np.where(rng.integers(0, 2, size=x.shape, dtype=np.int8) == 1, 1.0, -1.0)
    y = x + sign * (lam * np.log(u))
    _, j = snapping_grid(lam)
    snapped = np.ldexp(np.rint(np.ldexp(y, -j)), j)  # nearest multiple of Λ = 2^j, exactly
    return np.clip(snapped, -b, b) + 0.0  # + 0.0 turns −0.0 into +0.0


def snapping_laplace(value: float, scale: float, bound: float, rng: np.random.Generator) -> float:
    """One release of Mironov's snapping mechanism (CCS 2012, §5.2) for a scalar ``value``.

    clamp_B(⌊clamp_B(value) ⊕ S ⊗ λ ⊗ LN(U*)⌉_Λ), λ = ``scale``, B = ``bound``, Λ the smallest
    power of two ≥ λ. It is (1/λ + 2^−49·B/λ)-DP for sensitivity 1 (Theorem 1), i.e.
    Δ/λ + 2^−49·B/λ for sensitivity Δ, and requires λ < B < 2^46·λ (UserError otherwise).
    """
    return float(snapping_laplace_array(np.asarray([value], dtype=np.float64), scale, bound, rng)[0])
