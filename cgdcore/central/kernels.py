"""EM-PC's compiled greedy search: how many records must be removed to flip a G-test
(:func:`cgdcore.central.empc`); numba loads only when EM-PC runs."""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit


@njit(cache=True, nogil=True)
def _xlogx(v):  # pragma: no cover - compiled
    return v * np.log(v) if v > 0 else 0.0


@njit(cache=True, nogil=True)
def _best_in_stratum(t, ni, nj, nk, k, positive):  # pragma: no cover - compiled
    """Best one-record removal in stratum k: (value = positive·ΔG², i, j)."""
    kx, ky = t.shape[1], t.shape[2]
    base_n = _xlogx(nk[k] - 1.0) - _xlogx(nk[k])
    best, bi, bj = -np.inf, -1, -1
    for i in range(kx):
        if ni[k, i] == 0:
            continue
        di = _xlogx(ni[k, i] - 1.0) - _xlogx(ni[k, i])
        for j in range(ky):
            c = t[k, i, j]
            if c == 0:
                continue
            dj = _xlogx(nj[k, j] - 1.0) - _xlogx(nj[k, j])
            dg = 2.0 * ((_xlogx(c - 1.0) - _xlogx(c)) - di - dj + base_n)
            v = positive * dg
            if v > best:
                best, bi, bj = v, i, j
    return best, bi, bj


@njit(cache=True, nogil=True)
def greedy_flip_steps(tables, threshold, positive, max_steps):  # pragma: no cover - compiled
    """Steps of the greedy search (Priv-PC reference ``findJs``) on (K, kx, ky) counts.

    G² = 2 Σ_k [Σ_ij f(n_ijk) − Σ_i f(n_i.k) − Σ_j f(n_.jk) + f(n_k)], f(v) = v ln v. Each
    step removes the one record whose removal moves G² furthest towards the critical value
    (``positive`` = +1 raises it, −1 lowers it); the search stops when the best move would
    reach the critical value, or after ``max_steps``.
    """
    K, kx, ky = tables.shape
    t = np.empty((K, kx, ky))
    ni = np.zeros((K, kx))
    nj = np.zeros((K, ky))
    nk = np.zeros(K)
    for k in range(K):  # the margins in loops: numba's sum(axis=…) costs over a CPU-second to compile
        for i in range(kx):
            for j in range(ky):
                c = float(tables[k, i, j])
                t[k, i, j] = c
                ni[k, i] += c
                nj[k, j] += c
                nk[k] += c
    g = 0.0
    for k in range(K):
        s = _xlogx(nk[k])
        for i in range(t.shape[1]):
            s -= _xlogx(ni[k, i])
            for j in range(t.shape[2]):
                s += _xlogx(t[k, i, j])
        for j in range(t.shape[2]):
            s -= _xlogx(nj[k, j])
        g += 2.0 * s
    bestv = np.empty(K)
    besti = np.empty(K, np.int64)
    bestj = np.empty(K, np.int64)
    for k in range(K):
        bestv[k], besti[k], bestj[k] = _best_in_stratum(t, ni, nj, nk, k, positive)
    steps = 0
    while True:
        k = int(np.argmax(bestv))
        v = bestv[k]
        if not np.isfinite(v):
            return steps
        if positive * (g + positive * v) >= positive * threshold:
            return steps
        if steps >= max_steps:
            return steps
        steps += 1
        i, j = besti[k], bestj[k]
        t[k, i, j] -= 1.0
        ni[k, i] -= 1.0
        nj[k, j] -= 1.0
        nk[k] -= 1.0
        g += positive * v
        bestv[k], besti[k], bestj[k] = _best_in_stratum(t, ni, nj, nk, k, positive)
