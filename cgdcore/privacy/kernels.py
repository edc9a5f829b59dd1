"""The exact samplers' compiled loops (:mod:`cgdcore.privacy.discrete`, which uses them once numba is loaded): CKS
2020 Algorithms 1–2 on a ``numpy.random.Generator``.

numba's ``Generator.integers`` is numpy's bounded-integer code (Lemire's method on the same bit generator; see
:func:`_uniform` for the one range it gets wrong), and every call below has the size and the place in the sequence
of the numpy loop's call it replaces (all the draws still going in a round in one call, then the next call), so a
seed gives the same noise bit for bit (``tests/unit/test_privacy.py`` compares the two and hashes the stream).
"""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit


@njit(cache=True, nogil=True)
def _uniform(rng, high, m):  # pragma: no cover - compiled
    """``m`` uniform integers of [0, high) as int64: numpy's ``rng.integers(0, high, m)``. Drawn as uint64, which
    takes numpy's same path (``random_bounded_uint64_fill``): numba 0.68's int64 path computes the 64-bit Lemire
    threshold ``UINT64_MAX − range`` in floating point (uint64 minus int64), which for ranges above 2^32 that are
    not powers of two rejects other draws than numpy does."""
    return rng.integers(0, np.uint64(high), size=m, dtype=np.uint64).astype(np.int64)


@njit(cache=True, nogil=True)
def _from_second_draw(rng, out, live, m, num, den):  # pragma: no cover - compiled
    """Algorithm 1's loop from k = 2 for the first ``m`` draws of ``live`` (their first draw succeeded): a draw that
    ends at an even k is 0 in ``out``. ``num`` is ignored when ``den`` is 1 (the Bernoulli(e^−1) draws)."""
    k = np.int64(2)
    while m > 0:
        first = _uniform(rng, k, m)
        if den > 1:
            second = _uniform(rng, den, m)
        kept = 0
        for j in range(m):
            i = live[j]
            hit = first[j] == 0
            if den > 1:
                hit = hit and second[j] < num[i]
            if hit:
                live[kept] = i
                kept += 1
            elif k % 2 == 0:
                out[i] = False
        m = kept
        k += 1


@njit(cache=True, nogil=True)
def bernoulli_exp_unit(rng, num, den):  # pragma: no cover - compiled
    """Bernoulli(exp(−num/den)) for an int64 array 0 ≤ num ≤ den (Algorithm 1: A_k ~ Bernoulli(γ/k) for k = 1, 2, …
    until the first 0; the result is 1 iff that k is odd). A uniform integer of [0, k·den) is below num < den iff
    its U1 ∈ [0, k) is 0 and its U2 ∈ [0, den) is below num; U1 = 0 at k = 1, and a range of one value draws no
    bits, so den = 1 needs no draw in the first round."""
    out = np.ones(num.shape[0], np.bool_)
    live = np.flatnonzero(num > 0)
    m = live.shape[0]
    if den > 1 and m > 0:
        u = _uniform(rng, den, m)
        kept = 0
        for j in range(m):
            if u[j] < num[live[j]]:
                live[kept] = live[j]
                kept += 1
        m = kept
    _from_second_draw(rng, out, live, m, num, den)
    return out


@njit(cache=True, nogil=True)
def bernoulli_exp_minus_one(rng, size):  # pragma: no cover - compiled
    """``size`` Bernoulli(e^−1) draws: :func:`bernoulli_exp_unit` with num = den = 1."""
    out = np.ones(size, np.bool_)
    _from_second_draw(rng, out, np.arange(size), size, np.empty(0, np.int64), np.int64(1))
    return out


@njit(cache=True, nogil=True)
def _ones_before_zero(rng, cap):  # pragma: no cover - compiled
    """Rounds of Bernoulli(e^−1) draws, one per value still going (in index order): how many 1s each value gets before
    its first 0, a value stopping once it has ``cap`` 1s (a cap ≤ 0 draws nothing)."""
    ones = np.zeros(cap.shape[0], np.int64)
    live = np.flatnonzero(cap > 0)
    m = live.shape[0]
    while m > 0:
        a = bernoulli_exp_minus_one(rng, m)
        kept = 0
        for k in range(m):
            j = live[k]
            if a[k]:
                ones[j] += 1
                if ones[j] < cap[j]:
                    live[kept] = j
                    kept += 1
        m = kept
    return ones


@njit(cache=True, nogil=True)
def _where_kept(kept, values, value):  # pragma: no cover - compiled
    """Per draw: ``values[j]`` (or ``value`` when ``values`` is empty) where ``kept[j]``, else 0 — ``np.where`` in a
    loop (numba's broadcasting ``np.where`` costs over a CPU-second to compile)."""
    out = np.zeros(kept.shape[0], np.int64)
    for j in range(kept.shape[0]):
        if kept[j]:
            out[j] = values[j] if values.shape[0] else value
    return out


@njit(cache=True, nogil=True)
def bernoulli_exp_parts(rng, whole, frac, den):  # pragma: no cover - compiled
    """Bernoulli(exp(−(whole + frac/den))) for int64 arrays whole ≥ 0 and 0 ≤ frac < den: Bernoulli(e^−frac/den),
    then ⌊γ⌋ draws of Bernoulli(e^−1), all 1."""
    out = bernoulli_exp_unit(rng, frac, den)
    ones = _ones_before_zero(rng, _where_kept(out, whole, np.int64(0)))
    return out & (ones >= whole)


@njit(cache=True, nogil=True)
def discrete_laplace(rng, s, t, size):  # pragma: no cover - compiled
    """``size`` draws with P[Z = z] ∝ exp(−|z|·s/t) (Algorithm 2, each round over the draws still to make): U uniform
    on {0..t−1} kept with probability exp(−U/t); V the Bernoulli(e^−1) successes before the first failure; Y =
    ⌊(U + tV)/s⌋; a random sign, rejecting (−, 0)."""
    out = np.empty(size, np.int64)
    todo = np.arange(size)
    m = size
    while m > 0:
        u = _uniform(rng, t, m)
        keep = bernoulli_exp_unit(rng, u, t)
        v = _ones_before_zero(rng, _where_kept(keep, np.empty(0, np.int64), np.int64(1) << 62))  # V: no cap
        neg = rng.integers(0, 2, size=m, dtype=np.int8)
        left = 0
        for j in range(m):
            y = (u[j] + t * v[j]) // s
            if keep[j] and not (neg[j] == 1 and y == 0):
                out[todo[j]] = -y if neg[j] == 1 else y
            else:
                todo[left] = todo[j]
                left += 1
        m = left
    return out
